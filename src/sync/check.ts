import { ArboristError, eventHashAt, hashes, type Shard, syncHistory } from '../store/index.js';
import { git, readObjects, refCommit, runGit } from './git.js';
import { chunkPath, HEAD_PATH, HOST_RE, parseChunk, parseHead } from './layout.js';
import { existingMirror, knownHostId, usableRemote } from './mirror.js';
import { ownBranchProblem, ownRef } from './push.js';

/**
 * The checks that use a remote (docs/sync.md, "Heads kept elsewhere"): `check --remote NAME` holds the local chain to
 * the head this host last pushed there (a shard rolled back, or its chain rewritten end to end, no longer holds
 * it), and `chain-check --host X` checks another host's chain as pulled into the mirror, and that every head this
 * shard recorded for X lies on it.
 */

export interface RemoteCheck {
  ok: boolean;
  remote: string;
  host: string;
  /** The head this host's branch holds, when it has a branch there. */
  pushed: { seq: number; hash: string } | null;
  problems: string[];
}

export async function checkRemote(shard: Shard, dbPath: string, remote: string): Promise<RemoteCheck> {
  await usableRemote(dbPath, remote, `no sync remote named ${remote}`);
  const mirror = existingMirror(dbPath)!;
  const host = knownHostId(shard, dbPath);
  if (host === undefined)
    throw new ArboristError('input', 'this shard has never synced: it has no host id yet');
  const ref = ownRef(remote, host);
  const r = await runGit(mirror, [
    'fetch',
    '--quiet',
    '--no-tags',
    '--',
    remote,
    `+refs/heads/hosts/${host}:${ref}`,
  ]);
  const out: RemoteCheck = { ok: true, remote, host, pushed: null, problems: [] };
  const fail = (why: string) => {
    out.ok = false;
    out.problems.push(why);
    return out;
  };
  if (r.code !== 0) {
    // A branch the remote does not have is an answer; a remote that cannot be reached is an error.
    if (!/couldn't find remote ref|could not find remote ref/i.test(r.stderr))
      await git(
        mirror,
        ['ls-remote', '--exit-code', '--heads', '--', remote],
        `cannot fetch from remote ${remote}`,
      );
    return fail(`this host (${host}) has no branch on ${remote}`);
  }
  const tip = await refCommit(mirror, ref);
  const [buf] = tip ? await readObjects(mirror, [`${tip}:${HEAD_PATH}`]) : [null];
  const head = parseHead(buf);
  if (!head) return fail(`this host's branch on ${remote} has no readable ${HEAD_PATH}`);
  out.pushed = head.events;
  const gone = await ownBranchProblem({ shard, mirror, remote, host }, tip);
  if (gone !== null) fail(gone);
  const chain = shard.chainCheck();
  if (!chain.ok) fail(`the local chain is broken at event ${chain.first_broken_seq}: ${chain.reason}`);
  const localSeq = shard.audit.head().seq;
  if (localSeq < head.events.seq)
    return fail(
      `the local chain ends at event ${localSeq}, but this host pushed event ${head.events.seq} to ${remote}: the shard was rolled back or replaced, or someone else pushed to this host's branch`,
    );
  if (eventHashAt(shard, head.events.seq) !== head.events.hash)
    return fail(
      `event ${head.events.seq} here is not the one this host pushed to ${remote}: the local chain was rewritten at or before it, or someone else pushed to this host's branch`,
    );
  return out;
}

export interface HostChainCheck {
  ok: boolean;
  host: string;
  events: number;
  head: { seq: number; hash: string } | null;
  /** Heads this shard recorded for the host (its sync events) found on the chain. */
  heads_checked: number;
  problems: string[];
}

export async function checkHostChain(shard: Shard, dbPath: string, host: string): Promise<HostChainCheck> {
  if (!HOST_RE.test(host)) throw new ArboristError('usage', `'${host.slice(0, 40)}' is not a host id`);
  const mirror = existingMirror(dbPath);
  const out: HostChainCheck = { ok: true, host, events: 0, head: null, heads_checked: 0, problems: [] };
  const fail = (why: string) => {
    out.ok = false;
    out.problems.push(why);
    return out;
  };
  if (!mirror) throw new ArboristError('not_found', 'this shard has no sync mirror (it never synced)');
  // The host's newest fetched branch, from whichever remote holds it.
  const refs = (
    await git(
      mirror,
      ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/arborist/'],
      'listing hosts',
    )
  )
    .toString('utf8')
    .split('\n')
    .filter((l) => l.endsWith(`/hosts/${host}`));
  if (refs.length === 0) throw new ArboristError('not_found', `no host ${host} in the mirror (sync first)`);
  const tip = refs[0].split(' ')[0];
  const [headBuf] = await readObjects(mirror, [`${tip}:${HEAD_PATH}`]);
  const head = parseHead(headBuf);
  if (!head) return fail(`host ${host}'s ${HEAD_PATH} is missing or unreadable`);
  const hashAt = new Map<number, string>();
  let prev = hashes.ZERO_HASH;
  let seq = 0;
  for (let c = 0; ; c++) {
    const [buf] = await readObjects(mirror, [`${tip}:${chunkPath(c)}`]);
    if (!buf) break;
    const parsed = parseChunk(buf);
    if (parsed.bad !== null) return fail(`${chunkPath(c)} line ${parsed.bad} is not an event line`);
    for (const l of parsed.lines) {
      if (l.seq !== seq + 1) return fail(`the chain skips from event ${seq} to ${l.seq}`);
      if (!hashes.eventHash(prev, l.body).equals(Buffer.from(l.hash, 'hex')))
        return fail(`event ${l.seq} does not match its hash`);
      seq = l.seq;
      prev = Buffer.from(l.hash, 'hex');
      hashAt.set(seq, l.hash);
    }
  }
  out.events = seq;
  out.head = { seq, hash: prev.toString('hex') };
  if (seq !== head.events.seq || out.head.hash !== head.events.hash)
    fail(`its events end at ${seq}, but its ${HEAD_PATH} says ${head.events.seq}`);
  for (const ev of syncHistory(shard)) {
    const h = ev.data.hosts?.[host];
    if (!h) continue;
    out.heads_checked++;
    if (hashAt.get(h.seq) !== h.hash)
      fail(
        `the head this shard imported at its event ${ev.seq} (${host}'s event ${h.seq}) is not on its chain`,
      );
  }
  return out;
}
