/**
 * A JSONL line too long to keep whole (a pasted log as a prompt, an enormous tool result or reply), cut down
 * before it is decoded: its JSON text is copied with every long string literal cut short, so that the line keeps
 * its shape (uuid, parentUuid, type, timestamp, content blocks) and can be parsed like any other. The whole line
 * is never made into one string: only the bytes kept are copied, into a buffer of bounded size.
 */

/** A line longer than this is cut: a turn's text can hold 16 MiB (src/store/write/turns.ts), so more cannot be kept. */
export const MAX_LINE_BYTES = 16 * 2 ** 20;
/** What the strings of a cut line keep in all: a margin under 16 MiB for the rest of the turn's text. */
const KEEP_BYTES = 15 * 2 ** 20;
/** Strings this short are never cut (keys, ids, times, types), whatever the budget has left. */
const SHORT = 1024;
/** A line whose cut copy would still be longer than this is mostly structure, not text: it is skipped. */
const MAX_CUT_BYTES = 2 * MAX_LINE_BYTES;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** True when the quote at `i` ends a string: the backslashes right before it are an even number. */
function closes(s: Buffer, i: number, from: number): boolean {
  let j = i - 1;
  while (j >= from && s[j] === BACKSLASH) j--;
  return (i - 1 - j) % 2 === 0;
}

/** `at` moved back so that the bytes before it end neither inside a UTF-8 character nor inside an escape. */
function safeEnd(s: Buffer, from: number, at: number): number {
  let p = at;
  while (p > from && (s[p] & 0xc0) === 0x80) p--;
  // The nearest backslash decides: \uXXXX holds no backslash, so an earlier escape ends before it.
  for (let i = p - 1; i >= Math.max(from, p - 6); i--) {
    if (s[i] !== BACKSLASH) continue;
    let j = i - 1;
    while (j >= from && s[j] === BACKSLASH) j--;
    const introduces = (i - j) % 2 === 1;
    if (introduces && i + (s[i + 1] === 0x75 ? 6 : 2) > p) p = i;
    break;
  }
  return p;
}

/** A line's size for a problem: `200 MiB`, `16.2 MiB`. */
export function lineMib(bytes: number): string {
  const mib = bytes / 2 ** 20;
  return `${mib >= 100 ? Math.round(mib) : Math.round(mib * 10) / 10} MiB`;
}

/** The sizes above (tests use small ones). */
export interface CutLimits {
  keep: number;
  short: number;
  max: number;
}

/**
 * The line `s` with its long strings cut, as text to parse, and how many strings were cut; undefined when even
 * cut it would be over MAX_CUT_BYTES. A string is kept whole while the line's budget lasts; past it, to its first
 * bytes, ending `… [cut: N more bytes]` (N counts the JSON text left out). An unterminated string (a truncated
 * line) is copied as far as the budget allows and left open, so that JSON.parse reports the line as before.
 */
export function cutLine(
  s: Buffer,
  { keep: budget, short, max }: CutLimits = { keep: KEEP_BYTES, short: SHORT, max: MAX_CUT_BYTES },
): { text: string; cut: number } | undefined {
  const out = Buffer.allocUnsafe(max);
  let o = 0;
  const copy = (from: number, to: number): boolean => {
    if (o + (to - from) > max) return false;
    o += s.copy(out, o, from, to);
    return true;
  };
  let left = budget;
  let cut = 0;
  let p = 0;
  const n = s.length;
  while (p < n) {
    const q = s.indexOf(QUOTE, p);
    if (q < 0) {
      if (!copy(p, n)) return undefined;
      break;
    }
    if (!copy(p, q + 1)) return undefined; // the structure before the string, and its opening quote
    let c = s.indexOf(QUOTE, q + 1);
    while (c >= 0 && !closes(s, c, q + 1)) c = s.indexOf(QUOTE, c + 1);
    const end = c < 0 ? n : c;
    const allow = Math.max(short, left);
    if (end - (q + 1) <= allow) {
      if (!copy(q + 1, c < 0 ? n : c + 1)) return undefined;
      left = Math.max(0, left - (end - (q + 1)));
    } else {
      const keep = safeEnd(s, q + 1, q + 1 + allow);
      if (!copy(q + 1, keep)) return undefined;
      left = Math.max(0, left - (keep - (q + 1)));
      if (c >= 0) {
        const marker = Buffer.from(`… [cut: ${end - keep} more bytes]"`);
        if (o + marker.length > max) return undefined;
        o += marker.copy(out, o);
        cut++;
      }
    }
    if (c < 0) break;
    p = c + 1;
  }
  return { text: out.toString('utf8', 0, o), cut };
}
