/** The transcript pane: scrolling it, and the path the runtime loaded for the selection. */
import type { KeyAction } from '../../../keymap/index.js';
import type { Effect } from '../../core/effects.js';
import { msg, type Result, selectedBates, textSize } from '../../core/selectors.js';
import type { State } from '../../core/state.js';
import type { DetailsEntry, Shown } from './details.js';
import { pickedCallRow, transcriptDoc, transcriptPos } from './doc.js';
import { callCount, maxPos, scrollBy, type TPos, type Turn, windowLines } from './model.js';

export function scrollText(s: State, delta: number | 'home' | 'end'): State {
  const doc = transcriptDoc(s);
  const { h } = textSize(s);
  const pos = transcriptPos(s, doc);
  let next: TPos;
  if (delta === 'home') next = { turn: 0, line: 0 };
  else if (delta === 'end') next = maxPos(doc, h);
  else next = scrollBy(doc, pos, delta, h);
  return { ...s, tpos: next };
}

/** A move key while the transcript has the focus; null for the keys it leaves to the tree. */
export function keyTranscript(s: State, id: KeyAction): Result | null {
  const page = Math.max(1, textSize(s).h - 1);
  switch (id) {
    case 'move.down':
      return [stepText(s, 1), []];
    case 'move.up':
      return [stepText(s, -1), []];
    case 'page.down':
      return [scrollText(s, page), []];
    case 'page.up':
      return [scrollText(s, -page), []];
    case 'move.first':
      return [scrollText(s, 'home'), []];
    case 'move.last':
      return [scrollText(s, 'end'), []];
    default:
      return null;
  }
}

export function onPath(s: State, bates: string, turns: Turn[], error?: string): Result {
  if (bates !== selectedBates(s)) return [s, []];
  // The headers name a pulled session's host: the origins of the path's sessions not on screen are read too.
  const missing = [...new Set(turns.map((t) => t.sid))].filter((sid) => !s.origins.has(sid));
  return [
    { ...s, path: error === undefined ? { bates, turns } : { bates, turns, error } },
    missing.length > 0 ? [{ type: 'loadTitles', sids: missing }] : [],
  ];
}

/** The call the fold keys act on: the first call line in the pane's window, or the one j/k picked at the
 * transcript's end (null when none is on screen). */
export function selectedCall(s: State): { bates: string; call: number } | null {
  const turns = s.path && s.path.bates === selectedBates(s) && !s.path.error ? s.path.turns : null;
  if (!turns) return null;
  const doc = transcriptDoc(s);
  const pos = transcriptPos(s, doc);
  const rows = windowLines(doc, pos, textSize(s).h);
  const i = pickedCallRow(s, rows, pos);
  if (i < 0 || rows[i].turn >= turns.length) return null;
  return { bates: turns[rows[i].turn].bates, call: rows[i].line.call! };
}

/**
 * One line down or up. At the transcript's end, where nothing scrolls, down moves the fold keys' highlight to the
 * next call on screen (a call below the first could never reach the top), and up moves it back before scrolling.
 */
export function stepText(s: State, dir: 1 | -1): State {
  const doc = transcriptDoc(s);
  const pos = transcriptPos(s, doc);
  const rows = windowLines(doc, pos, textSize(s).h);
  const at = pickedCallRow(s, rows, pos);
  const calls = rows.filter((r) => r.line.call !== undefined).length;
  const k = at < 0 ? 0 : rows.slice(0, at).filter((r) => r.line.call !== undefined).length;
  const bates = selectedBates(s) ?? '';
  if (dir < 0 && k > 0) return { ...s, tpos: pos, callPick: { bates, at: pos, k: k - 1 } };
  const next = scrollText(s, dir);
  const moved = next.tpos !== null && (next.tpos.turn !== pos.turn || next.tpos.line !== pos.line);
  if (dir > 0 && !moved && k + 1 < calls) return { ...s, tpos: pos, callPick: { bates, at: pos, k: k + 1 } };
  return next;
}

/** Opens or folds the selected call (`all`: every call of its turn), keeping the pane where it was. */
export function toggleCalls(s: State, all: boolean): Result {
  const at = selectedCall(s);
  const turns = s.path && s.path.bates === selectedBates(s) && !s.path.error ? s.path.turns : [];
  const turn = at ? turns.find((t) => t.bates === at.bates) : turns[turns.length - 1];
  if (!turn) return [s, []];
  const n = callCount(turn);
  if (n === 0) return [{ ...s, message: msg(s, 'no tool calls in this turn') }, []];
  const was = s.toolsOpen.get(turn.bates) ?? new Set<number>();
  let now: Set<number>;
  if (all) now = was.size < n ? new Set(Array.from({ length: n }, (_, i) => i)) : new Set();
  else {
    now = new Set(was);
    const c = at ? at.call : 0;
    if (now.has(c)) now.delete(c);
    else now.add(c);
  }
  const toolsOpen = new Map(s.toolsOpen);
  if (now.size === 0) toolsOpen.delete(turn.bates);
  else toolsOpen.set(turn.bates, now);
  // Freeze the scroll position: the automatic one would jump when the block changes length.
  const pos = transcriptPos(s);
  const next = { ...s, toolsOpen };
  return [{ ...next, tpos: scrollBy(transcriptDoc(next), pos, 0, textSize(s).h) }, []];
}

/** Shows or hides every turn's thinking, keeping the pane where it was. */
export function toggleThinking(s: State): Result {
  const pos = transcriptPos(s);
  const next = { ...s, showThinking: !s.showThinking };
  const tpos = s.tpos === null ? null : scrollBy(transcriptDoc(next), pos, 0, textSize(s).h);
  return [{ ...next, tpos }, []];
}

/** Turns' details arrived: kept by Bates id (a turn's records never change), the pane held where it was. */
export function onDetails(s: State, entries: readonly [string, Shown | null][]): Result {
  const details = new Map(s.details);
  for (const [bates, d] of entries) details.set(bates, d);
  const pos = s.tpos;
  const next = { ...s, details };
  return [pos === null ? next : { ...next, tpos: scrollBy(transcriptDoc(next), pos, 0, textSize(s).h) }, []];
}

/** Turns of the shown path with details kept, at most: an old path's are dropped beyond it (they reload cheaply). */
const DETAILS_KEPT = 2000;

/**
 * After any step: the turns of the shown path that are on screen and whose details were never asked for are asked
 * (marked pending, so each is asked once). Only the window's turns: a 300-turn path costs what is seen.
 */
export function withDetails(s: State, fx: Effect[]): State {
  const turns = s.path && s.path.bates === selectedBates(s) && !s.path.error ? s.path.turns : null;
  if (!turns || turns.length === 0) return s;
  const doc = transcriptDoc(s);
  const want: { bates: string; sid: string }[] = [];
  let last = -1;
  for (const { turn } of windowLines(doc, transcriptPos(s, doc), textSize(s).h)) {
    if (turn === last || turn >= turns.length) continue;
    last = turn;
    const t = turns[turn];
    if (s.details.has(t.bates)) continue;
    want.push({ bates: t.bates, sid: t.sid });
  }
  if (want.length === 0) return s;
  const details = new Map<string, DetailsEntry>(s.details.size > DETAILS_KEPT ? [] : s.details);
  for (const t of want) details.set(t.bates, 'pending');
  fx.push({ type: 'loadDetails', turns: want });
  return { ...s, details };
}
