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
