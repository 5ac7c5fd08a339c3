/**
 * A key press, from key to state change: the context is the open overlay or the focused pane, the keymap says what
 * the key means there (src/keymap/contexts.ts; a key it does not name does nothing), and the context's feature acts.
 */
import type { Context, KeyAction } from '../../keymap/index.js';
import { askOrFork, keyInput, openInput } from '../features/ask/update.js';
import { keyBranches, openBranches } from '../features/branches/update.js';
import { keyCommand, openCommand } from '../features/command/update.js';
import { findStep, keyFind, openFind } from '../features/find/update.js';
import { keyHelp, openHelp } from '../features/help/update.js';
import {
  keyConfirm,
  keyEntries,
  openEntries,
  openRestore,
  toggleArchived,
} from '../features/maintenance/update.js';
import { keyResume, openResume } from '../features/resume/update.js';
import { startSync } from '../features/sync/update.js';
import { keyTranscript, stepText, toggleCalls, toggleThinking } from '../features/transcript/update.js';
import { keyFilter, openFilter } from '../features/tree/filter.js';
import { keyTree, toggleGrouping } from '../features/tree/update.js';
import { IMPORTING, msg, type Result } from './selectors.js';
import type { State } from './state.js';

export function keyContext(s: State): Context {
  return s.overlay ? s.overlay.kind : s.focus;
}

export function onKey(s: State, key: string, ch: string | undefined): Result {
  const id = s.keymap.resolve(keyContext(s), key, ch);
  if (id === null) return [s, []];
  const ov = s.overlay;
  if (!ov) return onPaneKey(s.message ? { ...s, message: null } : s, id);
  switch (ov.kind) {
    case 'find':
      return keyFind(s, ov, id, ch);
    case 'input':
      return keyInput(s, ov, id, ch);
    case 'command':
      return keyCommand(s, ov, id, ch);
    case 'help':
      return keyHelp(s, ov, id);
    case 'branches':
      return keyBranches(s, ov, id);
    case 'entries':
      return keyEntries(s, ov, id);
    case 'confirm':
      return keyConfirm(s, ov, id);
    case 'resume':
      return keyResume(s, ov, id);
    case 'filter':
      return keyFilter(s, ov, id, ch);
  }
}

/** The keys of the panes (no overlay open): the ones that mean the same in both panes, then the focused pane's. */
function onPaneKey(s: State, id: KeyAction): Result {
  switch (id) {
    case 'quit':
      return [
        { ...s, quitting: true },
        s.ask ? [{ type: 'cancelAsk' }, { type: 'quit' }] : [{ type: 'quit' }],
      ];
    case 'help':
      return openHelp(s);
    case 'command':
      return openCommand(s);
    case 'close':
      if (s.ask) return [{ ...s, message: msg(s, 'cancelling the question…') }, [{ type: 'cancelAsk' }]];
      return [s, []];
    case 'chain.check':
      return [s, [{ type: 'checkChain', full: true }]];
    case 'archived':
      return toggleArchived(s);
    case 'entries':
      return openEntries(s);
    case 'restore':
      return openRestore(s);
    case 'sync':
      return startSync(s);
  }
  if (s.loaded && s.sessions.length === 0) return onEmptyShardKey(s, id);
  switch (id) {
    case 'pane.switch':
      return [{ ...s, focus: s.focus === 'tree' ? 'transcript' : 'tree' }, []];
    case 'transcript.down':
      return [stepText(s, 1), []];
    case 'transcript.up':
      return [stepText(s, -1), []];
    case 'tools.toggle':
    case 'tools.all':
      return toggleCalls(s, id === 'tools.all');
    case 'thinking.toggle':
      return toggleThinking(s);
    case 'ask':
    case 'fork':
      return askOrFork(s, id);
    case 'find':
      return openFind(s);
    case 'find.next':
      return findStep(s, 1);
    case 'find.prev':
      return findStep(s, -1);
    case 'branches':
      return openBranches(s);
    case 'resume':
      return openResume(s);
    case 'sessions.group':
      return toggleGrouping(s);
    case 'sessions.filter':
      return openFilter(s);
  }
  return (s.focus === 'transcript' && keyTranscript(s, id)) || keyTree(s, id);
}

/** On an empty shard only the demo and a first question make sense. */
function onEmptyShardKey(s: State, id: KeyAction): Result {
  if (id === 'demo' && s.offerDemo && !s.busy)
    return [{ ...s, busy: 'building the demo…' }, [{ type: 'buildDemo' }]];
  if (id === 'import' && s.histories.length > 0 && !s.busy)
    return [
      { ...s, busy: `${IMPORTING}${s.histories.map((h) => h.label).join(', ')}…` },
      [{ type: 'importHistories' }],
    ];
  if (id === 'ask') return openInput(s, 'ask', null, null);
  return [s, []];
}
