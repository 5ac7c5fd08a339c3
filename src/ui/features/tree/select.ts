/** The tree's selection: rebuilding the visible rows and moving the cursor, keeping it in view. */
import { treeHeight } from '../../core/selectors.js';
import type { State } from '../../core/state.js';
import { arrange } from './groups.js';
import { buildRows, keyOfRow, type Outline } from './model.js';

/** The state with `patch` applied and its rows rebuilt, the selection kept on `keepKey` when it is still there. */
export function rebuild(s: State, patch: Partial<State>, keepKey: string | null = s.selKey): State {
  const n = { ...s, ...patch };
  const arranged = arrange({
    sessions: n.sessions,
    origins: n.origins,
    grouping: n.grouping,
    filter: n.filter,
    closedGroups: n.closedGroups,
    agents: n.agents,
  });
  n.list = buildRows(n.sessions, n.expanded, n.outlines, n.collapsed, arranged);
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

/** Selects row `sel` (clamped), scrolling with a margin of two rows on a tall pane. */
export function select(s: State, sel: number): State {
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

/** Selects the row with this key, when it is visible; else the state as it is. */
export function selectKey(s: State, key: string): State {
  for (let i = 0; i < s.list.length; i++) {
    if (keyOfRow(s.list[i], s.sessions, s.outlines) === key) return select(s, i);
  }
  return s;
}

export function setOutline(s: State, sid: string, ol: Outline): ReadonlyMap<string, Outline> {
  const m = new Map(s.outlines);
  m.set(sid, ol);
  return m;
}
