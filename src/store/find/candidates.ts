import type Database from 'better-sqlite3';
import { cachedStatement } from '../db/statements.js';
import { markedSnippet, type SnippetTerms, termSnippet } from './terms.js';
import { overlayVocabulary } from './vocabulary.js';

/**
 * The FTS5 queries that find, search and the answerer's retrieval (src/ask/retrieve.ts) share, and the light row
 * reads that follow them. Every candidate query is bounded: `ORDER BY rowid DESC LIMIT k` walks a term's doclist
 * from its newest end and stops, so a common word costs no more than a rare one (docs/find.md). `expr` is always an
 * FTS5 MATCH expression built from quoted terms (terms.ts), never user text.
 */

const NEWEST = 'SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? ORDER BY rowid DESC LIMIT ?';
const NEWEST_IN_SESSION = `SELECT f.rowid FROM nodes_fts f JOIN nodes n ON n.id = f.rowid
     WHERE nodes_fts MATCH ? AND n.sid = ? ORDER BY f.rowid DESC LIMIT ?`;
const NEWEST_BEFORE =
  'SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ?';

const QUESTION_NEWEST =
  'SELECT rowid FROM questions_fts WHERE questions_fts MATCH ? ORDER BY rowid DESC LIMIT ?';
const QUESTION_NEWEST_IN_SESSION = `SELECT f.rowid FROM questions_fts f JOIN nodes n ON n.id = f.rowid
     WHERE questions_fts MATCH ? AND n.sid = ? ORDER BY f.rowid DESC LIMIT ?`;
const QUESTION_NEWEST_OVERLAID = `SELECT f.id FROM (
    SELECT rowid AS id FROM questions_fts WHERE questions_fts MATCH @expr
    UNION ALL SELECT rowid AS id FROM temp.pending_fts WHERE pending_fts MATCH '{question} : (' || @expr || ')') f
  JOIN nodes n ON n.id = f.id WHERE @scope IS NULL OR n.sid = @scope ORDER BY f.id DESC LIMIT @limit`;

/**
 * Ids of the newest `limit` turns whose question matches `expr`, newest first (session `scope` only, when given),
 * from the index of questions alone: it stops at the limit, where a column filter on nodes_fts walked every turn
 * holding the words anywhere.
 */
export function newestQuestionMatches(
  db: Database.Database,
  expr: string,
  limit: number,
  scope?: string,
): number[] {
  if (overlaid.has(db))
    return cachedStatement(db, QUESTION_NEWEST_OVERLAID, 'pluck').all({
      expr,
      scope: scope ?? null,
      limit,
    }) as number[];
  if (scope === undefined) return cachedStatement(db, QUESTION_NEWEST, 'pluck').all(expr, limit) as number[];
  return cachedStatement(db, QUESTION_NEWEST_IN_SESSION, 'pluck').all(expr, scope, limit) as number[];
}

/** Ids of the newest `limit` turns matching `expr`, newest first; only turns of session `scope` when given. */
export function newestMatches(db: Database.Database, expr: string, limit: number, scope?: string): number[] {
  if (overlaid.has(db)) {
    if (scope === undefined)
      return cachedStatement(db, NEWEST_OVERLAID, 'pluck').all({ expr, limit }) as number[];
    return cachedStatement(db, NEWEST_IN_SESSION_OVERLAID, 'pluck').all({ expr, scope, limit }) as number[];
  }
  if (scope === undefined) return cachedStatement(db, NEWEST, 'pluck').all(expr, limit) as number[];
  return cachedStatement(db, NEWEST_IN_SESSION, 'pluck').all(expr, scope, limit) as number[];
}

/**
 * Turns still waiting in fts_pending (a writer was killed before it indexed them) are in no FTS index; a writer
 * indexes them before it searches, but a read-only connection cannot. For it, they are indexed into a temporary
 * FTS5 table of the same columns and tokenizer (in memory, never in the shard), and the candidate queries read
 * both, so find and search miss nothing. Refreshed whenever the number waiting changes.
 */
const overlaid = new WeakMap<Database.Database, number>();
const NEWEST_OVERLAID = `SELECT id FROM (
    SELECT rowid AS id FROM nodes_fts WHERE nodes_fts MATCH @expr
    UNION ALL SELECT rowid AS id FROM temp.pending_fts WHERE pending_fts MATCH @expr)
  ORDER BY id DESC LIMIT @limit`;
const NEWEST_IN_SESSION_OVERLAID = `SELECT f.id FROM (
    SELECT rowid AS id FROM nodes_fts WHERE nodes_fts MATCH @expr
    UNION ALL SELECT rowid AS id FROM temp.pending_fts WHERE pending_fts MATCH @expr) f
  JOIN nodes n ON n.id = f.id WHERE n.sid = @scope ORDER BY f.id DESC LIMIT @limit`;

export function overlayPending(db: Database.Database): void {
  const waiting = cachedStatement(db, 'SELECT count(*) FROM fts_pending', 'pluck').get() as number;
  if (waiting === 0 && !overlaid.has(db)) return;
  if (overlaid.get(db) === waiting) return;
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.pending_fts USING fts5(question, answer_text, cited_titles_json,
    tokenize = 'unicode61 remove_diacritics 2')`);
  db.exec('DELETE FROM temp.pending_fts');
  db.exec(`INSERT INTO temp.pending_fts (rowid, question, answer_text, cited_titles_json)
    SELECT n.id, n.question, n.answer_text, n.cited_titles_json FROM fts_pending p JOIN nodes n ON n.id = p.id`);
  overlayVocabulary(db);
  overlaid.set(db, waiting);
}

/**
 * Ids of the newest `limit` turns matching `expr` in `table` (the questions alone, or every field) that pass a
 * filter (filters.ts `filterSql`: a condition over the turn's row `n`). CROSS JOIN keeps FTS5 the outer loop: it
 * walks the doclist newest first and each match is checked by one primary-key read, stopping at the limit, as the
 * unfiltered query does; a selective filter walks further, never more than the term's doclist.
 */
export function newestFilteredMatches(
  db: Database.Database,
  table: 'questions_fts' | 'nodes_fts',
  expr: string,
  limit: number,
  where: string,
  params: Record<string, unknown>,
  /** Conditions on `f.rowid` bounding the walk (filters.ts `rowidBounds`): ` AND f.rowid <= @maxId`. */
  bounds = '',
): number[] {
  if (!overlaid.has(db) && typeof params.maxId === 'number')
    return newestBelow(db, table, expr, limit, where, params, params.maxId, Number(params.minId ?? 1));
  const sql = overlaid.has(db)
    ? `SELECT f.id FROM (
    SELECT rowid AS id FROM ${table} WHERE ${table} MATCH @expr
    UNION ALL SELECT rowid AS id FROM temp.pending_fts WHERE pending_fts MATCH ${
      table === 'questions_fts' ? "'{question} : (' || @expr || ')'" : '@expr'
    }) f CROSS JOIN nodes n ON n.id = f.id WHERE ${where} ORDER BY f.id DESC LIMIT @limit`
    : `SELECT f.rowid FROM ${table} f CROSS JOIN nodes n ON n.id = f.rowid
     WHERE ${table} MATCH @expr${bounds} AND ${where} ORDER BY f.rowid DESC LIMIT @limit`;
  return cachedStatement(db, sql, 'pluck').all({ ...params, expr, limit }) as number[];
}

/** The first window below an upper bound, in turn ids; each next one, further back, is WINDOW_GROWTH times wider. */
const FIRST_WINDOW = 2048;
const WINDOW_GROWTH = 4;

/**
 * The newest `limit` matches at or below `maxId` (a `before:` date's bound), walked in windows of ids going back.
 * FTS5 seeks to a lower rowid bound by its doclist index, but an upper bound costs it a walk over the entries past
 * it: "the" at or below 125,000 of 1,000,000 turns cost 52 ms newest first, 120 ms at or below 0, and 50 ms for a
 * window of 2,048 ids with both bounds, against 5 ms for the same window asked as "from its lowest id, at most
 * 2,048 rows" (a window holds no more rows than ids). So each window is asked that way, the filter returned as a
 * column rather than applied (a condition would keep the walk going past the window to fill the limit), read only
 * for the window's rows (a sparse word's read runs on past the window to its row limit), and the rows past the
 * window dropped here. The first windows holding `limit` matches end the walk; a rare word takes a
 * handful of windows, each four times the last.
 */
function newestBelow(
  db: Database.Database,
  table: 'questions_fts' | 'nodes_fts',
  expr: string,
  limit: number,
  where: string,
  params: Record<string, unknown>,
  maxId: number,
  minId: number,
): number[] {
  const st = cachedStatement(
    db,
    `SELECT f.rowid, f.rowid <= @hi AND EXISTS (SELECT 1 FROM nodes n WHERE n.id = f.rowid AND ${where})
     FROM ${table} f WHERE ${table} MATCH @expr AND f.rowid >= @lo ORDER BY f.rowid LIMIT @width`,
    'raw',
  );
  const out: number[] = [];
  let hi = maxId;
  for (let width = FIRST_WINDOW; hi >= minId && out.length < limit; width *= WINDOW_GROWTH) {
    const lo = Math.max(minId, hi - width + 1);
    const rows = st.all({ ...params, expr, lo, hi, width: hi - lo + 1 }) as [number, number][];
    for (let i = rows.length - 1; i >= 0 && out.length < limit; i--)
      if (rows[i][0] <= hi && rows[i][1] === 1) out.push(rows[i][0]);
    hi = lo - 1;
  }
  return out;
}

/** The newest `limit` turns that pass a filter, whatever they say (a query of filters alone: `agent:codex`). */
export function newestPassing(
  db: Database.Database,
  limit: number,
  where: string,
  params: Record<string, unknown>,
): number[] {
  return cachedStatement(
    db,
    `SELECT n.id FROM nodes n WHERE ${where} ORDER BY n.id DESC LIMIT @limit`,
    'pluck',
  ).all({
    ...params,
    limit,
  }) as number[];
}

/** The next page of a doclist: the newest `limit` matches with an id below `before`. */
export function newestMatchesBefore(
  db: Database.Database,
  expr: string,
  before: number,
  limit: number,
): number[] {
  return cachedStatement(db, NEWEST_BEFORE, 'pluck').all(expr, before, limit) as number[];
}

/** The largest turn id (0 on an empty shard): the span candidate ids are measured against. */
export function maxTurnId(db: Database.Database): number {
  return (cachedStatement(db, 'SELECT max(id) FROM nodes', 'pluck').get() as number | null) ?? 0;
}

/** A candidate as retrieval ranks it. */
export interface TurnBrief {
  id: number;
  bates: string;
  question: string;
  audit: string;
}

const BRIEFS =
  'SELECT id, bates, CAST(question AS TEXT) AS question, CAST(audit AS TEXT) AS audit FROM nodes WHERE id IN (SELECT value FROM json_each(?))';
const ANSWERS =
  'SELECT id, CAST(answer_text AS TEXT) FROM nodes WHERE id IN (SELECT value FROM json_each(?))';

/** Ids, Bates ids, questions and audit tags of the given turns (in no particular order; unknown ids are skipped). */
export function turnBriefs(db: Database.Database, ids: readonly number[]): TurnBrief[] {
  return cachedStatement(db, BRIEFS).all(JSON.stringify(ids)) as TurnBrief[];
}

/** The answers of the given turns, by id. */
export function turnAnswers(db: Database.Database, ids: readonly number[]): Map<number, string> {
  const rows = cachedStatement(db, ANSWERS, 'raw').all(JSON.stringify(ids)) as [number, string][];
  return new Map(rows);
}

/** Rows longer than this (characters of question, answer and titles) get a snippet from a window of their text. */
const LONG_TEXT = 8 * 1024;
const LONG_WINDOW = 8 * 1024;
const LONG_ROWS = `SELECT id FROM nodes WHERE id IN (SELECT value FROM json_each(?))
  AND length(question) + length(answer_text) + length(cited_titles_json) > ?`;
/** The text around the first place the term occurs (located by instr over the ASCII-folded text; the start when not). */
const WINDOWS = `SELECT id, substr(t, max(1, instr(lower(t), @term) - 2000), @window) FROM (
    SELECT id, CAST(question AS TEXT) || ' ' || CAST(answer_text AS TEXT) AS t
    FROM nodes WHERE id IN (SELECT value FROM json_each(@ids)))`;
const TEXTS = `SELECT id, CAST(question AS TEXT), CAST(answer_text AS TEXT), CAST(cited_titles_json AS TEXT)
  FROM nodes WHERE id IN (SELECT value FROM json_each(?))`;

/**
 * Snippets of the given rows: the words of `terms` marked in 16 tokens of the column that holds most of them
 * (terms.ts `termSnippet`), made from the rows' text. FTS5's snippet() was asked before: it evaluated the MATCH
 * expression once per row, a seek in every term's doclist (30-45 ms for 50 answer-only hits on 1,000,000 turns,
 * the slowest part of the slowest keystrokes), and scored every place a term occurs against every other (one 250
 * KB answer of a repeated word took 32 s). A text past LONG_TEXT, or one where no term is found as a word, gets a
 * linear snippet around the first place the prefix (or the first term) occurs.
 */
export function snippetsFor(db: Database.Database, terms: SnippetTerms, all: number[]): Map<number, string> {
  const out = new Map<number, string>();
  if (all.length === 0) return out;
  const long = cachedStatement(db, LONG_ROWS, 'raw').all(JSON.stringify(all), LONG_TEXT) as [number][];
  const longIds = new Set(long.map((r) => r[0]));
  const ids = longIds.size === 0 ? all : all.filter((id) => !longIds.has(id));
  const linear = (of: number[]) => {
    const term = terms.prefix ?? terms.whole.values().next().value ?? '';
    const texts = cachedStatement(db, WINDOWS, 'raw').all({
      term,
      window: LONG_WINDOW,
      ids: JSON.stringify(of),
    });
    for (const [id, text] of texts as [number, string][]) out.set(id, markedSnippet(String(text), term));
  };
  if (longIds.size > 0) linear([...longIds]);
  if (ids.length === 0) return out;
  const unmatched: number[] = [];
  for (const [id, ...columns] of cachedStatement(db, TEXTS, 'raw').all(JSON.stringify(ids)) as [
    number,
    string,
    string,
    string,
  ][]) {
    const s = termSnippet(columns, terms);
    if (s === null) unmatched.push(id);
    else out.set(id, s);
  }
  if (unmatched.length > 0) linear(unmatched);
  return out;
}
