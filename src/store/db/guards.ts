import type Database from 'better-sqlite3';
import { cachedStatement } from './statements.js';

/**
 * Guards: partial indexes that hold exactly the rows with a value the store never writes (a storage class, a content
 * column of another type, a malformed Bates id...). SQLite keeps them on every write, whoever writes, so on a healthy
 * shard they are empty, and the chain check and verify ask one lookup each instead of asking typeof() of every
 * column of every row on their fast paths, which cost them a third of their reading (docs/benchmarks-chain.md).
 * Below a guard's first row the fast path may take those columns as the store writes them; from it on, the checks
 * ask typeof() themselves, and their exact paths name the row.
 *
 * A guard is trusted only when sqlite_schema defines it exactly as migration 9 made it: a missing or redefined one
 * (`WHERE 0`) only costs speed. But its b-tree could still be swapped for an empty one through writable_schema with
 * its definition unchanged, so a guard only ever stands in for tests whose failure the checks see anyway, or that
 * change no byte: a content column of another type gives other canonical bytes (a hash mismatch, and the exact path
 * then looks at the row) or makes SQLite's json_object fail (an error, never a pass); a Bates id is hashed, and the
 * chain recorded which (sid, seq) it belongs to; a hash stored as text has the same bytes. Tests no hash answers
 * (the structure columns' types, hash lengths) are asked of every row, guard or not.
 */
export interface Guard {
  name: string;
  table: string;
  /** The rowid-like column the guard is on (and that the checks page by). */
  key: string;
  where: string;
}

/** Events whose values are not blobs (the chain binds their bytes; the store writes only blobs). */
export const EVENTS_NOT_BYTES: Guard = {
  name: 'audit_events_not_bytes',
  table: 'audit_events',
  key: 'seq',
  where: "typeof(body) <> 'blob' OR typeof(prev_hash) <> 'blob' OR typeof(event_hash) <> 'blob'",
};

/**
 * Nodes whose content columns, Bates id or node hash verify's fast path cannot take as written (verify-nodes.ts,
 * nodePageSql, asks the structure columns itself). Every test that can be NULL sits beside a typeof() that is true
 * for NULL, so no odd row makes the condition NULL (which a partial index would leave out); json_type is asked only
 * of valid JSON (it fails on any other, and a failing guard would refuse the write).
 */
export const NODES_ODD: Guard = {
  name: 'nodes_odd',
  table: 'nodes',
  key: 'id',
  where: `typeof(bates) <> 'text' OR typeof(sid) <> 'text' OR typeof(seq) <> 'integer'
    OR bates <> sid || '-' || printf('%06d', seq) OR typeof(node_hash) <> 'blob'
    OR typeof(question) <> 'text' OR typeof(answer_text) <> 'text' OR typeof(audit) <> 'text'
    OR typeof(created_at) <> 'text' OR typeof(cache_key) NOT IN ('text', 'null')
    OR typeof(source) NOT IN ('text', 'null') OR typeof(source_id) NOT IN ('text', 'null')
    OR typeof(n_cited_sources) <> 'integer' OR n_cited_sources NOT BETWEEN -9007199254740991 AND 9007199254740991
    OR typeof(cited_titles_json) <> 'text'
    OR NOT CASE WHEN json_valid(cited_titles_json) THEN json_type(cited_titles_json) = 'array' ELSE 0 END`,
};

/** Stored subtree hashes that are not blobs. (Their lengths verify asks itself; a missing row shifts its counts.) */
export const SUBTREES_ODD: Guard = {
  name: 'node_subtree_odd',
  table: 'node_subtree',
  key: 'id',
  where: "typeof(subtree_hash) <> 'blob'",
};

export const GUARDS: readonly Guard[] = [EVENTS_NOT_BYTES, NODES_ODD, SUBTREES_ODD];

/** Exactly as migration 9 creates it and as sqlite_schema must hold it. */
export function guardSql(g: Guard): string {
  return `CREATE INDEX ${g.name} ON ${g.table}(${g.key}) WHERE ${g.where}`;
}

/**
 * The smallest key of a row the guard holds: a number, null when it holds none, or undefined when it cannot be
 * trusted (missing, defined differently, unusable), so the caller checks every row itself.
 */
export function firstGuarded(db: Database.Database, g: Guard): number | null | undefined {
  try {
    // Cached: `arborist status` asks on every call (a tmux status line, every few seconds).
    const sql = cachedStatement(
      db,
      "SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ? AND tbl_name = ?",
      'pluck',
    ).get(g.name, g.table);
    if (sql !== guardSql(g)) return undefined;
    const low = cachedStatement(
      db,
      `SELECT min(${g.key}) FROM ${g.table} INDEXED BY ${g.name} WHERE ${g.where}`,
      'pluck',
    ).get();
    return typeof low === 'number' ? low : low === null ? null : undefined;
  } catch {
    return undefined;
  }
}
