import { indexTerms, MAX_VOCABULARY_TERM } from './vocabulary.js';

/**
 * Query text into FTS5 terms and MATCH expressions in which user text can only ever be a quoted string. Shared by
 * find, search, the archive scan and the answerer's retrieval.
 */

/** Token characters as SQLite's unicode61 tokenizer sees them: letters, numbers, marks, private use. */
const TERM_RE = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

export function queryTerms(text: string): string[] {
  return (text.normalize('NFKC').toLowerCase().match(TERM_RE) ?? []).slice(0, 16);
}

/** Case and diacritics folded as the FTS tokenizer does (unicode61 remove_diacritics 2), then split into terms. */
export function foldTerms(s: string): string[] {
  return queryTerms(s.normalize('NFKD').replace(/\p{M}/gu, ''));
}

/** One term as an FTS5 string: double quotes, any inner quote doubled. */
function quoted(t: string): string {
  return `"${t.replaceAll('"', '""')}"`;
}

/**
 * One query term as FTS5 is asked it: a quoted string, or, when the tokenizer cuts it into several tokens (a mark
 * of some scripts splits a word: "हिन्दी"), each token quoted and all required. A quoted string of several tokens
 * is a phrase, which needs the positions the index no longer keeps (detail=none: docs/find.md, "The index's
 * shape"); FTS5 refuses it.
 */
export function quoteTerm(t: string): string {
  const parts = indexTerms(t);
  if (parts.length <= 1) return quoted(t);
  return `(${parts.map(quoted).join(' AND ')})`;
}

/** The indexed terms that start with a prefix, most frequent first (vocabulary.ts `termsUnder`). */
export type TermsUnder = (prefix: string) => string[];

/**
 * Builds an FTS5 MATCH expression in which user text can only ever be a quoted string: every term is wrapped in
 * double quotes (terms hold no quotes: they are runs of letters and digits). The last term is a prefix while
 * typing, from two characters on (one letter would be most of the vocabulary): see `prefixGroup`.
 */
export function matchExpression(terms: string[], prefixLast: boolean, under: TermsUnder): string {
  return terms
    .map((t, i) =>
      i === terms.length - 1 && prefixLast && [...t].length >= 2 ? prefixGroup(t, under) : quoteTerm(t),
    )
    .join(' AND '); // explicit: FTS5 takes `"a" "b"` as an AND, but not `"a" ("b" OR "c")`
}

/**
 * A prefix as FTS5 is asked it: an OR of the most frequent indexed terms under it, whole words, which FTS5 walks
 * from the newest end and stops at the limit (docs/find.md, "Prefixes"). A prefix no indexed term starts with is
 * asked as the whole word (it matches nothing, cheaply); one longer than any term the vocabulary keeps is left to
 * FTS5's own prefix query, which only has the few terms under so long a prefix to merge.
 */
export function prefixGroup(prefix: string, under: TermsUnder): string {
  // The vocabulary holds terms as the index folds them ("café" is "cafe"); a mark of some scripts splits a term.
  const folded = indexTerms(prefix);
  const last = folded.pop();
  if (last === undefined) return quoteTerm(prefix);
  const before = folded.map(quoteTerm);
  let group: string;
  if (last.length > MAX_VOCABULARY_TERM) group = `${quoted(last)}*`;
  else {
    const terms = under(last);
    if (terms.length === 0) group = quoteTerm(last);
    else if (terms.length === 1) group = quoteTerm(terms[0]);
    else group = `(${terms.map(quoteTerm).join(' OR ')})`;
  }
  return before.length === 0 ? group : `${before.join(' AND ')} AND ${group}`;
}

/**
 * A short piece of `text` around the first occurrence of the folded `term`, the match marked «like this»; the start
 * of the text when it does not occur. Linear in the text: the archive scan uses it, and so does find for texts too
 * long for FTS5's snippet() (candidates.ts).
 */
export function markedSnippet(text: string, term: string): string {
  const flat = text.replace(/\s+/g, ' ');
  // Fold character by character, remembering where each folded character came from, to mark the original text.
  let folded = '';
  const from: number[] = [];
  for (let i = 0; i < flat.length; ) {
    const ch = String.fromCodePoint(flat.codePointAt(i)!);
    const f = ch.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
    for (let k = 0; k < f.length; k++) from.push(i);
    folded += f;
    i += ch.length;
  }
  from.push(flat.length);
  // The first place the term starts a word ("test" in "cart.test.js", not in "vitest"), else its first place.
  let hit = folded.indexOf(term);
  for (let at = hit; at > 0; at = folded.indexOf(term, at + 1)) {
    if (!/[\p{L}\p{N}]/u.test(folded[at - 1])) {
      hit = at;
      break;
    }
  }
  if (hit < 0) return flat.length > 90 ? `${flat.slice(0, 90)}…` : flat;
  const at = from[hit];
  const end = hit + term.length < from.length - 1 ? from[hit + term.length] : flat.length;
  const lo = Math.max(0, at - 30);
  const hi = Math.min(flat.length, end + 60);
  return `${lo > 0 ? '…' : ''}${flat.slice(lo, at)}«${flat.slice(at, end)}»${flat.slice(end, hi)}${hi < flat.length ? '…' : ''}`;
}

/** What a snippet marks: whole terms (folded as the index folds them), and a prefix being typed. */
export interface SnippetTerms {
  whole: ReadonlySet<string>;
  /** A word starting with it is marked too, only its first letters when it is no whole term (`«sho»elace`). */
  prefix?: string;
}

/** Tokens of a text for snippets: runs of letters, digits, marks, private use (a mark may split a term: indexTerms). */
const SNIPPET_TOKEN_RE = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
const ASCII_TOKEN_RE = /[A-Za-z0-9]+/g;
const NON_ASCII_RE = /[^\u0000-\u007f]/;
/** Tokens a snippet shows, as FTS5's snippet() was asked for (docs/find.md, "The index's shape"). */
const SNIPPET_TOKENS = 16;

interface Token {
  start: number;
  end: number;
  /** The length to mark from `start` (the whole token, or the prefix), 0 when it does not match. */
  mark: number;
  /** The matched term, to count distinct ones. */
  term: string;
}

function snippetTokens(text: string, terms: SnippetTerms): Token[] {
  const re = NON_ASCII_RE.test(text) ? SNIPPET_TOKEN_RE : ASCII_TOKEN_RE;
  const out: Token[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const raw = m[0];
    const folded = re === ASCII_TOKEN_RE ? [raw.toLowerCase()] : indexTerms(raw);
    let mark = 0;
    let term = '';
    for (const f of folded) {
      if (terms.whole.has(f)) {
        mark = raw.length;
        term = f;
        break;
      }
      if (terms.prefix && f.startsWith(terms.prefix)) {
        // only the typed letters, where they can be found in the original text
        mark = raw.toLowerCase().startsWith(terms.prefix) ? terms.prefix.length : raw.length;
        term = terms.prefix;
      }
    }
    out.push({ start: m.index, end: m.index + raw.length, mark, term });
  }
  return out;
}

/**
 * A snippet of a turn's texts, as FTS5's snippet() gave it (16 tokens of the column holding the most distinct
 * matched terms, centred on its first match, the matches marked «like this», … where text was left out), made from
 * the text alone. snippet() re-evaluated the whole MATCH expression for every row, a seek in every term's doclist
 * (30-45 ms for 50 answer-only hits on 1,000,000 turns); this reads the text once. Null when nothing matches.
 */
export function termSnippet(columns: readonly string[], terms: SnippetTerms): string | null {
  let best: { text: string; tokens: Token[]; first: number } | null = null;
  let bestScore = 0;
  for (const text of columns) {
    if (text === '') continue;
    const tokens = snippetTokens(text, terms);
    const hits = new Set<string>();
    let first = -1;
    tokens.forEach((t, i) => {
      if (t.mark === 0) return;
      hits.add(t.term);
      if (first < 0) first = i;
    });
    if (hits.size > bestScore) {
      bestScore = hits.size;
      best = { text, tokens, first };
    }
  }
  if (best === null) return null;
  const { text, tokens, first } = best;
  const from = Math.max(
    0,
    Math.min(first - Math.floor((SNIPPET_TOKENS - 1) / 2), tokens.length - SNIPPET_TOKENS),
  );
  const to = Math.min(tokens.length, from + SNIPPET_TOKENS) - 1;
  let out = from > 0 ? '…' : '';
  let at = from > 0 ? tokens[from].start : 0;
  for (let i = from; i <= to; i++) {
    const t = tokens[i];
    out += text.slice(at, t.start);
    out +=
      t.mark > 0
        ? `«${text.slice(t.start, t.start + t.mark)}»${text.slice(t.start + t.mark, t.end)}`
        : text.slice(t.start, t.end);
    at = t.end;
  }
  out += to < tokens.length - 1 ? '…' : text.slice(at);
  return out;
}
