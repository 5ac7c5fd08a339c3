import { demoDbPath } from '../config/index.js';
import { Shard } from '../store/index.js';
import { buildDemo } from '../ui/runtime/demo.js';
import { flag, str } from './args.js';
import { BROWSER_OPTIONS, openBrowser } from './browser.js';
import type { Command } from './command.js';
import { printJson } from './output.js';

export const demoCmd: Command = {
  name: 'demo',
  usage: 'arborist demo [--db PATH] [--no-open] [--mouse]',
  summary: 'open a demo shard (built on first use): sessions, branches and cross-session forks',
  options: { ...BROWSER_OPTIONS, 'no-open': { type: 'boolean' } },
  async run(p, ctx) {
    // The demo lives in its own shard unless --db names one, so it never mixes with real history.
    const dbPath = str(p, 'db') ?? demoDbPath(ctx.env);
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

export { BROWSER_OPTIONS, openBrowser };
