// The store's light entry, not store/index.js (see commands/status.ts).
import { ArboristError, resolveDbPath } from '../store/status-entry.js';
import { oneLine } from '../text/sanitize.js';
import { truncate } from '../text/width.js';
import { parse } from './args.js';
import { runStatus, STATUS_OPTIONS, statusCmd } from './commands/status.js';
import { colourWanted, safeJson, terminalSafe } from './terminal-text.js';

/**
 * `arborist status` on its own: bin/arborist starts this bundle instead of the whole CLI when the command is
 * `status`. The whole CLI loads every command, the TUI and their packages (~80 ms before the first line of ours);
 * a status line runs every few seconds, so it loads only what it uses. Same parsing, same context and errors as
 * main.ts (which also lists and runs the command, so `node dist/bundle/main.js status` answers the same).
 */
function run(argv: string[], env: NodeJS.ProcessEnv): number {
  const p = parse(argv, STATUS_OPTIONS);
  if (p.values.help) {
    process.stdout.write(`usage: ${statusCmd.usage}\n${statusCmd.summary}\n`);
    return 0;
  }
  // As makeContext does: an empty --db is a mistake, not the default shard.
  if (p.values.db === '') throw new ArboristError('usage', '--db needs a path (it was given an empty one)');
  const dbPath = resolveDbPath(typeof p.values.db === 'string' ? p.values.db : undefined, env);
  const json = p.values.json === true;
  // As makeOutput does, without chalk: colour on a terminal only, and only our own SGR codes ever pass.
  const colour = colourWanted(env, p.values['no-color'] === true);
  return runStatus(p, {
    dbPath,
    json,
    colour,
    out: (s) => process.stdout.write(json ? s : terminalSafe(s, colour)),
    err: (s) => process.stderr.write(terminalSafe(s, colour)),
  });
}

const argv = process.argv.slice(3); // node, bin/arborist, 'status', ...
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});
try {
  process.exitCode = run(argv, process.env);
} catch (err) {
  const e = err as Error;
  const known = err instanceof ArboristError;
  const line = truncate(
    oneLine(known ? e.message : `internal error: ${(e?.message ?? String(err)).split('\n')[0]}`),
    300,
  );
  process.stderr.write(`arborist: ${line}\n`);
  if (known && argv.includes('--json'))
    process.stdout.write(`${safeJson({ error: line, kind: (err as ArboristError).kind })}\n`);
  if (!known && process.env.ARBORIST_DEBUG) process.stderr.write(`${e?.stack}\n`);
  process.exitCode = 2;
}
