/** The transcript pane: scrolling it, and the path the runtime loaded for the selection. */
import type { KeyAction } from '../../../keymap/index.js';
import { type Result, selectedBates, textSize } from '../../core/selectors.js';
import type { State } from '../../core/state.js';
import { transcriptDoc, transcriptPos } from './doc.js';
import { maxPos, scrollBy, type TPos, type Turn } from './model.js';

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
