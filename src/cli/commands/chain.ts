import {
  ArboristError,
  asArboristError,
  type ChainCheck,
  type Shard,
  type VerifyProgress,
  type VerifyReport,
} from '../../store/index.js';
import { checkHostChain, checkRemote, type HostChainCheck, type RemoteCheck } from '../../sync/check.js';
import { checkRemoteName } from '../../sync/mirror.js';
import { counted, thousands } from '../../text/format.js';
import { exactPositionals, str } from '../args.js';
import type { Command } from '../command.js';
import type { Context } from '../context.js';
import { oneLine, printJson } from '../output.js';

/**
 * The integrity checks. Each exits 1 (not 2) when it finds damage, so scripts can tell damage from misuse; a file
 * that is no longer a usable shard (empty, corrupt, not SQLite) is damage too, reported as such with exit 1.
 */

function expectedHead(p: Parameters<Command['run']>[0]): string | undefined {
  const expect = str(p, 'expect-head');
  if (expect !== undefined && !/^\d+:[0-9a-f]{64}$/.test(expect)) {
    throw new ArboristError('usage', '--expect-head takes SEQ:HASH (a number, a colon, 64 hex digits)');
  }
  return expect;
}

/** Runs a check; an unusable shard becomes a failed check (exit 1) rather than an error (exit 2). */
function orDamage<T>(ctx: Context, run: () => T): T | { damaged: string } {
  try {
    return run();
  } catch (err) {
    const e = asArboristError(ctx.dbPath, err);
    if (e?.kind === 'damaged') return { damaged: e.message };
    throw e ?? err;
  }
}

function damaged(ctx: Context, message: string): number {
  if (ctx.out.json) printJson(ctx.out, { ok: false, damaged: true, reason: message });
  else ctx.out.out(`${ctx.out.color.red.bold('DAMAGED')}: ${message}\n`);
  return 1;
}

function chainJson(r: ChainCheck, expect: string | undefined) {
  const headMatches = expect === undefined || r.head === expect;
  return {
    ok: r.ok && headMatches,
    events: r.events,
    head: r.head,
    first_broken_seq: r.first_broken_seq,
    ...(r.reason ? { reason: r.reason } : {}),
    ...(expect !== undefined ? { expected_head: expect, head_matches: headMatches } : {}),
  };
}

function printChain(ctx: Context, r: ChainCheck, expect: string | undefined): void {
  const c = ctx.out.color;
  if (!r.ok) ctx.out.out(`${c.red.bold('chain BROKEN')} at event ${r.first_broken_seq}: ${r.reason}\n`);
  else ctx.out.out(`${c.green('chain intact')}: ${counted(r.events, 'event')}, head ${r.head}\n`);
  if (expect !== undefined && r.head !== expect)
    ctx.out.out(`${c.red.bold('head differs')}: expected ${expect}, found ${r.head}\n`);
}

function printVerify(ctx: Context, r: VerifyReport): void {
  const c = ctx.out.color;
  if (r.ok) {
    ctx.out.out(
      `${c.green('verified')}: ${counted(r.nodes, 'turn')}, every hash matches, and the state is what the chain recorded\n`,
    );
    return;
  }
  if (r.mismatches.length > 0)
    ctx.out.out(
      `${c.red.bold('MISMATCH')}: ${thousands(r.mismatches.length)} of ${counted(r.nodes, 'turn')} differ from their content\n`,
    );
  if (r.edited.length) ctx.out.out(`edited: ${r.edited.join(' ')}\n`);
  if (r.mismatches.length) ctx.out.out(`mismatches: ${r.mismatches.join(' ')}\n`);
  if (r.sessions.length) ctx.out.out(`session roots: ${r.sessions.join(' ')}\n`);
  if (r.archives?.length) ctx.out.out(`damaged archives: ${r.archives.join(' ')}\n`);
  const problems = r.problems ?? [];
  if (problems.length > 0) {
    ctx.out.out(`${c.red.bold('DAMAGE')}: ${problems.length} problem${problems.length === 1 ? '' : 's'}\n`);
    for (const q of problems) ctx.out.out(`  ${q.kind} ${q.id}: ${q.detail}\n`);
  }
}

function printRemote(ctx: Context, r: RemoteCheck): void {
  const c = ctx.out.color;
  if (r.ok)
    ctx.out.out(
      `${c.green('remote agrees')}: ${r.remote} holds this host's (${r.host}) event ${r.pushed?.seq}, and the local chain holds it\n`,
    );
  for (const why of r.problems) ctx.out.out(`${c.red.bold('REMOTE')}: ${oneLine(why)}\n`);
}

function printHost(ctx: Context, r: HostChainCheck): void {
  const c = ctx.out.color;
  if (r.ok)
    ctx.out.out(
      `${c.green('host chain intact')}: ${r.host}, ${counted(r.events, 'event')}, ${counted(r.heads_checked, 'imported head')} on it\n`,
    );
  for (const why of r.problems) ctx.out.out(`${c.red.bold('HOST')} ${r.host}: ${oneLine(why)}\n`);
}

/** `--remote NAME`: the remote's record of this host's head, beside the local checks (docs/sync.md). */
async function remoteOf(p: Parameters<Command['run']>[0], ctx: Context): Promise<RemoteCheck | undefined> {
  const name = str(p, 'remote');
  if (name === undefined) return undefined;
  return checkRemote(ctx.readOnly(), ctx.dbPath, checkRemoteName(name));
}

export const chainCheckCmd: Command = {
  name: 'chain-check',
  usage: 'arborist chain-check [--expect-head SEQ:HASH] [--remote NAME] | chain-check --host HOST',
  summary:
    "check the whole audit chain (exit 1 when broken); --host: a pulled host's chain from the sync mirror",
  options: { 'expect-head': { type: 'string' }, remote: { type: 'string' }, host: { type: 'string' } },
  async run(p, ctx) {
    exactPositionals(p, 0, this.usage);
    const host = str(p, 'host');
    if (host !== undefined) {
      const h = await checkHostChain(ctx.readOnly(), ctx.dbPath, host);
      if (ctx.out.json) printJson(ctx.out, h);
      else printHost(ctx, h);
      return h.ok ? 0 : 1;
    }
    const remote = await remoteOf(p, ctx);
    const expect = expectedHead(p);
    const r = orDamage(ctx, () => ctx.readOnly().chainCheck());
    if ('damaged' in r) return damaged(ctx, r.damaged);
    const doc = chainJson(r, expect);
    if (ctx.out.json) printJson(ctx.out, remote ? { ...doc, ok: doc.ok && remote.ok, remote } : doc);
    else {
      printChain(ctx, r, expect);
      if (remote) printRemote(ctx, remote);
    }
    return doc.ok && (remote?.ok ?? true) ? 0 : 1;
  },
};

/**
 * verify with a progress line on stderr at a terminal (not --json, not a pipe): "verifying: 12,000 of 20,000 turns
 * read", at most every 100 ms, rewritten in place and erased when verify ends, however it ends. It said nothing for
 * the seconds a large shard takes (1.4 s on 20,000 turns, ~5 s on 1,000,000).
 */
function verifyShown(ctx: Context, shard: Shard): VerifyReport {
  if (ctx.out.json || process.stderr.isTTY !== true) return shard.verify();
  let last = Number.NEGATIVE_INFINITY;
  let shown = false;
  const onProgress = (p: VerifyProgress) => {
    const now = performance.now();
    if (!p.compare && now - last < 100) return;
    last = now;
    shown = true;
    const line = p.compare
      ? `verifying: ${thousands(p.total)} turns read, comparing with the chain`
      : `verifying: ${thousands(p.read)} of ${thousands(p.total)} turns read`;
    // Our own text only (numbers): \r and erase-line rewrite the line in place.
    process.stderr.write(`\r\x1b[2K${line}`);
  };
  try {
    return shard.verify({ onProgress });
  } finally {
    if (shown) process.stderr.write('\r\x1b[2K');
  }
}

export const verifyCmd: Command = {
  name: 'verify',
  usage: 'arborist verify',
  summary:
    'recompute every hash from content and compare the state with what the chain recorded (exit 1 on damage)',
  options: {},
  run(p, ctx) {
    exactPositionals(p, 0, this.usage);
    const r = orDamage(ctx, () => verifyShown(ctx, ctx.readOnly()));
    if ('damaged' in r) return damaged(ctx, r.damaged);
    if (ctx.out.json) printJson(ctx.out, r);
    else printVerify(ctx, r);
    return r.ok ? 0 : 1;
  },
};

export const checkCmd: Command = {
  name: 'check',
  usage: 'arborist check [--expect-head SEQ:HASH] [--remote NAME]',
  summary: 'chain-check and verify in one (exit 1 on any damage): the shard is what its chain says',
  options: { 'expect-head': { type: 'string' }, remote: { type: 'string' } },
  async run(p, ctx) {
    exactPositionals(p, 0, this.usage);
    const remote = await remoteOf(p, ctx);
    const expect = expectedHead(p);
    const r = orDamage(ctx, () => {
      const shard = ctx.readOnly();
      return { chain: shard.chainCheck(), verify: verifyShown(ctx, shard) };
    });
    if ('damaged' in r) return damaged(ctx, r.damaged);
    const chain = chainJson(r.chain, expect);
    const ok = chain.ok && r.verify.ok && (remote?.ok ?? true);
    if (ctx.out.json) printJson(ctx.out, { ok, chain, verify: r.verify, ...(remote ? { remote } : {}) });
    else {
      printChain(ctx, r.chain, expect);
      printVerify(ctx, r.verify);
      if (remote) printRemote(ctx, remote);
    }
    return ok ? 0 : 1;
  },
};
