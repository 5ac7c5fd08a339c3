import { oneLine } from '../../text/sanitize.js';

/**
 * An error as one line for the status bar. A parser's message quotes the bytes it choked on, which come from the
 * shard (anyone's to write): it is replaced by a generic line, and every other message is sanitised.
 */
export function describe(err: unknown): string {
  if (err instanceof SyntaxError) return 'the shard holds data that cannot be read';
  const e = err as { message?: string };
  return oneLine((e?.message ?? String(err)).split('\n')[0]);
}
