/**
 * The find box's preview of the selected hit, pure: where the list and the preview go (beside each other on a wide
 * terminal, the preview under the list on a narrow one), the hit's turn laid out as the transcript pane lays it out
 * (turnBlock), the words the search matched marked in it, and the line it opens at (the first holding a match).
 * The turn itself is loaded by the runtime (runtime/preview.ts), never on a keystroke's path.
 */
import { indexTerms, type SearchMatch } from '../../../store/index.js';
import type { Rect } from '../../core/layout.js';
import { type TLine, type Turn, turnBlock } from '../transcript/model.js';
import { findBox, HIT_LINES } from './model.js';

/** From this many columns the preview sits beside the list; below, under it. */
export const PREVIEW_BESIDE_COLS = 110;
/** The list keeps at least this many columns beside the preview. */
const LIST_MIN_W = 44;
/** Under the list, a preview needs this many lines of the box (list, its header and a few lines of turn). */
const UNDER_MIN_H = 8;

export interface FindLayout {
  box: Rect;
  /** Where the hits go (two lines each). */
  list: Rect;
  /** The preview: its first line is its title (where it is), the rest the turn. null: hidden, or no room. */
  preview: Rect | null;
  side: 'beside' | 'under' | null;
}

/**
 * The box cut into the list and the preview. Between the counts line (box top + 2) and the keys line (box bottom
 * - 2): beside, the list takes half the width (a column of `│` between); under, the list takes half the lines,
 * whole hits, and the preview the rest.
 */
export function findLayout(cols: number, rows: number, show: boolean): FindLayout {
  const beside = show && cols >= PREVIEW_BESIDE_COLS;
  const box = findBox(cols, rows, beside);
  const x = box.x + 2;
  const w = Math.max(1, box.w - 4);
  const y = box.y + 3;
  const h = Math.max(1, box.h - 5);
  const all: Rect = { x, y, w, h };
  if (!show) return { box, list: all, preview: null, side: null };
  if (beside) {
    const lw = Math.max(LIST_MIN_W, Math.floor(w / 2));
    if (w - lw - 3 >= 20)
      return {
        box,
        list: { x, y, w: lw, h },
        preview: { x: x + lw + 3, y, w: w - lw - 3, h },
        side: 'beside',
      };
  }
  if (h < UNDER_MIN_H) return { box, list: all, preview: null, side: null };
  const lh = HIT_LINES * Math.max(1, Math.floor(h / 2 / HIT_LINES));
  return { box, list: { x, y, w, h: lh }, preview: { x, y: y + lh, w, h: h - lh }, side: 'under' };
}

/** Hits the box shows at once (the page Up/Down keys move by). */
export function findListHeight(cols: number, rows: number, show = true): number {
  return Math.max(1, Math.floor(findLayout(cols, rows, show).list.h / HIT_LINES));
}

/** The turn's lines at the preview's width: the transcript pane's layout of it, as the first turn of a path. */
export function previewLines(turn: Turn, width: number, label: string | null): TLine[] {
  return turnBlock(turn, null, width, label);
}

/** Word characters as the index's tokenizer sees them (store/find/terms.ts). */
const TOKEN = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

export function hasMatch(m: SearchMatch): boolean {
  return m.words.length > 0 || m.prefix !== null;
}

/**
 * The words of a line the search matched, as inclusive UTF-16 ranges of `text`: a word folded as the index folds
 * it (case, accents) that is one of the query's words or their corrections, or that starts with the word being
 * typed. Whole words, as the answer's snippet marks them. `from`: where the line's own text starts (after a label).
 */
export function matchRanges(text: string, m: SearchMatch, from = 0): [number, number][] {
  if (!hasMatch(m) || !mayMatch(text, m)) return [];
  const words = new Set(m.words);
  const out: [number, number][] = [];
  TOKEN.lastIndex = 0;
  for (let t = TOKEN.exec(text); t !== null; t = TOKEN.exec(text)) {
    if (t.index < from) continue;
    const folded = indexTerms(t[0]);
    if (folded.some((f) => words.has(f) || (m.prefix !== null && f.startsWith(m.prefix))))
      out.push([t.index, t.index + t[0].length - 1]);
  }
  return out;
}

const NON_ASCII = /[^\u0000-\u007f]/;

/**
 * A quick no for most lines: an ASCII line that holds none of the words, even inside another word, holds no match
 * (folding ASCII is lowering its case). Other lines take the word-by-word pass (folding may change their length).
 * Finding the first match of a 20,000-line answer is a few ms this way, not 50.
 */
function mayMatch(text: string, m: SearchMatch): boolean {
  if (NON_ASCII.test(text)) return true;
  const low = text.toLowerCase();
  return m.words.some((w) => low.includes(w)) || (m.prefix !== null && low.includes(m.prefix));
}

/** Where a line's own text starts: after the "Q "/"A " label of a first line. */
export function textStart(line: TLine): number {
  return line.lead ? 2 : 0;
}

/** The lines that carry a turn's words: the question, the answer and its calls (not the session and hash lines). */
const SEARCHED = new Set<TLine['role']>(['q', 'a', 'tool', 'result', 'error', 'cite', 'meta']);

const firstCache = new WeakMap<readonly TLine[], Map<string, number>>();

/** The index of the first line holding a matched word (question or answer), or -1. Cached per lines and match. */
export function firstMatchLine(lines: readonly TLine[], m: SearchMatch): number {
  if (!hasMatch(m)) return -1;
  const key = `${m.prefix ?? ''}\u0000${m.words.join('\u0000')}`;
  let byMatch = firstCache.get(lines);
  const hit = byMatch?.get(key);
  if (hit !== undefined) return hit;
  let at = -1;
  // The question's first line: the session, header and hash lines above it are not the turn's words.
  const q = lines.findIndex((l) => l.role === 'q');
  for (let i = Math.max(0, q); i < lines.length; i++) {
    const l = lines[i];
    if (!SEARCHED.has(l.role)) continue;
    if (matchRanges(l.text, m, textStart(l)).length > 0) {
      at = i;
      break;
    }
  }
  if (!byMatch) {
    byMatch = new Map();
    firstCache.set(lines, byMatch);
  }
  byMatch.set(key, at);
  return at;
}

/** The furthest the preview scrolls: its last line at the bottom. */
export function maxTop(len: number, h: number): number {
  return Math.max(0, len - h);
}

/**
 * The first line shown when the preview is not scrolled by hand: a line or two above the first match (so it is
 * near the top, with what leads to it), or the top of the turn when nothing in it matched (a Bates id, a label).
 */
export function autoTop(lines: readonly TLine[], m: SearchMatch, h: number): number {
  const at = firstMatchLine(lines, m);
  if (at < 0) return 0;
  const context = h >= 10 ? 2 : 1;
  return Math.min(Math.max(0, at - context), maxTop(lines.length, h));
}

/** The first line shown: scrolled by hand (`scroll`), else at the match; kept in range after a resize. */
export function previewTop(
  lines: readonly TLine[],
  m: SearchMatch,
  h: number,
  scroll: number | null,
): number {
  if (scroll === null) return autoTop(lines, m, h);
  return Math.min(Math.max(0, scroll), maxTop(lines.length, h));
}
