import { createHash } from 'node:crypto';
import type { Shard } from '../../src/store/index.js';
import { type ChainClaims, dbOf } from '../../src/store/testing.js';

export { errorOf, openShard as newShard } from '../support/shard.js';

/** A stored BLOB column as raw bytes, read behind the store's back. */
export function blob(s: Shard, sql: string, ...args: unknown[]): Buffer {
  return dbOf(s)
    .prepare(sql)
    .pluck()
    .get(...args) as Buffer;
}

/** Every node's stored subtree hash, raw bytes, by Bates id. */
export function subtreeBytes(s: Shard): Map<string, Buffer> {
  const rows = dbOf(s)
    .prepare('SELECT n.bates, h.subtree_hash FROM nodes n JOIN node_subtree h ON h.id = n.id')
    .raw(true)
    .all() as [string, Buffer][];
  return new Map(rows);
}

/** Every session's stored root, raw bytes, by sid. */
export function rootBytes(s: Shard): Map<string, Buffer> {
  const rows = dbOf(s).prepare('SELECT sid, session_root FROM sessions').raw(true).all() as [
    string,
    Buffer,
  ][];
  return new Map(rows);
}

/** A small deterministic PRNG (mulberry32) so randomised tests replay exactly. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What two readings of the chain's claims must agree on: problems, sessions (roots, hashes, who added what), entries, sources. */
export function claimsSummary(c: ChainClaims) {
  return {
    events: c.events,
    problems: c.problems,
    // The arrays are sized by the highest seq claimed (a forged one may be large): compared by digest and by the
    // turns actually added.
    sessions: [...c.sessions.values()].map((x) => ({
      ...x,
      hashes: createHash('sha256').update(x.hashes).digest('hex'),
      addedBy: [...x.addedBy].flatMap((event, seq) => (event === 0 ? [] : [[seq, event]])),
    })),
    entries: [...c.entries],
    refs: [...c.sourceRefs],
  };
}
