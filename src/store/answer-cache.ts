import type Database from 'better-sqlite3';
import { cachedStatement } from './db/statements.js';

/** The answer cache (docs/asking.md, "The answer cache"): derived data, its rows are not hashed. */

export interface CachedAnswer {
  answer_text: string;
  cited_titles: string[];
  created_at: string;
}

const GET = 'SELECT answer_text, cited_titles_json, created_at FROM answer_cache WHERE cache_key = ?';
const PUT =
  'INSERT OR REPLACE INTO answer_cache (cache_key, answer_text, cited_titles_json, created_at) VALUES (?, ?, ?, ?)';

export function getCachedAnswer(db: Database.Database, key: string): CachedAnswer | undefined {
  const r = cachedStatement(db, GET).get(key) as
    | { answer_text: string; cited_titles_json: string; created_at: string }
    | undefined;
  return r
    ? {
        answer_text: r.answer_text,
        cited_titles: JSON.parse(r.cited_titles_json) as string[],
        created_at: r.created_at,
      }
    : undefined;
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
