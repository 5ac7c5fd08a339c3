/**
 * Text helpers shared by the providers: question normalisation (for cache keys), content terms (for retrieval),
 * and one-line display of untrusted text.
 */

/** Token characters as SQLite's unicode61 tokenizer sees them: letters, numbers, marks, private use. */
const TERM_RE = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
const ASCII_TERM_RE = /[a-z0-9]+/g;

/**
 * The question as the cache key sees it: NFKC, whitespace runs collapsed to one space, trimmed, lowercased.
 * "What is  Rust?" and "what is rust?" share a key; "what is rust" (no question mark) does not.
 */
export function normaliseQuestion(q: string): string {
  return q.normalize('NFKC').replace(/\s+/gu, ' ').trim().toLowerCase();
}

/** Lowercase, without diacritics: how `unicode61 remove_diacritics 2` compares terms. */
export function fold(term: string): string {
  return term
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .normalize('NFC')
    .toLowerCase();
}

/** Every token of a text, folded, in order (duplicates kept). */
export function tokens(text: string): string[] {
  // Fast path: ASCII text needs no normalisation and has no diacritics to fold.
  if (/^[\x00-\x7f]*$/.test(text)) return text.toLowerCase().match(ASCII_TERM_RE) ?? [];
  const out: string[] = [];
  for (const t of text.normalize('NFKC').toLowerCase().match(TERM_RE) ?? []) {
    const f = /^[a-z0-9]+$/.test(t) ? t : fold(t);
    if (f !== '') out.push(f);
  }
  return out;
}

/**
 * Words that carry no topic: function words, question openers and conversational filler. They never drive
 * retrieval (a question made only of them retrieves nothing of its own).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all also am an and any anything are aren as at be because been before being
  below between both but by can cannot could couldn did didn do does doesn doing don done down during each either
  else even ever every few for from further get gets getting give go goes going got had hadn has hasn have haven
  having he help her here hers herself him himself his how however i if in into is isn it its itself just know let
  like ll me mean means might mine more most much must my myself need no nor not now of off ok okay on once one only
  or other others our ours ourselves out over own please re same say shall she should shouldn show so some
  something such tell than thank thanks that the their theirs them themselves then there these they thing things
  this those through thus to too under understand until up upon us ve very via want was wasn way we were weren
  what whats when where whether which while who whom whose why will with won would wouldn yes yet you your yours
  yourself yourselves explain describe work works use using used`
    .split(/\s+/)
    .filter(Boolean),
);

/** Words that point back at something said earlier: their presence makes a question a follow-up. */
const ANAPHORA: ReadonlySet<string> = new Set(
  'it its itself this that these those they them their theirs he him his she her hers there'.split(' '),
);

/** A term worth retrieving on: not a stop word, at least two characters, not a bare one- or two-digit number. */
export function isContentTerm(t: string): boolean {
  return [...t].length >= 2 && !STOP_WORDS.has(t) && !/^\d{1,2}$/.test(t);
}

/** The distinct content terms of a text, in order of first appearance, at most `max`. */
export function contentTerms(text: string, max = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const t of tokens(text)) {
    if (out.length >= max) break;
    if (seen.has(t) || !isContentTerm(t)) continue;
    seen.add(t);
    out.push(t);
  }
  return out;
}

/** True when the question leans on earlier turns: it has a pronoun and at most two words of its own. */
export function isFollowUp(question: string): boolean {
  const all = tokens(question);
  const own = new Set(all.filter(isContentTerm));
  return own.size === 0 || (own.size <= 2 && all.some((t) => ANAPHORA.has(t)));
}

/** C0/C1 controls, DEL, bidi overrides and isolates: never let them into a one-line rendering. */
const UNSAFE_RE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * One line of at most `max` characters: controls removed, whitespace collapsed, an ellipsis when cut (for prompts;
 * the screen's one-line sanitiser is src/text/sanitize.ts's oneLine).
 */
export function clipLine(text: string, max: number): string {
  const s = text.replace(UNSAFE_RE, '').replace(/\s+/gu, ' ').trim();
  if (s.length <= max) return s;
  const chars = [...s];
  return chars.length <= max
    ? s
    : `${chars
        .slice(0, max - 1)
        .join('')
        .trimEnd()}…`;
}
