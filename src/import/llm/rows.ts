import type Database from 'better-sqlite3';
import { fitText } from '../answer.js';
import { OWN_COLUMN, oneLine, rowLine } from '../sql-rows.js';

/**
 * Small shared pieces of the llm reader: a database row as a `raw` line, llm's timestamps as ISO 8601, text
 * out of a column that may hold anything, a stable string order, and rows grouped by a column.
 */

/** Prepared statements, one per connection and SQL text: sessions are many and their queries the same. */
const cache = new WeakMap<Database.Database, Map<string, Database.Statement>>();

export function stmt(db: Database.Database, sql: string): Database.Statement {
  let m = cache.get(db);
  if (m === undefined) {
    m = new Map();
    cache.set(db, m);
  }
  let s = m.get(sql);
  if (s === undefined) {
    s = db.prepare(sql);
    m.set(sql, s);
  }
  return s;
}

/** A column as text: strings as they are, blobs decoded as UTF-8, numbers printed, null/undefined as ''. */
export function str(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  return String(v);
}

/** A column as text, or null when it is null or missing. */
export function strOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : str(v);
}

const STAMP = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d+))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * llm's `datetime_utc` values as ISO 8601 UTC with milliseconds, or null when unreadable. llm has written
 * `datetime.isoformat()` with an offset (`2025-02-16T22:34:30.374882+00:00`, responses and turns), `str()` of an
 * aware datetime (`2026-05-01 12:00:00.5+00:00`, threads) and, in old versions, `str(utcnow())` with no offset at
 * all (read as UTC).
 */
export function isoTime(v: unknown): string | null {
  const s = str(v).trim();
  const m = STAMP.exec(s);
  if (!m) return null;
  const time = m[2].length === 5 ? `${m[2]}:00` : m[2];
  const frac = (m[3] ?? '').slice(0, 3).padEnd(3, '0');
  let tz = m[4] ?? 'Z';
  if (/^[+-]\d{2}$/.test(tz)) tz = `${tz}:00`;
  else if (/^[+-]\d{4}$/.test(tz)) tz = `${tz.slice(0, 3)}:${tz.slice(3)}`;
  const d = new Date(`${m[1]}T${time}.${frac}${tz.toUpperCase()}`);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** The epoch, for a turn whose source gives no readable time at all (always reported as a problem). */
export const NO_TIME = '1970-01-01T00:00:00.000Z';

/** Code-unit order (ISO times, ULIDs, hashes): the same on every machine, unlike localeCompare. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The earlier of two ISO times, either of which may be missing. */
export function minTime(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return b < a ? b : a;
}

/** An SQL `IN` list bound as one JSON array: one prepared statement serves any number of values. */
export const IN_LIST = 'SELECT value FROM json_each(?)';

/** Rows by the text of one column, each group in the order read (queries sort by that column first). */
export function groupBy(
  rows: Iterable<Record<string, unknown>>,
  key: string,
): Map<string, Record<string, unknown>[]> {
  const m = new Map<string, Record<string, unknown>[]>();
  for (const r of rows) {
    const k = str(r[key]);
    const g = m.get(k);
    if (g === undefined) m.set(k, [r]);
    else g.push(r);
  }
  return m;
}

/** JSON.parse that answers undefined instead of throwing. */
export function parseJson(v: unknown): unknown {
  if (v === null || v === undefined) return undefined;
  try {
    return JSON.parse(str(v));
  } catch {
    return undefined;
  }
}

// OWN_COLUMN, rowLine and oneLine moved to ../sql-rows.ts (the OpenCode reader uses them too), fitText to
// answer.ts (the Claude Code reader cuts too); llm's modules still import them from here.
export { fitText, OWN_COLUMN, oneLine, rowLine };

/** What a turn's question says when the source has no prompt text (the store needs one). */
export const NO_PROMPT = '[no prompt]';

/** The question as stored: the prompt, or NO_PROMPT when it is empty, cut to fit. */
export function fitQuestion(
  prompt: string,
  file: string,
  line: number,
  problems: { file: string; line: number; reason: string }[],
): string {
  return prompt.trim() === '' ? NO_PROMPT : fitText(prompt, 'prompt', file, line, problems);
}
