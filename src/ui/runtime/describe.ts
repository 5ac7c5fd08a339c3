/** An error as one line for the status bar. */
export function describe(err: unknown): string {
  const e = err as { message?: string };
  return (e?.message ?? String(err)).split('\n')[0];
}
