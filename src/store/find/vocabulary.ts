import type Database from 'better-sqlite3';
import { cachedStatement } from '../db/statements.js';

/**
 * The FTS index and its vocabulary, written together (docs/find.md, "Prefixes").
 *
 * FTS5's own prefix indexes (`prefix = '2 3'`) tripled the cost of indexing a turn (49 against 142 us a row on 1 KB
 * answers), and a longer prefix ("that", "shou") still merged the whole doclist of every term under it, which made
 * the common short prefixes the slowest keystrokes of find. Instead the shard keeps its vocabulary: every term the
 * FTS index holds, with how many turns hold it (`fts_terms`). A prefix is answered by looking its terms up there (an
 * index range) and searching the most frequent of them as whole words, an OR that FTS5 walks from the newest end
 * and stops: a prefix costs what a few whole words cost, however common. Derived data, like the FTS index: the
 * audit chain does not bind it, and `Shard.rebuildIndex` (tests, a damaged index) makes both again from the nodes.
 */

/**
 * Token characters as SQLite's unicode61 tokenizer sees them: letters, numbers, private use (its default categories
 * "L* N* Co"). Other marks split a token (a Hebrew point, a Devanagari vowel sign), as they do in FTS5.
 */
const TERM_RE = /[\p{L}\p{N}\p{Co}]+/gu;
const ASCII_TERM_RE = /[a-z0-9]+/g;
/** The combining diacritics remove_diacritics drops, wherever they stand. */
const DIACRITICS = /[\u0300-\u036f]/g;
/** Latin letters with diacritics, which remove_diacritics folds to their base letter (Greek and Cyrillic keep theirs). */
const LATIN_ACCENTED = /[\u00c0-\u024f\u1e00-\u1eff]/g;

function foldLatin(ch: string): string {
  return ch.normalize('NFD').replace(DIACRITICS, '');
}
const NON_ASCII = /[^\u0000-\u007f]/;
/** Longer terms are indexed by FTS5 but not kept in the vocabulary: nobody types a 65-letter prefix. */
export const MAX_VOCABULARY_TERM = 64;

/** The terms of `text` as the FTS index holds them (folded), in order, repeats kept. */
export function indexTerms(text: string): string[] {
  if (!NON_ASCII.test(text)) return text.toLowerCase().match(ASCII_TERM_RE) ?? [];
  const folded = text.replace(LATIN_ACCENTED, foldLatin).replace(DIACRITICS, '').toLowerCase();
  try {
    return folded.match(TERM_RE) ?? [];
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return longTerms(folded);
  }
}

/** TERM_RE's terms in pieces, joined again where they touch. */
const TERM_PIECE_RE = /[\p{L}\p{N}\p{Co}]{1,65536}/gu;

/** V8 runs out of stack matching TERM_RE over one term of about 4 million characters (a pasted blob): this does not. */
function longTerms(text: string): string[] {
  const out: string[] = [];
  let end = -1;
  for (const m of text.matchAll(TERM_PIECE_RE)) {
    if (m.index === end) out[out.length - 1] += m[0];
    else out.push(m[0]);
    end = m.index + m[0].length;
  }
  return out;
}

/** The indexed text of one turn, as its FTS row holds it. */
export interface IndexedText {
  id: number;
  question: string;
  answer_text: string;
  cited_titles_json: string;
}

/**
 * JSON of [[term, count], ...]: one statement applies a whole batch (json_each), not one call per term. (An array of
 * pairs: an object of a million keys cost more to build than the upsert.)
 */
function asJson(counts: Map<string, number>): string {
  return JSON.stringify([...counts]);
}

const ADD_TERMS = `INSERT INTO fts_terms (term, n) SELECT value ->> 0, value ->> 1 FROM json_each(?) WHERE true
  ON CONFLICT (term) DO UPDATE SET n = n + excluded.n`;
const SUBTRACT_TERMS = `UPDATE fts_terms SET n = n - (j.value ->> 1) FROM json_each(?) j
  WHERE fts_terms.term = j.value ->> 0`;
const DROP_UNUSED = `DELETE FROM fts_terms WHERE n <= 0 AND term IN (SELECT value ->> 0 FROM json_each(?))`;

/**
 * The tokenizer of the shard's FTS indexes (db/migrations.ts): the counting table below must cut and fold text
 * exactly as they do.
 */
const TOKENIZER = "tokenize = 'unicode61 remove_diacritics 2'";

/**
 * Terms kept in the vocabulary, as a condition over fts5vocab's `term`: at most MAX_VOCABULARY_TERM UTF-16 units.
 * UTF-8 bytes <= the limit: never more UTF-16 units than that; more bytes but <= the limit in code points can be
 * astral characters (two units each), so those few are measured in JS.
 */
const KEPT_TERM = `(length(CAST(term AS BLOB)) <= ${MAX_VOCABULARY_TERM}
  OR (length(term) <= ${MAX_VOCABULARY_TERM} AND arb_utf16_length(term) <= ${MAX_VOCABULARY_TERM}))`;

const withLength = new WeakSet<Database.Database>();
function utf16Length(db: Database.Database): void {
  if (withLength.has(db)) return;
  db.function('arb_utf16_length', { deterministic: true }, (s: unknown) => String(s).length);
  withLength.add(db);
}

/**
 * The terms of rows, counted by FTS5 itself (docs/find.md, "The index's shape"): the rows go into a temporary
 * contentless index with the shard's tokenizer and no positions (in memory: temp_store is MEMORY), and fts5vocab
 * reads how many rows hold each term. Counting in JavaScript (a regex split and a Map update a token) took about
 * two and a half times as long, and could only mirror the tokenizer.
 */
class TermCounter {
  private readonly insert: Database.Statement;
  /** Rows added since the last take(). */
  rows = 0;

  constructor(private readonly db: Database.Database) {
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.arb_count USING fts5(
      question, answer_text, cited_titles_json, content = '', detail = none, columnsize = 0, ${TOKENIZER})`);
    db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.arb_count_terms USING fts5vocab(temp, arb_count, row)');
    utf16Length(db);
    this.insert = cachedStatement(
      db,
      'INSERT INTO temp.arb_count (rowid, question, answer_text, cited_titles_json) VALUES (?, ?, ?, ?)',
    );
  }

  add(row: IndexedText): void {
    this.insert.run(row.id, row.question, row.answer_text, row.cited_titles_json);
    this.rows++;
  }

  /** The counts of the rows added (term -> rows holding it), and an empty table again. */
  take(): Map<string, number> {
    if (this.rows === 0) return new Map();
    const counts = new Map(
      cachedStatement(
        this.db,
        `SELECT term, doc FROM temp.arb_count_terms WHERE ${KEPT_TERM}`,
        'raw',
      ).all() as [string, number][],
    );
    this.clear();
    return counts;
  }

  /** Ids of rows indexed in the open write, counted when it commits (applyWaitingVocabulary). */
  waiting: number[] = [];

  /**
   * Adds the counts of the rows waiting to the vocabulary, in one statement, and empties the table. When they are a
   * large share of every turn (a first import's groups), the vocabulary is read from the whole index instead
   * (fts5vocab over rowids only is a fast scan): counting them a second time was a fifth of a first import (1.5 s of
   * 7.3 for the mixed corpus's 20,000 turns).
   */
  addToVocabulary(): void {
    const ids = this.waiting;
    this.waiting = [];
    if (ids.length >= FROM_INDEX_MIN_ROWS) {
      const last = cachedStatement(this.db, 'SELECT max(id) FROM nodes', 'pluck').get() as number | null;
      if (ids.length * FROM_INDEX_SHARE >= (last ?? 0)) {
        this.clear();
        vocabularyFromIndex(this.db);
        return;
      }
    }
    if (ids.length > 0)
      cachedStatement(
        this.db,
        `INSERT INTO temp.arb_count (rowid, question, answer_text, cited_titles_json)
         SELECT id, question, answer_text, cited_titles_json FROM nodes WHERE id IN (SELECT value FROM json_each(?))`,
      ).run(JSON.stringify(ids));
    this.rows += ids.length;
    if (this.rows === 0) return;
    cachedStatement(
      this.db,
      `INSERT INTO fts_terms (term, n) SELECT term, doc FROM temp.arb_count_terms WHERE ${KEPT_TERM}
       ON CONFLICT (term) DO UPDATE SET n = n + excluded.n`,
    ).run();
    this.clear();
  }

  clear(): void {
    cachedStatement(this.db, "INSERT INTO temp.arb_count (arb_count) VALUES ('delete-all')").run();
    this.rows = 0;
    this.waiting = [];
  }
}

/** Rows indexed in one write from which the vocabulary is read from the index, if they are 1/FROM_INDEX_SHARE of it. */
const FROM_INDEX_MIN_ROWS = 500;
const FROM_INDEX_SHARE = 4;

const counters = new WeakMap<Database.Database, TermCounter>();
function counterOf(db: Database.Database): TermCounter {
  let c = counters.get(db);
  if (!c) {
    c = new TermCounter(db);
    counters.set(db, c);
  }
  return c;
}

/** How many of `rows` hold each term, as the FTS index would count them. */
export function termCounts(db: Database.Database, rows: Iterable<IndexedText>): Map<string, number> {
  const c = counterOf(db);
  // Rows waiting in the open write's count are applied first: this count must hold `rows` alone.
  applyWaitingVocabulary(db);
  for (const r of rows) c.add(r);
  return c.take();
}

/**
 * Rows indexed in the write transaction now open are counted (TermCounter) and the counts applied once when it
 * commits (Shard.write calls `applyWaitingVocabulary`), dropped when it rolls back. An import writes a file at a
 * time, several files to a transaction: one upsert of their distinct terms, instead of one a file, was a third of
 * an import's time.
 */
export function applyWaitingVocabulary(db: Database.Database): void {
  const c = counters.get(db);
  if (c) c.addToVocabulary();
}

/** Forgets them: the transaction that indexed the rows rolled back. */
export function dropWaitingVocabulary(db: Database.Database): void {
  const c = counters.get(db);
  if (!c) return;
  c.waiting = [];
  if (c.rows > 0 && db.open) c.clear();
}

export function addVocabulary(db: Database.Database, counts: Map<string, number>): void {
  if (counts.size > 0) cachedStatement(db, ADD_TERMS).run(asJson(counts));
}

export function subtractVocabulary(db: Database.Database, counts: Map<string, number>): void {
  if (counts.size === 0) return;
  const json = asJson(counts);
  cachedStatement(db, SUBTRACT_TERMS).run(json);
  cachedStatement(db, DROP_UNUSED).run(json);
}

/**
 * Writes FTS rows (nodes_fts, and questions_fts for the question alone) and keeps the vocabulary in step, inside
 * the caller's Shard.write: rows are counted as they are added, and the counts of the whole transaction applied in
 * one statement before it commits (`applyWaitingVocabulary`).
 */
export class TextIndexer {
  private readonly counter: TermCounter;
  private readonly insert: Database.Statement;
  private readonly insertQuestion: Database.Statement;

  constructor(db: Database.Database) {
    this.insert = cachedStatement(
      db,
      'INSERT INTO nodes_fts (rowid, question, answer_text, cited_titles_json) VALUES (?, ?, ?, ?)',
    );
    this.insertQuestion = cachedStatement(db, 'INSERT INTO questions_fts (rowid, question) VALUES (?, ?)');
    this.counter = counterOf(db);
  }

  add(row: IndexedText): void {
    this.insert.run(row.id, row.question, row.answer_text, row.cited_titles_json);
    this.insertQuestion.run(row.id, row.question);
    this.counter.waiting.push(row.id);
  }
}

/** Indexes rows read from the shard (waiting turns, restored turns), FTS and vocabulary, in the caller's write. */
export function indexRows(db: Database.Database, rows: Iterable<IndexedText>): number {
  const ix = new TextIndexer(db);
  let n = 0;
  for (const r of rows) {
    ix.add(r);
    n++;
  }
  return n;
}

/** The text of every turn waiting in fts_pending, by id: what indexing them (Shard.flushIndex) or overlaying them reads. */
export function pendingTexts(db: Database.Database): IndexedText[] {
  return cachedStatement(
    db,
    `SELECT n.id, CAST(n.question AS TEXT) AS question, CAST(n.answer_text AS TEXT) AS answer_text,
       CAST(n.cited_titles_json AS TEXT) AS cited_titles_json FROM fts_pending p JOIN nodes n ON n.id = p.id
     ORDER BY p.id`,
  ).all() as IndexedText[];
}

const SESSION_TEXT = `SELECT id, CAST(question AS TEXT) AS question, CAST(answer_text AS TEXT) AS answer_text,
  CAST(cited_titles_json AS TEXT) AS cited_titles_json FROM nodes WHERE sid = ?`;

/** Removes a session's rows from the FTS indexes and their terms from the vocabulary (its turns must all be indexed). */
export function unindexSession(db: Database.Database, sid: string): void {
  const counts = termCounts(db, cachedStatement(db, SESSION_TEXT).all(sid) as IndexedText[]);
  cachedStatement(
    db,
    `INSERT INTO nodes_fts (nodes_fts, rowid, question, answer_text, cited_titles_json)
     SELECT 'delete', id, question, answer_text, cited_titles_json FROM nodes WHERE sid = ?`,
  ).run(sid);
  cachedStatement(
    db,
    `INSERT INTO questions_fts (questions_fts, rowid, question) SELECT 'delete', id, question FROM nodes WHERE sid = ?`,
  ).run(sid);
  subtractVocabulary(db, counts);
}

/** The vocabulary made again from every indexed turn (the FTS index is rebuilt, when it must be, by the caller). */
export function rebuildVocabulary(db: Database.Database): void {
  vocabularyFromIndex(db);
}

/** Connections that read turns still waiting in fts_pending through a temporary overlay (candidates.ts). */
export const overlaidTerms = new WeakSet<Database.Database>();

/** The overlay's vocabulary: the terms of the waiting rows (temp.pending_fts holds them), in a temporary table. */
export function overlayVocabulary(db: Database.Database): void {
  db.exec(
    'CREATE TABLE IF NOT EXISTS temp.pending_terms (term TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID',
  );
  db.exec(
    'CREATE VIRTUAL TABLE IF NOT EXISTS temp.pending_fts_terms USING fts5vocab(temp, pending_fts, row)',
  );
  utf16Length(db);
  db.exec('DELETE FROM temp.pending_terms');
  db.exec(
    `INSERT INTO temp.pending_terms (term, n) SELECT term, doc FROM temp.pending_fts_terms WHERE ${KEPT_TERM}`,
  );
  overlaidTerms.add(db);
}

/**
 * FTS5's in-memory hash of pending index data, in bytes, while a whole index is built at once: a segment is written
 * each time it fills, and fewer, larger segments cost fewer merges (100k turns: 3.9 s against 6.9 s with the
 * default of 1 MiB; 256 MiB gained nothing more on 1M). Set back to the default afterwards, so later writers keep
 * the memory they had.
 */
const BUILD_HASH_BYTES = 64 * 1024 * 1024;
const DEFAULT_HASH_BYTES = 1024 * 1024;

/** The FTS indexes: `nodes_fts` (question, answer, cited titles) and `questions_fts` (the question alone). */
export const FTS_TABLES = ['nodes_fts', 'questions_fts'] as const;

/** Sets the pending-data hash of both FTS indexes for a whole build (`true`) or back to the default. */
export function buildHashSize(db: Database.Database, building: boolean): void {
  for (const t of FTS_TABLES)
    db.prepare(
      `INSERT INTO ${t} (${t}, rank) VALUES ('hashsize', ${building ? BUILD_HASH_BYTES : DEFAULT_HASH_BYTES})`,
    ).run();
}

/**
 * The vocabulary made again from the index FTS5 wrote (fts5vocab: how many rows of nodes_fts hold each term): 0.5 s
 * for 100k turns. The JS-side rule, no term of more than MAX_VOCABULARY_TERM UTF-16 units, is applied in SQL (a JS
 * length only for the rare long non-ASCII term).
 */
export function vocabularyFromIndex(db: Database.Database): void {
  utf16Length(db);
  db.exec('DELETE FROM fts_terms');
  db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.build_vocab USING fts5vocab(main, nodes_fts, row)');
  db.prepare(
    `INSERT INTO fts_terms (term, n) SELECT term, doc FROM temp.build_vocab WHERE ${KEPT_TERM}`,
  ).run();
  db.exec('DROP TABLE temp.build_vocab');
}

/**
 * Indexes every turn at once, in the caller's write (a fresh bulk build, ../build.ts, when no index thread could
 * do it): both FTS indexes rebuilt from the nodes, the vocabulary taken from the index.
 */
export function indexAllAtOnce(db: Database.Database): void {
  buildHashSize(db, true);
  for (const t of FTS_TABLES) db.prepare(`INSERT INTO ${t} (${t}) VALUES ('rebuild')`).run();
  buildHashSize(db, false);
  db.exec('DELETE FROM fts_pending');
  vocabularyFromIndex(db);
  // Counts of rows indexed one by one earlier in this write (an addTurn) are in the rebuilt vocabulary already.
  dropWaitingVocabulary(db);
}
