/** Paints the `:` command line above the status bar: the line, and under it a note, the Tab matches or the help. */
import { findCommand, parseCommandLine, usageOf } from '../../../keymap/index.js';
import { displayWidth, wrap } from '../../../text/width.js';
import type { Glyphs } from '../../core/glyphs.js';
import type { State } from '../../core/state.js';
import { type Frame, Style } from '../../term/canvas.js';
import type { CommandOverlay } from './model.js';

export function drawCommand(f: Frame, s: State, ov: CommandOverlay, g: Glyphs): void {
  const w = Math.min(s.cols - 4, 100);
  const r = { x: Math.floor((s.cols - w) / 2), y: Math.max(0, s.rows - 1 - 7), w, h: 6 };
  f.fill(r.x, r.y, r.w, r.h, Style.overlay);
  f.box(r.x, r.y, r.w, r.h, Style.overlayBorder, 'command', Style.titleFocus);
  const room = r.w - 6;
  let text = ov.text;
  while (displayWidth(text) > room - 1) text = text.slice(1);
  f.text(r.x + 2, r.y + 1, ': ', Style.key, 2);
  const used = f.text(r.x + 4, r.y + 1, text, Style.input, room);
  f.text(r.x + 4 + used, r.y + 1, g.cursor, Style.key, 1);
  const iw = r.w - 4;
  const y = r.y + 3;
  // Two lines under the input: a note, the matches of the last Tab, or the help of the command being typed.
  const two = (t: string, style: Style) => {
    const lines = wrap(t, iw).slice(0, 2);
    for (let i = 0; i < lines.length; i++) f.text(r.x + 2, y + i, lines[i], style, iw);
  };
  if (ov.note) two(ov.note.text, ov.note.level === 'error' ? Style.error : Style.info);
  else if (ov.matches.length > 0) two(ov.matches.join('  '), Style.overlay);
  else {
    // The help of the command being typed, from the same table as :help and the REPL's /help.
    const p = parseCommandLine(ov.text, 'browser');
    const def = p.kind === 'command' || p.kind === 'bad' ? findCommand(p.name) : undefined;
    const line = def
      ? `${usageOf(def, 'browser')}  ${def.help}`
      : 'Enter runs · Tab completes · Esc closes · :help lists the commands';
    two(line, Style.dim);
  }
}
