/**
 * What each key means where the focus is: one ordered table of rules per context. The reducer asks the keymap
 * which rule a key matches in its context (Keymap.resolve) and acts on that rule's id; a key no rule names does
 * nothing. The help overlay and docs/keys.md are generated from the same rules, so they cannot drift apart.
 *
 * A rule names the keys that trigger it in two ways: `keys`, fixed (a text box must keep its editing keys, and the
 * entries list's letters are part of its prompt), and `via`, rebindable actions (ACTIONS, keys.json) whose keys
 * mean this rule here. The first rule naming a key wins.
 */
import type { ActionId, Group } from './actions.js';
import { ACTION_IDS } from './actions.js';

export interface Rule {
  id: string;
  keys?: readonly string[];
  via?: readonly ActionId[];
  /** In a text box a printable key is text: `via` keys count here only when they type nothing. */
  notText?: boolean;
  /** Printable characters (the rule of a text box's typing). */
  text?: boolean;
  /** Its row in the help (the context's help group). Without one the rule is documented by its action. */
  help?: string;
}

export type Context =
  | 'tree'
  | 'transcript'
  | 'help'
  | 'branches'
  | 'find'
  | 'input'
  | 'command'
  | 'entries'
  | 'confirm'
  | 'resume'
  | 'filter';

/** A rebindable action meaning itself. */
function same<const T extends ActionId>(id: T) {
  return { id, via: [id] } as const;
}

const MOVES = [
  same('move.down'),
  same('move.up'),
  same('page.down'),
  same('page.up'),
  same('move.first'),
  same('move.last'),
] as const;

const TEXT_EDITING = [
  { id: 'text.delete', keys: ['backspace'], help: 'Delete the character before the cursor' },
  { id: 'text.clear', keys: ['C-u'], help: 'Clear the line' },
  { id: 'text.word', keys: ['C-w'], help: 'Delete the word before the cursor' },
  { id: 'text.insert', text: true },
] as const;

export const CONTEXTS = {
  /** The panes: every rebindable action. In the transcript the moves scroll it. */
  tree: ACTION_IDS.map((id) => ({ id, via: [id] })),
  transcript: ACTION_IDS.map((id) => ({ id, via: [id] })),
  help: [{ id: 'close', via: ['close', 'help'] }, same('quit'), ...MOVES],
  branches: [same('close'), same('quit'), ...MOVES, { id: 'select', via: ['select', 'tree.right'] }],
  find: [
    { id: 'find.down', keys: ['down', 'C-n'], help: 'Next hit' },
    { id: 'find.up', keys: ['up', 'C-p'], help: 'Previous hit' },
    { id: 'page.down', via: ['page.down'], notText: true },
    { id: 'page.up', via: ['page.up'], notText: true },
    {
      id: 'find.go',
      keys: ['enter'],
      help: 'Go to the selected hit: its session opens, the turn is selected, ready for a question',
    },
    {
      id: 'close',
      keys: ['escape'],
      via: ['close'],
      notText: true,
      help: 'Close, back to where you were',
    },
    same('find.scope'),
    same('find.preview'),
    {
      id: 'preview.down',
      via: ['transcript.down'],
      notText: true,
      help: 'Scroll the preview down, half its height (it opens at the first matched word)',
    },
    { id: 'preview.up', via: ['transcript.up'], notText: true, help: 'Scroll the preview up' },
    { id: 'quit', via: ['quit'], notText: true },
    ...TEXT_EDITING,
  ],
  input: [
    { id: 'input.submit', keys: ['enter'], help: 'Ask the question' },
    { id: 'close', keys: ['escape'], help: 'Cancel' },
    ...TEXT_EDITING,
  ],
  command: [
    { id: 'command.run', keys: ['enter'], help: 'Run the command' },
    {
      id: 'command.complete',
      keys: ['tab'],
      help: 'Complete a command name, a session id or a Bates id (again: the next part)',
    },
    { id: 'close', keys: ['escape'], help: 'Close, nothing run' },
    ...TEXT_EDITING,
  ],
  entries: [
    same('quit'),
    { id: 'close', via: ['close', 'entries'] },
    {
      id: 'entries.reset',
      keys: ['r'],
      help: 'Entries list: reset the selected entry (it moves to a new, empty session)',
    },
    { id: 'entries.delete', keys: ['x', 'delete'], help: 'Entries list: delete the selected entry' },
    { id: 'select', via: ['select', 'tree.right'], help: "Entries list: go to the entry's current session" },
    ...MOVES,
  ],
  confirm: [
    same('quit'),
    { id: 'confirm.yes', keys: ['y', 'enter'], help: 'Confirmation: do it' },
    { id: 'confirm.no', keys: ['n'], via: ['close'], help: 'Confirmation: cancel, nothing is written' },
    ...MOVES,
  ],
  /** The `resume` confirmation (features/resume): what will be written and run, then the agent. */
  resume: [
    same('quit'),
    {
      id: 'confirm.yes',
      keys: ['y', 'enter'],
      help: 'Write the session and run the agent; arborist comes back when it exits',
    },
    { id: 'confirm.no', keys: ['n'], via: ['close'], help: 'Cancel: nothing is written' },
    ...MOVES,
  ],
  /** The sessions pane's filter prompt (features/tree/filter.ts). */
  filter: [
    { id: 'filter.apply', keys: ['enter'], help: 'Filter the sessions by what is typed (empty: show all)' },
    {
      id: 'filter.complete',
      keys: ['tab'],
      help: 'Complete an agent (agent:codex) or a project (project:PATH) from the sessions; again: the next one',
    },
    { id: 'close', keys: ['escape'], help: 'Close, the filter as it was' },
    ...TEXT_EDITING,
  ],
} as const satisfies Record<Context, readonly Rule[]>;

/** Every id a key can resolve to, in any context. */
export type KeyAction = ActionId | (typeof CONTEXTS)[Context][number]['id'];

/** The help groups of the contexts with keys of their own, after the groups of the rebindable actions. */
export const CONTEXT_HELP: readonly { group: string; contexts: readonly Context[] }[] = [
  { group: 'Question box', contexts: ['input'] },
  { group: 'Command line', contexts: ['command'] },
  { group: 'Entries', contexts: ['entries', 'confirm'] },
  { group: 'Resume', contexts: ['resume'] },
  { group: 'Find box', contexts: ['find'] },
  { group: 'Sessions filter', contexts: ['filter'] },
];

export type HelpGroup = Group | (typeof CONTEXT_HELP)[number]['group'];
