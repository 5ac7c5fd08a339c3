/**
 * Which terms a query asks FTS5 for (docs/find.md, "Prefixes" and "Many words"): the rarest whole words it
 * requires, and the most frequent terms under the prefix being typed, both read from the shard's vocabulary
 * (vocabulary.ts keeps it; this only reads it, with the overlay of turns still waiting to be indexed).
 */
import type Database from 'better-sqlite3';
import { cachedStatement } from '../db/statements.js';
import { indexTerms, overlaidTerms } from './vocabulary.js';

/** How many terms under one prefix are searched: the most frequent ones (docs/find.md). */
export const PREFIX_TERMS = 32;
/** The same beside other words, which narrow the search already: every one of them costs a seek per candidate. */
export const PREFIX_TERMS_WITH_OTHERS = 12;
/**
 * A prefix in the expression snippet() is asked with: its most frequent terms only. snippet() evaluates the
 * expression row by row, a seek per term each time (20 snippets under a 32-term OR took 180 ms on 1M turns); a row
 * holding none of these gets the linear snippet instead (candidates.ts).
 */
export const SNIPPET_PREFIX_TERMS = 4;
/** At most this many whole words are required of a candidate: the rarest (docs/find.md, "Many words"). */
export const REQUIRED_WORDS = 2;

/**
 * The query's terms FTS5 is asked to require, in their order: the rarest whole words, at most REQUIRED_WORDS of
 * them and beyond the rarest only words held by fewer than half the turns, and the prefix being typed.
 * Every required word costs FTS5 a seek in its doclist for every candidate it walks, and a word as common as "the"
 * or "is" filters out almost nothing: "what is the difference between draivytin and sh" took 83 ms on 1M turns,
 * with its two rarest words and the prefix 37 ms. The ranking still counts every word of the query, so turns
 * holding them all come first; a turn missing only a common word can be among the candidates (docs/find.md).
 */
export function requiredTerms(
  db: Database.Database,
  terms: readonly string[],
  prefixLast: boolean,
  turns: number,
): string[] {
  const whole = prefixLast ? terms.slice(0, -1) : [...terms];
  if (whole.length <= 1) return [...terms];
  const folded = whole.map((t) => indexTerms(t)[0] ?? t);
  const counts = knownTerms(db, folded);
  // Unknown words (0: nothing holds them) are the most selective of all: they are kept, and typos are corrected.
  const order = whole
    .map((t, i) => ({ t, i, n: counts.get(folded[i]) ?? 0 }))
    .sort((a, b) => a.n - b.n || a.i - b.i);
  const keep = new Set(
    order.filter((x, k) => k === 0 || (k < REQUIRED_WORDS && x.n < turns / 2)).map((x) => x.i),
  );
  const out = whole.filter((_, i) => keep.has(i));
  return prefixLast ? [...out, terms[terms.length - 1]] : out;
}

/**
 * How find and search ask FTS5 for a query: the words required (requiredTerms), and the terms a prefix stands for,
 * fewer beside other words and fewer still for snippets (the most frequent of the same list: one vocabulary lookup
 * a prefix).
 */
export function queryPlan(
  db: Database.Database,
  terms: readonly string[],
  prefixLast: boolean,
  turns: number,
): { required: string[]; under: (prefix: string) => string[]; snippetUnder: (prefix: string) => string[] } {
  const required = requiredTerms(db, terms, prefixLast, turns);
  const k = required.length > 1 ? PREFIX_TERMS_WITH_OTHERS : PREFIX_TERMS;
  const looked = new Map<string, string[]>();
  const under = (p: string) => {
    let t = looked.get(p);
    if (t === undefined) {
      t = termsUnder(db, p, k);
      looked.set(p, t);
    }
    return t;
  };
  return { required, under, snippetUnder: (p) => under(p).slice(0, SNIPPET_PREFIX_TERMS) };
}

const UNDER_PREFIX = `SELECT term FROM fts_terms WHERE term >= @p AND term < @p || char(1114111)
  ORDER BY n DESC, term LIMIT @k`;
const UNDER_PREFIX_OVERLAID = `SELECT term FROM (
    SELECT term, n FROM fts_terms WHERE term >= @p AND term < @p || char(1114111)
    UNION ALL SELECT term, n FROM temp.pending_terms WHERE term >= @p AND term < @p || char(1114111))
  GROUP BY term ORDER BY sum(n) DESC, term LIMIT @k`;
const KNOWN = 'SELECT term, n FROM fts_terms WHERE term IN (SELECT value FROM json_each(@terms))';
const KNOWN_OVERLAID = `SELECT term, sum(n) FROM (
    SELECT term, n FROM fts_terms WHERE term IN (SELECT value FROM json_each(@terms))
    UNION ALL SELECT term, n FROM temp.pending_terms WHERE term IN (SELECT value FROM json_each(@terms)))
  GROUP BY term`;

/** The indexed terms that start with `prefix`, most frequent first, at most `limit`. */
export function termsUnder(db: Database.Database, prefix: string, limit = PREFIX_TERMS): string[] {
  const sql = overlaidTerms.has(db) ? UNDER_PREFIX_OVERLAID : UNDER_PREFIX;
  return cachedStatement(db, sql, 'pluck').all({ p: prefix, k: limit }) as string[];
}

/** Which of `terms` are indexed, with how often each occurs. */
export function knownTerms(db: Database.Database, terms: readonly string[]): Map<string, number> {
  if (terms.length === 0) return new Map();
  const sql = overlaidTerms.has(db) ? KNOWN_OVERLAID : KNOWN;
  return new Map(cachedStatement(db, sql, 'raw').all({ terms: JSON.stringify(terms) }) as [string, number][]);
}
