/** `r` and its confirmation (model.ts): open, keys, and the runtime's answers. */
import type { KeyAction } from '../../../keymap/index.js';
import { overlayBox } from '../../core/layout.js';
import { msg, QUESTION_RUNNING, type Result, selectedArchived, selectedBates } from '../../core/selectors.js';
import type { State } from '../../core/state.js';
import { moveScroll } from '../../widgets/list.js';
import { refusal } from '../maintenance/model.js';
import {
  isOneLineRefusal,
  type ResumeAction,
  type ResumeOverlay,
  refusalText,
  resumeLines,
} from './model.js';

function page(s: State): { page: number; width: number } {
  const box = overlayBox(s);
  return { page: Math.max(1, box.h - 3), width: box.w - 4 };
}

/** `r` on a turn: the confirmation, once the runtime has planned the session (or said why it cannot). */
export function openResume(s: State): Result {
  const bates = selectedBates(s);
  if (!bates) return [{ ...s, message: msg(s, 'select a turn to resume it in its agent') }, []];
  const arch = selectedArchived(s);
  if (arch) return [{ ...s, message: msg(s, refusal(arch.sid, s.keyOf), 'error') }, []];
  // The agent takes the terminal: a question still streaming into the transcript would be hidden meanwhile.
  if (s.ask) return [{ ...s, message: msg(s, QUESTION_RUNNING, 'error') }, []];
  const overlay: ResumeOverlay = { kind: 'resume', bates, plan: null, refusal: null, scroll: 0 };
  return [{ ...s, overlay }, [{ type: 'planResume', bates }]];
}

/** A key of the resume context (src/keymap/contexts.ts). */
export function keyResume(s: State, ov: ResumeOverlay, id: KeyAction): Result {
  if (id === 'quit') return [{ ...s, quitting: true }, [{ type: 'quit' }]];
  if (id === 'confirm.no') return [{ ...s, overlay: null }, []];
  if (id === 'confirm.yes') {
    if (ov.refusal !== null) return [{ ...s, overlay: null }, []];
    const p = ov.plan;
    if (!p) return [s, []];
    if (s.ask) return [{ ...s, message: msg(s, QUESTION_RUNNING, 'error') }, []];
    return [
      { ...s, overlay: null, busy: `${p.program} is running…` },
      [{ type: 'runResume', bates: p.bates, sessionId: p.sessionId }],
    ];
  }
  const { page: h, width } = page(s);
  const scroll = moveScroll(ov.scroll, id, resumeLines(ov, width).length, h);
  return scroll === null ? [s, []] : [{ ...s, overlay: { ...ov, scroll } }, []];
}

/** The runtime's answers. `refresh` is the router's data-changed step (sessions, outlines, path, chain). */
export function onResume(s: State, a: ResumeAction, refresh: (s: State) => Result): Result {
  const ov = s.overlay?.kind === 'resume' ? s.overlay : null;
  switch (a.type) {
    case 'resumePlan':
      if (!ov || ov.bates !== a.bates) return [s, []];
      return [{ ...s, overlay: { ...ov, plan: a.plan, scroll: 0 } }, []];
    case 'resumeRefused': {
      const text = refusalText(a.code, a.error, s.keyOf);
      if (!ov || ov.bates !== a.bates) return [{ ...s, message: msg(s, text, 'error') }, []];
      // Nothing to confirm: the overlay closes and the status line says why, in one line.
      if (isOneLineRefusal(a.code)) return [{ ...s, overlay: null, message: msg(s, text, 'error') }, []];
      return [{ ...s, overlay: { ...ov, plan: null, refusal: text, scroll: 0 } }, []];
    }
    case 'resumeFailed':
      return refresh({ ...s, busy: null, message: msg(s, `nothing was run: ${a.error}`, 'error') });
    case 'resumeDone': {
      const n = a.added.length;
      const what = n === 0 ? 'no new turns' : `${n} new turn${n === 1 ? '' : 's'} under ${a.bates}`;
      // Short: the status bar of an 80-column terminal has about 45 cells for it.
      const text = a.importError
        ? `${a.program} ${a.exit}; import failed: ${a.importError}`
        : `${a.program} ${a.exit}: ${what}`;
      return refresh({ ...s, busy: null, message: msg(s, text, a.importError ? 'error' : 'info') });
    }
  }
}
