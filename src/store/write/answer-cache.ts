import type Database from 'better-sqlite3';
import { cachedStatement } from '../db/statements.js';

/** The answer cache (docs/asking.md, "The answer cache"): derived data, its rows are not hashed. */

export interface CachedAnswer {
  answer_text: string;
  cited_titles: string[];
  created_at: string;
}

/**
 * A cached answer is only served while a live turn with the same key carries exactly that answer: the cache is not
 * hashed, turns are, so a row edited behind the store's back (a poisoned answer) is a miss, never the next turn's
 * answer. (verify names such a row too.)
 */
const GET = `SELECT c.answer_text, c.cited_titles_json, c.created_at FROM answer_cache c WHERE c.cache_key = ?
  AND typeof(c.answer_text) = 'text' AND typeof(c.cited_titles_json) = 'text'
  AND EXISTS (SELECT 1 FROM nodes n WHERE n.cache_key = c.cache_key AND n.answer_text = c.answer_text
    AND n.cited_titles_json = c.cited_titles_json)`;
const PUT =
  'INSERT OR REPLACE INTO answer_cache (cache_key, answer_text, cited_titles_json, created_at) VALUES (?, ?, ?, ?)';

export function getCachedAnswer(db: Database.Database, key: string): CachedAnswer | undefined {
  const r = cachedStatement(db, GET).get(key) as
    | { answer_text: string; cited_titles_json: string; created_at: string }
    | undefined;
  if (!r) return undefined;
  let cited_titles: string[];
  try {
    cited_titles = JSON.parse(r.cited_titles_json) as string[];
  } catch {
    return undefined;
  }
  return { answer_text: r.answer_text, cited_titles, created_at: String(r.created_at) };
}

/** Must run inside a write (Shard.putCachedAnswer). */
export function putCachedAnswer(
  db: Database.Database,
  key: string,
  answer_text: string,
  cited_titles: string[],
  created_at: string,
): void {
  cachedStatement(db, PUT).run(key, answer_text, JSON.stringify(cited_titles), created_at);
}
