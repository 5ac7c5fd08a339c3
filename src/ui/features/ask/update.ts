/** Asking: `a`/`f` open the question box, Enter runs the question, its answer streams in, Esc cancels it. */
import type { KeyAction } from '../../../keymap/index.js';
import {
  msg,
  QUESTION_RUNNING,
  type Result,
  selectedArchived,
  selectedBates,
  selectedSid,
} from '../../core/selectors.js';
import type { InputOverlay, State } from '../../core/state.js';
import { editText } from '../../widgets/text-input.js';
import { refusal } from '../maintenance/model.js';

/** A question this long is plenty; the box stops taking characters. */
const QUESTION_MAX = 4000;

export function openInput(
  s: State,
  mode: 'ask' | 'fork',
  parent: string | null,
  session: string | null,
): Result {
  if (s.ask) return [{ ...s, message: msg(s, QUESTION_RUNNING, 'error') }, []];
  return [{ ...s, overlay: { kind: 'input', mode, parent, session, text: '' } }, []];
}

/** `a` or `f` on the selection: refused on an archived session; a fork needs a turn to hang under. */
export function askOrFork(s: State, mode: 'ask' | 'fork'): Result {
  const arch = selectedArchived(s);
  if (arch) return [{ ...s, message: msg(s, refusal(arch.sid, s.keyOf), 'error') }, []];
  const bates = selectedBates(s);
  if (mode === 'fork' && !bates) return [{ ...s, message: msg(s, 'select a turn to fork from') }, []];
  return openInput(s, mode, bates, bates ? null : selectedSid(s));
}

/** A key of the input context (src/keymap/contexts.ts). */
export function keyInput(s: State, ov: InputOverlay, id: KeyAction, ch: string | undefined): Result {
  if (id === 'close') return [{ ...s, overlay: null }, []];
  if (id === 'input.submit') {
    const q = ov.text.trim();
    if (q === '') return [s, []];
    if (s.ask) return [{ ...s, message: msg(s, QUESTION_RUNNING, 'error') }, []];
    const run = { mode: ov.mode, parent: ov.parent, session: ov.session, question: q, answer: '' };
    return [
      { ...s, overlay: null, ask: run, tpos: null, focus: 'tree', message: null },
      [{ type: 'ask', mode: ov.mode, question: q, parent: ov.parent, session: ov.session }],
    ];
  }
  const text = editText(ov.text, id, ch, QUESTION_MAX);
  return text === null ? [s, []] : [{ ...s, overlay: { ...ov, text } }, []];
}

export function onAskChunk(s: State, text: string): Result {
  if (!s.ask) return [s, []];
  return [{ ...s, ask: { ...s.ask, answer: s.ask.answer + text } }, []];
}

export function onAskDone(s: State, bates: string, createdSession: boolean): Result {
  const what = createdSession ? `forked into ${bates} (new session)` : `added ${bates}`;
  return [
    { ...s, ask: null, tpos: null, message: msg(s, what) },
    [
      { type: 'loadSessions' },
      ...[...s.expanded].map((sid) => ({ type: 'loadOutline' as const, sid })),
      { type: 'reveal', bates },
      { type: 'syncChain' },
    ],
  ];
}

/**
 * The question failed (the answer command, the shard locked): it comes back in its box, so that asking again is
 * Enter, not typing it again; one stopped with Esc does not (the person meant to drop it).
 */
export function onAskFailed(s: State, error: string, cancelled: boolean): Result {
  const run = s.ask;
  const again: InputOverlay | null =
    run && !cancelled && s.overlay === null
      ? { kind: 'input', mode: run.mode, parent: run.parent, session: run.session, text: run.question }
      : null;
  return [{ ...s, ask: null, tpos: null, overlay: again ?? s.overlay, message: msg(s, error, 'error') }, []];
}
