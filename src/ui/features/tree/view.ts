/** Paints the tree pane: sessions, their turns with branch guides, the selection and the scroll position. */
import { age, parseTime, thousands } from '../../../text/format.js';
import { oneLine } from '../../../text/sanitize.js';
import { displayWidth, truncate, truncateLeft } from '../../../text/width.js';
import type { Glyphs } from '../../core/glyphs.js';
import type { Rect } from '../../core/layout.js';
import type { State } from '../../core/state.js';
import { type Frame, Style } from '../../term/canvas.js';
import { archivedSet } from '../maintenance/model.js';
import { arrangementTitle, badgeOf } from './groups.js';
import type { GroupHeading } from './model.js';

/** Badges are 2-3 letters (src/import/agents.ts): rows keep their titles in one column. */
const BADGE_W = 3;

export function drawTree(f: Frame, s: State, box: Rect, inner: Rect, g: Glyphs): void {
  const focus = s.focus === 'tree' && !s.overlay;
  const nArchived = s.showArchived ? archivedSet(s.sessions).size : 0;
  const total = s.sessions.length - nArchived + s.sessionsMore;
  let title = s.loaded ? `sessions ${thousands(total)}` : 'sessions (loading)';
  if (s.showArchived && s.loaded) title += ` + ${thousands(nArchived)} archived`;
  const arranged = arrangementTitle(s.grouping, s.filter);
  if (arranged !== '') {
    // Grouped or filtered: how many sessions show, and how they are arranged (the sessions' origins may still load).
    const loading = s.originsFor !== s.sessions;
    // The sessions that match, those under a closed heading too.
    const shown =
      s.list.reduce((n, r) => n + (r.heading ? r.heading.n : 0), 0) ||
      s.list.filter((r) => r.node < 0).length;
    const n = loading ? '…' : thousands(shown);
    title = `sessions ${n} · ${arranged}`;
    // A narrow pane keeps the filter in sight: no "sessions", shorter words.
    if (displayWidth(title) + 4 > box.w) title = `${n} · ${arrangementTitle(s.grouping, s.filter, true)}`;
  }
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
  const projectW = projectColumn(s, inner.h, W);
  for (let y = 0; y < inner.h; y++) {
    const i = s.top + y;
    const row = s.list[i];
    if (!row) break;
    const yy = inner.y + y;
    if (row.heading) {
      drawHeading(f, s, row.heading, inner.x, yy, W, g);
      if (i === s.sel) f.restyle(inner.x, yy, W, focus ? Style.selFocus : Style.selBlur);
      continue;
    }
    const ses = s.sessions[row.session];
    if (row.node < 0) {
      const open = s.expanded.has(ses.sid);
      // An archived session: dim, with an "archived" tag where the age would be.
      const arch = ses.archived !== undefined;
      const right = arch
        ? ` ${thousands(ses.n_nodes)} archived`
        : ` ${thousands(ses.n_nodes)} ${age(parseTime(ses.created_at), s.now).padStart(3)}`;
      const rw = displayWidth(right);
      const end = inner.x + W - (W - rw > 12 ? rw : 0);
      let x = inner.x;
      x += f.text(x, yy, `${open ? g.open : g.closed} `, Style.normal, W);
      // Its agent's badge (blank until its origin is read), its project unless grouped by it, then its title.
      const o = s.origins.get(ses.sid);
      const badge = o ? badgeOf(o.agent, s.agents) : '';
      x += f.text(x, yy, `${badge.padEnd(BADGE_W)} `, arch ? Style.dim : Style.badge, Math.max(0, end - x));
      // One column for the projects of the rows on screen, so that every title starts where the others do; a row
      // with no project (asked here, or its origin still loading) leaves it blank.
      if (projectW > 0 && end - x > projectW + 8) {
        const project = o && o.project !== '' ? truncateLeft(o.project, projectW) : '';
        x += f.text(x, yy, `${project.padEnd(projectW)} `, Style.project, Math.max(0, end - x));
      }
      const room = Math.max(0, end - x);
      const title = ses.label ? oneLine(ses.label) : (s.titles.get(ses.sid) ?? '');
      if (title !== '')
        f.text(x, yy, truncate(title, room), arch ? Style.dim : ses.label ? Style.label : Style.normal, room);
      else f.text(x, yy, truncate(ses.sid, room), arch ? Style.dim : Style.sid, room);
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

/**
 * The width of the project column: the widest project of the session rows on screen, at most a quarter of the pane
 * (6 columns at least, a project shortened from the left past it); 0 when none of them has one, or when grouped by
 * project (the headings say it).
 */
function projectColumn(s: State, rows: number, W: number): number {
  if (s.grouping === 'project') return 0;
  let widest = 0;
  for (let i = s.top; i < s.top + rows && i < s.list.length; i++) {
    const row = s.list[i];
    if (row.heading || row.node >= 0) continue;
    const o = s.origins.get(s.sessions[row.session].sid);
    if (o && o.project !== '') widest = Math.max(widest, displayWidth(o.project));
  }
  return widest === 0 ? 0 : Math.min(widest, Math.max(6, Math.floor(W / 4)));
}

/** A project's heading: open or closed, the project shortened from the left, its sessions and newest age. */
function drawHeading(f: Frame, s: State, h: GroupHeading, x0: number, y: number, W: number, g: Glyphs): void {
  const open = !s.closedGroups.has(h.project);
  const right = ` ${thousands(h.n)} ${age(parseTime(h.newest), s.now).padStart(3)}`;
  const rw = W - displayWidth(right) > 12 ? displayWidth(right) : 0;
  let x = x0;
  x += f.text(x, y, `${open ? g.open : g.closed} `, Style.heading, W);
  const room = Math.max(0, x0 + W - rw - x);
  const name = h.project === '' ? '(no project)' : truncateLeft(h.project, room);
  f.text(x, y, name, Style.heading, room);
  if (rw > 0) f.text(x0 + W - rw, y, right, Style.count, rw);
}
