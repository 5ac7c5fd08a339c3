/**
 * The `:` command line: the commands of `arborist session` (src/keymap/commands.ts), each run by the browser's own
 * means: `:cd` moves the selection (the runtime resolves the id), `:find` opens the find box with the query,
 * `:branches` the branch points, `:help` the help, and so on. Tab completes as the REPL's Tab does.
 */
import {
  type CommandName,
  type CompletionSource,
  completeLine,
  type KeyAction,
  parseCommandLine,
  unknownCommand,
} from '../../../keymap/index.js';
import { msg, type Result, selectedBates, selectedSid } from '../../core/selectors.js';
import type { State } from '../../core/state.js';
import { editText } from '../../widgets/text-input.js';
import { openBranches } from '../branches/update.js';
import { openFind } from '../find/update.js';
import { openHelp } from '../help/update.js';
import { select } from '../tree/select.js';
import type { CommandOverlay, Follow } from './model.js';

/** A command this long is plenty (a query, an id). */
const LINE_MAX = 500;

export function openCommand(s: State): Result {
  return [{ ...s, overlay: { kind: 'command', text: '', matches: [], note: null } }, []];
}

/** A key of the command context (src/keymap/contexts.ts). */
export function keyCommand(s: State, ov: CommandOverlay, id: KeyAction, ch: string | undefined): Result {
  if (id === 'close') return [{ ...s, overlay: null }, []];
  if (id === 'command.complete') return tab(s, ov);
  if (id === 'command.run') return run(s, ov);
  const text = editText(ov.text, id, ch, LINE_MAX);
  return text === null
    ? [s, []]
    : [{ ...s, overlay: { kind: 'command', text, matches: [], note: null } }, []];
}

/** Completion from what the browser holds: its sessions, and the turns of the sessions whose outline is loaded. */
export function stateCompletions(s: State): CompletionSource {
  return {
    sessions: () => s.sessions,
    turns: (sid) =>
      s.outlines
        .get(sid)
        ?.rows.filter((r) => !r.cross)
        .map((r) => r.bates) ?? null,
  };
}

function tab(s: State, ov: CommandOverlay): Result {
  const c = completeLine(ov.text, 'browser', stateCompletions(s));
  const text = ov.text.slice(0, c.start) + c.replacement;
  if (c.wanted !== undefined && ov.waiting !== c.wanted) {
    // Its turns are not loaded yet: the runtime reads them, and the Tab completes when they arrive (onOutline).
    const note = { text: `reading the turns of ${c.wanted}…`, level: 'info' as const };
    return [
      { ...s, overlay: { ...ov, text, matches: [], note, waiting: c.wanted } },
      [{ type: 'loadOutline', sid: c.wanted }],
    ];
  }
  const note =
    c.matches.length === 0 ? { text: `nothing completes '${c.word}'`, level: 'info' as const } : null;
  const matches = c.matches.length > 1 ? c.matches.map((m) => m.trimEnd()) : [];
  return [{ ...s, overlay: { kind: 'command', text, matches, note } }, []];
}

/** A session's outline arrived: the Tab that waited for its turns completes now. */
export function commandOutline(s: State, sid: string): Result {
  const ov = s.overlay;
  if (ov?.kind !== 'command' || ov.waiting !== sid) return [s, []];
  return tab(s, ov);
}

function run(s: State, ov: CommandOverlay): Result {
  const p = parseCommandLine(ov.text, 'browser');
  const refuse = (text: string): Result => [
    { ...s, overlay: { ...ov, matches: [], note: { text, level: 'error' } } },
    [],
  ];
  if (p.kind === 'empty') return [{ ...s, overlay: null }, []];
  if (p.kind === 'unknown') return refuse(unknownCommand(p.name, 'browser'));
  if (p.kind === 'bad') return refuse(p.message);
  if (p.kind !== 'command') return [s, []];
  if (p.def.notInBrowser) return refuse(`:${p.name}: ${p.def.notInBrowser}`);
  return dispatch({ ...s, overlay: null, message: null }, p.name, p.arg);
}

/** Runs a parsed command; the overlay is already closed. */
function dispatch(s: State, name: CommandName, arg: string): Result {
  switch (name) {
    case 'cd':
      return goTo(s, arg, null);
    case 'find':
      return openFind(s, arg);
    case 'branches':
    case 'tree':
    case 'path':
    case 'show':
      return arg === '' ? follow(s, name) : goTo(s, arg, name);
    case 'list':
      return [select({ ...s, focus: 'tree' }, 0), []];
    case 'chain-check':
      return [s, [{ type: 'checkChain', full: true }]];
    case 'help':
      return openHelp(s);
    case 'quit':
      return [
        { ...s, quitting: true },
        s.ask ? [{ type: 'cancelAsk' }, { type: 'quit' }] : [{ type: 'quit' }],
      ];
    case 'export':
      return [s, []];
  }
}

/** The runtime resolves the id (against the selection: a bare turn number, `..`) and reveals the turn. */
function goTo(s: State, target: string, next: Follow): Result {
  return [
    { ...s, focus: 'tree' },
    [{ type: 'goto', target, sid: selectedSid(s), from: selectedBates(s), follow: next }],
  ];
}

/** The view a command names, on the selection (after a move has landed there, or at once). */
export function follow(s: State, next: Follow): Result {
  switch (next) {
    case 'branches':
      if (!selectedSid(s)) return [{ ...s, message: msg(s, 'select a session first') }, []];
      return openBranches(s);
    case 'tree':
      return [{ ...s, focus: 'tree' }, []];
    case 'path':
      // The transcript is the path: from its start.
      return [{ ...s, focus: 'transcript', tpos: { turn: 0, line: 0 } }, []];
    case 'show':
      return [{ ...s, focus: 'transcript', tpos: null }, []];
    case null:
      return [s, []];
  }
}

/** A move of `:cd` (or `:branches X` ...) landed on `bates`. */
export function onArrived(s: State, bates: string, next: Follow): Result {
  if (selectedBates(s) !== bates) return [s, []];
  return follow(s, next);
}
