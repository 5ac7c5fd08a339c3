import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';

/**
 * The hash rules of docs/sessions.md, written again from the document alone (nothing of src/ is imported), so a
 * test that compares the store with them checks the store against its specification. Used by the property tests
 * (compare) and by the attacker (tests/support/attacker.ts: recompute, then write back).
 */
export const sha = (...parts: (Buffer | string)[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

export interface Row {
  id: number;
  bates: string;
  sid: string;
  seq: number;
  parent_id: number | null;
  parent_bates: string | null;
  parent_sid: string | null;
  question: string;
  answer_text: string;
  cited_titles_json: string;
  n_cited_sources: number;
  audit: string;
  cache_key: string | null;
  source: string | null;
  source_id: string | null;
  created_at: string;
}

/** canon(node content) for the values the store writes (text, null, integers, a list of text). */
export function nodeContentCanon(n: Omit<Row, 'id' | 'sid' | 'parent_id' | 'parent_sid' | 'seq'>): string {
  const j = JSON.stringify;
  return (
    `{"answer_text":${j(n.answer_text)},"audit":${j(n.audit)},"bates":${j(n.bates)},"cache_key":${j(n.cache_key)},` +
    `"cited_titles":${j(JSON.parse(n.cited_titles_json))},"created_at":${j(n.created_at)},` +
    `"n_cited_sources":${j(n.n_cited_sources)},"parent_bates":${j(n.parent_bates)},"question":${j(n.question)},` +
    `"source":${j(n.source)},"source_id":${j(n.source_id)}}`
  );
}

export function contentHash(n: Parameters<typeof nodeContentCanon>[0]): Buffer {
  return sha(Buffer.from([0]), nodeContentCanon(n));
}

export interface Recomputed {
  /** Every row, by ascending id, and each row's children in hash order. */
  rows: Row[];
  kids: Map<number, Row[]>;
  /** Node and subtree hash by Bates id; session root by sid. */
  nodes: Map<string, { node: Buffer; subtree: Buffer }>;
  roots: Map<string, Buffer>;
}

/** Every node hash, subtree hash and session root recomputed from the rows. Reads only. */
export function independentHashes(db: Database.Database): Recomputed {
  const rows = db
    .prepare(`SELECT n.id, n.bates, n.sid, n.seq, n.parent_id, p.bates AS parent_bates, p.sid AS parent_sid,
      n.question, n.answer_text, n.cited_titles_json, n.n_cited_sources, n.audit, n.cache_key, n.source,
      n.source_id, n.created_at FROM nodes n LEFT JOIN nodes p ON p.id = n.parent_id ORDER BY n.id`)
    .all() as Row[];
  const kids = new Map<number, Row[]>();
  for (const r of rows) {
    if (r.parent_id === null) continue;
    const l = kids.get(r.parent_id) ?? [];
    l.push(r);
    kids.set(r.parent_id, l);
  }
  // Children in every session, by sid as a byte string (sids are ASCII), then numeric seq.
  for (const l of kids.values()) l.sort((a, b) => (a.sid < b.sid ? -1 : a.sid > b.sid ? 1 : a.seq - b.seq));
  const node = new Map<number, Buffer>(rows.map((r) => [r.id, contentHash(r)]));
  const sub = new Map<number, Buffer>();
  // Children have greater ids than their parents: fold from the highest id down, no recursion needed.
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i];
    sub.set(
      r.id,
      sha(Buffer.from([1]), node.get(r.id)!, ...(kids.get(r.id) ?? []).map((k) => sub.get(k.id)!)),
    );
  }
  const nodes = new Map(rows.map((r) => [r.bates, { node: node.get(r.id)!, subtree: sub.get(r.id)! }]));
  const roots = new Map<string, Buffer>();
  for (const sid of db.prepare('SELECT sid FROM sessions').pluck().all() as string[]) {
    const tops = rows
      .filter((r) => r.sid === sid && (r.parent_id === null || r.parent_sid !== sid))
      .sort((a, b) => a.seq - b.seq);
    roots.set(sid, sha(Buffer.from([2]), sid, Buffer.from([0]), ...tops.map((t) => sub.get(t.id)!)));
  }
  return { rows, kids, nodes, roots };
}
