import type Database from 'better-sqlite3';
import { cachedStatement } from '../db/statements.js';
import { copy32, equal32, sessionRoot, sha256, sha256Equals, sha256Into } from '../model/hash.js';
import type { ReadNodes } from './state.js';

/** verify's hashes above the nodes (verify.ts): subtrees folded bottom-up, session roots, archive bodies. */

/**
 * Each node's children as compressed lists (childList[childStart[k], childStart[k + 1]) for node k), in (sid, seq)
 * order, the order its subtree hash takes them in; in shared memory, so helper threads can check subtrees too.
 */
export interface ChildLists {
  childStart: Int32Array;
  childList: Int32Array;
  maxKids: number;
}

export function childLists(nodes: ReadNodes): ChildLists {
  const { n, sids, seqs, parents } = nodes;
  const childStart = new Int32Array(new SharedArrayBuffer(4 * (n + 1)));
  for (let c = 0; c < n; c++) if (parents[c] >= 0) childStart[parents[c] + 1]++;
  let maxKids = 0;
  for (let k = 0; k < n; k++) {
    maxKids = Math.max(maxKids, childStart[k + 1]);
    childStart[k + 1] += childStart[k];
  }
  const childList = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, childStart[n])));
  const fill = childStart.slice(0, n);
  for (let c = 0; c < n; c++) if (parents[c] >= 0) childList[fill[parents[c]]++] = c;
  // Most nodes have zero or one child.
  const bySidSeq = (a: number, b: number) =>
    sids[a] < sids[b] ? -1 : sids[a] > sids[b] ? 1 : seqs[a] - seqs[b];
  for (let k = 0; k < n; k++) {
    const from = childStart[k];
    const to = childStart[k + 1];
    if (to - from > 1) childList.set(Array.from(childList.subarray(from, to)).sort(bySidSeq), from);
  }
  return { childStart, childList, maxKids };
}

/**
 * The input of node k's subtree_hash, 0x01 || node_hash || subtree_hash(child)..., from `node` and `sub` (32 bytes a
 * node): a view of `scratch`, valid until the next call. `scratch` holds 33 + 32 * maxKids bytes and starts with
 * 0x01; `views` caches one view of it per number of children (a subarray per node cost as much as copying its
 * hashes).
 */
function innerInput(
  k: number,
  lists: ChildLists,
  node: Uint8Array,
  sub: Uint8Array,
  scratch: Buffer,
  views: Buffer[],
): Buffer {
  const { childStart, childList } = lists;
  const from = childStart[k];
  const to = childStart[k + 1];
  copy32(scratch, 1, node, 32 * k);
  for (let j = from; j < to; j++) copy32(scratch, 33 + 32 * (j - from), sub, 32 * childList[j]);
  views[to - from] ??= scratch.subarray(0, 33 + 32 * (to - from));
  return views[to - from];
}

function scratchFor(lists: ChildLists): Buffer {
  const scratch = Buffer.alloc(33 + 32 * lists.maxKids);
  scratch[0] = 0x01;
  return scratch;
}

/** Computed subtree hashes, bottom-up by index (descending id); a node whose stored one differs joins `mismatch`. */
export function foldSubtrees(nodes: ReadNodes, lists: ChildLists): Buffer {
  const { n, computedNode, storedSub, oddSub, mismatch } = nodes;
  const computedSub = Buffer.alloc(32 * n);
  const scratch = scratchFor(lists);
  const views: Buffer[] = [];
  for (let k = n - 1; k >= 0; k--) {
    sha256Into(innerInput(k, lists, computedNode, computedSub, scratch, views), computedSub, 32 * k);
    if (oddSub.has(k) || !equal32(computedSub, 32 * k, storedSub, 32 * k)) mismatch.add(k);
  }
  return computedSub;
}

/**
 * Whether every node in [from, to) has the stored subtree hash H(0x01 || its computed node hash || its children's
 * STORED subtree hashes). Each node is checked alone, so threads can share the range. When every node of the shard
 * passes, the fold gives exactly the stored hashes (by induction from the leaves up: a leaf's stored hash is its
 * computed one, and then so is its parent's), so they stand for it; when any fails, the fold runs and names them.
 */
export function subtreesHold(
  computedNode: Uint8Array,
  storedSub: Uint8Array,
  lists: ChildLists,
  from: number,
  to: number,
): boolean {
  const scratch = scratchFor(lists);
  const views: Buffer[] = [];
  for (let k = from; k < to; k++)
    if (!sha256Equals(innerInput(k, lists, computedNode, storedSub, scratch, views), storedSub, 32 * k))
      return false;
  return true;
}

/** Sessions whose stored root differs from the one over their top nodes' computed subtree hashes, by seq. */
export function badSessionRoots(db: Database.Database, nodes: ReadNodes, computedSub: Buffer): string[] {
  const { n, sids, seqs, tops } = nodes;
  // Session roots over each session's top nodes, by seq.
  const topsBySid = new Map<string, number[]>();
  for (let k = 0; k < n; k++) {
    if (!tops[k]) continue;
    const list = topsBySid.get(sids[k]);
    if (list) list.push(k);
    else topsBySid.set(sids[k], [k]);
  }
  const badSessions: string[] = [];
  for (const [sid, stored] of cachedStatement(
    db,
    'SELECT sid, session_root FROM sessions NOT INDEXED ORDER BY sid',
    'raw',
  ).iterate() as IterableIterator<[string, Buffer]>) {
    const list = (topsBySid.get(sid) ?? []).sort((a, b) => seqs[a] - seqs[b]);
    if (
      !sessionRoot(
        sid,
        list.map((k) => computedSub.subarray(32 * k, 32 * k + 32)),
      ).equals(stored)
    )
      badSessions.push(sid);
  }

  return badSessions;
}

/** Archive records (docs/sessions.md, "Entries, archiving and retention") whose body no longer hashes to its sha256. */
export function badArchiveBodies(db: Database.Database): string[] {
  const badArchives: string[] = [];
  if (
    cachedStatement(db, "SELECT 1 FROM sqlite_master WHERE name = 'session_archives'").get() !== undefined
  ) {
    for (const [sid, body, digest] of cachedStatement(
      db,
      'SELECT sid, body, sha256 FROM session_archives NOT INDEXED ORDER BY sid',
      'raw',
    ).iterate() as IterableIterator<[string, Buffer, Buffer]>) {
      if (!sha256(body).equals(digest)) badArchives.push(sid);
    }
  }

  return badArchives;
}
