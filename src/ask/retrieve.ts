import { type Postings, quoteTerm as quote, type TurnBrief } from '../store/index.js';
import { clipLine, contentTerms, isFollowUp, normaliseQuestion, tokens } from './text.js';

/**
 * Retrieval for the built-in answerer and for the `context` an external command receives.
 *
 * Cheap by construction, whatever the shard size: every FTS5 query is bounded (`ORDER BY rowid DESC LIMIT k`
 * walks a doclist from its newest end and stops; no bm25 over all matches), and ranking happens in JS over a
 * few hundred candidates.
 *   1. Terms: the question's content terms (stop words dropped), and up to six keywords from the branch's
 *      ancestors, nearest first: the titles each ancestor cited, then its question.
 *   2. Per term, the newest 48 matching turns (24 per keyword). A term with fewer has an exact document frequency;
 *      for a truncated list it is estimated from the id span the list covers. idf = ln(1 + N / df).
 *      Question terms whose lists were truncated are also ANDed (the three rarest), so turns that match several
 *      common terms together are found even when no single list reaches them. When fewer than half of a truncated
 *      list are sources (see 3), up to three more pages of older postings are read.
 *   3. Score = sum over matched terms of idf, halved when the term only matches the answer or the cited titles,
 *      halved again for ancestor keywords. A turn qualifies when its matched question terms carry at least 30% of
 *      the question's weight (terms found nowhere do not count), or, for a follow-up ("who created it?": a pronoun
 *      and at most two words of its own), when it matches an ancestor keyword. In a follow-up the keywords weigh as
 *      much as the question's own terms, and a turn matching none of them scores half: the pronoun stands for the
 *      branch's topic. Never cited: the ancestors (the conversation itself), built-in answers (`grounded`,
 *      `ungrounded`: pointers to turns that are candidates themselves, or nothing) and `cached` copies.
 *   4. The best `limit` turns scoring at least a quarter of the best one are cited, one per distinct question,
 *      each with a snippet.
 */

export interface ContextItem {
  bates: string;
  question: string;
  snippet: string;
}

export interface Citation extends ContextItem {
  /** The cited turn's question on one line: what the node records in cited_titles. */
  title: string;
  score: number;
}

export interface Retrieval {
  citations: Citation[];
  /** The question's own content terms. */
  terms: string[];
  /** Keywords from the ancestors (change retrieval, never the cache key). */
  keywords: string[];
  followUp: boolean;
}

/** What retrieval needs of each ancestor, root first. */
export interface AncestorInfo {
  id: number;
  question: string;
  cited_titles: readonly string[];
}

export interface RetrieveOptions {
  /** How many turns to cite (default 5). */
  limit?: number;
  /** Tuning: postings read per question term (default 48; ancestor keywords read half as many). */
  perTerm?: number;
}

const PER_TERM = 48;
const MAX_TERMS = 8;
const MAX_KEYWORDS = 6;
const MAX_AND = 3;
const TOP_UP_ROUNDS = 3;
const KEYWORD_WEIGHT = 0.5;
const OUTSIDE_QUESTION = 0.5;
const OFF_TOPIC = 0.5;
const MIN_COVERAGE = 0.3;
const MIN_RELATIVE = 0.25;
const TITLE_MAX = 200;
/**
 * Built-in answers only point at other turns (which are candidates themselves), an ungrounded one holds nothing,
 * and a cached turn copies an earlier one: none of them is a source.
 */
const NOT_SOURCES = new Set(['grounded', 'ungrounded', 'cached']);
const SNIPPET_MAX = 160;

/** Keywords from the branch: per ancestor, nearest first, the terms of its cited titles and then of its question. */
export function ancestorKeywords(
  ancestors: readonly AncestorInfo[],
  own: ReadonlySet<string>,
  max = MAX_KEYWORDS,
): string[] {
  const out: string[] = [];
  const seen = new Set(own);
  const add = (text: string) => {
    for (const t of contentTerms(text)) {
      if (out.length >= max) return;
      if (seen.has(t)) continue;
      seen.add(t);
      out.push(t);
    }
  };
  for (let i = ancestors.length - 1; i >= 0 && out.length < max; i--) {
    for (const title of ancestors[i].cited_titles) add(title);
    add(ancestors[i].question);
  }
  return out;
}

interface TermInfo {
  term: string;
  keyword: boolean;
  /** Postings read at a time for this term. */
  page: number;
  ids: Set<number>;
  /** The oldest id read so far from this term's doclist. */
  oldest: number;
  df: number;
  idf: number;
  truncated: boolean;
}

type Row = TurnBrief;

/** A short window of the answer around the first match of the most telling term, on one line. */
export function snippetOf(answer: string, terms: readonly string[]): string {
  const flat = clipLine(answer.slice(0, 4000), Number.POSITIVE_INFINITY);
  if (flat.length <= SNIPPET_MAX) return flat;
  const lower = flat.toLowerCase();
  let pos = -1;
  for (const t of terms) {
    const re = new RegExp(`(?<![\\p{L}\\p{N}])${t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'u');
    const m = re.exec(lower);
    if (m) {
      pos = m.index;
      break;
    }
  }
  let start = pos < 0 ? 0 : Math.max(0, pos - 40);
  if (start > 0) {
    const sp = flat.indexOf(' ', start);
    start = sp >= 0 && sp < pos ? sp + 1 : start;
  }
  let end = Math.min(flat.length, start + SNIPPET_MAX);
  if (end < flat.length) {
    const sp = flat.lastIndexOf(' ', end);
    if (sp > start + SNIPPET_MAX / 2) end = sp;
  }
  return `${start > 0 ? '…' : ''}${flat.slice(start, end).trim()}${end < flat.length ? '…' : ''}`;
}

/** Step 2: each term's newest postings with its df and idf, plus the AND of the rarest common question terms. */
function readPostings(
  postings: Postings,
  terms: readonly string[],
  keywords: readonly string[],
  perTerm: number,
  n: number,
): TermInfo[] {
  const infos: TermInfo[] = [];
  for (const [list, keyword] of [
    [terms, false],
    [keywords, true],
  ] as const) {
    const page = keyword ? Math.max(1, perTerm >> 1) : perTerm;
    for (const term of list) {
      const ids = postings.newest(quote(term), page);
      const truncated = ids.length >= page;
      const df = truncated ? (page * n) / Math.max(1, n - ids[ids.length - 1] + 1) : ids.length;
      const idf = Math.log(1 + n / Math.max(1, df));
      infos.push({ term, keyword, page, ids: new Set(ids), oldest: ids.at(-1) ?? 0, df, idf, truncated });
    }
  }
  const common = infos.filter((t) => !t.keyword && t.truncated).sort((a, b) => a.df - b.df);
  if (common.length >= 2) {
    const both = common.slice(0, MAX_AND);
    const ids = postings.newest(both.map((t) => quote(t.term)).join(' '), perTerm);
    for (const t of both) for (const id of ids) t.ids.add(id);
  }
  return infos;
}

/** The candidate rows of every term's postings (ancestors excluded), topped up where few of them are sources. */
function readCandidates(
  postings: Postings,
  infos: readonly TermInfo[],
  ancestors: readonly AncestorInfo[],
): Map<number, Row> {
  const exclude = new Set(ancestors.map((a) => a.id));
  const rows = new Map<number, Row>();
  const isSource = (id: number) => {
    const r = rows.get(id);
    return r !== undefined && !NOT_SOURCES.has(r.audit);
  };
  const fetch = (ids: Iterable<number>) => {
    const missing: number[] = [];
    for (const id of ids) if (!exclude.has(id) && !rows.has(id)) missing.push(id);
    if (missing.length === 0) return;
    for (const r of postings.briefs(missing)) rows.set(r.id, r);
  };
  for (const t of infos) fetch(t.ids);
  // Built-in answers repeat the questions they cite, so a heavy user's recent built-in answers can fill a common
  // term's newest postings. When fewer than half of a truncated list are sources, read further back (bounded).
  for (const t of infos) {
    for (let round = 0; round < TOP_UP_ROUNDS && t.truncated; round++) {
      let sources = 0;
      for (const id of t.ids) if (isSource(id)) sources++;
      if (sources >= t.page / 2) break;
      const more = postings.newestBefore(quote(t.term), t.oldest, t.page);
      for (const id of more) t.ids.add(id);
      t.truncated = more.length >= t.page;
      t.oldest = more.at(-1) ?? t.oldest;
      fetch(more);
    }
  }
  return rows;
}

interface Scored {
  row: Row;
  score: number;
  matched: TermInfo[];
}

/** Step 3: the sources that qualify, best first. */
function scoreCandidates(
  rows: Map<number, Row>,
  infos: readonly TermInfo[],
  followUp: boolean,
  hasKeywords: boolean,
): Scored[] {
  const qTotal = infos.reduce((s, t) => (t.keyword || t.df === 0 ? s : s + t.idf), 0);
  const scored: Scored[] = [];
  for (const row of rows.values()) {
    if (NOT_SOURCES.has(row.audit)) continue;
    const inQuestion = new Set(tokens(row.question));
    let score = 0;
    let own = 0;
    let kwHit = false;
    const matched: TermInfo[] = [];
    for (const t of infos) {
      const inQ = inQuestion.has(t.term);
      if (!inQ && !t.ids.has(row.id)) continue;
      matched.push(t);
      const w = t.idf * (inQ ? 1 : OUTSIDE_QUESTION);
      if (t.keyword) {
        score += followUp ? w : KEYWORD_WEIGHT * w;
        kwHit = true;
      } else {
        score += w;
        own += t.idf;
      }
    }
    // In a follow-up the pronoun stands for the branch's topic: a turn that misses it is likely about another thing.
    if (followUp && hasKeywords && !kwHit) score *= OFF_TOPIC;
    const qualifies = (qTotal > 0 && own >= MIN_COVERAGE * qTotal) || (followUp && kwHit);
    if (qualifies) scored.push({ row, score, matched });
  }
  scored.sort((a, b) => b.score - a.score || b.row.id - a.row.id);
  return scored;
}

/** Step 4: the best `limit` scoring at least MIN_RELATIVE of the best, one per distinct question. */
function pickTop(scored: readonly Scored[], limit: number): Scored[] {
  const best = scored[0].score;
  // One citation per question: the same question asked again (a rewind, another session) adds little.
  const seenQuestions = new Set<string>();
  const top: Scored[] = [];
  for (const s of scored) {
    if (top.length >= limit || s.score < MIN_RELATIVE * best) break;
    const key = normaliseQuestion(s.row.question);
    if (seenQuestions.has(key)) continue;
    seenQuestions.add(key);
    top.push(s);
  }
  return top;
}

export function retrieve(
  postings: Postings,
  question: string,
  ancestors: readonly AncestorInfo[],
  opts: RetrieveOptions = {},
): Retrieval {
  const limit = Math.max(1, Math.min(opts.limit ?? 5, 50));
  const perTerm = Math.max(2, Math.min(opts.perTerm ?? PER_TERM, 1000));
  const terms = contentTerms(question, MAX_TERMS);
  const followUp = isFollowUp(question);
  const keywords = ancestorKeywords(ancestors, new Set(terms));
  const empty: Retrieval = { citations: [], terms, keywords, followUp };
  if (terms.length === 0 && !(followUp && keywords.length > 0)) return empty;
  const n = postings.maxTurnId();
  if (n === 0) return empty;

  const infos = readPostings(postings, terms, keywords, perTerm, n);
  const rows = readCandidates(postings, infos, ancestors);
  if (rows.size === 0) return empty;
  const scored = scoreCandidates(rows, infos, followUp, keywords.length > 0);
  if (scored.length === 0) return empty;
  const top = pickTop(scored, limit);

  const answers = postings.answers(top.map((s) => s.row.id));
  const citations = top.map(({ row, score, matched }) => {
    const byWeight = [...matched].sort((a, b) => b.idf - a.idf).map((t) => t.term);
    return {
      bates: row.bates,
      question: row.question,
      title: clipLine(row.question, TITLE_MAX) || row.bates,
      snippet: snippetOf(answers.get(row.id) ?? '', byWeight),
      score: Math.round(score * 1000) / 1000,
    };
  });
  return { citations, terms, keywords, followUp };
}
