/** Paints the transcript pane: the selected turn's path (or a session's summary), and where it is scrolled. */
import { shortTime } from '../../../text/format.js';
import { oneLine } from '../../../text/sanitize.js';
import { displayWidth } from '../../../text/width.js';
import type { Rect } from '../../core/layout.js';
import { selectedBates, selectedOutlineRow } from '../../core/selectors.js';
import type { State } from '../../core/state.js';
import { type Frame, Style } from '../../term/canvas.js';
import { pickedCallRow, transcriptDoc, transcriptPos } from './doc.js';
import { type Role, type TLine, windowLines } from './model.js';

export const ROLE_STYLE: Record<Role, Style> = {
  session: Style.banner,
  cross: Style.cross,
  header: Style.header,
  meta: Style.dim,
  q: Style.normal,
  a: Style.normal,
  cite: Style.cite,
  blank: Style.normal,
  pending: Style.pending,
  info: Style.info,
  error: Style.error,
  tool: Style.link,
  result: Style.dim,
  thinking: Style.dim,
  input: Style.normal,
  diffAdd: Style.diffAdd,
  diffDel: Style.diffDel,
  diffHunk: Style.diffHunk,
};

/** Paints a rendered line's styled runs from its `skip`-th UTF-16 unit on (past a label drawn apart), clipped
 * to `max` cells. */
export function drawSpans(f: Frame, x: number, y: number, line: TLine, skip: number, max: number): void {
  let cx = x;
  let left = skip;
  for (const [text, style] of line.spans ?? []) {
    const t = left >= text.length ? '' : left > 0 ? text.slice(left) : text;
    left = Math.max(0, left - text.length);
    if (t === '') continue;
    const used = f.text(cx, y, t, style, max - (cx - x));
    cx += used;
    if (cx - x >= max) break;
  }
}

/** One laid-out line, its "Q "/"A " label styled apart, its rendered runs in their own styles unless `plain`
 * (a line painted as selected reads in one style); the find preview paints its lines with it too. */
export function drawLine(
  f: Frame,
  x: number,
  y: number,
  w: number,
  line: TLine,
  style: Style,
  plain = false,
): void {
  const spans = plain ? undefined : line.spans;
  if (line.lead) {
    f.text(x, y, line.text.slice(0, 2), line.role === 'q' ? Style.qLabel : Style.aLabel, w);
    if (spans) drawSpans(f, x + 2, y, line, 2, w - 2);
    else f.text(x + 2, y, line.text.slice(2), line.role === 'q' ? Style.label : style, w - 2);
  } else if (spans) drawSpans(f, x, y, line, 0, w);
  else f.text(x, y, line.text, style, w);
}

export function drawTranscript(f: Frame, s: State, box: Rect, inner: Rect): void {
  const focus = s.focus === 'transcript' && !s.overlay;
  const orow = selectedOutlineRow(s);
  let title = 'transcript';
  const bates = selectedBates(s);
  if (bates && s.path && s.path.bates === bates && s.path.turns.length > 0) {
    const t = s.path.turns[s.path.turns.length - 1];
    title = `${t.bates} · ${oneLine(t.audit)} · ${shortTime(t.created_at)}`;
  } else if (orow) title = orow.bates;
  else if (s.list[s.sel]?.heading) title = 'project';
  else if (s.list[s.sel]) title = `session ${s.sessions[s.list[s.sel].session].sid}`;
  if (s.list[s.sel] && s.sessions[s.list[s.sel].session]?.archived) title = `archived, read-only · ${title}`;
  f.box(
    box.x,
    box.y,
    box.w,
    box.h,
    focus ? Style.borderFocus : Style.border,
    title,
    focus ? Style.titleFocus : Style.title,
  );
  const doc = transcriptDoc(s);
  const pos = transcriptPos(s, doc);
  const lines = windowLines(doc, pos, inner.h);
  const selectedTurn = s.ask && s.ask.parent === bates ? doc.n - 2 : doc.n - 1;
  // The call the fold keys act on (as selectedCall in update.ts finds it).
  const callRow = pickedCallRow(s, lines, pos);
  for (let y = 0; y < lines.length; y++) {
    const { line, turn } = lines[y];
    const yy = inner.y + y;
    let style = ROLE_STYLE[line.role];
    if (line.role === 'header' && turn === selectedTurn && doc.n > 1) style = Style.headerSel;
    if (y === callRow) style = Style.selBlur;
    drawLine(f, inner.x, yy, inner.w, line, style, y === callRow);
  }
  if (orow && doc.n > 0 && box.w > 20) {
    const more =
      lines.length === inner.h && (pos.turn < doc.n - 1 || pos.line + inner.h < doc.block(pos.turn).length);
    const arrows = `${pos.turn > 0 || pos.line > 0 ? '↑' : ''}${more ? '↓' : ''}`;
    const ind = ` ${arrows}${arrows ? ' ' : ''}turn ${Math.min(doc.n, pos.turn + 1)}/${doc.n} `;
    const w = displayWidth(ind);
    if (w + 4 < box.w)
      f.text(box.x + box.w - w - 2, box.y + box.h - 1, ind, focus ? Style.borderFocus : Style.border);
  }
}
