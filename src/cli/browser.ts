/**
 * `arborist` with no command: the browser's options and its opening. Kept apart from the commands (and from
 * output.ts, which loads chalk) so that the browser's own bundle (tui-main.ts) loads only what the browser uses.
 */
import { providerFromOptions } from '../ask/index.js';
import { demoDbPath } from '../config/index.js';
import { AGENTS } from '../import/agents.js';
import { runTui } from '../ui/term/app.js';
import { flag, type OptionSpec, type Parsed, str } from './args.js';
import type { Context } from './context.js';

/** Options of `arborist` with no command (the browser). */
export const BROWSER_OPTIONS: OptionSpec = {
  mouse: { type: 'boolean' },
  'answer-cmd': { type: 'string' },
  keys: { type: 'string' },
};

export function openBrowser(
  p: Parsed,
  ctx: Pick<Context, 'dbPath' | 'env'>,
  dbPath: string = ctx.dbPath,
): Promise<number> {
  const provider = providerFromOptions({ answerCmd: str(p, 'answer-cmd'), env: ctx.env });
  // The background state check runs this same program (`arborist verify`) in a process of its own.
  const verifyCommand = process.argv[1] ? [process.execPath, process.argv[1]] : undefined;
  // First start: an empty (or missing) shard offers the histories this machine has, beside the demo. The browser
  // asks once it has the shard open (one open, not a read-only look first), and only when it is empty.
  // The readers are loaded only then: a shard with sessions never parses them (scripts/bundle.mjs splits them out).
  const histories = () => import('../import/offer.js').then((m) => m.findHistories(ctx.env));
  return runTui({
    dbPath,
    mouse: flag(p, 'mouse'),
    provider,
    keysPath: str(p, 'keys'),
    verifyCommand,
    histories,
    agents: AGENTS,
    demoDbPath: demoDbPath(ctx.env),
  });
}
