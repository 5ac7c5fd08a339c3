/**
 * Painters for the entries list and the reset/delete/restore confirmation (model.ts). All text from the
 * shard (entry keys, labels, the plan's reasons) is sanitised to one line and cut to the cells it has.
 */

import { thousands } from '../../../text/format.js';
import { oneLine } from '../../../text/sanitize.js';
import { displayWidth, padTo, truncate } from '../../../text/width.js';
import type { Rect } from '../../core/layout.js';
import type { State } from '../../core/state.js';
import { type Frame, Style } from '../../term/canvas.js';
import {
  type ConfirmOverlay,
  type ConfirmStyle,
  confirmLines,
  confirmTitle,
  type EntriesOverlay,
} from './model.js';

const CONFIRM_STYLE: Record<ConfirmStyle, Style> = {
  text: Style.overlay,
  head: Style.banner,
  item: Style.sid,
  why: Style.overlay,
  dim: Style.dim,
};

/**
 * `r` is the overlay's rectangle (already filled), `inner` its text area above the footer line.
 */
export function drawEntries(f: Frame, s: State, ov: EntriesOverlay, r: Rect, inner: Rect): void {
  f.box(r.x, r.y, r.w, r.h, Style.overlayBorder, 'entries', Style.titleFocus);
  const foot = `r reset · x delete · Enter goes to its session · ${s.keyOf.close ?? 'Esc'} closes`;
  f.text(inner.x, r.y + r.h - 2, truncate(foot, inner.w), Style.dim, inner.w);
  if (!ov.items) {
    f.text(inner.x, inner.y, 'loading…', Style.dim, inner.w);
    return;
  }
  if (ov.items.length === 0) {
    f.text(inner.x, inner.y, 'No entries yet.', Style.overlay, inner.w);
    f.text(inner.x, inner.y + 2, 'arborist entry set KEY --session SID names one.', Style.dim, inner.w);
    return;
  }
  const keys = ov.items.map((it) => oneLine(it.key));
  const keyW = Math.min(24, Math.max(4, Math.floor(inner.w / 3)), Math.max(4, ...keys.map(displayWidth)));
  for (let i = 0; i < inner.h; i++) {
    const it = ov.items[ov.top + i];
    if (!it) break;
    const y = inner.y + i;
    const end = inner.x + inner.w;
    const fam = ` family ${thousands(it.family)}`;
    const fw = displayWidth(fam);
    let x = inner.x;
    x += f.text(x, y, padTo(keys[ov.top + i], keyW), Style.label, end - x);
    x += f.text(x, y, '  ', Style.overlay, end - x);
    const room = Math.max(0, end - fw - x);
    if (!it.sid) x += f.text(x, y, truncate('(no session)', room), Style.dim, room);
    else {
      x += f.text(x, y, truncate(it.sid, room), Style.sid, room);
      const rest =
        it.n_nodes === null
          ? ' (not live)'
          : `${it.label ? ` ${oneLine(it.label)}` : ''} · ${thousands(it.n_nodes)} turn${it.n_nodes === 1 ? '' : 's'}`;
      const left = Math.max(0, end - fw - x);
      x += f.text(x, y, truncate(rest, left), it.n_nodes === null ? Style.dim : Style.overlay, left);
    }
    if (end - x >= fw) f.text(end - fw, y, fam, Style.count, fw);
    if (ov.top + i === ov.sel) f.restyle(inner.x, y, inner.w, Style.selFocus);
  }
}

export function drawConfirm(f: Frame, s: State, ov: ConfirmOverlay, r: Rect, inner: Rect): void {
  f.box(r.x, r.y, r.w, r.h, Style.overlayBorder, confirmTitle(ov), Style.titleFocus);
  const lines = confirmLines(ov, inner.w, s.keyOf);
  const shown = lines.slice(ov.scroll, ov.scroll + inner.h);
  shown.forEach((l, i) => {
    f.text(inner.x, inner.y + i, l.t, CONFIRM_STYLE[l.k], inner.w);
  });
  const ready = ov.what.op === 'restore' || ov.plan !== null;
  const more =
    lines.length > inner.h
      ? ` · ↑↓ ${ov.scroll + 1}-${Math.min(lines.length, ov.scroll + inner.h)}/${lines.length}`
      : '';
  const foot = ready ? `y/Enter confirms · n/Esc cancels${more}` : 'n/Esc cancels';
  let x = inner.x;
  const fy = r.y + r.h - 2;
  if (ready) {
    x += f.text(x, fy, 'y', Style.key, inner.w);
    f.text(x, fy, truncate(foot.slice(1), inner.x + inner.w - x), Style.overlay, inner.x + inner.w - x);
  } else f.text(x, fy, foot, Style.dim, inner.w);
}
