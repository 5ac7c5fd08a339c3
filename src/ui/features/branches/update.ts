/** The `b` overlay: the selected session's branch points, and going to one. */
import type { KeyAction } from '../../../keymap/index.js';
import { overlayBox } from '../../core/layout.js';
import { type Result, selectedBates, selectedSid } from '../../core/selectors.js';
import type { BranchesOverlay, BranchItem, State } from '../../core/state.js';
import { moveCursor } from '../../widgets/list.js';

export function openBranches(s: State): Result {
  const sid = selectedSid(s);
  if (!sid) return [s, []];
  return [
    { ...s, overlay: { kind: 'branches', sid, items: null, sel: 0, top: 0 } },
    [{ type: 'loadBranches', sid }],
  ];
}

/** A key of the branches context: close, quit, go to the selected branch point, or move. */
export function keyBranches(s: State, ov: BranchesOverlay, id: KeyAction): Result {
  if (id === 'close') return [{ ...s, overlay: null }, []];
  if (id === 'quit') return [{ ...s, quitting: true }, [{ type: 'quit' }]];
  const it = ov.items?.[ov.sel];
  if (id === 'select' && it) return [{ ...s, overlay: null }, [{ type: 'reveal', bates: it.bates }]];
  const page = Math.max(1, overlayBox(s).h - 4);
  const c = moveCursor(ov, id, ov.items?.length ?? 0, page);
  return c === null ? [s, []] : [{ ...s, overlay: { ...ov, ...c } }, []];
}

/** The list arrived: the branch point at (or nearest above) the selection is selected. */
export function onBranches(s: State, sid: string, items: BranchItem[]): Result {
  const ov = s.overlay;
  if (ov?.kind !== 'branches' || ov.sid !== sid) return [s, []];
  const cur = selectedBates(s);
  const at = Math.max(
    0,
    items.findIndex((x) => x.bates === cur),
  );
  return [{ ...s, overlay: { ...ov, items, sel: at, top: Math.max(0, at - 2) } }, []];
}
