/** Where things go on the screen, from its size alone: the two panes, the status bar, the overlays' boxes. */

export type Focus = 'tree' | 'transcript';

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Layout {
  tree: Rect;
  transcript: Rect;
  /** Inner areas (inside the borders). */
  treeIn: Rect;
  textIn: Rect;
  status: Rect;
  tooSmall: boolean;
}

export const MIN_COLS = 40;
export const MIN_ROWS = 10;

export function layout(cols: number, rows: number): Layout {
  const tooSmall = cols < MIN_COLS || rows < MIN_ROWS;
  const bodyH = Math.max(3, rows - 1);
  let leftW = Math.floor(cols * 0.4);
  leftW = Math.max(26, Math.min(64, leftW));
  if (cols - leftW < 30) leftW = Math.max(10, Math.floor(cols / 2));
  const tree = { x: 0, y: 0, w: leftW, h: bodyH };
  const transcript = { x: leftW, y: 0, w: Math.max(4, cols - leftW), h: bodyH };
  const inner = (r: Rect): Rect => ({
    x: r.x + 1,
    y: r.y + 1,
    w: Math.max(1, r.w - 2),
    h: Math.max(1, r.h - 2),
  });
  return {
    tree,
    transcript,
    treeIn: inner(tree),
    // One column of padding on each side inside the transcript's border.
    textIn: { ...inner(transcript), x: transcript.x + 2, w: Math.max(1, transcript.w - 4) },
    status: { x: 0, y: rows - 1, w: cols, h: 1 },
    tooSmall,
  };
}

/** The size of the centred overlays (help, branches, entries, confirmation). */
export function overlayBox(s: { cols: number; rows: number }): { w: number; h: number } {
  return { w: Math.min(s.cols - 4, 84), h: Math.min(s.rows - 4, 30) };
}

/** A box of w x h centred over the panes (the status bar stays visible). */
export function centred(s: { cols: number; rows: number }, w: number, h: number): Rect {
  return {
    x: Math.max(0, Math.floor((s.cols - w) / 2)),
    y: Math.max(0, Math.floor((s.rows - 1 - h) / 2)),
    w,
    h,
  };
}

export function inside(r: Rect, x: number, y: number): boolean {
  return x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h;
}
