import type Database from 'better-sqlite3';
import { cachedStatement, type RowMode } from '../db/statements.js';
import { agentOf, projectOf, sessionOriginsOf } from '../write/sources.js';
import {
  newestFilteredMatches,
  newestMatches,
  newestPassing,
  newestQuestionMatches,
  snippetsFor,
} from './candidates.js';
import { filterSql, parseQuery, passing, resolveFilters, type TurnFilter } from './filters.js';
import { knownTerms, queryPlan, termsUnder } from './plan.js';
import { leaderCount, type RankedRow, rank } from './rank.js';
import {
  matchExpression,
  prefixGroup,
  queryTerms,
  quoteTerm,
  type SnippetTerms,
  type TermsUnder,
} from './terms.js';
import { indexTerms } from './vocabulary.js';

/**
 * Find: every turn of every session, as you type, with typos forgiven.
 *
 * Shape (docs/find.md): FTS5 gives a bounded candidate set, newest first (question matches first, then any
 * field); fuse.js ranks only those few hundred strings, never the shard. A term with no hits at all is retried as
 * its one-edit variants that do exist in the index ("lifetme" -> "lifetime"). Bates ids (full or a prefix) and
 * session labels are looked up directly. Everything is synchronous and bounded, so one keystroke costs a few ms.
 */
export interface SearchOptions {
  limit?: number;
  /** Only turns of this session (sid). */
  scope?: string;
  /** Match the last term as a prefix (type-ahead). Default true. */
  prefix?: boolean;
  /** How many of the top hits get a snippet (FTS5 re-reads their text, ~60 us each). Default: all. */
  snippets?: number;
  /** Snippets for the hits matched only in their answer, however many (the find box's rows). */
  answerSnippets?: boolean;
}

import type { MatchField } from './rank.js';

export type { MatchField };

export interface SearchHit {
  bates: string;
  sid: string;
  seq: number;
  audit: string;
  question: string;
  label: string | null;
  snippet: string;
  created_at: string;
  field: MatchField;
  score: number;
  /** Matched character ranges of `question`, inclusive [start, end] pairs, for highlighting. */
  highlights: [number, number][];
  /** The session's agent: its source kind (`claude`, `codex`), or null for a session asked in arborist. */
  agent: string | null;
  /** The session's project as its source named it (or its working directory), when imported. */
  project: string | null;
}

export interface SearchResult {
  hits: SearchHit[];
  /**
   * How many turns were searched: those of the shard, or the scoped session, that the agent: and project: filters
   * leave; null under a date filter, whose count is not kept (node_days holds id bounds, not counts) and would
   * cost a scan of the turns.
   */
  searched: number | null;
  /**
   * Terms that had no hits and were replaced by existing one-edit variants (not those typed as a filter name:
   * unknownFilters says them).
   */
  corrections: Record<string, string[]>;
  /** Filters that could not be used, one line each (filters.ts); empty when all were. */
  problems: string[];
  /** Names typed as filters that are none (`agnt:`), searched as words (ParsedQuery.unknownFilters). */
  unknownFilters: string[];
  /** A filter's value could not be used, so nothing was searched (a wrong filter must not widen the search). */
  refused: boolean;
  /**
   * What the hits matched, folded as the index folds words: `words` whole (the query's terms and their typo
   * corrections), `prefix` as the start of a word (the word being typed), so a reader of a hit can mark them.
   */
  match: SearchMatch;
}

export interface SearchMatch {
  words: string[];
  prefix: string | null;
}

/**
 * How many of the newest matches of each FTS query are ranked, at least: a larger limit reads as many as it asks
 * (else `find --limit 500` showed the 200-odd the two queries had read, and no word of there being more).
 */
const CANDIDATES = 200;
/**
 * The most hits one search returns: `arborist find`'s largest --limit (1000) and one more, which tells it whether
 * there are more. It bounds the candidates read (at most this many a query) and fuse.js's leaders (twice this).
 */
const MAX_HITS = 1001;
const MIN_TYPO_LEN = 4;
/** The longest term given typo variants: past it the variants cost more than any misspelling is worth. */
const MAX_TYPO_LEN = 32;

const SQL = {
  rows: [
    `SELECT n.id, n.bates, n.sid, n.seq, CAST(n.audit AS TEXT) AS audit, CAST(n.question AS TEXT) AS question,
       CAST(n.created_at AS TEXT) AS created_at, s.label
       FROM nodes n JOIN sessions s ON s.sid = n.sid
       WHERE n.id IN (SELECT value FROM json_each(?))`,
    'object',
  ],
  batesRange: [
    `SELECT n.id FROM nodes n WHERE n.bates >= ? AND n.bates < ? ORDER BY n.bates LIMIT 20`,
    'pluck',
  ],
  labels: ['SELECT sid, lower(label) FROM sessions WHERE label IS NOT NULL ORDER BY created_at DESC', 'raw'],
  firstTurn: ['SELECT id FROM nodes WHERE sid = ? ORDER BY seq LIMIT 1', 'pluck'],
  totalChanges: ['SELECT total_changes()', 'pluck'],
  countAll: ['SELECT coalesce(sum(n_nodes), 0) FROM sessions', 'pluck'],
  countScoped: ['SELECT n_nodes FROM sessions WHERE sid = ?', 'pluck'],
  countSids: [
    'SELECT coalesce(sum(n_nodes), 0) FROM sessions WHERE sid IN (SELECT value FROM json_each(?))',
    'pluck',
  ],
} as const satisfies Record<string, readonly [string, RowMode]>;

/** One of search's statements, from the store's statement cache. */
function st(db: Database.Database, name: keyof typeof SQL): Database.Statement {
  const [sql, mode] = SQL[name];
  return cachedStatement(db, sql, mode);
}

/** Every string one edit away (delete, transpose, substitute, insert) over the term's own letters and a-z. */
export function oneEditVariants(term: string): string[] {
  const chars = [...term];
  const n = chars.length;
  const alphabet = [...new Set([...'abcdefghijklmnopqrstuvwxyz0123456789', ...chars])];
  const at = (i: number, j: number) => chars.slice(i, j).join('');
  // Most likely slips first, so a search that stops early keeps the likeliest: swapped letters, a letter left out
  // (so one must be inserted), a letter too many, a wrong letter.
  const swapped: string[] = [];
  const inserted: string[] = [];
  const deleted: string[] = [];
  const substituted: string[] = [];
  for (let i = 0; i <= n; i++) {
    if (i < n - 1) swapped.push(at(0, i) + chars[i + 1] + chars[i] + at(i + 2, n));
    for (const a of alphabet) inserted.push(at(0, i) + a + at(i, n));
    if (i < n) {
      deleted.push(at(0, i) + at(i + 1, n));
      for (const a of alphabet) if (a !== chars[i]) substituted.push(at(0, i) + a + at(i + 1, n));
    }
  }
  const out = new Set([...swapped, ...inserted, ...deleted, ...substituted]);
  out.delete(term);
  return [...out].filter((v) => v.length >= 2);
}

/**
 * What changes whenever the shard does: data_version moves on other connections' commits, total_changes() on
 * this connection's own. Derived data below is cached per connection under this key.
 */
function shardVersion(db: Database.Database): string {
  return `${db.pragma('data_version', { simple: true })}:${st(db, 'totalChanges').get()}`;
}

interface Derived {
  version: string;
  all: number;
  /** [sid, lower-case label], newest session first. */
  labels: [string, string][];
}
const derived = new WeakMap<Database.Database, Derived>();

function derivedData(db: Database.Database): Derived {
  const version = shardVersion(db);
  let d = derived.get(db);
  if (d && d.version === version) return d;
  d = {
    version,
    all: st(db, 'countAll').get() as number,
    labels: st(db, 'labels').all() as [string, string][],
  };
  derived.set(db, d);
  return d;
}

/**
 * Turns in scope, for "37 of 12,408": the shard's or the session's, less the sessions the filter leaves out, from
 * sessions.n_nodes (one sum over the filter's sessions). Null under a date filter: no count of a day's turns is
 * kept, and a number counting turns of other days would be wrong.
 */
function searchedCount(
  db: Database.Database,
  scope: string | undefined,
  filter: TurnFilter | null,
): number | null {
  if (filter?.after !== undefined || filter?.before !== undefined) return null;
  const sids = filter?.sids;
  const notSids = filter?.notSids;
  if (scope) {
    if ((sids !== undefined && !sids.includes(scope)) || notSids?.includes(scope)) return 0;
    return (st(db, 'countScoped').get(scope) as number | undefined) ?? 0;
  }
  const sum = (of: string[]) => st(db, 'countSids').get(JSON.stringify(of)) as number;
  if (sids !== undefined) return sum(sids);
  if (notSids !== undefined) return derivedData(db).all - sum(notSids);
  return derivedData(db).all;
}

/** First turns of the sessions whose label, or a word of it, starts with the text (newest 20). */
function labelHits(db: Database.Database, text: string): number[] {
  const t = text.toLowerCase();
  const out: number[] = [];
  for (const [sid, label] of derivedData(db).labels) {
    if (!label.startsWith(t) && !label.includes(` ${t}`)) continue;
    const id = st(db, 'firstTurn').get(sid) as number | undefined;
    if (id !== undefined) out.push(id);
    if (out.length >= 20) break;
  }
  return out;
}

/**
 * Terms with no hits are replaced by an OR of their existing one-edit variants (at most three). The last term,
 * when it is a prefix, is checked as a prefix: "sqlte" finds "sqlite".
 */
function correct(db: Database.Database, terms: string[], prefixLast: boolean): Record<string, string[]> {
  const corrections: Record<string, string[]> = {};
  terms.forEach((t, i) => {
    const len = [...t].length;
    // One-edit variants grow with the square of the length (a 10,000-character "word" made 1.4 GB of them); no
    // word people misspell is longer than MAX_TYPO_LEN, so longer terms are searched as typed.
    if (len < MIN_TYPO_LEN || len > MAX_TYPO_LEN) return;
    const asPrefix = prefixLast && i === terms.length - 1;
    const parts = indexTerms(t);
    if (parts.length !== 1) return;
    const folded = parts[0];
    if (asPrefix ? termsUnder(db, folded, 1).length > 0 : knownTerms(db, [folded]).size > 0) return;
    // The ~400 one-edit variants are looked up in the vocabulary at once (one index seek each, in one statement),
    // whole words even for the term being typed; the most frequent three that occur are kept.
    const found = [...knownTerms(db, oneEditVariants(folded))].sort(
      (x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1),
    );
    if (found.length > 0) corrections[t] = found.slice(0, 3).map(([v]) => v);
  });
  return corrections;
}

function expression(
  terms: string[],
  prefixLast: boolean,
  corrections: Record<string, string[]>,
  under: TermsUnder,
): string {
  return terms
    .map((t, i) => {
      const asPrefix = prefixLast && i === terms.length - 1 && [...t].length >= 2;
      const alts = corrections[t];
      const self = asPrefix ? prefixGroup(t, under) : quoteTerm(t);
      return alts ? `(${[self, ...alts.map(quoteTerm)].join(' OR ')})` : self;
    })
    .join(' AND ');
}

/**
 * What snippets mark: the words FTS5 was asked to require (folded as the index folds them), their corrections, the
 * most frequent completions of the prefix being typed, and any other word starting with it (its typed letters).
 */
function snippetTermsOf(
  required: string[],
  prefixLast: boolean,
  corrections: Record<string, string[]>,
  under: TermsUnder,
): SnippetTerms {
  const whole = new Set<string>();
  let prefix: string | undefined;
  required.forEach((t, i) => {
    const pieces = indexTerms(t);
    if (prefixLast && i === required.length - 1 && [...t].length >= 2 && pieces.length > 0) {
      prefix = pieces.pop();
      for (const c of under(prefix!)) whole.add(c);
    }
    for (const p of pieces) whole.add(p);
    for (const c of corrections[t] ?? []) whole.add(c);
  });
  return prefix === undefined ? { whole } : { whole, prefix };
}

export function search(db: Database.Database, text: string, opts: SearchOptions = {}): SearchResult {
  const r = searchFor(db, text, opts);
  if (r.unknownFilters.length === 0) return r;
  // A name typed as a filter (`agnt:`) is said with the filter meant (unknownFilters): its spelling as a word,
  // corrected and searched too, is no news to say a second time.
  const said = Object.entries(r.corrections).filter(
    ([typo]) => !r.unknownFilters.includes(typo.toLowerCase()),
  );
  return { ...r, corrections: Object.fromEntries(said) };
}

function searchFor(db: Database.Database, text: string, opts: SearchOptions): SearchResult {
  const limit = Math.max(1, Math.min(opts.limit ?? 50, MAX_HITS));
  const candidates = Math.max(CANDIDATES, limit);
  const parsed = parseQuery(text);
  const result: SearchResult = {
    hits: [],
    searched: searchedCount(db, opts.scope || undefined, null),
    corrections: {},
    problems: parsed.problems,
    unknownFilters: parsed.unknownFilters,
    refused: parsed.invalid,
    match: { words: [], prefix: null },
  };
  if (parsed.invalid) return result;
  const resolved = resolveFilters(db, parsed.filters, shardVersion(db));
  if (resolved.problems.length > 0) {
    result.problems = [...result.problems, ...resolved.problems];
    result.refused = true;
    return result;
  }
  const filter = resolved.filter;
  const scope = opts.scope || undefined;
  if (filter) result.searched = searchedCount(db, scope, filter);
  // The filter (and the scope) as one condition over each candidate's row, applied inside the FTS5 walk.
  const cond = filter ? filterSql(filter, scope) : { where: '', params: {}, bounds: '' };
  const filtered = cond.where !== '';
  const trimmed = parsed.text;
  const terms = queryTerms(trimmed);

  const fieldOf = new Map<number, MatchField>();
  const add = (ids: number[], field: MatchField) => {
    for (const id of ids) if (id != null && !fieldOf.has(id)) fieldOf.set(id, field);
  };
  if (trimmed === '') {
    // Filters alone (`agent:codex after:2026-11-01`): the newest turns that pass them.
    if (!filtered || scope !== undefined) return result;
    add(newestPassing(db, limit, cond.where, cond.params), 'question');
  }

  // Bates ids and sids: "k3m9x2qa-0000" or "k3m9" (a prefix). Cheap index range scans.
  const lower = trimmed.toLowerCase();
  // (Both are a few rows, so a filter checks them one by one.)
  const pass = (ids: number[]) => (filter ? passing(db, ids, filter, scope) : ids);
  if (/^[a-z0-9]{3,32}(-\d{0,9})?$/.test(lower))
    add(pass(st(db, 'batesRange').all(lower, `${lower}~`) as number[]), 'bates');
  // Labels: matched in memory (thousands of sessions, cached until the shard changes).
  if (!opts.scope && trimmed.length >= 2) add(pass(labelHits(db, trimmed)), 'label');

  let expr = '';
  let snippetTerms: SnippetTerms = { whole: new Set() };
  let prefixMark: string | undefined;
  if (terms.length > 0) {
    const prefixLast = (opts.prefix ?? true) && !/\s$/.test(text) && parsed.endsInWord;
    const run = (e: string) => {
      const q = filtered
        ? newestFilteredMatches(db, 'questions_fts', e, candidates, cond.where, cond.params, cond.bounds)
        : newestQuestionMatches(db, e, candidates, scope);
      add(q, 'question');
      if (filter?.questionOnly) return q.length;
      // A match in the question outranks any match only in the answer (rank's tiers), so once the question
      // matches fill the leaders the answer-only ones could never be shown: not reading them halves the rows
      // a common query ranks.
      if (q.length >= leaderCount(limit)) return q.length;
      const any = filtered
        ? newestFilteredMatches(db, 'nodes_fts', e, candidates, cond.where, cond.params, cond.bounds)
        : newestMatches(db, e, candidates, scope);
      add(any, 'answer');
      return q.length + any.length;
    };
    const {
      required,
      under,
      snippetUnder: underForSnippets,
    } = queryPlan(db, terms, prefixLast, derivedData(db).all);
    expr = matchExpression(required, prefixLast, under);
    if (prefixLast) prefixMark = indexTerms(terms[terms.length - 1]).pop();
    const found = run(expr);
    if (found < limit) {
      result.corrections = correct(db, terms, prefixLast);
      if (Object.keys(result.corrections).length > 0) {
        expr = expression(required, prefixLast, result.corrections, under);
        run(expr);
      }
    }
    snippetTerms = snippetTermsOf(required, prefixLast, result.corrections, underForSnippets);
  }
  result.match = matchOf(terms, prefixMark, result.corrections);
  if (fieldOf.size === 0) return result;

  const rows = st(db, 'rows').all(JSON.stringify([...fieldOf.keys()])) as RankedRow[];
  const ranked = rank(rows, fieldOf, trimmed, terms, result.corrections, limit);
  const top = ranked.slice(0, limit);

  const withSnippet = opts.answerSnippets
    ? top.filter((t) => t.field === 'answer')
    : top.slice(0, opts.snippets ?? top.length);
  const origins = sessionOriginsOf(db, [...new Set(top.map((t) => t.row.sid))]);
  const snippets =
    expr !== ''
      ? snippetsFor(
          db,
          snippetTerms,
          withSnippet.map((t) => t.row.id),
        )
      : new Map<number, string>();
  result.hits = top.map(({ row, score, field, highlights }) => ({
    bates: row.bates,
    sid: row.sid,
    seq: row.seq,
    audit: row.audit,
    question: row.question,
    label: row.label,
    snippet: snippets.get(row.id) ?? '',
    created_at: row.created_at,
    field,
    score: Math.round(score * 1000) / 1000,
    highlights,
    agent: agentOf(origins.get(row.sid)),
    project: projectOf(origins.get(row.sid)?.info),
  }));
  return result;
}

/** The words a hit matched: the prefix only from two characters on, as the MATCH expression asks it. */
function matchOf(
  terms: string[],
  prefixMark: string | undefined,
  corrections: Record<string, string[]>,
): SearchMatch {
  const words = new Set<string>();
  terms.forEach((t, i) => {
    const folded = indexTerms(t);
    // The last term's last part is the prefix when it is asked as one.
    if (i === terms.length - 1 && prefixMark !== undefined && prefixMark.length >= 2) folded.pop();
    for (const w of folded) words.add(w);
    for (const c of corrections[t] ?? []) words.add(c);
  });
  const prefix = prefixMark !== undefined && prefixMark.length >= 2 ? prefixMark : null;
  return { words: [...words], prefix };
}
