/** Paints the resume confirmation (model.ts). Every string is sanitised there; here it is cut to its cells. */
import { truncate } from '../../../text/width.js';
import type { Rect } from '../../core/layout.js';
import type { State } from '../../core/state.js';
import { type Frame, Style } from '../../term/canvas.js';
import { type ResumeOverlay, type ResumeStyle, resumeLines, resumeTitle } from './model.js';

const STYLE: Record<ResumeStyle, Style> = {
  text: Style.overlay,
  label: Style.overlay,
  value: Style.overlay,
  dim: Style.dim,
  error: Style.error,
};

/** Width of a row's label column (model.ts pads labels to it). */
const LABEL = 9;

export function drawResume(f: Frame, s: State, ov: ResumeOverlay, r: Rect, inner: Rect): void {
  f.box(r.x, r.y, r.w, r.h, Style.overlayBorder, resumeTitle(ov), Style.titleFocus);
  const lines = resumeLines(ov, inner.w);
  lines.slice(ov.scroll, ov.scroll + inner.h).forEach((l, i) => {
    const y = inner.y + i;
    if (l.k === 'label') {
      const x = inner.x + f.text(inner.x, y, l.t.slice(0, LABEL), Style.label, inner.w);
      f.text(x, y, l.t.slice(LABEL), Style.sid, inner.x + inner.w - x);
    } else f.text(inner.x, y, l.t, STYLE[l.k], inner.w);
  });
  const more =
    lines.length > inner.h
      ? ` · ↑↓ ${ov.scroll + 1}-${Math.min(lines.length, ov.scroll + inner.h)}/${lines.length}`
      : '';
  const fy = r.y + r.h - 2;
  const close = s.keyOf.close ?? 'Esc';
  if (ov.refusal !== null) {
    f.text(inner.x, fy, truncate(`Enter or ${close} closes`, inner.w), Style.dim, inner.w);
    return;
  }
  if (!ov.plan) {
    f.text(inner.x, fy, truncate(`n/${close} cancels`, inner.w), Style.dim, inner.w);
    return;
  }
  const x = inner.x + f.text(inner.x, fy, 'y', Style.key, inner.w);
  const foot = `/Enter resumes · n/${close} cancels${more}`;
  f.text(x, fy, truncate(foot, inner.x + inner.w - x), Style.overlay, inner.x + inner.w - x);
}
