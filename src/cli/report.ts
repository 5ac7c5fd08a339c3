import { ArboristError } from '../store/light.js';
import { oneLine } from '../text/sanitize.js';
import { truncate } from '../text/width.js';
import { safeJson } from './terminal-text.js';

/** Exit code of a user's mistake or an unusable input (ArboristError): the message says what to change. */
export const EXIT_USER_ERROR = 2;
/**
 * Exit code of arborist's own fault (anything that is not an ArboristError): EX_SOFTWARE of sysexits(3), so a
 * script can tell "I asked wrongly" (2) and "the shard is damaged" (1, from the checks) from "arborist broke".
 */
export const EXIT_INTERNAL_ERROR = 70;

/**
 * How every entry point (main.ts, tui-main.ts, status-main.ts) ends on an error. A user's mistake: one clean line on
 * stderr (messages quote what the user typed and what the shard holds, so it is sanitised and cut to a readable
 * length), the same as JSON on stdout with --json, exit 2. Anything else is a bug: its first line, a second line
 * saying so and how to report it, and exit 70. Kept free of chalk and of the store's index, so that the browser's
 * and the status line's own bundles use it too.
 */
export function reportError(err: unknown, json: boolean): number {
  if (err instanceof ArboristError) {
    const line = truncate(oneLine(err.message), 300);
    process.stderr.write(`arborist: ${line}\n`);
    if (json) process.stdout.write(`${safeJson({ error: line, kind: err.kind })}\n`);
    return EXIT_USER_ERROR;
  }
  const e = err as Error;
  const line = truncate(oneLine((e?.message ?? String(err)).split('\n')[0]), 300);
  process.stderr.write(`arborist: internal error: ${line}\n`);
  process.stderr.write(
    'arborist: this is a bug in arborist, not a mistake of yours. Please report it with the output of ' +
      'the same command run with ARBORIST_DEBUG=1.\n',
  );
  if (json) process.stdout.write(`${safeJson({ error: `internal error: ${line}`, kind: 'internal' })}\n`);
  if (process.env.ARBORIST_DEBUG) process.stderr.write(`${e?.stack}\n`);
  return EXIT_INTERNAL_ERROR;
}

/** The entry points' bundles: the whole CLI, the browser, the status line, the MCP server. */
export type Entry = 'main' | 'browser' | 'status' | 'mcp';

/**
 * Runs an entry point under the one error policy: its exit code, or reportError's. A closed stdout ends it quietly.
 * `ARBORIST_TEST_INTERNAL_ERROR=<entry>` makes the body throw a plain Error first, so tests can see a bug reported
 * as one (nothing else produces one on purpose).
 */
export function runEntry(entry: Entry, argv: string[], body: () => number | Promise<number>): void {
  endQuietlyOnClosedPipe();
  const json = argv.includes('--json');
  new Promise<number>((resolve) => {
    if (process.env.ARBORIST_TEST_INTERNAL_ERROR === entry)
      throw new Error(`test fault in the ${entry} entry`);
    resolve(body());
  })
    .then((code) => {
      process.exitCode = code;
    })
    .catch((err) => {
      process.exitCode = reportError(err, json);
    });
}

/** `arborist export ... | head`: the reader went away. That is how a pipe ends, not an error: stop quietly. */
export function endQuietlyOnClosedPipe(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}
