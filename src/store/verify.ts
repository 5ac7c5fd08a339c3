import type Database from 'better-sqlite3';
import { nodeHash, sessionRoot, subtreeHash } from './hash.js';

export interface VerifyReport {
  ok: boolean;
  nodes: number;
  /** Every node whose stored node_hash or subtree_hash differs from the one recomputed from content. */
  mismatches: string[];
  /** The subset whose own content no longer matches its node_hash: where an edit happened. */
  edited: string[];
  /** Sessions whose stored session_root differs. */
  sessions: string[];
}

type Row = [
  number, // id
  string, // bates
  string, // sid
  number, // seq
  number | null, // parent_id
  number, // is_top
  string, // question
  string, // answer_text
  string, // cited_titles_json
  number, // n_cited_sources
  string, // audit
  string | null, // cache_key
  string | null, // source
  string | null, // source_id
  string, // created_at
  Buffer, // node_hash
  Buffer, // subtree_hash
];

/**
 * Recomputes every hash from content alone. Children always have larger ids than their parents (a parent must
 * exist before its child is inserted, and ids are never reused), so one pass in descending id order folds
 * subtrees bottom-up without recursion.
 */
export function verifyShard(db: Database.Database): VerifyReport {
  const maxId = (db.prepare('SELECT coalesce(max(id), 0) FROM nodes').pluck().get() as number) ?? 0;
  const index = new Int32Array(maxId + 1).fill(-1);
  const bates: string[] = [];
  const sids: string[] = [];
  const seqs: number[] = [];
  const parents: number[] = [];
  const tops: boolean[] = [];
  const storedSub: Buffer[] = [];
  const computedNode: Buffer[] = [];
  const mismatch = new Set<number>();
  const edited: string[] = [];

  const stmt = db
    .prepare(`SELECT id, bates, sid, seq, parent_id, is_top, question, answer_text, cited_titles_json,
      n_cited_sources, audit, cache_key, source, source_id, created_at, node_hash, subtree_hash FROM nodes ORDER BY id`)
    .raw(true);
  let i = 0;
  for (const r of stmt.iterate() as IterableIterator<Row>) {
    const parentIdx = r[4] === null ? -1 : r[4] <= maxId ? index[r[4]] : -1;
    let cited: string[];
    try {
      cited = JSON.parse(r[8]) as string[];
    } catch {
      cited = [r[8]];
    }
    const nh = nodeHash({
      bates: r[1],
      parent_bates: parentIdx >= 0 ? bates[parentIdx] : null,
      question: r[6],
      answer_text: r[7],
      cited_titles: cited,
      n_cited_sources: r[9],
      audit: r[10],
      cache_key: r[11],
      created_at: r[14],
      source: r[12],
      source_id: r[13],
    });
    index[r[0]] = i;
    bates.push(r[1]);
    sids.push(r[2]);
    seqs.push(r[3]);
    parents.push(parentIdx);
    tops.push(r[5] === 1);
    storedSub.push(r[16]);
    computedNode.push(nh);
    if (!nh.equals(r[15])) {
      mismatch.add(i);
      edited.push(r[1]);
    }
    i++;
  }
  const n = i;

  // Children of each node, in (sid, seq) order. Most nodes have zero or one child, so lists stay small.
  const kids: (number[] | undefined)[] = new Array(n);
  for (let c = 0; c < n; c++) {
    const p = parents[c];
    if (p < 0) continue;
    const list = kids[p];
    if (list) list.push(c);
    else kids[p] = [c];
  }
  const computedSub: Buffer[] = new Array(n);
  for (let k = n - 1; k >= 0; k--) {
    const list = kids[k];
    let childHashes: Buffer[] = [];
    if (list) {
      if (list.length > 1) {
        list.sort((a, b) => (sids[a] < sids[b] ? -1 : sids[a] > sids[b] ? 1 : seqs[a] - seqs[b]));
      }
      childHashes = list.map((c) => computedSub[c]);
    }
    computedSub[k] = subtreeHash(computedNode[k], childHashes);
    if (!computedSub[k].equals(storedSub[k])) mismatch.add(k);
  }

  // Session roots over each session's top nodes, by seq.
  const topsBySid = new Map<string, number[]>();
  for (let k = 0; k < n; k++) {
    if (!tops[k]) continue;
    const list = topsBySid.get(sids[k]);
    if (list) list.push(k);
    else topsBySid.set(sids[k], [k]);
  }
  const badSessions: string[] = [];
  for (const [sid, stored] of db
    .prepare('SELECT sid, session_root FROM sessions ORDER BY sid')
    .raw(true)
    .iterate() as IterableIterator<[string, Buffer]>) {
    const list = (topsBySid.get(sid) ?? []).sort((a, b) => seqs[a] - seqs[b]);
    if (
      !sessionRoot(
        sid,
        list.map((k) => computedSub[k]),
      ).equals(stored)
    )
      badSessions.push(sid);
  }

  const mismatches = [...mismatch].sort((a, b) => a - b).map((k) => bates[k]);
  return {
    ok: mismatches.length === 0 && badSessions.length === 0,
    nodes: n,
    mismatches,
    edited,
    sessions: badSessions,
  };
}
