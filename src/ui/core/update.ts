/**
 * update(state, action) -> [state, effects]: every decision the TUI makes, with no terminal and no SQLite, so all
 * of it is unit-testable. Effects are data; the runtime performs them and answers with actions.
 */
import type { ActionId } from '../../keymap/index.js';
import { shortTime } from '../../text/format.js';
import { oneLine } from '../../text/sanitize.js';
import { displayWidth, wrap } from '../../text/width.js';
import { FIND_LIMIT, findListHeight } from '../features/find/model.js';
import {
  archivedSessionLines,
  keyMaintenance,
  mergeSessions,
  onMaintenance,
  openEntries,
  openRestore,
  refusal,
  selectedArchived,
} from '../features/maintenance/model.js';
import {
  autoPos,
  type Doc,
  linesDoc,
  maxPos,
  pathDoc,
  scrollBy,
  type TLine,
  type TPos,
} from '../features/transcript/model.js';
import {
  ancestorKeys,
  buildRows,
  keyOfRow,
  type Outline,
  type OutlineRow,
  outlineRowOf,
  prepareOutline,
  type Row,
  sessionKey,
} from '../features/tree/model.js';
import {
  type Action,
  type BranchItem,
  type Effect,
  type FindOverlay,
  layout,
  type Overlay,
  type State,
} from './state.js';

type Result = [State, Effect[]];

// ---- derived helpers ----------------------------------------------------------------------------------------

export function treeHeight(s: State): number {
  return layout(s.cols, s.rows).treeIn.h;
}

export function textSize(s: State): { w: number; h: number } {
  const r = layout(s.cols, s.rows).textIn;
  return { w: r.w, h: r.h };
}

export function selectedRow(s: State): Row | undefined {
  return s.list[s.sel];
}

export function selectedOutlineRow(s: State): OutlineRow | undefined {
  return outlineRowOf(s.list[s.sel], s.sessions, s.outlines);
}

/** The Bates id of the selected turn (a link row selects the linked turn), or null on a session row. */
export function selectedBates(s: State): string | null {
  return selectedOutlineRow(s)?.bates ?? null;
}

export function selectedSid(s: State): string | null {
  const r = s.list[s.sel];
  return r ? (s.sessions[r.si]?.sid ?? null) : null;
}

const labelMaps = new WeakMap<State['sessions'], Map<string, string | null>>();

function labelOf(s: State): (sid: string) => string | null {
  let m = labelMaps.get(s.sessions);
  if (!m) {
    m = new Map(s.sessions.map((x) => [x.sid, x.label]));
    labelMaps.set(s.sessions, m);
  }
  const map = m;
  return (sid) => map.get(sid) ?? null;
}

/** The transcript document for the current selection. */
export function transcriptDoc(s: State): Doc {
  const { w } = textSize(s);
  const row = s.list[s.sel];
  if (!row) return linesDoc([]);
  if (row.oi < 0) {
    const ses = s.sessions[row.si];
    if (ses.archived) return linesDoc(archivedSessionLines(ses, s.keyOf, s.expanded.has(ses.sid), w));
    const lines: TLine[] = [
      { role: 'session', text: `session ${ses.sid}${ses.label ? ` · ${oneLine(ses.label)}` : ''}` },
      {
        role: 'meta',
        text: `${ses.n_nodes} turn${ses.n_nodes === 1 ? '' : 's'} · created ${shortTime(ses.created_at)}`,
      },
      { role: 'blank', text: '' },
      {
        role: 'info',
        text: s.expanded.has(ses.sid)
          ? 'Down/j walks its turns.'
          : 'Right/l (or Enter) expands it to its turns.',
      },
    ];
    if (s.ask && s.ask.parent === null && s.ask.session === ses.sid) {
      return pathDoc([], w, labelOf(s), { ...s.ask });
    }
    return linesDoc(lines);
  }
  const bates = selectedBates(s);
  const turns = s.path && s.path.bates === bates ? s.path.turns : [];
  const pending = s.ask && s.ask.parent === bates ? s.ask : null;
  return pathDoc(turns, w, labelOf(s), pending);
}

/** The transcript's top position on screen (resolving the automatic one). */
export function transcriptPos(s: State, doc: Doc = transcriptDoc(s)): TPos {
  if (s.tpos) return s.tpos;
  return autoPos(doc, textSize(s).h, s.ask !== null);
}

// ---- list plumbing ------------------------------------------------------------------------------------------

function rebuild(s: State, patch: Partial<State>, keepKey: string | null = s.selKey): State {
  const n = { ...s, ...patch };
  n.list = buildRows(n.sessions, n.expanded, n.outlines, n.collapsed);
  let sel = -1;
  if (keepKey !== null) {
    const cur = keyOfRow(n.list[s.sel], n.sessions, n.outlines);
    if (cur === keepKey) sel = s.sel;
    else {
      for (let i = 0; i < n.list.length; i++) {
        if (keyOfRow(n.list[i], n.sessions, n.outlines) === keepKey) {
          sel = i;
          break;
        }
      }
    }
  }
  if (sel < 0) sel = Math.min(Math.max(0, s.sel), Math.max(0, n.list.length - 1));
  return select(n, sel);
}

function select(s: State, sel: number): State {
  const max = Math.max(0, s.list.length - 1);
  const i = Math.max(0, Math.min(max, sel));
  const key = keyOfRow(s.list[i], s.sessions, s.outlines);
  const h = treeHeight(s);
  const margin = h > 10 ? 2 : 0;
  let top = s.top;
  if (i < top + margin) top = i - margin;
  if (i > top + h - 1 - margin) top = i - h + 1 + margin;
  top = Math.max(0, Math.min(top, Math.max(0, s.list.length - h)));
  const changed = key !== s.selKey;
  return { ...s, sel: i, selKey: key, top, tpos: changed ? null : s.tpos };
}

/** After any step: if the selected turn's path is not the one loaded, ask for it. */
function withPath(s: State, fx: Effect[]): Result {
  const bates = selectedBates(s);
  if (
    bates &&
    (!s.path || s.path.bates !== bates) &&
    !fx.some((e) => e.type === 'loadPath' && e.bates === bates)
  ) {
    fx.push({ type: 'loadPath', bates });
  }
  return [s, fx];
}

/** Unlabelled sessions on screen whose first question is not known yet. */
function withTitles(s: State, fx: Effect[]): Result {
  const h = treeHeight(s);
  const missing: string[] = [];
  for (let i = s.top; i < Math.min(s.list.length, s.top + h); i++) {
    const r = s.list[i];
    if (r.oi >= 0) continue;
    const ses = s.sessions[r.si];
    if (ses.label || s.titles.has(ses.sid)) continue;
    missing.push(ses.sid);
  }
  if (missing.length > 0) fx.push({ type: 'loadTitles', sids: missing });
  return [s, fx];
}

function setOutline(s: State, sid: string, ol: Outline): ReadonlyMap<string, Outline> {
  const m = new Map(s.outlines);
  m.set(sid, ol);
  return m;
}

// ---- tree moves ---------------------------------------------------------------------------------------------

function left(s: State): Result {
  const row = s.list[s.sel];
  if (!row) return [s, []];
  const ses = s.sessions[row.si];
  if (row.oi < 0) {
    if (s.expanded.has(ses.sid)) {
      const expanded = new Set(s.expanded);
      expanded.delete(ses.sid);
      return [rebuild(s, { expanded }), []];
    }
    return [s, []];
  }
  const ol = s.outlines.get(ses.sid)!;
  const r = ol.rows[row.oi];
  const key = r.cross ? `l:${r.bates}` : r.bates;
  if (!r.cross && r.end > row.oi + 1 && !s.collapsed.has(key)) {
    const collapsed = new Set(s.collapsed);
    collapsed.add(key);
    return [rebuild(s, { collapsed }), []];
  }
  if (r.parent >= 0) return [selectKey(s, keyOfOutline(ol, r.parent)), []];
  if (r.parent_bates) {
    // A top turn hanging under a turn of another session: follow it there.
    return [{ ...s, message: null }, [{ type: 'reveal', bates: r.parent_bates }]];
  }
  return [selectKey(s, sessionKey(ses.sid)), []];
}

function keyOfOutline(ol: Outline, i: number): string {
  const r = ol.rows[i];
  return r.cross ? `l:${r.bates}` : r.bates;
}

function selectKey(s: State, key: string): State {
  for (let i = 0; i < s.list.length; i++) {
    if (keyOfRow(s.list[i], s.sessions, s.outlines) === key) return select(s, i);
  }
  return s;
}

function expandSession(s: State, sid: string, thenFirst: boolean): Result {
  if (s.expanded.has(sid)) {
    return thenFirst ? [select(s, s.sel + 1), []] : [s, []];
  }
  const expanded = new Set(s.expanded);
  expanded.add(sid);
  const n = rebuild(s, { expanded });
  if (!s.outlines.has(sid)) return [n, [{ type: 'loadOutline', sid }]];
  return [n, []];
}

function right(s: State): Result {
  const row = s.list[s.sel];
  if (!row) return [s, []];
  const ses = s.sessions[row.si];
  if (row.oi < 0) {
    if (!s.expanded.has(ses.sid)) return expandSession(s, ses.sid, false);
    const next = s.list[s.sel + 1];
    if (next && next.si === row.si) return [select(s, s.sel + 1), []];
    return [s, []];
  }
  const ol = s.outlines.get(ses.sid)!;
  const r = ol.rows[row.oi];
  if (r.cross) return [s, [{ type: 'reveal', bates: r.bates }]];
  if (r.end > row.oi + 1) {
    if (s.collapsed.has(r.bates)) {
      const collapsed = new Set(s.collapsed);
      collapsed.delete(r.bates);
      return [rebuild(s, { collapsed }), []];
    }
    return [select(s, s.sel + 1), []];
  }
  return [s, []];
}

function toggle(s: State): Result {
  const row = s.list[s.sel];
  if (!row) return [s, []];
  const ses = s.sessions[row.si];
  if (row.oi < 0) {
    if (s.expanded.has(ses.sid)) return left(s);
    return expandSession(s, ses.sid, false);
  }
  const r = s.outlines.get(ses.sid)!.rows[row.oi];
  if (r.cross) return [s, [{ type: 'reveal', bates: r.bates }]];
  if (r.end <= row.oi + 1) return [s, []];
  const collapsed = new Set(s.collapsed);
  if (collapsed.has(r.bates)) collapsed.delete(r.bates);
  else collapsed.add(r.bates);
  return [rebuild(s, { collapsed }), []];
}

/** Next/previous branch point (a turn with 2+ children) in the selected session, opening what hides it. */
function branchStep(s: State, dir: 1 | -1): Result {
  const row = s.list[s.sel];
  if (!row) return [s, []];
  const ses = s.sessions[row.si];
  const ol = s.outlines.get(ses.sid);
  if (!ol || !s.expanded.has(ses.sid)) {
    return [{ ...s, message: msg(s, 'expand a session (Right/l) to step through its branch points') }, []];
  }
  const from = row.oi;
  for (let i = from + dir; i >= 0 && i < ol.rows.length; i += dir) {
    const r = ol.rows[i];
    if (!r.cross && r.n_children >= 2) {
      const anc = ancestorKeys(ol, i);
      let n = s;
      if (anc.some((k) => s.collapsed.has(k))) {
        const collapsed = new Set(s.collapsed);
        for (const k of anc) collapsed.delete(k);
        n = rebuild(s, { collapsed });
      }
      return [selectKey(n, r.bates), []];
    }
  }
  return [{ ...s, message: msg(s, `no ${dir > 0 ? 'later' : 'earlier'} branch point in ${ses.sid}`) }, []];
}

function msg(s: State, text: string, level: 'info' | 'error' = 'info') {
  // Error text can quote untrusted output (a provider's stderr): one clean line.
  return { text: oneLine(text), level, at: s.now };
}

// ---- transcript ---------------------------------------------------------------------------------------------

function scrollText(s: State, delta: number | 'home' | 'end'): State {
  const doc = transcriptDoc(s);
  const { h } = textSize(s);
  const pos = transcriptPos(s, doc);
  let next: TPos;
  if (delta === 'home') next = { turn: 0, line: 0 };
  else if (delta === 'end') next = maxPos(doc, h);
  else next = scrollBy(doc, pos, delta, h);
  return { ...s, tpos: next };
}

// ---- overlays -----------------------------------------------------------------------------------------------

export function overlayBox(s: State): { w: number; h: number } {
  return { w: Math.min(s.cols - 4, 84), h: Math.min(s.rows - 4, 30) };
}

/** The help overlay's lines at the current size: group heads, then key + description (wrapped). */
export function helpLines(s: State): { lines: { t: string; k?: string; head?: boolean }[]; kw: number } {
  const inner = overlayBox(s).w - 4;
  const kw = Math.min(16, Math.max(...s.help.flatMap((grp) => grp.rows.map(([k]) => displayWidth(k)))));
  const dw = Math.max(10, inner - kw - 2);
  const lines: { t: string; k?: string; head?: boolean }[] = [];
  for (const grp of s.help) {
    lines.push({ t: grp.group, head: true });
    for (const [k, d] of grp.rows) {
      const parts = wrap(d, dw);
      for (let i = 0; i < parts.length; i++) lines.push(i === 0 ? { t: parts[i], k } : { t: parts[i] });
    }
    lines.push({ t: '' });
  }
  return { lines, kw };
}

function helpLineCount(s: State): number {
  return helpLines(s).lines.length;
}

function keyOverlay(s: State, ov: Overlay, act: ActionId | null, key: string, ch?: string): Result {
  if (ov.kind === 'find') return keyFind(s, ov, act, key, ch);
  if (ov.kind === 'entries' || ov.kind === 'confirm')
    return keyMaintenance(s, ov, act, key, maintenanceEnv(s));
  if (ov.kind === 'input') {
    if (key === 'escape') return [{ ...s, overlay: null }, []];
    if (key === 'enter') {
      const q = ov.text.trim();
      if (q === '') return [s, []];
      if (s.ask)
        return [{ ...s, message: msg(s, 'a question is still running (Esc cancels it)', 'error') }, []];
      const run = { mode: ov.mode, parent: ov.parent, session: ov.session, question: q, answer: '' };
      return [
        { ...s, overlay: null, ask: run, tpos: null, focus: 'tree', message: null },
        [{ type: 'ask', mode: ov.mode, question: q, parent: ov.parent, session: ov.session }],
      ];
    }
    if (key === 'backspace')
      return [{ ...s, overlay: { ...ov, text: [...ov.text].slice(0, -1).join('') } }, []];
    if (key === 'C-u') return [{ ...s, overlay: { ...ov, text: '' } }, []];
    if (key === 'C-w') return [{ ...s, overlay: { ...ov, text: ov.text.replace(/\S*\s*$/, '') } }, []];
    if (ch !== undefined && ch !== '') {
      const clean = oneLine(ch);
      if (clean === '' || ov.text.length > 4000) return [s, []];
      return [{ ...s, overlay: { ...ov, text: ov.text + clean } }, []];
    }
    return [s, []];
  }
  if (act === 'close' || (act === 'help' && ov.kind === 'help')) return [{ ...s, overlay: null }, []];
  if (act === 'quit') return [{ ...s, quitting: true }, [{ type: 'quit' }]];
  if (ov.kind === 'help') {
    const box = overlayBox(s);
    const page = Math.max(1, box.h - 4);
    const max = Math.max(0, helpLineCount(s) - page);
    let scroll = ov.scroll;
    if (act === 'move.down') scroll++;
    else if (act === 'move.up') scroll--;
    else if (act === 'page.down') scroll += page;
    else if (act === 'page.up') scroll -= page;
    else if (act === 'move.first') scroll = 0;
    else if (act === 'move.last') scroll = max;
    return [{ ...s, overlay: { ...ov, scroll: Math.max(0, Math.min(max, scroll)) } }, []];
  }
  if (ov.kind === 'branches') {
    const n = ov.items?.length ?? 0;
    const page = Math.max(1, overlayBox(s).h - 4);
    let sel = ov.sel;
    if (act === 'move.down') sel++;
    else if (act === 'move.up') sel--;
    else if (act === 'page.down') sel += page;
    else if (act === 'page.up') sel -= page;
    else if (act === 'move.first') sel = 0;
    else if (act === 'move.last') sel = n - 1;
    else if ((act === 'select' || act === 'tree.right') && ov.items && ov.items[ov.sel]) {
      return [{ ...s, overlay: null }, [{ type: 'reveal', bates: ov.items[ov.sel].bates }]];
    }
    sel = Math.max(0, Math.min(n - 1, sel));
    let top = ov.top;
    if (sel < top) top = sel;
    if (sel >= top + page) top = sel - page + 1;
    return [{ ...s, overlay: { ...ov, sel, top: Math.max(0, top) } }, []];
  }
  return [s, []];
}

// ---- find (/) ---------------------------------------------------------------------------------------------

/** Opens the find box; the first (empty) query only counts the turns in scope, and starts the search worker. */
function openFind(s: State): Result {
  const ov: FindOverlay = {
    kind: 'find',
    text: '',
    scope: 'all',
    sid: selectedSid(s),
    seq: 0,
    shown: 0,
    hits: [],
    searched: null,
    corrections: [],
    error: null,
    sel: 0,
    top: 0,
    back: { selKey: s.selKey, top: s.top, tpos: s.tpos, focus: s.focus },
  };
  return findQuery(s, ov);
}

/** Asks for the overlay's query under a new sequence number: whatever older query is still out is stale now. */
function findQuery(s: State, ov: FindOverlay): Result {
  const seq = s.find.seq + 1;
  return [
    { ...s, overlay: { ...ov, seq }, find: { ...s.find, seq } },
    [
      {
        type: 'search',
        seq,
        query: ov.text,
        scope: ov.scope === 'session' ? ov.sid : null,
        limit: FIND_LIMIT,
      },
    ],
  ];
}

function findMove(s: State, ov: FindOverlay, to: number): Result {
  const n = ov.hits.length;
  const page = findListHeight(s.cols, s.rows);
  const sel = Math.max(0, Math.min(n - 1, to));
  let top = ov.top;
  if (sel < top) top = sel;
  if (sel >= top + page) top = sel - page + 1;
  return [{ ...s, overlay: { ...ov, sel, top: Math.max(0, Math.min(top, n - page)) } }, []];
}

/** Esc: the overlay goes, and the selection, the tree's scroll, the transcript's scroll and the focus come back. */
function closeFind(s: State, ov: FindOverlay): Result {
  const b = ov.back;
  const n: State = { ...s, overlay: null, focus: b.focus };
  if (b.selKey === null) return [n, []];
  const i = n.list.findIndex((r) => keyOfRow(r, n.sessions, n.outlines) === b.selKey);
  if (i < 0) return [n, []];
  const h = treeHeight(n);
  const top = Math.max(0, Math.min(b.top, n.list.length - h));
  if (i < top || i >= top + h) return [select(n, i), []];
  return [{ ...n, sel: i, selKey: b.selKey, top, tpos: b.tpos }, []];
}

function keyFind(s: State, ov: FindOverlay, act: ActionId | null, key: string, ch?: string): Result {
  const page = findListHeight(s.cols, s.rows);
  if (key === 'escape') return closeFind(s, ov);
  if (key === 'enter') {
    const hit = ov.hits[ov.sel];
    if (!hit) return [s, []];
    return [
      {
        ...s,
        overlay: null,
        focus: 'tree',
        message: null,
        find: { ...s.find, last: { query: ov.text.trim(), hits: ov.hits, at: ov.sel } },
      },
      [{ type: 'reveal', bates: hit.bates }],
    ];
  }
  if (key === 'down' || key === 'C-n') return findMove(s, ov, ov.sel + 1);
  if (key === 'up' || key === 'C-p') return findMove(s, ov, ov.sel - 1);
  if (key === 'pagedown') return findMove(s, ov, ov.sel + page);
  if (key === 'pageup') return findMove(s, ov, ov.sel - page);
  if (act === 'find.scope') {
    if (ov.sid === null) return [s, []];
    return findQuery(s, { ...ov, scope: ov.scope === 'all' ? 'session' : 'all' });
  }
  if (ch === undefined && act === 'quit') return [{ ...s, quitting: true }, [{ type: 'quit' }]];
  if (ch === undefined && act === 'close') return closeFind(s, ov);
  if (key === 'backspace') {
    if (ov.text === '') return [s, []];
    return findQuery(s, { ...ov, text: [...ov.text].slice(0, -1).join('') });
  }
  if (key === 'C-u') return ov.text === '' ? [s, []] : findQuery(s, { ...ov, text: '' });
  if (key === 'C-w') {
    if (ov.text === '') return [s, []];
    return findQuery(s, { ...ov, text: ov.text.replace(/\S*\s*$/, '') });
  }
  if (ch !== undefined && ch !== '') {
    const clean = oneLine(ch);
    if (clean === '' || ov.text.length > 500) return [s, []];
    return findQuery(s, { ...ov, text: ov.text + clean });
  }
  return [s, []];
}

/** n / N: the next or previous hit of the last find, revealed in its session (wrapping at the ends). */
function findStep(s: State, dir: 1 | -1): Result {
  const last = s.find.last;
  if (!last || last.hits.length === 0)
    return [{ ...s, message: msg(s, `no hits to step through: ${s.keyOf.find ?? '/'} finds`) }, []];
  const n = last.hits.length;
  let at = last.at + dir;
  let wrapped = '';
  if (at >= n) {
    at = 0;
    wrapped = ', from the top';
  } else if (at < 0) {
    at = n - 1;
    wrapped = ', from the bottom';
  }
  return [
    {
      ...s,
      find: { ...s.find, last: { ...last, at } },
      message: msg(s, `find "${last.query}": ${at + 1} of ${n}${wrapped}`),
    },
    [{ type: 'reveal', bates: last.hits[at].bates }],
  ];
}

// ---- keys ---------------------------------------------------------------------------------------------------

function onKey(s: State, act: ActionId | null, key: string, ch?: string): Result {
  if (s.overlay) return keyOverlay(s, s.overlay, act, key, ch);
  if (act === null) return [s, []];
  const s0 = s.message ? { ...s, message: null } : s;
  if (act === 'quit')
    return [
      { ...s0, quitting: true },
      s.ask ? [{ type: 'cancelAsk' }, { type: 'quit' }] : [{ type: 'quit' }],
    ];
  if (act === 'help') return [{ ...s0, overlay: { kind: 'help', scroll: 0 } }, []];
  if (act === 'close') {
    if (s.ask) return [{ ...s0, message: msg(s, 'cancelling the question…') }, [{ type: 'cancelAsk' }]];
    return [s0, []];
  }
  if (act === 'chain.check') return [s0, [{ type: 'checkChain', full: true }]];
  if (act === 'archived') return toggleArchived(s0);
  if (act === 'entries') return openEntries(s0);
  if (act === 'restore') return openRestore(s0);
  if (s.loaded && s.sessions.length === 0) {
    if (act === 'demo' && s.offerDemo && !s.busy)
      return [{ ...s0, busy: 'building the demo…' }, [{ type: 'buildDemo' }]];
    if (act === 'ask') return openInput(s0, 'ask', null, null);
    return [s0, []];
  }
  if (act === 'pane.switch') return [{ ...s0, focus: s.focus === 'tree' ? 'transcript' : 'tree' }, []];
  if (act === 'transcript.down') return [scrollText(s0, 1), []];
  if (act === 'transcript.up') return [scrollText(s0, -1), []];
  if (act === 'ask' || act === 'fork') {
    const arch = selectedArchived(s);
    if (arch) return [{ ...s0, message: msg(s, refusal(arch.sid, s.keyOf), 'error') }, []];
    const bates = selectedBates(s);
    if (act === 'fork' && !bates) return [{ ...s0, message: msg(s, 'select a turn to fork from') }, []];
    return openInput(s0, act, bates, bates ? null : selectedSid(s));
  }
  if (act === 'find') return openFind(s0);
  if (act === 'find.next') return findStep(s0, 1);
  if (act === 'find.prev') return findStep(s0, -1);
  if (act === 'branches') {
    const sid = selectedSid(s);
    if (!sid) return [s0, []];
    return [
      { ...s0, overlay: { kind: 'branches', sid, items: null, sel: 0, top: 0 } },
      [{ type: 'loadBranches', sid }],
    ];
  }
  if (s.focus === 'transcript') {
    const page = Math.max(1, textSize(s).h - 1);
    switch (act) {
      case 'move.down':
        return [scrollText(s0, 1), []];
      case 'move.up':
        return [scrollText(s0, -1), []];
      case 'page.down':
        return [scrollText(s0, page), []];
      case 'page.up':
        return [scrollText(s0, -page), []];
      case 'move.first':
        return [scrollText(s0, 'home'), []];
      case 'move.last':
        return [scrollText(s0, 'end'), []];
      default:
        break;
    }
  }
  const page = Math.max(1, treeHeight(s) - 1);
  switch (act) {
    case 'move.down':
      return [select(s0, s.sel + 1), []];
    case 'move.up':
      return [select(s0, s.sel - 1), []];
    case 'page.down':
      return [select({ ...s0, top: s.top + page }, s.sel + page), []];
    case 'page.up':
      return [select({ ...s0, top: Math.max(0, s.top - page) }, s.sel - page), []];
    case 'move.first':
      return [select(s0, 0), []];
    case 'move.last':
      return [select(s0, s.list.length - 1), []];
    case 'tree.left':
      return left(s0);
    case 'tree.right':
      return right(s0);
    case 'select':
      return toggle(s0);
    case 'branch.next':
      return branchStep(s0, 1);
    case 'branch.prev':
      return branchStep(s0, -1);
    default:
      return [s0, []];
  }
}

function openInput(s: State, mode: 'ask' | 'fork', parent: string | null, session: string | null): Result {
  if (s.ask) return [{ ...s, message: msg(s, 'a question is still running (Esc cancels it)', 'error') }, []];
  return [{ ...s, overlay: { kind: 'input', mode, parent, session, text: '' } }, []];
}

function inside(r: { x: number; y: number; w: number; h: number }, x: number, y: number): boolean {
  return x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h;
}

function onMouse(s: State, kind: 'mousedown' | 'wheelup' | 'wheeldown', x: number, y: number): Result {
  if (s.overlay) return [s, []];
  const L = layout(s.cols, s.rows);
  const inTree = inside(L.tree, x, y);
  const inText = inside(L.transcript, x, y);
  if (kind === 'mousedown') {
    if (inside(L.treeIn, x, y)) {
      const i = s.top + (y - L.treeIn.y);
      if (i < s.list.length) return [select({ ...s, focus: 'tree' }, i), []];
      return [{ ...s, focus: 'tree' }, []];
    }
    if (inText) return [{ ...s, focus: 'transcript' }, []];
    return [s, []];
  }
  const d = kind === 'wheelup' ? -3 : 3;
  if (inText) return [scrollText(s, d), []];
  if (inTree) return [select({ ...s, top: Math.max(0, s.top + d) }, s.sel + d), []];
  return [s, []];
}

// ---- entries and the archive tier (the rest is in archive.ts) -----------------------------------------------

function maintenanceEnv(s: State) {
  const box = overlayBox(s);
  return {
    // As drawn: the box less its borders and the footer line (view.ts drawOverlay).
    page: Math.max(1, box.h - 3),
    width: box.w - 4,
    gotoSession: (n: State, sid: string) => selectKey(n, sessionKey(sid)),
  };
}

/** `A`: archived sessions join the tree after the live ones (loaded by the runtime), or leave it. */
function toggleArchived(s: State): Result {
  if (!s.showArchived) {
    const note = `archived sessions shown (read-only), after the live ones; ${s.keyOf.archived ?? 'A'} hides them`;
    return [{ ...s, showArchived: true, message: msg(s, note) }, [{ type: 'loadSessions' }]];
  }
  const gone = new Set(s.sessions.filter((x) => x.archived).map((x) => x.sid));
  const sessions = s.sessions.filter((x) => !x.archived);
  const expanded = new Set([...s.expanded].filter((x) => !gone.has(x)));
  const outlines = new Map([...s.outlines].filter(([k]) => !gone.has(k)));
  const hidden = { ...s, showArchived: false, message: msg(s, 'archived sessions hidden') };
  return [rebuild(hidden, { sessions, expanded, outlines }), []];
}

// ---- the reducer --------------------------------------------------------------------------------------------

function step(s: State, a: Action): Result {
  switch (a.type) {
    case 'key':
      return onKey(s, a.action, a.key, a.ch);
    case 'resize': {
      const n = { ...s, cols: a.cols, rows: a.rows };
      return [select(n, n.sel), []];
    }
    case 'mouse':
      return onMouse(s, a.kind, a.x, a.y);
    case 'tick':
      return [{ ...s, now: a.now }, []];
    case 'sessions': {
      const sessions = mergeSessions(s, a.sessions, a.archived);
      const alive = new Set(sessions.map((x) => x.sid));
      const expanded = new Set([...s.expanded].filter((x) => alive.has(x)));
      const outlines = new Map([...s.outlines].filter(([k]) => alive.has(k)));
      const first = !s.loaded;
      const n = rebuild({ ...s, loaded: true }, { sessions, expanded, outlines });
      return [first ? select(n, 0) : n, []];
    }
    case 'outline': {
      const ol = prepareOutline(a.sid, a.nodes);
      const outlines = setOutline(s, a.sid, ol);
      if (!a.reveal) return [rebuild(s, { outlines }), []];
      const expanded = new Set(s.expanded);
      expanded.add(a.sid);
      const i = ol.index.get(a.reveal);
      const collapsed = new Set(s.collapsed);
      if (i !== undefined) for (const k of ancestorKeys(ol, i)) collapsed.delete(k);
      const n = rebuild(s, { outlines, expanded, collapsed }, a.reveal);
      // Put the revealed turn in the middle of the pane rather than at an edge.
      const h = treeHeight(n);
      return [{ ...n, top: Math.max(0, Math.min(n.sel - Math.floor(h / 2), n.list.length - h)) }, []];
    }
    case 'titles': {
      const titles = new Map(s.titles);
      for (const [sid, t] of a.titles) titles.set(sid, oneLine(t));
      return [{ ...s, titles }, []];
    }
    case 'path':
      if (a.bates !== selectedBates(s)) return [s, []];
      return [{ ...s, path: { bates: a.bates, turns: a.turns } }, []];
    case 'dataChanged': {
      const fx: Effect[] = [{ type: 'loadSessions' }];
      for (const sid of s.expanded) fx.push({ type: 'loadOutline', sid });
      // Cached outlines of collapsed sessions may be stale now.
      const outlines = new Map([...s.outlines].filter(([k]) => s.expanded.has(k)));
      const bates = selectedBates(s);
      if (bates) fx.push({ type: 'loadPath', bates });
      fx.push({ type: 'syncChain' });
      return [{ ...s, outlines }, fx];
    }
    case 'chainStart':
      return [
        {
          ...s,
          chain: { ...s.chain, status: 'checking', full: a.full, progress: { done: 0, total: a.total } },
        },
        [],
      ];
    case 'chainProgress':
      if (!s.chain.progress) return [s, []];
      return [{ ...s, chain: { ...s.chain, progress: { ...s.chain.progress, done: a.done } } }, []];
    case 'chainDone': {
      const r = a.result;
      return [
        {
          ...s,
          chain: {
            status: r.ok ? 'ok' : 'broken',
            full: a.full,
            events: r.events,
            head: r.ok ? r.head : r.verified.seq > 0 ? `${r.verified.seq}:${r.verified.hash}` : null,
            checkedAt: s.now,
            brokenAt: r.first_broken_seq,
            reason: r.reason,
            progress: null,
          },
        },
        [],
      ];
    }
    case 'askChunk':
      if (!s.ask) return [s, []];
      return [{ ...s, ask: { ...s.ask, answer: s.ask.answer + a.text } }, []];
    case 'askDone': {
      const what = a.createdSession ? `forked into ${a.bates} (new session)` : `added ${a.bates}`;
      return [
        { ...s, ask: null, tpos: null, message: msg(s, what) },
        [
          { type: 'loadSessions' },
          ...[...s.expanded].map((sid) => ({ type: 'loadOutline' as const, sid })),
          { type: 'reveal', bates: a.bates },
          { type: 'syncChain' },
        ],
      ];
    }
    case 'askFailed':
      return [{ ...s, ask: null, tpos: null, message: msg(s, a.error, 'error') }, []];
    case 'branches': {
      const ov = s.overlay;
      if (ov?.kind !== 'branches' || ov.sid !== a.sid) return [s, []];
      const items: BranchItem[] = a.items;
      const cur = selectedBates(s);
      const at = Math.max(
        0,
        items.findIndex((x) => x.bates === cur),
      );
      return [{ ...s, overlay: { ...ov, items, sel: at, top: Math.max(0, at - 2) } }, []];
    }
    case 'found': {
      const ov = s.overlay;
      // Only the latest query's answer is shown: an older one (typed over since) is dropped.
      if (ov?.kind !== 'find' || a.seq !== ov.seq) return [s, []];
      return [
        {
          ...s,
          overlay: {
            ...ov,
            shown: a.seq,
            hits: a.hits,
            searched: a.searched,
            corrections: a.corrections,
            error: null,
            sel: 0,
            top: 0,
          },
        },
        [],
      ];
    }
    case 'findFailed': {
      const ov = s.overlay;
      if (ov?.kind !== 'find' || a.seq !== ov.seq) return [s, []];
      const overlay = {
        ...ov,
        shown: a.seq,
        hits: [],
        corrections: [],
        error: oneLine(a.error),
        sel: 0,
        top: 0,
      };
      return [{ ...s, overlay }, []];
    }
    case 'entries':
    case 'changePlan':
    case 'changeDone':
    case 'restoreDone':
    case 'maintFailed':
      return onMaintenance(s, a, (n) => step(n, { type: 'dataChanged' }));
    case 'demoBuilt':
      return [
        { ...s, busy: null, message: msg(s, 'demo loaded: → opens a session') },
        [{ type: 'loadSessions' }, { type: 'syncChain' }],
      ];
    case 'message':
      return [{ ...s, busy: null, message: msg(s, a.text, a.level) }, []];
    default:
      return [s, []];
  }
}

export function update(s: State, a: Action): Result {
  const [n, fx] = step(s, a);
  withPath(n, fx);
  return a.type === 'titles' ? [n, fx] : withTitles(n, fx);
}
