/**
 * view(state) -> Frame: draws the whole screen as character cells, with no terminal. Only the visible rows of the
 * tree and the visible lines of the transcript are ever laid out, whatever the size of the shard.
 */

import { age, parseTime, shortTime, thousands } from '../../text/format.js';
import { oneLine } from '../../text/sanitize.js';
import { displayWidth, truncate } from '../../text/width.js';
import { drawFind } from '../features/find/view.js';
import { archivedSet } from '../features/maintenance/model.js';
import { drawConfirm, drawEntries } from '../features/maintenance/view.js';
import { type Role, windowLines } from '../features/transcript/model.js';
import { Frame, S } from '../term/canvas.js';
import { layout, type Rect, type State } from './state.js';
import {
  helpLines,
  overlayBox,
  selectedBates,
  selectedOutlineRow,
  transcriptDoc,
  transcriptPos,
} from './update.js';

export interface Glyphs {
  open: string;
  closed: string;
  branch: string;
  link: string;
  up: string;
  ok: string;
  cursor: string;
  more: string;
}

export const UNICODE_GLYPHS: Glyphs = {
  open: '▾',
  closed: '▸',
  branch: '⑂',
  link: '↳',
  up: '↰',
  ok: '✓',
  cursor: '▏',
  more: '…',
};

/** For consoles with small fonts (TERM=linux): one cell each, in every console font. */
export const ASCII_GLYPHS: Glyphs = {
  open: 'v',
  closed: '>',
  branch: 'Y',
  link: '>',
  up: '^',
  ok: 'ok',
  cursor: '_',
  more: '~',
};

export interface ViewOptions {
  glyphs?: Glyphs;
}

export function view(s: State, opts: ViewOptions = {}): Frame {
  const g = opts.glyphs ?? UNICODE_GLYPHS;
  const f = new Frame(Math.max(1, s.cols), Math.max(1, s.rows));
  const L = layout(s.cols, s.rows);
  if (L.tooSmall) {
    const msg = ['terminal too small', `${s.cols}x${s.rows}, needs 40x10`];
    msg.forEach((m, i) => {
      f.text(
        Math.max(0, Math.floor((s.cols - displayWidth(m)) / 2)),
        Math.floor(s.rows / 2) - 1 + i,
        m,
        S.normal,
      );
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

// ---- tree ---------------------------------------------------------------------------------------------------

function drawTree(f: Frame, s: State, box: Rect, inner: Rect, g: Glyphs): void {
  const focus = s.focus === 'tree' && !s.overlay;
  const nArchived = s.showArchived ? archivedSet(s.sessions).size : 0;
  const total = s.sessions.length - nArchived;
  let title = s.loaded ? `sessions ${thousands(total)}` : 'sessions (loading)';
  if (s.showArchived && s.loaded) title += ` + ${thousands(nArchived)} archived`;
  f.box(box.x, box.y, box.w, box.h, focus ? S.borderFocus : S.border, title, focus ? S.titleFocus : S.title);
  const W = inner.w;
  for (let y = 0; y < inner.h; y++) {
    const i = s.top + y;
    const row = s.list[i];
    if (!row) break;
    const ses = s.sessions[row.si];
    const yy = inner.y + y;
    if (row.oi < 0) {
      const open = s.expanded.has(ses.sid);
      // An archived session: dim, with an "archived" tag where the age would be.
      const arch = ses.archived !== undefined;
      const right = arch
        ? ` ${thousands(ses.n_nodes)} archived`
        : ` ${thousands(ses.n_nodes)} ${age(parseTime(ses.created_at), s.now).padStart(3)}`;
      const rw = displayWidth(right);
      let x = inner.x;
      x += f.text(x, yy, `${open ? g.open : g.closed} `, S.normal, W);
      x += f.text(x, yy, ses.sid, arch ? S.dim : S.sid, Math.max(0, W - rw - 2));
      const room = Math.max(0, inner.x + W - rw - x);
      if (ses.label)
        x += f.text(x, yy, truncate(` ${oneLine(ses.label)}`, room), arch ? S.dim : S.label, room);
      else {
        const t = s.titles.get(ses.sid);
        if (t) x += f.text(x, yy, truncate(` ${t}`, room), S.dim, room);
      }
      if (W - rw > 12) f.text(inner.x + W - rw, yy, right, S.count, rw);
    } else {
      const r = s.outlines.get(ses.sid)!.rows[row.oi];
      let x = inner.x + 2;
      const end = inner.x + W;
      let guide = r.guide;
      const maxGuide = Math.floor(W / 2);
      if (displayWidth(guide) > maxGuide) guide = g.more + guide.slice(guide.length - maxGuide + 1);
      x += f.text(x, yy, guide, S.dim, end - x);
      const branchMark = !r.cross && r.n_children >= 2 ? ` ${g.branch}${r.n_children}` : '';
      const bw = displayWidth(branchMark);
      if (r.cross) {
        x += f.text(x, yy, `${g.link} ${r.bates} `, S.link, end - x);
        f.text(x, yy, truncate(r.q, Math.max(0, end - x)), S.dim, end - x);
      } else {
        const collapsedMark = r.end > row.oi + 1 && s.collapsed.has(r.bates);
        x += f.text(x, yy, String(r.seq).padStart(6, '0'), S.dim, end - x);
        x += f.text(x, yy, ' ', S.normal, end - x);
        if (collapsedMark) x += f.text(x, yy, `${g.closed} `, S.branch, end - x);
        if (r.is_top && r.parent_bates) x += f.text(x, yy, `${g.up} `, S.link, end - x);
        const room = end - x - bw;
        const qStyle = ses.archived ? S.dim : S.normal;
        x += f.text(x, yy, truncate(r.q, Math.max(0, room)), qStyle, Math.max(0, room));
        if (bw > 0 && end - x >= bw) f.text(x, yy, branchMark, S.branch, bw);
      }
    }
    if (i === s.sel) f.restyle(inner.x, yy, W, focus ? S.selFocus : S.selBlur);
  }
  // Scroll position on the bottom border.
  if (s.list.length > inner.h) {
    const pos = ` ${s.sel + 1}/${thousands(s.list.length)} `;
    const w = displayWidth(pos);
    if (w + 4 < box.w)
      f.text(box.x + box.w - w - 2, box.y + box.h - 1, pos, focus ? S.borderFocus : S.border);
  }
}

// ---- transcript ---------------------------------------------------------------------------------------------

const ROLE_STYLE: Record<Role, S> = {
  session: S.banner,
  cross: S.cross,
  header: S.header,
  meta: S.dim,
  q: S.normal,
  a: S.normal,
  cite: S.cite,
  blank: S.normal,
  pending: S.pending,
  info: S.info,
  error: S.error,
};

function drawTranscript(f: Frame, s: State, box: Rect, inner: Rect): void {
  const focus = s.focus === 'transcript' && !s.overlay;
  const orow = selectedOutlineRow(s);
  let title = 'transcript';
  const bates = selectedBates(s);
  if (bates && s.path && s.path.bates === bates && s.path.turns.length > 0) {
    const t = s.path.turns[s.path.turns.length - 1];
    title = `${t.bates} · ${oneLine(t.audit)} · ${shortTime(t.created_at)}`;
  } else if (orow) title = orow.bates;
  else if (s.list[s.sel]) title = `session ${s.sessions[s.list[s.sel].si].sid}`;
  if (s.list[s.sel] && s.sessions[s.list[s.sel].si]?.archived) title = `archived, read-only · ${title}`;
  f.box(box.x, box.y, box.w, box.h, focus ? S.borderFocus : S.border, title, focus ? S.titleFocus : S.title);
  const doc = transcriptDoc(s);
  const pos = transcriptPos(s, doc);
  const lines = windowLines(doc, pos, inner.h);
  const selectedTurn = s.ask && s.ask.parent === bates ? doc.n - 2 : doc.n - 1;
  for (let y = 0; y < lines.length; y++) {
    const { line, turn } = lines[y];
    const yy = inner.y + y;
    let style = ROLE_STYLE[line.role];
    if (line.role === 'header' && turn === selectedTurn && doc.n > 1) style = S.headerSel;
    if ((line.role === 'q' || line.role === 'a') && line.lead) {
      f.text(inner.x, yy, line.text.slice(0, 2), line.role === 'q' ? S.qLabel : S.aLabel, inner.w);
      f.text(inner.x + 2, yy, line.text.slice(2), line.role === 'q' ? S.label : S.normal, inner.w - 2);
    } else f.text(inner.x, yy, line.text, style, inner.w);
  }
  if (orow && doc.n > 0 && box.w > 20) {
    const more =
      lines.length === inner.h && (pos.turn < doc.n - 1 || pos.line + inner.h < doc.block(pos.turn).length);
    const arrows = `${pos.turn > 0 || pos.line > 0 ? '↑' : ''}${more ? '↓' : ''}`;
    const ind = ` ${arrows}${arrows ? ' ' : ''}turn ${Math.min(doc.n, pos.turn + 1)}/${doc.n} `;
    const w = displayWidth(ind);
    if (w + 4 < box.w)
      f.text(box.x + box.w - w - 2, box.y + box.h - 1, ind, focus ? S.borderFocus : S.border);
  }
}

// ---- status bar ---------------------------------------------------------------------------------------------

function drawStatus(f: Frame, s: State, r: Rect, g: Glyphs): void {
  f.fill(r.x, r.y, r.w, 1, S.status);
  // Build the bar from the most to the least compact form until it fits.
  for (let level = 0; level <= 5; level++) {
    const segs = statusSegments(s, g, level);
    const w = segs.reduce((n, [t]) => n + displayWidth(t), 0);
    if (w <= r.w || level === 5) {
      let x = r.x;
      for (const [t, st] of segs) x += f.text(x, r.y, t, st, Math.max(0, r.x + r.w - x));
      return;
    }
  }
}

/** Coarse on purpose: the bar repaints every 10 s, not every second, while nothing else changes. */
function checkedAgo(at: number, now: number): string {
  const sec = Math.max(0, Math.floor((now - at) / 1000));
  if (sec < 10) return 'now';
  if (sec < 60) return `${Math.floor(sec / 10) * 10}s`;
  return age(at, now);
}

/**
 * The status bar as styled segments; `level` 0 is the fullest form: 1 keeps three key hints, 2 only the help key,
 * 3 says "· 10s ago" for "· checked 10s ago", 4 drops the help key, 5 shortens the counts and the selection.
 */
function statusSegments(s: State, g: Glyphs, level: number): [string, S][] {
  const out: [string, S][] = [[' ', S.status]];
  const c = s.chain;
  const head = c.head ? c.head.slice(c.head.indexOf(':') + 1, c.head.indexOf(':') + 9) : '';
  const ago = c.checkedAt !== null ? checkedAgo(c.checkedAt, s.now) : null;
  const suffix = ago === 'now' ? '' : ' ago';
  const when = ago === null ? '' : level >= 3 ? ` · ${ago}${suffix}` : ` · checked ${ago}${suffix}`;
  const events = level >= 5 ? thousands(c.events) : `${thousands(c.events)} events`;
  if (c.status === 'checking') {
    const p = c.progress;
    const pct = p && p.total > 0 ? ` ${Math.min(100, Math.floor((p.done / p.total) * 100))}%` : '';
    out.push([`chain checking${c.full ? pct : ''}…`, S.statusChecking]);
    if (c.events > 0) out.push([` · ${events}`, S.status]);
  } else if (c.status === 'broken') {
    out.push([` chain BROKEN at event ${c.brokenAt ?? '?'} `, S.statusBroken]);
    out.push([` ${events}${when}`, S.status]);
  } else if (c.status === 'ok') {
    out.push([`chain ${g.ok}`, S.statusOk]);
    out.push([` ${events} · head ${head}${when}`, S.status]);
  } else out.push(['chain not checked yet', S.status]);
  // A message (or work in progress) takes the place of the selection and the key hints.
  const m = s.message && s.now - s.message.at < 8000 ? s.message : null;
  if (s.busy || m) {
    out.push([' │ ', S.status]);
    out.push([` ${s.busy ?? m!.text} `, s.busy ? S.statusChecking : m!.level === 'error' ? S.error : S.info]);
    return out;
  }
  const orow = selectedOutlineRow(s);
  let sel = '';
  if (orow) {
    const turn = s.path?.bates === orow.bates ? s.path.turns[s.path.turns.length - 1] : undefined;
    sel = `${orow.bates}${turn && level < 5 ? ` depth ${turn.depth}` : ''}`;
  } else if (s.list[s.sel]) sel = s.sessions[s.list[s.sel].si]?.sid ?? '';
  if (sel) out.push([` │ ${sel}`, S.status]);
  if (s.ask) {
    out.push([' │ ', S.status]);
    out.push([
      `${s.ask.mode === 'fork' ? 'forking' : 'asking'}… ${s.keyOf.close ?? 'Esc'} cancels`,
      S.statusChecking,
    ]);
    return out;
  }
  const hints =
    level >= 4 ? [] : level >= 2 ? s.hints.slice(0, 1) : level === 1 ? s.hints.slice(0, 3) : s.hints;
  hints.forEach(([k, label], i) => {
    out.push([i === 0 ? ' │ ' : '  ', S.status]);
    out.push([k, S.hint]);
    out.push([` ${label}`, S.status]);
  });
  return out;
}

// ---- overlays -----------------------------------------------------------------------------------------------

function centred(s: State, w: number, h: number): Rect {
  return {
    x: Math.max(0, Math.floor((s.cols - w) / 2)),
    y: Math.max(0, Math.floor((s.rows - 1 - h) / 2)),
    w,
    h,
  };
}

function drawEmpty(f: Frame, s: State): void {
  const lines = ['This shard is empty.'];
  if (s.busy) lines.push(s.busy);
  else if (s.offerDemo)
    lines.push(`Press ${s.keyOf.demo ?? 'd'} to load a demo, ${s.keyOf.quit ?? 'q'} to quit`);
  else lines.push(`Press ${s.keyOf.ask ?? 'a'} to ask a first question, ${s.keyOf.quit ?? 'q'} to quit`);
  const w = Math.min(s.cols - 2, Math.max(...lines.map(displayWidth)) + 6);
  const r = centred(s, w, lines.length + 4);
  f.fill(r.x, r.y, r.w, r.h, S.overlay);
  f.box(r.x, r.y, r.w, r.h, S.overlayBorder, 'arborist', S.titleFocus);
  lines.forEach((l, i) => {
    const lw = displayWidth(l);
    f.text(
      r.x + Math.max(1, Math.floor((r.w - lw) / 2)),
      r.y + 2 + i,
      l,
      i === 0 ? S.banner : S.overlay,
      r.w - 2,
    );
  });
}

function drawOverlay(f: Frame, s: State, g: Glyphs): void {
  const ov = s.overlay!;
  if (ov.kind === 'find') {
    drawFind(f, s, ov, g);
    return;
  }
  if (ov.kind === 'input') {
    const w = Math.min(s.cols - 4, 90);
    const r = { x: Math.floor((s.cols - w) / 2), y: Math.max(0, s.rows - 1 - 6), w, h: 5 };
    let title: string;
    if (ov.mode === 'fork') title = `fork: a new session under ${ov.parent}`;
    else if (ov.parent) title = `ask under ${ov.parent}`;
    else if (ov.session) title = `ask a new first turn in session ${ov.session}`;
    else title = 'ask the first question (a new session)';
    f.fill(r.x, r.y, r.w, r.h, S.overlay);
    f.box(r.x, r.y, r.w, r.h, S.overlayBorder, title, S.titleFocus);
    const room = r.w - 6;
    let text = ov.text;
    while (displayWidth(text) > room - 1) text = text.slice(1);
    f.text(r.x + 2, r.y + 1, '> ', S.key, 2);
    const used = f.text(r.x + 4, r.y + 1, text, S.input, room);
    f.text(r.x + 4 + used, r.y + 1, g.cursor, S.key, 1);
    f.text(r.x + 2, r.y + 3, 'Enter asks · Esc cancels · Ctrl-U clears', S.dim, r.w - 4);
    return;
  }
  const box = overlayBox(s);
  const r = centred(s, box.w, box.h);
  f.fill(r.x, r.y, r.w, r.h, S.overlay);
  const inner = { x: r.x + 2, y: r.y + 1, w: r.w - 4, h: r.h - 3 };
  if (ov.kind === 'entries' || ov.kind === 'confirm') {
    if (ov.kind === 'entries') drawEntries(f, s, ov, r, inner);
    else drawConfirm(f, s, ov, r, inner);
    return;
  }
  if (ov.kind === 'help') {
    f.box(r.x, r.y, r.w, r.h, S.overlayBorder, 'keys', S.titleFocus);
    const { lines, kw } = helpLines(s);
    const shown = lines.slice(ov.scroll, ov.scroll + inner.h);
    shown.forEach((l, i) => {
      const y = inner.y + i;
      if (l.head) f.text(inner.x, y, l.t, S.banner, inner.w);
      else if (l.k !== undefined) {
        f.text(inner.x + 1, y, truncate(l.k, kw), S.key, kw);
        f.text(inner.x + 2 + kw, y, l.t, S.overlay, inner.w - kw - 2);
      } else f.text(inner.x + 2 + kw, y, l.t, S.overlay, inner.w - kw - 2);
    });
    const foot = `${s.keyOf.close ?? 'Esc'} closes · ↑↓ PgUp PgDn scroll${lines.length > inner.h ? ` · ${ov.scroll + 1}-${Math.min(lines.length, ov.scroll + inner.h)}/${lines.length}` : ''}`;
    f.text(inner.x, r.y + r.h - 2, foot, S.dim, inner.w);
    return;
  }
  if (ov.kind === 'branches') {
    f.box(r.x, r.y, r.w, r.h, S.overlayBorder, `branch points in ${ov.sid}`, S.titleFocus);
    if (!ov.items) f.text(inner.x, inner.y, 'loading…', S.dim, inner.w);
    else if (ov.items.length === 0)
      f.text(inner.x, inner.y, 'no branch points in this session', S.dim, inner.w);
    else {
      for (let i = 0; i < inner.h; i++) {
        const it = ov.items[ov.top + i];
        if (!it) break;
        const y = inner.y + i;
        let x = inner.x;
        x += f.text(x, y, `${it.bates} `, S.sid, inner.w);
        x += f.text(x, y, `${g.branch}${it.n_children} `, S.branch, inner.x + inner.w - x);
        f.text(x, y, it.q, S.overlay, inner.x + inner.w - x);
        if (ov.top + i === ov.sel) f.restyle(inner.x, y, inner.w, S.selFocus);
      }
    }
    f.text(inner.x, r.y + r.h - 2, `Enter goes there · ${s.keyOf.close ?? 'Esc'} closes`, S.dim, inner.w);
  }
}
