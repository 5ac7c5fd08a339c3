import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { providerFromOptions } from '../ask/index.js';
import { findHistories } from '../import/offer.js';
import { arboristHome, Shard } from '../store/index.js';
import { buildDemo } from '../ui/runtime/demo.js';
import { runTui } from '../ui/term/app.js';
import { flag, type OptionSpec, type Parsed, str } from './args.js';
import type { Command } from './command.js';
import type { Context } from './context.js';
import { printJson } from './output.js';

/** Options of `arborist` with no command (the browser). */
export const BROWSER_OPTIONS: OptionSpec = {
  mouse: { type: 'boolean' },
  'answer-cmd': { type: 'string' },
  keys: { type: 'string' },
};

export function openBrowser(p: Parsed, ctx: Context, dbPath: string = ctx.dbPath): Promise<number> {
  const provider = providerFromOptions({ answerCmd: str(p, 'answer-cmd'), env: ctx.env });
  // The background state check runs this same program (`arborist verify`) in a process of its own.
  const verifyCommand = process.argv[1] ? [process.execPath, process.argv[1]] : undefined;
  // First start: an empty (or missing) shard offers the histories this machine has, beside the demo.
  const histories = isEmptyShard(dbPath) ? findHistories(ctx.env) : [];
  return runTui({
    dbPath,
    mouse: flag(p, 'mouse'),
    provider,
    keysPath: str(p, 'keys'),
    verifyCommand,
    histories,
  });
}

/** No shard yet, or one without a session (live or archived): a first start. */
function isEmptyShard(dbPath: string): boolean {
  if (!existsSync(dbPath)) return true;
  try {
    const s = Shard.open(dbPath, { readonly: true });
    try {
      return s.isEmpty();
    } finally {
      s.close();
    }
  } catch {
    return false;
  }
}

export const demoCmd: Command = {
  name: 'demo',
  usage: 'arborist demo [--db PATH] [--no-open] [--mouse]',
  summary: 'open a demo shard (built on first use): sessions, branches and cross-session forks',
  options: { ...BROWSER_OPTIONS, 'no-open': { type: 'boolean' } },
  async run(p, ctx) {
    // The demo lives in its own shard unless --db names one, so it never mixes with real history.
    const dbPath = str(p, 'db') ?? join(arboristHome(ctx.env), 'demo.db');
    const shard = Shard.open(dbPath);
    let added = { sessions: 0, turns: 0 };
    try {
      if (shard.listSessions().length === 0) added = buildDemo(shard);
    } finally {
      shard.close();
    }
    const open =
      !flag(p, 'no-open') && !ctx.out.json && process.stdout.isTTY === true && process.stdin.isTTY === true;
    if (!open) {
      if (ctx.out.json) printJson(ctx.out, { db: dbPath, ...added });
      else
        ctx.out.out(
          `demo shard: ${dbPath}${added.turns ? ` (${added.sessions} sessions, ${added.turns} turns added)` : ''}\n`,
        );
      return 0;
    }
    return openBrowser(p, ctx, dbPath);
  },
};
