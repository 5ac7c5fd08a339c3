import type Database from 'better-sqlite3';
import { cachedStatement as stmt } from './db/statements.js';

export interface FindOptions {
  limit?: number;
  /** Only turns of this session (sid). */
  scope?: string;
  /** Match the last term as a prefix (type-ahead). Default true. */
  prefix?: boolean;
}

export interface FindHit {
  bates: string;
  sid: string;
  seq: number;
  audit: string;
  question: string;
  snippet: string;
  created_at: string;
  score: number;
  /** Where the terms matched: in the question, or only in the answer / cited titles. */
  field: 'question' | 'answer';
}

/** How many of the most recent matches are ranked. Bounds the cost of common terms on a 1M-turn shard. */
const CANDIDATES = 400;

/** Token characters as SQLite's unicode61 tokenizer sees them: letters, numbers, marks, private use. */
const TERM_RE = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

export function queryTerms(text: string): string[] {
  return (text.normalize('NFKC').toLowerCase().match(TERM_RE) ?? []).slice(0, 16);
}

/**
 * Builds an FTS5 MATCH expression in which user text can only ever be a quoted string: every term is wrapped in
 * double quotes (terms hold no quotes: they are runs of letters and digits). The last term becomes a prefix
 * query while typing, from two characters on: a one-letter prefix would merge the doclists of thousands of terms.
 */
export function matchExpression(terms: string[], prefixLast: boolean): string {
  return terms
    .map((t, i) => {
      const q = `"${t.replaceAll('"', '""')}"`;
      return i === terms.length - 1 && prefixLast && [...t].length >= 2 ? `${q}*` : q;
    })
    .join(' ');
}

/** A turn as find lists it. */
export interface Candidate {
  id: number;
  bates: string;
  sid: string;
  seq: number;
  audit: string;
  question: string;
  created_at: string;
}

function candidateIds(db: Database.Database, expr: string, scope: string | undefined): number[] {
  if (scope === undefined) {
    return stmt(
      db,
      'SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? ORDER BY rowid DESC LIMIT ?',
      'pluck',
    ).all(expr, CANDIDATES) as number[];
  }
  return stmt(
    db,
    `SELECT f.rowid FROM nodes_fts f JOIN nodes n ON n.id = f.rowid
     WHERE nodes_fts MATCH ? AND n.sid = ? ORDER BY f.rowid DESC LIMIT ?`,
    'pluck',
  ).all(expr, scope, CANDIDATES) as number[];
}

/** The longest prefix that FTS5 answers from a prefix index (schema.ts: prefix = '2 3'). */
const PREFIX_INDEXED = 3;
const PREFIX_TERM = /"((?:[^"]|"")*)"\*/g;

/**
 * snippet() of the given rows for a MATCH expression. Asked row by row (`rowid IN (...)`), FTS5 evaluates the
 * expression once per row: a seek for whole terms and indexed prefixes, but for a longer prefix it rebuilds the
 * merged doclist of every term under it each time (20 snippets for "that"* took 0.8 s on 1,000,000 turns, against
 * 45 ms for the candidates). Such an expression is evaluated once, over the rows' rowid range, instead.
 */
export function snippetsFor(db: Database.Database, expr: string, ids: number[]): Map<number, string> {
  const out = new Map<number, string>();
  if (ids.length === 0) return out;
  const longPrefix = [...expr.matchAll(PREFIX_TERM)].some(
    (m) => [...m[1].replaceAll('""', '"')].length > PREFIX_INDEXED,
  );
  const snip = "snippet(nodes_fts, -1, '«', '»', '…', 16)";
  const rows = longPrefix
    ? stmt(
        db,
        `SELECT rowid, ${snip} FROM nodes_fts WHERE nodes_fts MATCH ? AND rowid BETWEEN ? AND ?
         AND +rowid IN (SELECT value FROM json_each(?))`,
        'raw',
      ).all(expr, Math.min(...ids), Math.max(...ids), JSON.stringify(ids))
    : stmt(
        db,
        `SELECT rowid, ${snip} FROM nodes_fts WHERE nodes_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))`,
        'raw',
      ).all(expr, JSON.stringify(ids));
  for (const [rowid, text] of rows as [number, string][]) out.set(rowid, text);
  return out;
}

function wordsOf(s: string): Set<string> {
  return new Set(queryTerms(s));
}

/**
 * Find turns: FTS5 gives candidates (newest first, bounded), then a cheap ranking in JS:
 * a match in the question beats one in the answer, the whole phrase beats scattered terms, whole words beat
 * prefixes, and newer turns break ties.
 */
export function findTurns(db: Database.Database, text: string, opts: FindOptions = {}): FindHit[] {
  const limit = Math.max(1, Math.min(opts.limit ?? 20, 1000));
  const terms = queryTerms(text);
  if (terms.length === 0) return [];
  const prefixLast = (opts.prefix ?? true) && !/\s$/.test(text);
  const expr = matchExpression(terms, prefixLast);
  const inQuestion = new Set(candidateIds(db, `{question} : (${expr})`, opts.scope));
  const ids = new Set(inQuestion);
  for (const id of candidateIds(db, expr, opts.scope)) ids.add(id);
  if (ids.size === 0) return [];

  const idList = [...ids];
  const rows = stmt(
    db,
    `SELECT n.id, n.bates, n.sid, n.seq, n.audit, n.question, n.created_at FROM nodes n
     WHERE n.id IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(idList)) as Candidate[];

  const phrase = terms.join(' ');
  const maxId = Math.max(...idList);
  const minId = Math.min(...idList);
  const scored = rows.map((c) => {
    let score = 0;
    const qNorm = queryTerms(c.question).join(' ');
    if (inQuestion.has(c.id)) {
      score += 100;
      if (qNorm.includes(phrase)) score += 60;
      const words = wordsOf(c.question);
      score += (20 * terms.filter((t) => words.has(t)).length) / terms.length;
      if (qNorm.startsWith(phrase)) score += 5;
    }
    // Recency in [0, 1): only ever breaks ties between otherwise equal matches.
    score += maxId === minId ? 0 : (c.id - minId) / (maxId - minId + 1);
    return { c, score, field: inQuestion.has(c.id) ? ('question' as const) : ('answer' as const) };
  });
  scored.sort((a, b) => b.score - a.score || b.c.id - a.c.id);
  const top = scored.slice(0, limit);

  const snippets = snippetsFor(
    db,
    expr,
    top.map((t) => t.c.id),
  );
  return top.map(({ c, score, field }) => ({
    bates: c.bates,
    sid: c.sid,
    seq: c.seq,
    audit: c.audit,
    question: c.question,
    snippet: snippets.get(c.id) ?? '',
    created_at: c.created_at,
    score: Math.round(score * 1000) / 1000,
    field,
  }));
}
