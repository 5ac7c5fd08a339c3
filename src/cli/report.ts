import { ArboristError } from '../store/index.js';
import { oneLine } from '../text/sanitize.js';
import { truncate } from '../text/width.js';
import { safeJson } from './terminal-text.js';

/**
 * How every entry point (main.ts, tui-main.ts) ends on an error: one clean line on stderr (messages quote what the
 * user typed and what the shard holds, so it is sanitised and cut to a readable length), the same as JSON on stdout
 * with --json, and exit code 2. Kept free of chalk and the commands so the browser's own bundle can use it.
 */
export function reportError(err: unknown, json: boolean): number {
  if (err instanceof ArboristError) {
    const line = truncate(oneLine(err.message), 300);
    process.stderr.write(`arborist: ${line}\n`);
    if (json) process.stdout.write(`${safeJson({ error: line, kind: err.kind })}\n`);
    return 2;
  }
  const e = err as Error;
  process.stderr.write(
    `arborist: internal error: ${truncate(oneLine((e?.message ?? String(err)).split('\n')[0]), 300)}\n`,
  );
  if (process.env.ARBORIST_DEBUG) process.stderr.write(`${e?.stack}\n`);
  return 2;
}

/** `arborist export ... | head`: the reader went away. That is how a pipe ends, not an error: stop quietly. */
export function endQuietlyOnClosedPipe(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}
