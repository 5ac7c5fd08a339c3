/**
 * The list cursor every overlay shares (branches, entries, find hits) and the scroll of a text overlay (help, the
 * confirmation): what a move key does to a position, clamped to the list.
 */
import type { KeyAction } from '../../keymap/index.js';

export interface Cursor {
  sel: number;
  top: number;
}

/** Where a move takes index `cur` (`last`: the last index), or null when `id` is not a move. */
export function moveTarget(id: KeyAction, cur: number, page: number, last: number): number | null {
  switch (id) {
    case 'move.down':
      return cur + 1;
    case 'move.up':
      return cur - 1;
    case 'page.down':
      return cur + page;
    case 'page.up':
      return cur - page;
    case 'move.first':
      return 0;
    case 'move.last':
      return last;
    default:
      return null;
  }
}

/**
 * The cursor at `to` in a list of `n` rows shown `page` at a time, scrolled just enough to show it. `full`: never
 * scroll past the point where the last page is full.
 */
export function cursorAt(c: Cursor, to: number, n: number, page: number, full = false): Cursor {
  const sel = Math.max(0, Math.min(n - 1, to));
  let top = c.top;
  if (sel < top) top = sel;
  if (sel >= top + page) top = sel - page + 1;
  if (full) top = Math.min(top, n - page);
  return { sel, top: Math.max(0, top) };
}

/** A move key on a list cursor: the new cursor, or null when the key is not a move. */
export function moveCursor(c: Cursor, id: KeyAction, n: number, page: number): Cursor | null {
  const to = moveTarget(id, c.sel, page, n - 1);
  return to === null ? null : cursorAt(c, to, n, page);
}

/** A move key on a scrolled text of `lines` lines, `page` of them shown: the new first line, or null. */
export function moveScroll(scroll: number, id: KeyAction, lines: number, page: number): number | null {
  const max = Math.max(0, lines - page);
  const to = moveTarget(id, scroll, page, max);
  return to === null ? null : Math.max(0, Math.min(max, to));
}
