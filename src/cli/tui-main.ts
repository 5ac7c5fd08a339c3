import { shardPathFromFlag } from '../config/index.js';
import { ArboristError, asArboristError } from '../store/index.js';
import { parse } from './args.js';
import { BROWSER_OPTIONS, openBrowser } from './browser.js';
import { runEntry } from './report.js';

/**
 * `arborist` with no command (the browser) on its own: bin/arborist starts this bundle instead of the whole CLI
 * when the first argument is an option or there is none. The whole CLI loads every command and their packages
 * (chalk, the export and import code: ~45% more to compile) before the first line of ours, and the browser's first
 * screen waits for all of it. Same parsing, context checks and errors as main.ts; `--help` and `--version` are
 * main.ts's own (it lists every command), so they are handed to it whole.
 */
async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const p = parse(argv, BROWSER_OPTIONS);
  const dbPath = shardPathFromFlag(p.values.db, env);
  if (p.positionals.length > 0) throw new ArboristError('usage', `unexpected argument '${p.positionals[0]}'`);
  try {
    return await openBrowser(p, { dbPath, env });
  } catch (err) {
    // SQLite's own errors met mid-query (a corrupt page, a full disk, a lock) are said as one line of ours.
    throw asArboristError(dbPath, err) ?? err;
  }
}

const argv = process.argv.slice(2);
const first = argv[0];
let help = false;
try {
  help = parse(argv, BROWSER_OPTIONS).values.help === true;
} catch {
  // a usage error: run() says it
}
/**
 * `--help` and `--version` are main.js's (it runs its own entry on load, with the same process.argv): the launcher
 * (tui-launch.ts) imports it when this is true. Not imported from here: this file is run as a CommonJS script
 * (code-cache.ts), whose import() Node 20 supports only behind an experimental warning.
 */
export const handsOverToMain = first === '--version' || first === '-V' || help;
if (!handsOverToMain) {
  runEntry('browser', argv, () => run(argv, process.env));
}
