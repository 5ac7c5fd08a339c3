import { ArboristError } from '../../store/index.js';
import { flag, str } from '../args.js';
import type { Command } from '../command.js';
import { providerFromArgs } from '../commands/ask.js';
import { makeOutput } from '../output.js';
import { Repl } from './repl.js';

/**
 * `arborist session [SID]`: the line-mode REPL. A person at a terminal gets a prompt with the current Bates id,
 * line editing, history and Tab completion; TERM=dumb or input that is not a terminal (a pipe, a file) gets no
 * prompt and no colour, one block of output per line read, so a script can drive it line by line.
 */
export const sessionCmd: Command = {
  name: 'session',
  usage:
    'arborist session [SID | --new [--label L]] [--answer TEXT | --answer-cmd CMD] [--no-cache] [--timeout SECONDS]',
  summary:
    'a line-mode REPL: each line is a question under the current turn, or /cd, /find, /branches, /help ...',
  options: {
    new: { type: 'boolean' },
    label: { type: 'string' },
    answer: { type: 'string' },
    'answer-cmd': { type: 'string' },
    'no-cache': { type: 'boolean' },
    timeout: { type: 'string' },
  },
  async run(p, ctx) {
    if (ctx.out.json) throw new ArboristError('usage', 'session reads and prints lines: it takes no --json');
    if (p.positionals.length > 1) throw new ArboristError('usage', `usage: ${this.usage}`);
    const given = p.positionals[0];
    const fresh = flag(p, 'new');
    if (fresh && given !== undefined)
      throw new ArboristError('usage', '--new starts a new session: give it no SID');
    if (str(p, 'label') !== undefined && !fresh)
      throw new ArboristError('usage', '--label names the session --new starts');
    const provider = providerFromArgs(p, ctx);
    // Resuming names an existing shard (a mistyped --db is said, not created); a new session may create it.
    const shard = given !== undefined ? ctx.readable() : ctx.writable();
    let sid: string | null = null;
    let current: string | null = null;
    if (given !== undefined) {
      sid = shard.resolveSession(given).sid;
      current = shard.latestTurn(sid) ?? null;
    } else if (!fresh) {
      // The newest session, at its newest turn; on a shard without sessions, a new one.
      const newest = shard.sessionSummaries()[0];
      if (newest) {
        sid = newest.sid;
        current = shard.latestTurn(sid) ?? null;
      }
    }
    const interactive =
      process.stdin.isTTY === true && process.stdout.isTTY === true && ctx.env.TERM !== 'dumb';
    const out = interactive ? ctx.out : makeOutput(false, ctx.env, true);
    return new Repl({
      ctx: { ...ctx, out },
      shard,
      provider,
      noCache: flag(p, 'no-cache'),
      label: str(p, 'label'),
      sid,
      current,
      interactive,
    }).run();
  },
};
