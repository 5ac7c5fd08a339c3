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
export function quoteTerm(t: string): string {
  return `"${t.replaceAll('"', '""')}"`;
}

/**
 * Builds an FTS5 MATCH expression in which user text can only ever be a quoted string: every term is wrapped in
 * double quotes (terms hold no quotes: they are runs of letters and digits). The last term becomes a prefix
 * query while typing, from two characters on: a one-letter prefix would merge the doclists of thousands of terms.
 */
export function matchExpression(terms: string[], prefixLast: boolean): string {
  return terms
    .map((t, i) => {
      const q = quoteTerm(t);
      return i === terms.length - 1 && prefixLast && [...t].length >= 2 ? `${q}*` : q;
    })
    .join(' ');
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
  const hit = folded.indexOf(term);
  if (hit < 0) return flat.length > 90 ? `${flat.slice(0, 90)}…` : flat;
  const at = from[hit];
  const end = hit + term.length < from.length - 1 ? from[hit + term.length] : flat.length;
  const lo = Math.max(0, at - 30);
  const hi = Math.min(flat.length, end + 60);
  return `${lo > 0 ? '…' : ''}${flat.slice(lo, at)}«${flat.slice(at, end)}»${flat.slice(end, hi)}${hi < flat.length ? '…' : ''}`;
}
