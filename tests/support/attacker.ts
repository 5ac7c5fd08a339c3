import { gunzipSync, gzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { contentHash, independentHashes, type Row, sha } from './recompute.js';

/**
 * An attacker with sqlite3 and docs/sessions.md: edits the shard behind arborist's back and then makes every
 * stored hash and counter consistent again, the way someone who read the hash rules would. Written from the
 * documented rules only (tests/support/recompute.ts; nothing of src/), so a test that uses it proves the rules alone do not
 * let such an edit through: only what the audit chain recorded can.
 */
/** The node hash an attacker computes: the documented rule (tests/support/recompute.ts). */
export const attackerNodeHash = contentHash;

/**
 * Recomputes, from content, every node hash, subtree hash, child count, depth, top flag, session turn count and
 * session root, and writes them back: after it, the stored state is internally consistent.
 */
export function rehashAll(db: Database.Database): void {
  const { rows, kids, nodes, roots } = independentHashes(db);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const depthOf = (r: Row): number => {
    let d = 0;
    for (let p = r.parent_id; p !== null; p = byId.get(p)?.parent_id ?? null) d++;
    return d;
  };
  const setNode = db.prepare(
    'UPDATE nodes SET node_hash = ?, n_children = ?, depth = ?, is_top = ? WHERE id = ?',
  );
  const setSub = db.prepare('UPDATE node_subtree SET subtree_hash = ? WHERE id = ?');
  const setSession = db.prepare('UPDATE sessions SET session_root = ?, n_nodes = ? WHERE sid = ?');
  db.transaction(() => {
    for (const r of rows) {
      const top = r.parent_id === null || r.parent_sid !== r.sid ? 1 : 0;
      const h = nodes.get(r.bates)!;
      setNode.run(h.node, kids.get(r.id)?.length ?? 0, depthOf(r), top, r.id);
      setSub.run(h.subtree, r.id);
    }
    for (const [sid, root] of roots) setSession.run(root, rows.filter((r) => r.sid === sid).length, sid);
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

/** JSON with every object's keys sorted, as the chain's bodies are written (docs/sessions.md, "The audit chain"). */
function sortedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedJson).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/**
 * Rewrites one event's body (`change` edits the parsed event, `{data, kind, seq, ts}`), written back with sorted
 * keys. Call rechain afterwards to make the chain internally intact again.
 */
export function rewriteEvent(
  db: Database.Database,
  seq: number,
  // biome-ignore lint/suspicious/noExplicitAny: an event body is plain JSON, edited as the attacker likes
  change: (event: any) => void,
): void {
  const body = db.prepare('SELECT body FROM audit_events WHERE seq = ?').pluck().get(seq) as Buffer;
  const event = JSON.parse(body.toString('utf8'));
  change(event);
  db.prepare('UPDATE audit_events SET body = ? WHERE seq = ?').run(
    Buffer.from(sortedJson(event), 'utf8'),
    seq,
  );
}
