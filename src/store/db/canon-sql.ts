import type Database from 'better-sqlite3';
import { cachedStatement } from './statements.js';

/**
 * The node's canonical content bytes, 0x00 first, built by SQLite: json_object over the fields in canon()'s key
 * order. For text json_object escapes exactly as JSON.stringify does (checked for every BMP character in
 * tests/store/verify-fast.test.ts), integers print the same, NULL is null, and json() embeds the stored cited
 * titles as written (the store writes them with JSON.stringify). Rows with any other type give NULL here and are
 * hashed the exact way, in JavaScript. The join mirrors the exact path: only a parent with a smaller id counts.
 */
export const CANON_SQL = `CASE WHEN typeof(n.question) = 'text' AND typeof(n.answer_text) = 'text' AND typeof(n.audit) = 'text'
    AND typeof(n.bates) = 'text' AND typeof(n.created_at) = 'text' AND typeof(n.cache_key) IN ('text', 'null')
    AND typeof(n.source) IN ('text', 'null') AND typeof(n.source_id) IN ('text', 'null')
    AND typeof(n.n_cited_sources) = 'integer' AND n.n_cited_sources BETWEEN -9007199254740991 AND 9007199254740991
    AND typeof(n.cited_titles_json) = 'text'
    AND CASE WHEN json_valid(n.cited_titles_json) THEN json_type(n.cited_titles_json) = 'array' ELSE 0 END
    AND (n.parent_id IS NULL OR p.id IS NULL OR typeof(p.bates) = 'text')
  THEN ${canonBody('json(n.cited_titles_json)')} END`;

/**
 * The same without the CASE, for rows the nodes guard vouches for (guards.ts, NODES_ODD: every one of the tests
 * above, of every node, so of the parent too). The titles are still asked to be strict JSON: json() reads JSON5
 * too, and would make `['a',]`, which no reader of the store parses, into the `["a"]` that was hashed.
 */
export const CANON_GUARDED_SQL = canonBody(
  "json(CASE WHEN json_valid(n.cited_titles_json) THEN n.cited_titles_json ELSE 'null' END)",
);

function canonBody(titles: string): string {
  return `X'00' || json_object('answer_text', n.answer_text, 'audit', n.audit, 'bates', n.bates,
    'cache_key', n.cache_key, 'cited_titles', ${titles}, 'created_at', n.created_at,
    'n_cited_sources', n.n_cited_sources, 'parent_bates', p.bates, 'question', n.question, 'source', n.source,
    'source_id', n.source_id)`;
}

/** SQLite's canonical content of one node (0x00 first), or null when it leaves the row to the exact path. */
export function sqlCanonicalContent(db: Database.Database, id: number): Buffer | null {
  const v = cachedStatement(
    db,
    `SELECT CAST(${CANON_SQL} AS BLOB) FROM nodes n LEFT JOIN nodes p ON p.id = n.parent_id AND p.id < n.id
      WHERE n.id = ?`,
    'pluck',
  ).get(id) as Buffer | null | undefined;
  return v ?? null;
}
