/** Paints the question box of `ask` and `fork`, above the status bar. */
import { displayWidth } from '../../../text/width.js';
import type { Glyphs } from '../../core/glyphs.js';
import type { InputOverlay, State } from '../../core/state.js';
import { type Frame, Style } from '../../term/canvas.js';

export function drawInput(f: Frame, s: State, ov: InputOverlay, g: Glyphs): void {
  const w = Math.min(s.cols - 4, 90);
  const r = { x: Math.floor((s.cols - w) / 2), y: Math.max(0, s.rows - 1 - 6), w, h: 5 };
  let title: string;
  if (ov.mode === 'fork') title = `fork: a new session under ${ov.parent}`;
  else if (ov.parent) title = `ask under ${ov.parent}`;
  else if (ov.session) title = `ask a new first turn in session ${ov.session}`;
  else title = 'ask the first question (a new session)';
  f.fill(r.x, r.y, r.w, r.h, Style.overlay);
  f.box(r.x, r.y, r.w, r.h, Style.overlayBorder, title, Style.titleFocus);
  const room = r.w - 6;
  let text = ov.text;
  while (displayWidth(text) > room - 1) text = text.slice(1);
  f.text(r.x + 2, r.y + 1, '> ', Style.key, 2);
  const used = f.text(r.x + 4, r.y + 1, text, Style.input, room);
  f.text(r.x + 4 + used, r.y + 1, g.cursor, Style.key, 1);
  f.text(r.x + 2, r.y + 3, 'Enter asks · Esc cancels · Ctrl-U clears', Style.dim, r.w - 4);
}
