/** Paints the status bar (chain, message or selection, key hints) and the empty shard's greeting. */
import { age, counted, thousands } from '../../../text/format.js';
import { oneLine } from '../../../text/sanitize.js';
import { displayWidth, truncate, truncateLeft } from '../../../text/width.js';
import type { Glyphs } from '../../core/glyphs.js';
import { centred, type Rect } from '../../core/layout.js';
import { selectedOutlineRow } from '../../core/selectors.js';
import type { State } from '../../core/state.js';
import { type Frame, Style } from '../../term/canvas.js';

export function drawStatus(f: Frame, s: State, r: Rect, g: Glyphs): void {
  f.fill(r.x, r.y, r.w, 1, Style.status);
  // Build the bar from the most to the least compact form until it fits.
  const last = s.busy || shownMessage(s) ? LAST : LAST - 1;
  for (let level = 0; level <= last; level++) {
    const segs = statusSegments(s, g, level);
    const w = segs.reduce((n, [t]) => n + displayWidth(t), 0);
    if (w <= r.w || level === last) {
      // Still too wide: the last segment (a message, the last key hint) is cut with … rather than mid-word.
      if (w > r.w) {
        const last = segs[segs.length - 1];
        const room = r.w - (w - displayWidth(last[0]));
        if (room > 1) segs[segs.length - 1] = [truncate(last[0].trimEnd(), room), last[1]];
      }
      let x = r.x;
      for (const [t, st] of segs) x += f.text(x, r.y, t, st, Math.max(0, r.x + r.w - x));
      return;
    }
  }
}

/** The most compact form, only while a message is shown: an intact chain in two words, the rest of the row for it. */
const LAST = 6;

/** The message the bar shows: for 8 s after it was said. */
function shownMessage(s: State): State['message'] {
  return s.message && s.now - s.message.at < 8000 ? s.message : null;
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
 * 3 says "· 10s ago" for "· checked 10s ago", 4 drops the help key, 5 shortens the counts and the selection,
 * 6 (LAST) leaves an intact chain's count, head and age to the bar's fuller forms.
 */
function statusSegments(s: State, g: Glyphs, level: number): [string, Style][] {
  const out: [string, Style][] = [[' ', Style.status]];
  const c = s.chain;
  const head = c.head ? c.head.slice(c.head.indexOf(':') + 1, c.head.indexOf(':') + 9) : '';
  const ago = c.checkedAt !== null ? checkedAgo(c.checkedAt, s.now) : null;
  const suffix = ago === 'now' ? '' : ' ago';
  const when = ago === null ? '' : level >= 3 ? ` · ${ago}${suffix}` : ` · checked ${ago}${suffix}`;
  const events = level >= 5 ? thousands(c.events) : counted(c.events, 'event');
  if (c.status === 'checking') {
    const p = c.progress;
    const pct = p && p.total > 0 ? ` ${Math.min(100, Math.floor((p.done / p.total) * 100))}%` : '';
    out.push([`chain checking${c.full ? pct : ''}…`, Style.statusChecking]);
    if (c.events > 0) out.push([` · ${events}`, Style.status]);
  } else if (c.status === 'broken') {
    // No event named: the check itself failed (runtime/chain-check.ts), so nothing is vouched for.
    out.push([
      c.brokenAt === null ? ' chain NOT VERIFIED ' : ` chain BROKEN at event ${c.brokenAt} `,
      Style.statusBroken,
    ]);
    out.push([` ${events}${when}`, Style.status]);
  } else if (c.status === 'ok' && c.state && !c.state.ok) {
    // The chain is intact but the state is not what it recorded (verify): as serious, said as plainly.
    out.push([` BROKEN: ${c.state.summary ?? 'verify found damage'} `, Style.statusBroken]);
    out.push([` ${events}${when}`, Style.status]);
  } else if (c.status === 'ok') {
    out.push([`chain ${g.ok}`, Style.statusOk]);
    if (level < LAST) out.push([` ${events} · head ${head}${when}`, Style.status]);
  } else out.push(['chain not checked yet', Style.status]);
  // A message (or work in progress) takes the place of the selection and the key hints.
  const m = shownMessage(s);
  if (s.busy || m) {
    out.push([' │ ', Style.status]);
    out.push([
      ` ${s.busy ?? m!.text} `,
      s.busy ? Style.statusChecking : m!.level === 'error' ? Style.error : Style.info,
    ]);
    return out;
  }
  const orow = selectedOutlineRow(s);
  let sel = '';
  if (orow) {
    const turn = s.path?.bates === orow.bates ? s.path.turns[s.path.turns.length - 1] : undefined;
    sel = `${orow.bates}${turn && level < 5 ? ` depth ${turn.depth}` : ''}`;
  } else if (s.list[s.sel]) sel = s.sessions[s.list[s.sel].session]?.sid ?? '';
  if (sel) out.push([` │ ${sel}`, Style.status]);
  if (s.ask) {
    out.push([' │ ', Style.status]);
    out.push([
      `${s.ask.mode === 'fork' ? 'forking' : 'asking'}… ${s.keyOf.close ?? 'Esc'} cancels`,
      Style.statusChecking,
    ]);
    return out;
  }
  const hints =
    level >= 4 ? [] : level >= 2 ? s.hints.slice(0, 1) : level === 1 ? s.hints.slice(0, 3) : s.hints;
  hints.forEach(([k, label], i) => {
    out.push([i === 0 ? ' │ ' : '  ', Style.status]);
    out.push([k, Style.hint]);
    out.push([` ${label}`, Style.status]);
  });
  return out;
}

export function drawEmpty(f: Frame, s: State): void {
  // Two columns of margin inside the box; a line wider than that is cut with … (a path keeps its tail).
  const room = Math.max(1, s.cols - 2 - 4);
  let lines = ['This shard is empty.'];
  // The histories are a table (names, counts and paths in columns), centred as one block: centred line by line,
  // their ragged starts and ends read as a poem, not a list.
  let table = { from: 0, to: 0 };
  if (s.busy) lines.push(s.busy);
  else if (s.histories.length > 0) {
    lines.push('');
    const labelW = Math.max(...s.histories.map((h) => displayWidth(h.label) + 1));
    const countW = Math.max(...s.histories.map((h) => String(h.files).length));
    table = { from: lines.length, to: lines.length + s.histories.length };
    for (const h of s.histories) {
      const label = `${h.label}:`;
      const count = `${String(h.files).padStart(countW)} ${h.files === 1 ? 'file ' : 'files'}`;
      const head = `${label}${' '.repeat(labelW - displayWidth(label))} ${count} in `;
      const left = room - displayWidth(head);
      lines.push(left >= 12 ? head + truncateLeft(oneLine(h.path), left) : head + oneLine(h.path));
    }
    lines.push('');
    lines.push(
      `Press ${s.keyOf.import ?? 'i'} to import ${s.histories.length === 1 ? 'it' : 'them'}${s.offerDemo ? `, ${s.keyOf.demo ?? 'd'} for a demo` : ''}, ${s.keyOf.quit ?? 'q'} to quit`,
    );
  } else if (s.offerDemo)
    lines.push(`Press ${s.keyOf.demo ?? 'd'} to load a demo, ${s.keyOf.quit ?? 'q'} to quit`);
  else lines.push(`Press ${s.keyOf.ask ?? 'a'} to ask a first question, ${s.keyOf.quit ?? 'q'} to quit`);
  lines = lines.map((l) => truncate(l, room));
  const w = Math.min(s.cols - 2, Math.max(...lines.map(displayWidth)) + 6);
  const r = centred(s, w, lines.length + 4);
  f.fill(r.x, r.y, r.w, r.h, Style.overlay);
  f.box(r.x, r.y, r.w, r.h, Style.overlayBorder, 'arborist', Style.titleFocus);
  const tableW = Math.max(0, ...lines.slice(table.from, table.to).map(displayWidth));
  lines.forEach((l, i) => {
    const lw = i >= table.from && i < table.to ? tableW : displayWidth(l);
    f.text(
      r.x + Math.max(1, Math.floor((r.w - lw) / 2)),
      r.y + 2 + i,
      l,
      i === 0 ? Style.banner : Style.overlay,
      r.w - 2,
    );
  });
}
