/** The transcript pane: scrolling it, and the path the runtime loaded for the selection. */
import type { KeyAction } from '../../../keymap/index.js';
import { msg, type Result, selectedBates, textSize } from '../../core/selectors.js';
import type { State } from '../../core/state.js';
import { transcriptDoc, transcriptPos } from './doc.js';
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
      return [scrollText(s, 1), []];
    case 'move.up':
      return [scrollText(s, -1), []];
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
  return [{ ...s, path: error === undefined ? { bates, turns } : { bates, turns, error } }, []];
}

/** The call the fold keys act on: the first call line in the pane's window (null when none is on screen). */
export function selectedCall(s: State): { bates: string; call: number } | null {
  const turns = s.path && s.path.bates === selectedBates(s) && !s.path.error ? s.path.turns : null;
  if (!turns) return null;
  const doc = transcriptDoc(s);
  for (const { line, turn } of windowLines(doc, transcriptPos(s, doc), textSize(s).h))
    if (line.call !== undefined && turn < turns.length) return { bates: turns[turn].bates, call: line.call };
  return null;
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
