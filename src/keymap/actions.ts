/**
 * The rebindable actions, declared once: id, help group, default keys, description. ActionId is derived from this
 * table; a user's keys.json may rebind any of these (src/keymap/keymap.ts), and the help and docs/keys.md list
 * them in this order (src/keymap/help.ts).
 */

export type Group = 'Move' | 'Panes' | 'Turns' | 'Find' | 'Shard' | 'Screen';

export interface ActionDef {
  id: string;
  group: Group;
  keys: readonly string[];
  description: string;
}

export const ACTIONS = [
  {
    id: 'move.down',
    group: 'Move',
    keys: ['down', 'j'],
    description: 'Next row (in the transcript: scroll down; at its end, highlight the next tool call)',
  },
  {
    id: 'move.up',
    group: 'Move',
    keys: ['up', 'k'],
    description:
      'Previous row (in the transcript: scroll up, or first move the highlight back up the tool calls)',
  },
  {
    id: 'tree.left',
    group: 'Move',
    keys: ['left', 'h'],
    description: 'Collapse, or go to the parent (following a parent in another session)',
  },
  {
    id: 'tree.right',
    group: 'Move',
    keys: ['right', 'l'],
    description: 'Expand, or go to the first child; on a ↳ link, go to that turn in its own session',
  },
  { id: 'page.down', group: 'Move', keys: ['pagedown', 'C-f'], description: 'One page down' },
  { id: 'page.up', group: 'Move', keys: ['pageup', 'C-b'], description: 'One page up' },
  { id: 'move.first', group: 'Move', keys: ['home', 'g'], description: 'First row (transcript: its start)' },
  { id: 'move.last', group: 'Move', keys: ['end', 'G'], description: 'Last row (transcript: its end)' },
  {
    id: 'branch.prev',
    group: 'Move',
    keys: ['['],
    description: 'Previous branch point (a turn with 2+ children)',
  },
  { id: 'branch.next', group: 'Move', keys: [']'], description: 'Next branch point' },
  {
    id: 'pane.switch',
    group: 'Panes',
    keys: ['tab', 'S-tab'],
    description: 'Switch between the tree and the transcript',
  },
  {
    id: 'transcript.down',
    group: 'Panes',
    keys: ['J', 'S-down'],
    description: 'Scroll the transcript down from anywhere',
  },
  {
    id: 'transcript.up',
    group: 'Panes',
    keys: ['K', 'S-up'],
    description: 'Scroll the transcript up from anywhere',
  },
  {
    id: 'tools.toggle',
    group: 'Panes',
    keys: ['o'],
    description:
      "Open or fold the highlighted tool call, the one nearest the top of the transcript (at its end, j/k move the highlight): a folded call is one line, its tool, argument, its result's first line and size (in a narrow pane the argument first, the first line in what room is left)",
  },
  {
    id: 'tools.all',
    group: 'Panes',
    keys: ['O'],
    description:
      "Open or fold all the tool calls of that call's turn (of the selected turn when none is on screen)",
  },
  {
    id: 'thinking.toggle',
    group: 'Panes',
    keys: ['t'],
    description: "Show or hide every turn's thinking (reasoning)",
  },
  {
    id: 'select',
    group: 'Panes',
    keys: ['enter', 'space'],
    description: 'Expand or collapse; in a list, go to the item',
  },
  {
    id: 'sessions.group',
    group: 'Panes',
    keys: ['P'],
    description:
      'Group the sessions by project (a heading per project, newest activity first; Left/Right close and open one), or not',
  },
  {
    id: 'sessions.filter',
    group: 'Panes',
    keys: ['F'],
    description:
      'Filter the sessions by agent or project (agent:codex, project:NAME, or a word for either; Tab completes; empty clears)',
  },
  {
    id: 'ask',
    group: 'Turns',
    keys: ['a'],
    description: 'Ask a follow-up under the selected turn (a new branch when it already has children)',
  },
  {
    id: 'fork',
    group: 'Turns',
    keys: ['f'],
    description: 'Fork: ask in a NEW session whose first turn hangs under the selected turn',
  },
  { id: 'branches', group: 'Turns', keys: ['b'], description: "List the session's branch points" },
  {
    id: 'resume',
    group: 'Turns',
    keys: ['r'],
    description:
      'Resume in its agent: continue from the selected turn in the agent it came from (Claude Code, Codex, Copilot, Pi, aider; after a confirmation)',
  },
  {
    id: 'find',
    group: 'Find',
    keys: ['/'],
    description: 'Find any turn of any session as you type (typos forgiven); Enter goes there',
  },
  { id: 'find.next', group: 'Find', keys: ['n'], description: 'Go to the next hit of the last find' },
  { id: 'find.prev', group: 'Find', keys: ['N'], description: 'Go to the previous hit of the last find' },
  {
    id: 'find.scope',
    group: 'Find',
    keys: ['C-s'],
    description: 'In the find box: all sessions, or only the session you were in',
  },
  {
    id: 'find.preview',
    group: 'Find',
    keys: ['C-o'],
    description:
      "In the find box: show or hide the selected hit's preview (beside the hits from 110 columns, else under them)",
  },
  {
    id: 'chain.check',
    group: 'Shard',
    keys: ['c'],
    description: 'Check the whole audit chain now (with progress)',
  },
  {
    id: 'demo',
    group: 'Shard',
    keys: ['d'],
    description: "On an empty shard: open the demo's own shard (yours stays empty)",
  },
  {
    id: 'import',
    group: 'Shard',
    keys: ['i'],
    description:
      'On an empty shard: import every agent history found on this machine (the sources in the README)',
  },
  {
    id: 'archived',
    group: 'Shard',
    keys: ['A'],
    description: 'Show or hide archived sessions (after the live ones, marked, read-only)',
  },
  {
    id: 'entries',
    group: 'Shard',
    keys: ['E'],
    description: 'Entries: reset or delete one, after a preview of what is archived and kept, and why',
  },
  {
    id: 'sync',
    group: 'Shard',
    keys: ['S'],
    description:
      "Sync with your git remotes (arborist sync): push this host's new turns, pull the other hosts' (progress in the status bar)",
  },
  {
    id: 'restore',
    group: 'Shard',
    keys: ['R'],
    description: 'Restore the selected archived session (after a confirmation)',
  },
  {
    id: 'command',
    group: 'Screen',
    keys: [':'],
    description:
      'Command line: the commands of `arborist session` (:cd BATES, :find QUERY, :branches, ...; listed below), Tab completes',
  },
  { id: 'help', group: 'Screen', keys: ['?'], description: 'This help' },
  {
    id: 'close',
    group: 'Screen',
    keys: ['escape'],
    description: 'Close the overlay; cancel a running question',
  },
  { id: 'quit', group: 'Screen', keys: ['q', 'C-c'], description: 'Quit' },
] as const satisfies readonly ActionDef[];

export type ActionId = (typeof ACTIONS)[number]['id'];

export const ACTION_IDS: readonly ActionId[] = ACTIONS.map((a) => a.id);

/** The first key of each action as a person reads it, for messages ("Press d to load a demo"). */
export type KeyNames = Partial<Record<ActionId, string>>;
