/**
 * view(state) -> Frame: draws the whole screen as character cells, with no terminal. Each pane and overlay is
 * painted by its feature; only the visible rows of the tree and lines of the transcript are ever laid out.
 */
import { displayWidth } from '../../text/width.js';
import { drawInput } from '../features/ask/view.js';
import { drawBranches } from '../features/branches/view.js';
import { drawCommand } from '../features/command/view.js';
import { drawFind } from '../features/find/view.js';
import { drawHelp } from '../features/help/view.js';
import { drawConfirm, drawEntries } from '../features/maintenance/view.js';
import { drawResume } from '../features/resume/view.js';
import { drawEmpty, drawStatus } from '../features/status/view.js';
import { drawTranscript } from '../features/transcript/view.js';
import { drawFilter } from '../features/tree/filter.js';
import { drawTree } from '../features/tree/view.js';
import { Frame, Style } from '../term/canvas.js';
import { type Glyphs, UNICODE_GLYPHS } from './glyphs.js';
import { centred, layout, overlayBox } from './layout.js';
import type { State } from './state.js';

export { ASCII_GLYPHS, type Glyphs, UNICODE_GLYPHS } from './glyphs.js';

export interface ViewOptions {
  glyphs?: Glyphs;
}

export function view(s: State, opts: ViewOptions = {}): Frame {
  const g = opts.glyphs ?? UNICODE_GLYPHS;
  const f = new Frame(Math.max(1, s.cols), Math.max(1, s.rows));
  const L = layout(s.cols, s.rows);
  if (L.tooSmall) {
    const lines = ['terminal too small', `${s.cols}x${s.rows}, needs 40x10`];
    lines.forEach((m, i) => {
      const x = Math.max(0, Math.floor((s.cols - displayWidth(m)) / 2));
      f.text(x, Math.floor(s.rows / 2) - 1 + i, m, Style.normal);
    });
    return f;
  }
  drawTree(f, s, L.tree, L.treeIn, g);
  drawTranscript(f, s, L.transcript, L.textIn);
  drawStatus(f, s, L.status, g);
  if (s.loaded && s.sessions.length === 0 && !s.ask) drawEmpty(f, s);
  if (s.overlay) drawOverlay(f, s, g);
  return f;
}

function drawOverlay(f: Frame, s: State, g: Glyphs): void {
  const ov = s.overlay!;
  if (ov.kind === 'find') drawFind(f, s, ov, g);
  else if (ov.kind === 'input') drawInput(f, s, ov, g);
  else if (ov.kind === 'command') drawCommand(f, s, ov, g);
  else if (ov.kind === 'filter') drawFilter(f, s, ov, g);
  else drawCentred(f, s, g);
}

/** The centred overlays share a box: filled, with a text area above a footer line. */
function drawCentred(f: Frame, s: State, g: Glyphs): void {
  const ov = s.overlay!;
  const box = overlayBox(s);
  const r = centred(s, box.w, box.h);
  f.fill(r.x, r.y, r.w, r.h, Style.overlay);
  const inner = { x: r.x + 2, y: r.y + 1, w: r.w - 4, h: r.h - 3 };
  if (ov.kind === 'entries') drawEntries(f, s, ov, r, inner);
  else if (ov.kind === 'confirm') drawConfirm(f, s, ov, r, inner);
  else if (ov.kind === 'help') drawHelp(f, s, ov, r, inner);
  else if (ov.kind === 'branches') drawBranches(f, s, ov, r, inner, g);
  else if (ov.kind === 'resume') drawResume(f, s, ov, r, inner);
}
