/** Facts derived from the state that updates and views share (no feature's logic: that lives in features/). */
import { oneLine } from '../../text/sanitize.js';
import { type OutlineRow, outlineRowOf, type Row, type SessionLike } from '../features/tree/model.js';
import type { Effect } from './effects.js';
import { layout } from './layout.js';
import type { Message, State } from './state.js';

/** What every update returns: the next state and the effects it asks for. */
export type Result = [State, Effect[]];

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

/** The session of the selected row (a session row or one of its turns). */
export function selectedSession(s: State): SessionLike | undefined {
  const r = s.list[s.sel];
  return r ? s.sessions[r.session] : undefined;
}

export function selectedOutlineRow(s: State): OutlineRow | undefined {
  return outlineRowOf(s.list[s.sel], s.sessions, s.outlines);
}

/** The Bates id of the selected turn (a link row selects the linked turn), or null on a session row. */
export function selectedBates(s: State): string | null {
  return selectedOutlineRow(s)?.bates ?? null;
}

export function selectedSid(s: State): string | null {
  return selectedSession(s)?.sid ?? null;
}

/** The session of the selected row, when it is archived. */
export function selectedArchived(s: State): SessionLike | null {
  const ses = selectedSession(s);
  return ses?.archived ? ses : null;
}

const labelMaps = new WeakMap<State['sessions'], Map<string, string | null>>();

/** A session's label by sid (the map is built once per sessions list). */
export function labelOf(s: State): (sid: string) => string | null {
  let m = labelMaps.get(s.sessions);
  if (!m) {
    m = new Map(s.sessions.map((x) => [x.sid, x.label]));
    labelMaps.set(s.sessions, m);
  }
  const map = m;
  return (sid) => map.get(sid) ?? null;
}

/** A status-bar message. Error text can quote untrusted output (a provider's stderr): one clean line. */
export function msg(s: State, text: string, level: 'info' | 'error' = 'info'): Message {
  return { text: oneLine(text), level, at: s.now };
}

export const QUESTION_RUNNING = 'a question is still running (Esc cancels it)';

/** The first start's import shows as busy with this word first: `i` sets it, its progress lines keep it. */
export const IMPORTING = 'importing ';

/** True while the first start's import runs. */
export function importing(s: State): boolean {
  return s.busy?.startsWith(IMPORTING) === true;
}
