/**
 * Paints the `/` find box: the query line, the counts ("37 of 12,408", corrections dimly), one line per hit
 * (`[<bates>] <audit> <question>` with the matched parts highlighted, the session label dimmed), and the keys.
 * Every string from the shard goes through oneLine() (src/text/sanitize.ts) and is measured in cells (width.ts).
 */

import { prettyKey } from '../../../keymap/index.js';
import { ARBORIST_AGENT } from '../../../store/index.js';
import { age, parseTime, thousands } from '../../../text/format.js';
import { oneLine } from '../../../text/sanitize.js';
import { cpWidth, displayWidth, fitWidth, truncate } from '../../../text/width.js';
import type { Glyphs } from '../../core/glyphs.js';
import type { Rect } from '../../core/layout.js';
import { labelOf } from '../../core/selectors.js';
import type { State } from '../../core/state.js';
import { type Frame, Style } from '../../term/canvas.js';
import { drawLine, ROLE_STYLE } from '../transcript/view.js';
import {
  type FindOverlay,
  HIT_LINES,
  type HitLine,
  highlightSegments,
  type Segment,
  snippetMarks,
} from './model.js';
import { findLayout, matchRanges, previewLines, previewTop, textStart } from './preview.js';

/** The end of `text` that fits in `max` cells (the query line scrolls to keep the cursor in view). */
function tail(text: string, max: number): string {
  const cps = [...text];
  let w = 0;
  let i = cps.length;
  while (i > 0) {
    const cw = cpWidth(cps[i - 1].codePointAt(0)!);
    if (w + cw > max) break;
    w += cw;
    i--;
  }
  return cps.slice(i).join('');
}

/** Drops the first `cells` cells of a run of segments. */
function dropCells(segs: Segment[], cells: number): Segment[] {
  const out: Segment[] = [];
  let left = cells;
  for (const sg of segs) {
    if (left <= 0) {
      out.push(sg);
      continue;
    }
    const w = displayWidth(sg.text);
    if (w <= left) {
      left -= w;
      continue;
    }
    const cut = fitWidth(sg.text, left).text.length;
    left = 0;
    out.push({ text: sg.text.slice(cut), hl: sg.hl });
  }
  return out;
}

/**
 * Fits the question's segments into `room` cells: when the first match would fall off the right edge, the start
 * is cut (a few cells of context kept before the match); an overlong end is cut with `more`.
 */
export function fitSegments(segs: Segment[], room: number, more: string): Segment[] {
  if (room <= 0) return [];
  const widths = segs.map((sg) => displayWidth(sg.text));
  const total = widths.reduce((a, b) => a + b, 0);
  if (total <= room) return segs;
  let out = segs;
  const first = segs.findIndex((sg) => sg.hl);
  if (first >= 0) {
    const before = widths.slice(0, first).reduce((a, b) => a + b, 0);
    const context = Math.min(8, Math.floor(room / 4));
    if (before + Math.min(widths[first], room / 2) > room - 1 && before > context) {
      out = [{ text: more, hl: false }, ...dropCells(segs, before - context + displayWidth(more))];
    }
  }
  const cut: Segment[] = [];
  let used = 0;
  const moreW = displayWidth(more);
  const all = out.reduce((a, sg) => a + displayWidth(sg.text), 0);
  if (all <= room) return out;
  for (const sg of out) {
    const w = displayWidth(sg.text);
    if (used + w <= room - moreW) {
      cut.push(sg);
      used += w;
      continue;
    }
    const part = fitWidth(sg.text, room - moreW - used).text;
    if (part !== '') cut.push({ text: part, hl: sg.hl });
    break;
  }
  cut.push({ text: more, hl: false });
  return cut;
}

/** A working directory shortened from the left to `max` cells, so its last folders stay: "…/ana/shop". */
export function shortProject(project: string, max: number, more: string): string {
  const p = oneLine(project).trim();
  if (displayWidth(p) <= max) return p;
  // Whole folders from the right while they fit; a last folder too long on its own keeps its end.
  const parts = p.split('/');
  let kept = parts.pop() ?? '';
  while (parts.length > 0 && displayWidth(`${more}/${parts[parts.length - 1]}/${kept}`) <= max)
    kept = `${parts.pop()}/${kept}`;
  const out = `${more}/${kept}`;
  return displayWidth(out) <= max ? out : `${more}${tail(kept, Math.max(1, max - displayWidth(more)))}`;
}

/**
 * One hit, two lines. The first: its agent, project and age, then its question (the matched words highlighted), the
 * session label dimmed at the right. The second: its Bates id and where it matched: for a match in the answer
 * only, the answer's snippet around the match (its matched words highlighted, prefixes and typo corrections too);
 * for a match in the question, that and the turn's audit tag.
 */
function drawHit(
  f: Frame,
  x: number,
  y: number,
  w: number,
  hit: HitLine,
  selected: boolean,
  g: Glyphs,
  now: number,
): void {
  const st = (normal: Style): Style =>
    selected ? (normal === Style.match ? Style.matchSel : Style.selFocus) : normal;
  if (selected) f.fill(x - 1, y, w + 2, HIT_LINES, Style.selFocus);
  const end = x + w;
  let cx = x;
  // Agent, project, age: narrow columns, so a list of hits reads as a table.
  const agent = truncate(oneLine(hit.agent ?? ARBORIST_AGENT), 8);
  cx += f.text(cx, y, `${agent.padEnd(8)} `, st(Style.sid), end - cx);
  const pw = Math.max(6, Math.min(24, Math.floor(w / 6)));
  const project = hit.project ? shortProject(hit.project, pw, g.more) : '';
  cx += f.text(
    cx,
    y,
    `${project.padEnd(pw - (displayWidth(project) - project.length))} `,
    st(Style.dim),
    end - cx,
  );
  const when = age(parseTime(hit.created_at), now);
  cx += f.text(cx, y, `${when.padStart(4)}  `, st(Style.count), end - cx);
  const label = hit.label ? oneLine(hit.label).trim() : '';
  const lw =
    label !== '' && w >= 50 ? Math.min(displayWidth(label) + 2, Math.floor(w / (w < 100 ? 5 : 4))) : 0;
  const room = end - cx - lw;
  for (const sg of fitSegments(highlightSegments(hit.question, hit.highlights), room, g.more)) {
    cx += f.text(cx, y, sg.text, st(sg.hl ? Style.match : Style.overlay), end - lw - cx);
  }
  if (lw > 2) {
    const t = truncate(label, lw - 2);
    f.text(end - displayWidth(t), y, t, st(Style.dim), lw);
  }
  // Where it matched.
  const y2 = y + 1;
  cx = x + 2;
  cx += f.text(cx, y2, `[${oneLine(hit.bates)}] `, st(Style.dim), end - cx);
  if (hit.field === 'answer' && hit.snippet !== '') {
    cx += f.text(cx, y2, 'answer: ', st(Style.dim), end - cx);
    const m = snippetMarks(hit.snippet);
    for (const sg of fitSegments(highlightSegments(m.text, m.highlights), end - cx, g.more)) {
      cx += f.text(cx, y2, sg.text, st(sg.hl ? Style.match : Style.dim), end - cx);
    }
  } else {
    const where = hit.field === 'answer' ? 'in the answer' : `in the ${hit.field}`;
    f.text(cx, y2, `${where} · ${oneLine(hit.audit)}`, st(Style.dim), end - cx);
  }
}

/**
 * The selected hit's turn, laid out as the transcript pane lays it out, opened at its first matched word (the
 * matched words highlighted), with a title line that says which turn and where in it (`line 12/80`, arrows).
 */
function drawPreview(f: Frame, s: State, ov: FindOverlay, r: Rect, side: 'beside' | 'under'): void {
  if (side === 'beside') f.fill(r.x - 2, r.y, 1, r.h, Style.overlayBorder, '│');
  else f.fill(r.x - 1, r.y, r.w + 2, 1, Style.overlayBorder, '─');
  const p = ov.preview;
  if (!p || r.h < 2) return;
  const bh = r.h - 1;
  const by = r.y + 1;
  const lines = p.turn ? previewLines(p.turn, r.w, labelOf(s)(p.turn.sid)) : [];
  const top = previewTop(lines, ov.match, bh, ov.pscroll);
  // The title: which turn (read-only when archived since), and where the window is in it.
  let where = '';
  if (lines.length > 0) {
    const up = top > 0 ? '↑' : '';
    const down = top + bh < lines.length ? '↓' : '';
    where = ` ${up}${down}${up || down ? ' ' : ''}line ${top + 1}/${lines.length} `;
  }
  const head = ` ${oneLine(p.bates)}${p.archived ? ' · archived, read-only' : ''} `;
  const ww = displayWidth(where);
  const tx = side === 'under' ? r.x + 1 : r.x;
  f.text(tx, r.y, truncate(head, Math.max(0, r.w - ww - 2)), Style.overlayBorder, r.w - ww - 1);
  if (ww > 0 && ww < r.w) f.text(r.x + r.w - ww, r.y, where, Style.overlayBorder, ww);
  if (p.error) {
    f.text(r.x, by, truncate(`cannot show this turn: ${oneLine(p.error)}`, r.w), Style.error, r.w);
    return;
  }
  if (!p.turn) {
    f.text(r.x, by, 'loading…', Style.dim, r.w);
    return;
  }
  for (let i = 0; i < bh && top + i < lines.length; i++) {
    const line = lines[top + i];
    const y = by + i;
    drawLine(f, r.x, y, r.w, line, ROLE_STYLE[line.role]);
    // The matched words over the line as painted: the cells before each give its column.
    for (const [a, b] of matchRanges(line.text, ov.match, textStart(line))) {
      const col = displayWidth(line.text.slice(0, a));
      if (col >= r.w) break;
      f.text(r.x + col, y, line.text.slice(a, b + 1), Style.match, r.w - col);
    }
  }
}

/**
 * The preview's scroll keys as the key line names them: transcript.down/up's first keys that type nothing (`J` is a
 * letter in the box), one modifier for both when they share it ("Shift-↓↑"); null when either has none.
 */
function scrollKeys(s: State): string | null {
  const [down, up] = (['transcript.down', 'transcript.up'] as const).map((a) => {
    const k = s.keymap.keysOf(a).find((x) => [...x].length > 1 && x !== 'space');
    return k === undefined ? null : prettyKey(k);
  });
  if (!down || !up) return null;
  const mod = /^(.*-)/.exec(down)?.[1];
  return mod && up.startsWith(mod) ? `${down}${up.slice(mod.length)}` : `${down}/${up}`;
}

export function drawFind(f: Frame, s: State, ov: FindOverlay, g: Glyphs): void {
  const layout = findLayout(s.cols, s.rows, !s.find.hidePreview);
  const r = layout.box;
  f.fill(r.x, r.y, r.w, r.h, Style.overlay);
  let title = 'find · all sessions';
  if (ov.scope === 'session' && ov.sid) {
    const label = s.sessions.find((x) => x.sid === ov.sid)?.label;
    title = `find · this session: ${ov.sid}${label ? ` ${oneLine(label)}` : ''}`;
  }
  f.box(r.x, r.y, r.w, r.h, Style.overlayBorder, title, Style.titleFocus);
  const ix = r.x + 2;
  const iw = Math.max(1, r.w - 4);
  const end = ix + iw;

  // The query, echoed as typed (it was sanitised on the way in; once more costs nothing).
  let y = r.y + 1;
  f.text(ix, y, '/ ', Style.key, iw);
  const text = tail(oneLine(ov.text), Math.max(0, iw - 3));
  const used = f.text(ix + 2, y, text, Style.input, Math.max(0, iw - 3));
  f.text(ix + 2 + used, y, g.cursor, Style.key, 1);

  // Counts: "37 of 12,408", "searching…" while the shown hits answer an older query, corrections.
  y++;
  const empty = ov.text.trim() === '';
  const stale = ov.shown !== ov.seq;
  let cx = ix;
  if (ov.error) f.text(cx, y, `find failed: ${ov.error}`, Style.error, iw);
  else if (ov.problems.length > 0 && ov.shown === ov.seq) {
    // A filter it could not use: said where the counts go, in place of them (the hits, if any, still show).
    const n = ov.hits.length > 0 ? `${countLine(ov)} · ` : '';
    cx += f.text(cx, y, n, Style.count, end - cx);
    f.text(cx, y, truncate(ov.problems.map(oneLine).join('; '), end - cx), Style.error, end - cx);
  } else if (empty) {
    if (ov.searched !== null) {
      const where = ov.scope === 'session' ? ' of this session' : '';
      const hint = ' · filters: agent: project: after: before: in:question';
      f.text(
        cx,
        y,
        truncate(`type to find among ${thousands(ov.searched)} turns${where}${hint}`, iw),
        Style.dim,
        iw,
      );
    }
  } else if (ov.shown === 0) f.text(cx, y, 'searching…', Style.dim, iw);
  else {
    cx += f.text(cx, y, countLine(ov), Style.count, end - cx);
    if (stale) cx += f.text(cx, y, ' searching…', Style.dim, end - cx);
    if (ov.corrections.length > 0) {
      const also = ov.corrections.map(oneLine).join(', ');
      f.text(cx, y, truncate(` · also: ${also}`, end - cx), Style.dim, end - cx);
    }
  }

  // The hits, two lines each.
  const list = layout.list;
  const listH = Math.max(1, Math.floor(list.h / HIT_LINES));
  const top = list.y;
  if (!empty && !ov.error) {
    if (ov.shown !== 0 && !stale && ov.hits.length === 0 && ov.problems.length === 0)
      f.text(ix, top, 'no turn matches (typos of one letter are forgiven from 4 letters on)', Style.dim, iw);
    // (after a resize the remembered scroll may no longer show the selection)
    const first = Math.max(0, Math.min(ov.top, ov.sel, ov.hits.length - listH), ov.sel - listH + 1);
    for (let i = 0; i < listH; i++) {
      const hit = ov.hits[first + i];
      if (!hit) break;
      drawHit(f, list.x, top + i * HIT_LINES, list.w, hit, first + i === ov.sel, g, s.now);
    }
    if (layout.preview && layout.side && ov.hits.length > 0)
      drawPreview(f, s, ov, layout.preview, layout.side);
    if (ov.hits.length > listH) {
      const pos = ` ${ov.sel + 1}/${ov.hits.length} `;
      const pw = displayWidth(pos);
      if (pw + 4 < r.w) f.text(r.x + r.w - pw - 2, r.y + r.h - 1, pos, Style.overlayBorder);
    }
  }

  // The keys: in a narrower box, shorter forms (the preview's keys must show at 80 columns too), the scope's
  // full form (which way it switches) while it fits.
  const esc = `${s.keyOf.close ?? 'Esc'} back`;
  const scopeKey = s.keyOf['find.scope'];
  const scope =
    scopeKey && ov.sid ? `${scopeKey} ${ov.scope === 'all' ? 'this session only' : 'all sessions'}` : null;
  const scroll = layout.preview ? scrollKeys(s) : null;
  const previewKey = s.keyOf['find.preview'];
  const toggle = previewKey ? `${previewKey} ${s.find.hidePreview ? 'show' : 'hide'} preview` : null;
  const keys = [
    ['↑↓ select', 'Enter go there', esc, scope, scroll && `${scroll} scroll preview`, toggle],
    ['Enter go', esc, scope, scroll && `${scroll} scroll`, previewKey && `${previewKey} preview`],
    [
      'Enter go',
      esc,
      scope && `${scopeKey} scope`,
      scroll && `${scroll} scroll`,
      previewKey && `${previewKey} preview`,
    ],
  ]
    .map((form) => form.filter((x): x is string => typeof x === 'string' && x !== ''))
    .find((form, i, all) => i === all.length - 1 || displayWidth(form.join(' · ')) <= iw)!;
  f.text(ix, r.y + r.h - 2, truncate(keys.join(' · '), iw), Style.dim, iw);
}

/** The hits shown, with a + when the search found more than the list keeps. */
function hitCount(ov: FindOverlay): string {
  return `${ov.hits.length}${ov.more ? '+' : ''}`;
}

/** "37 of 12,408"; "37 found" when the turns in scope are not known (a date filter: SearchResult.searched). */
function countLine(ov: FindOverlay): string {
  return ov.searched === null ? `${hitCount(ov)} found` : `${hitCount(ov)} of ${thousands(ov.searched)}`;
}
