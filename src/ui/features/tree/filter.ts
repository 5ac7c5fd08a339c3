/** The sessions pane's filter prompt (`F`): a line, Tab completing agents and projects from the sessions' origins. */
import type { KeyAction } from '../../../keymap/index.js';
import { displayWidth, truncate } from '../../../text/width.js';
import type { Glyphs } from '../../core/glyphs.js';
import type { Result } from '../../core/selectors.js';
import type { State } from '../../core/state.js';
import { type Frame, Style } from '../../term/canvas.js';
import { editText } from '../../widgets/text-input.js';
import { completeFilter, type FilterOverlay, filterCandidates } from './groups.js';
import { rebuild } from './select.js';

const LINE_MAX = 300;

export function openFilter(s: State): Result {
  const text = s.filter === '' ? '' : `${s.filter} `;
  return [{ ...s, overlay: { kind: 'filter', text, tab: null } }, []];
}

export function keyFilter(s: State, ov: FilterOverlay, id: KeyAction, ch: string | undefined): Result {
  if (id === 'close') return [{ ...s, overlay: null }, []];
  if (id === 'filter.apply') return [rebuild({ ...s, overlay: null }, { filter: ov.text.trim() }), []];
  if (id === 'filter.complete') return [{ ...s, overlay: complete(s, ov) }, []];
  const text = editText(ov.text, id, ch, LINE_MAX);
  return text === null ? [s, []] : [{ ...s, overlay: { kind: 'filter', text, tab: null } }, []];
}

function complete(s: State, ov: FilterOverlay): FilterOverlay {
  let tab = ov.tab;
  if (tab && tab.matches.length > 0) tab = { ...tab, i: (tab.i + 1) % tab.matches.length };
  else {
    const matches = completeFilter(ov.text, filterCandidates(s.origins));
    if (matches.length === 0) return { ...ov, tab: { base: ov.text, matches, i: 0 } };
    tab = { base: ov.text, matches, i: 0 };
  }
  const at = tab.base.search(/\S*$/);
  return { kind: 'filter', text: `${tab.base.slice(0, at)}${tab.matches[tab.i]}`, tab };
}

/** A box of three lines above the status bar: the line, then the Tab candidates or what the prompt takes. */
export function drawFilter(f: Frame, s: State, ov: FilterOverlay, g: Glyphs): void {
  const w = Math.min(s.cols - 4, 100);
  const r = { x: Math.floor((s.cols - w) / 2), y: Math.max(0, s.rows - 1 - 5), w, h: 4 };
  f.fill(r.x, r.y, r.w, r.h, Style.overlay);
  f.box(r.x, r.y, r.w, r.h, Style.overlayBorder, 'filter sessions', Style.titleFocus);
  const room = r.w - 5;
  let text = ov.text;
  while (displayWidth(text) > room - 1) text = text.slice(1);
  const used = f.text(r.x + 2, r.y + 1, text, Style.input, room);
  f.text(r.x + 2 + used, r.y + 1, g.cursor, Style.key, 1);
  const iw = r.w - 4;
  let note: string;
  let style = Style.dim;
  if (ov.tab && ov.tab.matches.length === 0) {
    note = 'no agent or project starts so';
    style = Style.info;
  } else if (ov.tab && ov.tab.matches.length > 1)
    note = `${ov.tab.i + 1}/${ov.tab.matches.length}: ${ov.tab.matches.filter((_, i) => i !== ov.tab!.i).join('  ')}`;
  else note = 'agent:KIND project:PATH or a word · Tab completes · Enter filters (empty: all) · Esc';
  f.text(r.x + 2, r.y + 2, truncate(note, iw), style, iw);
}
