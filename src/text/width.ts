/**
 * Terminal cell widths, so wide characters (CJK, emoji) never push a border out of place.
 *
 * The table mirrors xterm.js's Unicode 11 rules (what most current terminals and our pty tests agree on): East
 * Asian Wide/Fullwidth and emoji-presentation code points take two cells; combining marks, joiners and variation
 * selectors take none and stay with the character before them. The TUI also installs `cpWidth` as blessed's width
 * function (see src/ui/term/terminal.ts), so the screen's own drawing and our layout can never disagree.
 */
import { DOUBLE_WIDTH, ZERO_WIDTH } from './widthTable.js';

function inTable(table: readonly number[], cp: number): boolean {
  let lo = 0;
  let hi = table.length / 2 - 1;
  if (cp < table[0] || cp > table[table.length - 1]) return false;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp > table[mid * 2 + 1]) lo = mid + 1;
    else if (cp < table[mid * 2]) hi = mid - 1;
    else return true;
  }
  return false;
}

/** Cells taken by one code point: 0, 1 or 2. Control characters count 0 (they are stripped before display). */
export function cpWidth(cp: number): 0 | 1 | 2 {
  if (cp < 0x20) return 0;
  if (cp < 0x7f) return 1;
  if (cp < 0xa0) return 0;
  if (cp < 0x300) return 1;
  if (inTable(ZERO_WIDTH, cp)) return 0;
  if (cp >= 0x1100 && inTable(DOUBLE_WIDTH, cp)) return 2;
  return 1;
}

export function isWide(cp: number): boolean {
  return cpWidth(cp) === 2;
}

/** Display width of a sanitised one-line string. */
export function displayWidth(s: string): number {
  let w = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f) {
      w++;
      continue;
    }
    const cp = s.codePointAt(i)!;
    if (cp > 0xffff) i++;
    w += cpWidth(cp);
  }
  return w;
}

/**
 * The longest prefix of `s` that fits in `max` cells (zero-width marks stay with their base character), and its
 * width. A wide character that would straddle the limit is left out.
 */
export function fitWidth(s: string, max: number): { text: string; width: number } {
  let w = 0;
  let i = 0;
  while (i < s.length) {
    const cp = s.codePointAt(i)!;
    const len = cp > 0xffff ? 2 : 1;
    const cw = cpWidth(cp);
    if (cw > 0 && w + cw > max) break;
    w += cw;
    i += len;
  }
  return { text: s.slice(0, i), width: w };
}

/** Cuts a one-line string to at most `max` cells, marking the cut with an ellipsis. */
export function truncate(s: string, max: number): string {
  if (max <= 0) return '';
  if (displayWidth(s) <= max) return s;
  return `${fitWidth(s, max - 1).text}…`;
}

/**
 * Cuts a one-line string to at most `max` cells from the left, keeping its end (a path's last folders say more than
 * its first), marking the cut with an ellipsis.
 */
export function truncateLeft(s: string, max: number): string {
  if (max <= 0) return '';
  if (displayWidth(s) <= max) return s;
  const cps = Array.from(s);
  let w = 0;
  let i = cps.length;
  while (i > 0) {
    const cw = cpWidth(cps[i - 1].codePointAt(0)!);
    if (w + cw > max - 1) break;
    w += cw;
    i--;
  }
  return `…${cps.slice(i).join('')}`;
}

/** Pads (or truncates) to exactly `width` cells. */
export function padTo(s: string, width: number): string {
  const t = truncate(s, width);
  const w = displayWidth(t);
  return w < width ? t + ' '.repeat(width - w) : t;
}

/** Full-width punctuation no line starts with (closing marks) or ends with (opening brackets), as CJK text sets. */
const NO_START = new Set(Array.from('、。，．：；！？）」』】〉》〕］｝〙〗'));
const NO_END = new Set(Array.from('（「『【〈《〔［｛〘〖'));

/**
 * True when a line may break between `s[k-1]` and `s[k]` with no space there: beside a wide character (CJK text,
 * which has no spaces, breaks between any two of its characters; UAX #14's ideographic class), but never before a
 * closing mark, after an opening bracket, inside a surrogate pair or before a zero-width mark (or after a joiner).
 * Only spaces counted, and a Chinese answer broke at the one space around "80-95%", leaving half-empty rows.
 */
function wideBreak(s: string, k: number): boolean {
  if (k <= 0 || k >= s.length) return false;
  const c = s.charCodeAt(k);
  if (c === 0x20 || (c >= 0xdc00 && c <= 0xdfff)) return false;
  const b = s.charCodeAt(k - 1);
  // Nothing below U+1100 is wide: most text (Latin, code) is answered here, without a width lookup.
  if (b === 0x20 || (b < 0x1100 && c < 0x1100)) return false;
  const before = b >= 0xdc00 && b <= 0xdfff && k >= 2 ? s.codePointAt(k - 2)! : b;
  const after = s.codePointAt(k)!;
  const wb = cpWidth(before);
  const wa = cpWidth(after);
  if (wa === 0 || wb === 0 || (wa !== 2 && wb !== 2)) return false;
  return !NO_START.has(String.fromCodePoint(after)) && !NO_END.has(String.fromCodePoint(before));
}

/**
 * Word-wraps one paragraph-structured text to `width` cells per line: breaks at spaces when it can, hard-breaks
 * words longer than a line, keeps blank lines. `text` must be sanitised (no controls, tabs expanded).
 */
export function wrap(text: string, width: number): string[] {
  const w = Math.max(1, width);
  const out: string[] = [];
  for (const para of text.split('\n')) {
    if (para === '') {
      out.push('');
      continue;
    }
    let rest = para;
    while (rest !== '') {
      // fitWidth scans only as far as a line: asking the whole rest's width first made a 1 MB line quadratic (a
      // pasted log as a question froze the browser for minutes).
      const { text: head } = fitWidth(rest, w);
      if (head.length === rest.length) {
        out.push(rest);
        break;
      }
      if (head === '') {
        // A character wider than the line (width 1 with a wide char): take it anyway so we always progress.
        const cp = rest.codePointAt(0)!;
        const len = cp > 0xffff ? 2 : 1;
        out.push(rest.slice(0, len));
        rest = rest.slice(len);
        continue;
      }
      const next = rest[head.length];
      let cut = head.length;
      if (next !== ' ' && !wideBreak(rest, cut)) {
        let k = cut - 1;
        while (k > 0 && rest[k] !== ' ' && !wideBreak(rest, k)) k--;
        if (k > 0) cut = k;
      }
      out.push(rest.slice(0, cut).trimEnd());
      rest = rest.slice(cut);
      if (rest.startsWith(' ')) rest = rest.replace(/^ +/, '');
    }
  }
  return out;
}

/** The end index (UTF-16) of the longest run of `s` from `from` that fits in `max` cells; zero-width marks stay
 * with the character before them. Scans only as far as it needs, so cutting a 1 MB line stays linear. */
function fitEnd(s: string, from: number, max: number): number {
  let w = 0;
  let i = from;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f) {
      if (w + 1 > max) break;
      w++;
      i++;
      continue;
    }
    const cp = s.codePointAt(i)!;
    const cw = cpWidth(cp);
    if (cw > 0 && w + cw > max) break;
    w += cw;
    i += cp > 0xffff ? 2 : 1;
  }
  return i;
}

/**
 * Where one line (no newline) breaks at `width` cells, as [start, end) ranges into it: at spaces when `words`
 * (spaces at a break dropped, as wrap() does), else at exactly the width (code, kept as written). Linear in the
 * line's length, so a 1 MB line costs one pass.
 */
export function wrapRanges(line: string, width: number, words = true): [number, number][] {
  const w = Math.max(1, width);
  const out: [number, number][] = [];
  const n = line.length;
  if (n === 0) return [[0, 0]];
  let pos = 0;
  while (pos < n) {
    let end = fitEnd(line, pos, w);
    if (end >= n) {
      out.push([pos, n]);
      break;
    }
    if (end === pos) {
      // A character wider than the line: take it anyway so we always progress.
      end = pos + (line.codePointAt(pos)! > 0xffff ? 2 : 1);
      out.push([pos, end]);
      pos = end;
      continue;
    }
    if (!words) {
      out.push([pos, end]);
      pos = end;
      continue;
    }
    let cut = end;
    if (line[end] !== ' ' && !wideBreak(line, end)) {
      // The last space (or break beside a wide character) of the fitting part, looked for only within it.
      for (let k = end - 1; k > pos; k--) {
        if (line[k] === ' ' || wideBreak(line, k)) {
          cut = k;
          break;
        }
      }
    }
    let stop = cut;
    while (stop > pos && line[stop - 1] === ' ') stop--;
    out.push([pos, stop]);
    pos = cut;
    while (pos < n && line[pos] === ' ') pos++;
  }
  return out;
}

/** A run of text drawn in one style (whatever the caller's tag for a style is). */
export type Run<T> = readonly [text: string, tag: T];

/**
 * Word-wraps one line made of styled runs to `width` cells, keeping each piece's style: the runs' joined text is
 * broken as wrapRanges() breaks it, then each line takes the parts of the runs it covers. `words` false cuts at
 * the width (code).
 */
export function wrapRuns<T>(runs: readonly Run<T>[], width: number, words = true): Run<T>[][] {
  let text = '';
  for (const r of runs) text += r[0];
  const ranges = wrapRanges(text, width, words);
  const out: Run<T>[][] = [];
  let ri = 0;
  let rStart = 0;
  for (const [a, b] of ranges) {
    // Skip runs wholly before this line (the ranges only move forward).
    while (ri < runs.length && rStart + runs[ri][0].length <= a) {
      rStart += runs[ri][0].length;
      ri++;
    }
    const line: Run<T>[] = [];
    let k = ri;
    let s = rStart;
    while (k < runs.length && s < b) {
      const len = runs[k][0].length;
      const from = Math.max(a, s);
      const to = Math.min(b, s + len);
      if (to > from) line.push([runs[k][0].slice(from - s, to - s), runs[k][1]]);
      s += len;
      k++;
    }
    out.push(line);
  }
  return out;
}
