/** Paints the `?` overlay: the key table, scrolled, with its footer. */
import { truncate } from '../../../text/width.js';
import type { Rect } from '../../core/layout.js';
import type { State } from '../../core/state.js';
import { type Frame, Style } from '../../term/canvas.js';
import { helpLines } from './update.js';

/** `r` is the overlay's rectangle (already filled), `inner` its text area above the footer line. */
export function drawHelp(f: Frame, s: State, ov: { scroll: number }, r: Rect, inner: Rect): void {
  f.box(r.x, r.y, r.w, r.h, Style.overlayBorder, 'keys', Style.titleFocus);
  const { lines, kw } = helpLines(s);
  const shown = lines.slice(ov.scroll, ov.scroll + inner.h);
  shown.forEach((l, i) => {
    const y = inner.y + i;
    if (l.head) f.text(inner.x, y, l.t, Style.banner, inner.w);
    else if (l.k !== undefined) {
      f.text(inner.x + 1, y, truncate(l.k, kw), Style.key, kw);
      f.text(inner.x + 2 + kw, y, l.t, Style.overlay, inner.w - kw - 2);
    } else f.text(inner.x + 2 + kw, y, l.t, Style.overlay, inner.w - kw - 2);
  });
  const range =
    lines.length > inner.h
      ? ` · ${ov.scroll + 1}-${Math.min(lines.length, ov.scroll + inner.h)}/${lines.length}`
      : '';
  f.text(
    inner.x,
    r.y + r.h - 2,
    `${s.keyOf.close ?? 'Esc'} closes · ↑↓ PgUp PgDn scroll${range}`,
    Style.dim,
    inner.w,
  );
}
