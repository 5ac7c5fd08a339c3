import { ArboristError } from '../../store/index.js';
import { exactPositionals, str } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from '../output.js';

/** The two integrity checks; both exit 1 (not 2) when they find damage, so scripts can tell damage from misuse. */

export const chainCheckCmd: Command = {
  name: 'chain-check',
  usage: 'arborist chain-check [--expect-head SEQ:HASH]',
  summary: 'check the whole audit chain (exit 1 when broken)',
  options: { 'expect-head': { type: 'string' } },
  run(p, ctx) {
    exactPositionals(p, 0, this.usage);
    const expect = str(p, 'expect-head');
    if (expect !== undefined && !/^\d+:[0-9a-f]{64}$/.test(expect)) {
      throw new ArboristError('usage', '--expect-head takes SEQ:HASH (a number, a colon, 64 hex digits)');
    }
    const r = ctx.readable().chainCheck();
    const headMatches = expect === undefined || r.head === expect;
    const ok = r.ok && headMatches;
    if (ctx.out.json) {
      printJson(ctx.out, {
        ok,
        events: r.events,
        head: r.head,
        first_broken_seq: r.first_broken_seq,
        ...(r.reason ? { reason: r.reason } : {}),
        ...(expect !== undefined ? { expected_head: expect, head_matches: headMatches } : {}),
      });
    } else {
      const c = ctx.out.color;
      if (!r.ok) ctx.out.out(`${c.red.bold('chain BROKEN')} at event ${r.first_broken_seq}: ${r.reason}\n`);
      else ctx.out.out(`${c.green('chain intact')}: ${r.events} events, head ${r.head}\n`);
      if (!headMatches) ctx.out.out(`${c.red.bold('head differs')}: expected ${expect}, found ${r.head}\n`);
    }
    return ok ? 0 : 1;
  },
};

export const verifyCmd: Command = {
  name: 'verify',
  usage: 'arborist verify',
  summary: 'recompute every hash from content (exit 1 on any mismatch)',
  options: {},
  run(p, ctx) {
    exactPositionals(p, 0, this.usage);
    const r = ctx.readable().verify();
    if (ctx.out.json) printJson(ctx.out, r);
    else {
      const c = ctx.out.color;
      if (r.ok) ctx.out.out(`${c.green('verified')}: ${r.nodes} turns, every hash matches\n`);
      else {
        ctx.out.out(
          `${c.red.bold('MISMATCH')}: ${r.mismatches.length} of ${r.nodes} turns differ from their content\n`,
        );
        if (r.edited.length) ctx.out.out(`edited: ${r.edited.join(' ')}\n`);
        ctx.out.out(`mismatches: ${r.mismatches.join(' ')}\n`);
        if (r.sessions.length) ctx.out.out(`session roots: ${r.sessions.join(' ')}\n`);
        if (r.archives?.length) ctx.out.out(`damaged archives: ${r.archives.join(' ')}\n`);
      }
    }
    return r.ok ? 0 : 1;
  },
};
