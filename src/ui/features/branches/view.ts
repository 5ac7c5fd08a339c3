/** Paints the `b` overlay: the session's branch points, one a line, the selected one highlighted. */
import type { Glyphs } from '../../core/glyphs.js';
import type { Rect } from '../../core/layout.js';
import type { BranchesOverlay, State } from '../../core/state.js';
import { type Frame, Style } from '../../term/canvas.js';

/** `r` is the overlay's rectangle (already filled), `inner` its text area above the footer line. */
export function drawBranches(f: Frame, s: State, ov: BranchesOverlay, r: Rect, inner: Rect, g: Glyphs): void {
  f.box(r.x, r.y, r.w, r.h, Style.overlayBorder, `branch points in ${ov.sid}`, Style.titleFocus);
  if (!ov.items) f.text(inner.x, inner.y, 'loading…', Style.dim, inner.w);
  else if (ov.items.length === 0)
    f.text(inner.x, inner.y, 'no branch points in this session', Style.dim, inner.w);
  else {
    for (let i = 0; i < inner.h; i++) {
      const it = ov.items[ov.top + i];
      if (!it) break;
      const y = inner.y + i;
      let x = inner.x;
      x += f.text(x, y, `${it.bates} `, Style.sid, inner.w);
      x += f.text(x, y, `${g.branch}${it.n_children} `, Style.branch, inner.x + inner.w - x);
      f.text(x, y, it.q, Style.overlay, inner.x + inner.w - x);
      if (ov.top + i === ov.sel) f.restyle(inner.x, y, inner.w, Style.selFocus);
    }
  }
  f.text(inner.x, r.y + r.h - 2, `Enter goes there · ${s.keyOf.close ?? 'Esc'} closes`, Style.dim, inner.w);
}
