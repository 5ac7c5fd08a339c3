// The store's light entry, not store/index.js (see commands/status.ts).
import { shardPathFromFlag } from '../config/index.js';
import { parse } from './args.js';
import { runStatus, STATUS_OPTIONS, statusCmd } from './commands/status.js';
import { commandHelp } from './help.js';
import { runEntry } from './report.js';
import { colourWanted, terminalSafe } from './terminal-text.js';

/**
 * `arborist status` on its own: bin/arborist starts this bundle instead of the whole CLI when the command is
 * `status`. The whole CLI loads every command, the TUI and their packages (~80 ms before the first line of ours);
 * a status line runs every few seconds, so it loads only what it uses. Same parsing, same context and errors as
 * main.ts (which also lists and runs the command, so `node dist/bundle/main.js status` answers the same).
 */
function run(argv: string[], env: NodeJS.ProcessEnv): number {
  const p = parse(argv, STATUS_OPTIONS, 'status');
  if (p.values.help) {
    process.stdout.write(commandHelp(statusCmd));
    return 0;
  }
  const dbPath = shardPathFromFlag(p.values.db, env);
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
runEntry('status', argv, () => run(argv, process.env));
