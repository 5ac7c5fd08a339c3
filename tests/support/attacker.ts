import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';

/**
 * An attacker with sqlite3 and docs/sessions.md: edits the shard behind arborist's back and then makes every
 * stored hash and counter consistent again, the way someone who read the hash rules would. Written from the
 * documented rules only (it imports nothing of src/), so a test that uses it proves that the rules alone do not
 * let such an edit through: only what the audit chain recorded can.
 */
const sha = (...parts: (Buffer | string)[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

interface Row {
  id: number;
  bates: string;
  sid: string;
  parent_id: number | null;
  parent_bates: string | null;
  parent_sid: string | null;
  seq: number;
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

export function attackerNodeHash(n: Parameters<typeof nodeContentCanon>[0]): Buffer {
  return sha(Buffer.from([0]), nodeContentCanon(n));
}

/**
 * Recomputes, from content, every node hash, subtree hash, child count, depth, top flag, session turn count and
 * session root, and writes them back: after it, the stored state is internally consistent.
 */
export function rehashAll(db: Database.Database): void {
  const rows = db
    .prepare(`SELECT n.id, n.bates, n.sid, n.parent_id, p.bates AS parent_bates, p.sid AS parent_sid, n.seq,
      n.question, n.answer_text, n.cited_titles_json, n.n_cited_sources, n.audit, n.cache_key, n.source,
      n.source_id, n.created_at FROM nodes n LEFT JOIN nodes p ON p.id = n.parent_id ORDER BY n.id`)
    .all() as Row[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const kids = new Map<number, Row[]>();
  for (const r of rows) {
    if (r.parent_id === null) continue;
    const l = kids.get(r.parent_id) ?? [];
    l.push(r);
    kids.set(r.parent_id, l);
  }
  for (const l of kids.values()) l.sort((a, b) => (a.sid < b.sid ? -1 : a.sid > b.sid ? 1 : a.seq - b.seq));
  const node = new Map<number, Buffer>();
  const sub = new Map<number, Buffer>();
  for (const r of rows) node.set(r.id, attackerNodeHash(r));
  const subOf = (id: number): Buffer => {
    const have = sub.get(id);
    if (have) return have;
    const h = sha(Buffer.from([1]), node.get(id)!, ...(kids.get(id) ?? []).map((k) => subOf(k.id)));
    sub.set(id, h);
    return h;
  };
  const depthOf = (r: Row): number => {
    let d = 0;
    for (let p = r.parent_id; p !== null; p = byId.get(p)?.parent_id ?? null) d++;
    return d;
  };
  const setNode = db.prepare(
    'UPDATE nodes SET node_hash = ?, n_children = ?, depth = ?, is_top = ? WHERE id = ?',
  );
  const setSub = db.prepare('UPDATE node_subtree SET subtree_hash = ? WHERE id = ?');
  db.transaction(() => {
    for (const r of rows) {
      const top = r.parent_id === null || r.parent_sid !== r.sid ? 1 : 0;
      setNode.run(node.get(r.id)!, kids.get(r.id)?.length ?? 0, depthOf(r), top, r.id);
      setSub.run(subOf(r.id), r.id);
    }
    for (const sid of db.prepare('SELECT sid FROM sessions').pluck().all() as string[]) {
      const tops = rows
        .filter((r) => r.sid === sid && (r.parent_id === null || r.parent_sid !== sid))
        .sort((a, b) => a.seq - b.seq);
      const root = sha(Buffer.from([2]), sid, Buffer.from([0]), ...tops.map((t) => subOf(t.id)));
      const n = rows.filter((r) => r.sid === sid).length;
      db.prepare('UPDATE sessions SET session_root = ?, n_nodes = ? WHERE sid = ?').run(root, n, sid);
    }
  })();
}

/** Opens the shard file directly, runs `edit`, then (unless told not to) makes every hash consistent again. */
export function tamper(
  path: string,
  edit: (db: Database.Database) => void,
  opts: { rehash?: boolean } = {},
): void {
  const db = new Database(path);
  // As the sqlite3 shell opens a file: foreign keys off (better-sqlite3 turns them on).
  db.pragma('foreign_keys = OFF');
  try {
    edit(db);
    if (opts.rehash ?? true) rehashAll(db);
  } finally {
    db.close();
  }
}

/** Rewrites an archive body (gunzip, change, gzip) and stores a matching sha256 beside it. */
export function rewriteArchive(
  db: Database.Database,
  sid: string,
  // biome-ignore lint/suspicious/noExplicitAny: the archive document is plain JSON of the store's own shape
  change: (doc: any) => void,
): void {
  const body = db.prepare('SELECT body FROM session_archives WHERE sid = ?').pluck().get(sid) as Buffer;
  const doc = JSON.parse(gunzipSync(body).toString('utf8'));
  change(doc);
  const json = Buffer.from(JSON.stringify(doc), 'utf8');
  const next = gzipSync(json);
  db.prepare('UPDATE session_archives SET body = ?, sha256 = ?, bytes = ? WHERE sid = ?').run(
    next,
    sha(next),
    json.length,
    sid,
  );
}

/** Recomputes every event hash from the stored bodies: the chain rewritten end to end, internally intact. */
export function rechain(db: Database.Database): void {
  const rows = db.prepare('SELECT seq, body FROM audit_events ORDER BY seq').all() as {
    seq: number;
    body: Buffer;
  }[];
  let prev = Buffer.alloc(32);
  const set = db.prepare('UPDATE audit_events SET prev_hash = ?, event_hash = ? WHERE seq = ?');
  db.transaction(() => {
    for (const r of rows) {
      const h = sha(prev, r.body);
      set.run(prev, h, r.seq);
      prev = h;
    }
  })();
}
