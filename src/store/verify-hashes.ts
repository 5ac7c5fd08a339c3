import type Database from 'better-sqlite3';
import { cachedStatement } from './db/statements.js';
import { copy32, equal32, sessionRoot, sha256, sha256Into } from './hash.js';
import type { ReadNodes } from './verify-state.js';

/** verify's hashes above the nodes (verify.ts): subtrees folded bottom-up, session roots, archive bodies. */

/** Computed subtree hashes, bottom-up by index (descending id); a node whose stored one differs joins `mismatch`. */
export function foldSubtrees(nodes: ReadNodes): Buffer {
  const { n, sids, seqs, parents, computedNode, storedSub, oddSub, mismatch } = nodes;

  // Children of each node (compressed lists), in (sid, seq) order. Most nodes have zero or one child.
  const childStart = new Int32Array(n + 1);
  for (let c = 0; c < n; c++) if (parents[c] >= 0) childStart[parents[c] + 1]++;
  let maxKids = 0;
  for (let k = 0; k < n; k++) {
    maxKids = Math.max(maxKids, childStart[k + 1]);
    childStart[k + 1] += childStart[k];
  }
  const childList = new Int32Array(childStart[n]);
  const fill = childStart.slice(0, n);
  for (let c = 0; c < n; c++) if (parents[c] >= 0) childList[fill[parents[c]]++] = c;
  const bySidSeq = (a: number, b: number) =>
    sids[a] < sids[b] ? -1 : sids[a] > sids[b] ? 1 : seqs[a] - seqs[b];

  // subtree_hash = H(0x01 || node_hash || subtree_hash(child)...), assembled in one scratch buffer.
  const computedSub = Buffer.alloc(32 * n);
  const scratch = Buffer.alloc(33 + 32 * maxKids);
  scratch[0] = 0x01;
  // One view per number of children, made once: a subarray per node cost as much as copying its hashes.
  const views: Buffer[] = [];
  for (let k = n - 1; k >= 0; k--) {
    const from = childStart[k];
    const to = childStart[k + 1];
    if (to - from > 1) {
      const sorted = Array.from(childList.subarray(from, to)).sort(bySidSeq);
      childList.set(sorted, from);
    }
    copy32(scratch, 1, computedNode, 32 * k);
    for (let j = from; j < to; j++) copy32(scratch, 33 + 32 * (j - from), computedSub, 32 * childList[j]);
    views[to - from] ??= scratch.subarray(0, 33 + 32 * (to - from));
    sha256Into(views[to - from], computedSub, 32 * k);
    if (oddSub.has(k) || !equal32(computedSub, 32 * k, storedSub, 32 * k)) mismatch.add(k);
  }

  return computedSub;
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
    'SELECT sid, session_root FROM sessions ORDER BY sid',
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
      'SELECT sid, body, sha256 FROM session_archives ORDER BY sid',
      'raw',
    ).iterate() as IterableIterator<[string, Buffer, Buffer]>) {
      if (!sha256(body).equals(digest)) badArchives.push(sid);
    }
  }

  return badArchives;
}
