/** Paints the tree pane: sessions, their turns with branch guides, the selection and the scroll position. */
import { age, parseTime, thousands } from '../../../text/format.js';
import { oneLine } from '../../../text/sanitize.js';
import { displayWidth, truncate } from '../../../text/width.js';
import type { Glyphs } from '../../core/glyphs.js';
import type { Rect } from '../../core/layout.js';
import type { State } from '../../core/state.js';
import { type Frame, Style } from '../../term/canvas.js';
import { archivedSet } from '../maintenance/model.js';

export function drawTree(f: Frame, s: State, box: Rect, inner: Rect, g: Glyphs): void {
  const focus = s.focus === 'tree' && !s.overlay;
  const nArchived = s.showArchived ? archivedSet(s.sessions).size : 0;
  const total = s.sessions.length - nArchived + s.sessionsMore;
  let title = s.loaded ? `sessions ${thousands(total)}` : 'sessions (loading)';
  if (s.showArchived && s.loaded) title += ` + ${thousands(nArchived)} archived`;
  f.box(
    box.x,
    box.y,
    box.w,
    box.h,
    focus ? Style.borderFocus : Style.border,
    title,
    focus ? Style.titleFocus : Style.title,
  );
  const W = inner.w;
  for (let y = 0; y < inner.h; y++) {
    const i = s.top + y;
    const row = s.list[i];
    if (!row) break;
    const ses = s.sessions[row.session];
    const yy = inner.y + y;
    if (row.node < 0) {
      const open = s.expanded.has(ses.sid);
      // An archived session: dim, with an "archived" tag where the age would be.
      const arch = ses.archived !== undefined;
      const right = arch
        ? ` ${thousands(ses.n_nodes)} archived`
        : ` ${thousands(ses.n_nodes)} ${age(parseTime(ses.created_at), s.now).padStart(3)}`;
      const rw = displayWidth(right);
      let x = inner.x;
      x += f.text(x, yy, `${open ? g.open : g.closed} `, Style.normal, W);
      x += f.text(x, yy, ses.sid, arch ? Style.dim : Style.sid, Math.max(0, W - rw - 2));
      const room = Math.max(0, inner.x + W - rw - x);
      if (ses.label)
        x += f.text(x, yy, truncate(` ${oneLine(ses.label)}`, room), arch ? Style.dim : Style.label, room);
      else {
        const t = s.titles.get(ses.sid);
        if (t) x += f.text(x, yy, truncate(` ${t}`, room), Style.dim, room);
      }
      if (W - rw > 12) f.text(inner.x + W - rw, yy, right, Style.count, rw);
    } else {
      const r = s.outlines.get(ses.sid)!.rows[row.node];
      let x = inner.x + 2;
      const end = inner.x + W;
      let guide = r.guide;
      const maxGuide = Math.floor(W / 2);
      if (displayWidth(guide) > maxGuide) guide = g.more + guide.slice(guide.length - maxGuide + 1);
      x += f.text(x, yy, guide, Style.dim, end - x);
      const branchMark = !r.cross && r.n_children >= 2 ? ` ${g.branch}${r.n_children}` : '';
      const bw = displayWidth(branchMark);
      if (r.cross) {
        x += f.text(x, yy, `${g.link} ${r.bates} `, Style.link, end - x);
        f.text(x, yy, truncate(r.q, Math.max(0, end - x)), Style.dim, end - x);
      } else {
        const collapsedMark = r.end > row.node + 1 && s.collapsed.has(r.bates);
        x += f.text(x, yy, String(r.seq).padStart(6, '0'), Style.dim, end - x);
        x += f.text(x, yy, ' ', Style.normal, end - x);
        if (collapsedMark) x += f.text(x, yy, `${g.closed} `, Style.branch, end - x);
        if (r.is_top && r.parent_bates) x += f.text(x, yy, `${g.up} `, Style.link, end - x);
        const room = end - x - bw;
        const qStyle = ses.archived ? Style.dim : Style.normal;
        x += f.text(x, yy, truncate(r.q, Math.max(0, room)), qStyle, Math.max(0, room));
        if (bw > 0 && end - x >= bw) f.text(x, yy, branchMark, Style.branch, bw);
      }
    }
    if (i === s.sel) f.restyle(inner.x, yy, W, focus ? Style.selFocus : Style.selBlur);
  }
  // Scroll position on the bottom border.
  // The sessions not read yet (right after the first screen) are rows below the last one: none is expanded.
  const rows = s.list.length + s.sessionsMore;
  if (rows > inner.h) {
    const pos = ` ${s.sel + 1}/${thousands(rows)} `;
    const w = displayWidth(pos);
    if (w + 4 < box.w)
      f.text(box.x + box.w - w - 2, box.y + box.h - 1, pos, focus ? Style.borderFocus : Style.border);
  }
}
