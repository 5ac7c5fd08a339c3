/** The tree pane: its keys (moves, expand and collapse, branch points), the mouse, and the loads that fill it. */
import type { KeyAction } from '../../../keymap/index.js';
import type { OutlineNode } from '../../../store/index.js';
import { oneLine } from '../../../text/sanitize.js';
import { inside, layout } from '../../core/layout.js';
import { importing, msg, type Result, treeHeight } from '../../core/selectors.js';
import type { State } from '../../core/state.js';
import { mergeSessions } from '../maintenance/model.js';
import { scrollText } from '../transcript/update.js';
import { matchesFilter, type Origin, parseFilter } from './groups.js';
import {
  ancestorKeys,
  type Outline,
  prepareOutline,
  rowKeyOf,
  type SessionLike,
  sessionKey,
} from './model.js';
import { rebuild, select, selectKey, setOutline } from './select.js';

/** A key of the tree's context when the tree has the focus (the pane-wide keys are core/keys.ts's). */
export function keyTree(s: State, id: KeyAction): Result {
  const page = Math.max(1, treeHeight(s) - 1);
  switch (id) {
    case 'move.down':
      return [select(s, s.sel + 1), []];
    case 'move.up':
      return [select(s, s.sel - 1), []];
    case 'page.down':
      return [select({ ...s, top: s.top + page }, s.sel + page), []];
    case 'page.up':
      return [select({ ...s, top: Math.max(0, s.top - page) }, s.sel - page), []];
    case 'move.first':
      return [select(s, 0), []];
    case 'move.last':
      return [select(s, s.list.length - 1), []];
    case 'tree.left':
      return left(s);
    case 'tree.right':
      return right(s);
    case 'select':
      return toggle(s);
    case 'branch.next':
      return branchStep(s, 1);
    case 'branch.prev':
      return branchStep(s, -1);
    default:
      return [s, []];
  }
}

/** `p`: the sessions grouped by project, or not; the selection stays on its row when it is still shown. */
export function toggleGrouping(s: State): Result {
  const grouping = s.grouping === 'none' ? 'project' : 'none';
  const n = rebuild(s, { grouping });
  return [
    { ...n, message: msg(n, grouping === 'project' ? 'sessions grouped by project' : 'sessions by age') },
    [],
  ];
}

/** Opens or closes a project's heading (`open` undefined: the other way). */
function setGroup(s: State, project: string, open: boolean | undefined): Result {
  const isOpen = !s.closedGroups.has(project);
  if (open === isOpen) return open ? [select(s, s.sel + 1), []] : [s, []];
  const closedGroups = new Set(s.closedGroups);
  if (isOpen) closedGroups.add(project);
  else closedGroups.delete(project);
  return [rebuild(s, { closedGroups }), []];
}

/** The heading row above row `i` (grouped pane), or -1. */
function headingAbove(s: State, i: number): number {
  for (let j = i - 1; j >= 0; j--) if (s.list[j].heading) return j;
  return -1;
}

function left(s: State): Result {
  const row = s.list[s.sel];
  if (!row) return [s, []];
  if (row.heading) return setGroup(s, row.heading.project, false);
  const ses = s.sessions[row.session];
  if (row.node < 0) {
    if (s.expanded.has(ses.sid)) {
      const expanded = new Set(s.expanded);
      expanded.delete(ses.sid);
      return [rebuild(s, { expanded }), []];
    }
    const h = headingAbove(s, s.sel);
    return h >= 0 ? [select(s, h), []] : [s, []];
  }
  const ol = s.outlines.get(ses.sid)!;
  const r = ol.rows[row.node];
  const key = rowKeyOf(r);
  if (!r.cross && r.end > row.node + 1 && !s.collapsed.has(key)) {
    const collapsed = new Set(s.collapsed);
    collapsed.add(key);
    return [rebuild(s, { collapsed }), []];
  }
  if (r.parent >= 0) return [selectKey(s, rowKeyOf(ol.rows[r.parent])), []];
  if (r.parent_bates) {
    // A top turn hanging under a turn of another session: follow it there.
    return [{ ...s, message: null }, [{ type: 'reveal', bates: r.parent_bates }]];
  }
  return [selectKey(s, sessionKey(ses.sid)), []];
}

function expandSession(s: State, sid: string): Result {
  if (s.expanded.has(sid)) return [s, []];
  const expanded = new Set(s.expanded);
  expanded.add(sid);
  const n = rebuild(s, { expanded });
  if (!s.outlines.has(sid)) return [n, [{ type: 'loadOutline', sid }]];
  return [n, []];
}

function right(s: State): Result {
  const row = s.list[s.sel];
  if (!row) return [s, []];
  if (row.heading) return setGroup(s, row.heading.project, true);
  const ses = s.sessions[row.session];
  if (row.node < 0) {
    if (!s.expanded.has(ses.sid)) return expandSession(s, ses.sid);
    const next = s.list[s.sel + 1];
    if (next && next.session === row.session) return [select(s, s.sel + 1), []];
    return [s, []];
  }
  const r = s.outlines.get(ses.sid)!.rows[row.node];
  if (r.cross) return [s, [{ type: 'reveal', bates: r.bates }]];
  if (r.end > row.node + 1) {
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
  if (row.heading) return setGroup(s, row.heading.project, undefined);
  const ses = s.sessions[row.session];
  if (row.node < 0) {
    if (s.expanded.has(ses.sid)) return left(s);
    return expandSession(s, ses.sid);
  }
  const r = s.outlines.get(ses.sid)!.rows[row.node];
  if (r.cross) return [s, [{ type: 'reveal', bates: r.bates }]];
  if (r.end <= row.node + 1) return [s, []];
  const collapsed = new Set(s.collapsed);
  if (collapsed.has(r.bates)) collapsed.delete(r.bates);
  else collapsed.add(r.bates);
  return [rebuild(s, { collapsed }), []];
}

/** Next/previous branch point (a turn with 2+ children) in the selected session, opening what hides it. */
function branchStep(s: State, dir: 1 | -1): Result {
  const row = s.list[s.sel];
  if (!row || row.heading) return [s, []];
  const ses = s.sessions[row.session];
  const ol = s.outlines.get(ses.sid);
  if (!ol || !s.expanded.has(ses.sid)) {
    return [{ ...s, message: msg(s, 'expand a session (Right/l) to step through its branch points') }, []];
  }
  for (let i = row.node + dir; i >= 0 && i < ol.rows.length; i += dir) {
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

export function onMouse(s: State, kind: 'mousedown' | 'wheelup' | 'wheeldown', x: number, y: number): Result {
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

// ---- what the runtime loaded ---------------------------------------------------------------------------------

export function onSessions(
  s: State,
  live: readonly SessionLike[],
  archived: readonly SessionLike[] | undefined,
  total?: number,
): Result {
  const sessions = mergeSessions(s.showArchived, s.sessions, live, archived);
  const sessionsMore = total === undefined ? 0 : Math.max(0, total - live.length);
  const alive = new Set(sessions.map((x) => x.sid));
  const expanded = new Set([...s.expanded].filter((x) => alive.has(x)));
  const outlines = new Map([...s.outlines].filter(([k]) => alive.has(k)));
  const first = !s.loaded;
  // The first rows of the whole list are the same sessions in the same order: when the rest arrive, the
  // selection and the scroll position stay where they are.
  const n = rebuild({ ...s, loaded: true, sessionsMore }, { sessions, expanded, outlines });
  // While the first start's import fills an empty shard, a cursor nobody moved stays on the first row (the newest
  // session), rather than riding down with whichever session the first refresh put there.
  const pinned = importing(s) && s.sel === 0;
  return [first || pinned ? select(n, 0) : n, []];
}

export function onOutline(s: State, sid: string, nodes: OutlineNode[], reveal: string | undefined): Result {
  const ol: Outline = prepareOutline(sid, nodes);
  const outlines = setOutline(s, sid, ol);
  if (!reveal) return [rebuild(s, { outlines }), []];
  const expanded = new Set(s.expanded);
  expanded.add(sid);
  const i = ol.index.get(reveal);
  const collapsed = new Set(s.collapsed);
  if (i !== undefined) for (const k of ancestorKeys(ol, i)) collapsed.delete(k);
  const n = rebuild(s, { outlines, expanded, collapsed, ...unhide(s, sid) }, reveal);
  // Put the revealed turn in the middle of the pane rather than at an edge.
  const h = treeHeight(n);
  return [{ ...n, top: Math.max(0, Math.min(n.sel - Math.floor(h / 2), n.list.length - h)) }, []];
}

/**
 * What hides a session a find or a link goes to: its project's closed heading is opened, and a filter it does not
 * match is cleared (said in the status bar), so the turn is always shown where it lands.
 */
function unhide(s: State, sid: string): Partial<State> {
  const patch: Partial<State> = {};
  const o = s.origins.get(sid);
  const project = o?.project ?? '';
  if (s.grouping === 'project' && s.closedGroups.has(project)) {
    const closedGroups = new Set(s.closedGroups);
    closedGroups.delete(project);
    patch.closedGroups = closedGroups;
  }
  if (s.filter !== '' && !matchesFilter(o, parseFilter(s.filter), s.agents)) {
    patch.filter = '';
    patch.message = msg(s, `filter ${s.filter} cleared: the turn is in a session it hides`);
  }
  return patch;
}

export function onTitles(s: State, titles: [string, string][], origins?: [string, Origin][]): Result {
  const m = new Map(s.titles);
  for (const [sid, t] of titles) m.set(sid, oneLine(t));
  const fresh = (origins ?? []).filter(([sid]) => !s.origins.has(sid));
  if (fresh.length === 0) return [{ ...s, titles: m }, []];
  const o = new Map(s.origins);
  for (const [sid, x] of fresh) o.set(sid, clean(x));
  const n = { ...s, titles: m, origins: o };
  // A grouped or filtered pane places its sessions by their origins.
  return [n.grouping !== 'none' || n.filter !== '' ? rebuild(n, {}) : n, []];
}

/** Every origin of a sessions list (grouping and filtering): the pane is arranged again with them. */
export function onOrigins(s: State, origins: [string, Origin][], of: readonly SessionLike[]): Result {
  const o = new Map(s.origins);
  for (const [sid, x] of origins) o.set(sid, clean(x));
  return [rebuild(s, { origins: o, originsFor: of === s.sessions ? of : s.originsFor }), []];
}

/** An origin as the pane shows it: one line each (the project is another tool's record, untrusted). */
function clean(o: Origin): Origin {
  return {
    agent: oneLine(o.agent),
    project: oneLine(o.project),
    ...(o.here ? { here: true } : {}),
    ...(o.host !== undefined ? { host: oneLine(o.host), archivedThere: o.archivedThere === true } : {}),
  };
}
