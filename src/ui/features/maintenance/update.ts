/**
 * Entries and the archive tier, their keys (docs/sessions.md "Entries, archiving and retention"):
 *
 * - `A` shows archived sessions after the live ones, marked and read-only: their turns come from the archive
 *   bodies (the runtime's session source reads them), ask and fork on them are refused, `R` restores one after a
 *   confirmation.
 * - `E` lists the entries; on one, `r` resets it and `x` (or Delete) deletes it. Both first show the store's own
 *   plan (planReset / planDelete): exactly what will be archived and what is kept, and why. `y`/Enter carries it
 *   out (the runtime re-plans inside the write transaction and refuses when the plan changed meanwhile), `n`/Esc
 *   goes back without writing anything.
 */
import type { KeyAction } from '../../../keymap/index.js';
import { oneLine } from '../../../text/sanitize.js';
import { overlayBox } from '../../core/layout.js';
import { msg, QUESTION_RUNNING, type Result, selectedArchived } from '../../core/selectors.js';
import type { State } from '../../core/state.js';
import { moveCursor, moveScroll } from '../../widgets/list.js';
import { sessionKey } from '../tree/model.js';
import { rebuild, selectKey } from '../tree/select.js';
import {
  type ChangeOp,
  type ConfirmOverlay,
  confirmLines,
  type EntriesOverlay,
  type MaintenanceAction,
  planSignature,
  plural,
} from './model.js';

/** The overlays' page and text width, as drawn: the box less its borders and the footer line (view.ts). */
function overlayPage(s: State): { page: number; width: number } {
  const box = overlayBox(s);
  return { page: Math.max(1, box.h - 3), width: box.w - 4 };
}

/** `A`: archived sessions join the tree after the live ones (loaded by the runtime), or leave it. */
export function toggleArchived(s: State): Result {
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

/** `E`: the entries list (loaded by the runtime). */
export function openEntries(s: State): Result {
  return [{ ...s, overlay: { kind: 'entries', items: null, sel: 0, top: 0 } }, [{ type: 'loadEntries' }]];
}

/** `R` on an archived session (or one of its turns): the restore confirmation. */
export function openRestore(s: State): Result {
  const ses = selectedArchived(s);
  if (!ses) {
    const how = s.showArchived ? '' : ` (${s.keyOf.archived ?? 'A'} shows them)`;
    return [{ ...s, message: msg(s, `select an archived session to restore it${how}`) }, []];
  }
  const tag = ses.archived!;
  const what = {
    op: 'restore' as const,
    sid: ses.sid,
    label: ses.label,
    n_nodes: ses.n_nodes,
    reason: tag.reason,
    archived_at: tag.archived_at,
  };
  return [{ ...s, overlay: { kind: 'confirm', what, plan: null, scroll: 0, back: null } }, []];
}

/** A key of the entries context (src/keymap/contexts.ts). */
export function keyEntries(s: State, ov: EntriesOverlay, id: KeyAction): Result {
  if (id === 'quit') return [{ ...s, quitting: true }, [{ type: 'quit' }]];
  if (id === 'close') return [{ ...s, overlay: null }, []];
  const items = ov.items ?? [];
  const it = items[ov.sel];
  if (it && (id === 'entries.reset' || id === 'entries.delete')) {
    const op: ChangeOp = id === 'entries.reset' ? 'reset' : 'delete';
    return [
      { ...s, overlay: { kind: 'confirm', what: { op, key: it.key }, plan: null, scroll: 0, back: ov } },
      [{ type: 'planChange', op, key: it.key }],
    ];
  }
  if (it && id === 'select') {
    if (!it.sid || it.n_nodes === null)
      return [{ ...s, message: msg(s, `entry '${it.key}' names no live session`) }, []];
    return [selectKey({ ...s, overlay: null }, sessionKey(it.sid)), []];
  }
  const c = moveCursor(ov, id, items.length, overlayPage(s).page);
  return c === null ? [s, []] : [{ ...s, overlay: { ...ov, ...c } }, []];
}

/** A key of the confirm context: y/Enter confirms, n/Esc goes back; nothing else writes. */
export function keyConfirm(s: State, ov: ConfirmOverlay, id: KeyAction): Result {
  if (id === 'quit') return [{ ...s, quitting: true }, [{ type: 'quit' }]];
  if (id === 'confirm.no') return [{ ...s, overlay: ov.back }, []];
  if (id === 'confirm.yes') {
    const w = ov.what;
    // The question's parent could be archived under it: one thing at a time.
    if (s.ask) return [{ ...s, message: msg(s, QUESTION_RUNNING, 'error') }, []];
    if (w.op === 'restore') {
      return [{ ...s, overlay: null, busy: `restoring ${w.sid}…` }, [{ type: 'restoreArchive', sid: w.sid }]];
    }
    if (!ov.plan) return [s, []];
    const busy = `${w.op === 'reset' ? 'resetting' : 'deleting'} entry '${oneLine(w.key)}'…`;
    return [
      { ...s, overlay: null, busy },
      [{ type: 'applyChange', op: w.op, key: w.key, expect: planSignature(ov.plan) }],
    ];
  }
  const { page, width } = overlayPage(s);
  const scroll = moveScroll(ov.scroll, id, confirmLines(ov, width, s.keyOf).length, page);
  return scroll === null ? [s, []] : [{ ...s, overlay: { ...ov, scroll } }, []];
}

/**
 * The runtime's answers. `refresh` is the router's data-changed step (sessions, open outlines, the selected path,
 * and an incremental chain check: the reset or delete appended events).
 */
export function onMaintenance(s: State, a: MaintenanceAction, refresh: (s: State) => Result): Result {
  switch (a.type) {
    case 'entries': {
      const ov = s.overlay;
      if (ov?.kind !== 'entries') return [s, []];
      const sel = Math.max(0, Math.min(ov.sel, a.items.length - 1));
      return [{ ...s, overlay: { ...ov, items: a.items, sel, top: Math.min(ov.top, sel) } }, []];
    }
    case 'changePlan': {
      const ov = s.overlay;
      const same = ov?.kind === 'confirm' && ov.what.op === a.op && 'key' in ov.what && ov.what.key === a.key;
      if (a.stale) {
        // Nothing was written: show the new plan to confirm again.
        const back = same ? ov.back : null;
        return [
          {
            ...s,
            busy: null,
            overlay: { kind: 'confirm', what: { op: a.op, key: a.key }, plan: a.plan, scroll: 0, back },
            message: msg(s, 'the shard changed meanwhile: nothing was done; here is the new plan', 'error'),
          },
          [],
        ];
      }
      if (!same) return [s, []];
      return [{ ...s, overlay: { ...ov, plan: a.plan, scroll: 0 } }, []];
    }
    case 'changeDone': {
      // Short: it must fit the status bar of an 80-column terminal.
      const done = a.op === 'reset' ? `reset '${a.key}'` : `deleted '${a.key}'`;
      const text = `${done}: ${a.archived.length} archived, ${a.kept.length} kept`;
      const n: State = { ...s, busy: null, overlay: null, message: msg(s, text) };
      // After a reset, the entry's new session is selected once the sessions are loaded again.
      return refresh(a.op === 'reset' && a.sid ? { ...n, selKey: sessionKey(a.sid) } : n);
    }
    case 'restoreDone': {
      const text = `restored ${a.sids.join(', ')} (${plural(a.n_nodes, 'turn')}): live again`;
      return refresh({ ...s, busy: null, overlay: null, message: msg(s, text) });
    }
    case 'maintFailed': {
      const ov = s.overlay;
      const overlay = ov?.kind === 'confirm' ? ov.back : ov?.kind === 'entries' ? null : ov;
      return [{ ...s, busy: null, overlay, message: msg(s, a.error, 'error') }, []];
    }
  }
}
