/**
 * The key map is data: one table of actions (id, default keys, description). The TUI dispatches on action ids; the
 * `?` overlay and docs/keys.md are generated from this same table; a user's `$ARBORIST_HOME/keys.json` replaces
 * the keys of the actions it names (gitui-style, field by field). No I/O and no terminal here.
 *
 * Key names are blessed's: a printable character as itself (`j`, `J`, `?`, `[`), or a named key (`up`, `pageup`,
 * `tab`, `enter`, `escape`, `space`, `backspace`, `f1`...) with optional `C-`, `M-`, `S-` prefixes (`C-c`, `S-tab`).
 */

export type ActionId =
  | 'move.down'
  | 'move.up'
  | 'tree.left'
  | 'tree.right'
  | 'page.down'
  | 'page.up'
  | 'move.first'
  | 'move.last'
  | 'branch.prev'
  | 'branch.next'
  | 'pane.switch'
  | 'transcript.down'
  | 'transcript.up'
  | 'select'
  | 'ask'
  | 'fork'
  | 'branches'
  | 'chain.check'
  | 'help'
  | 'close'
  | 'quit'
  | 'demo'
  | 'archived'
  | 'entries'
  | 'restore'
  | 'find'
  | 'find.next'
  | 'find.prev'
  | 'find.scope';

export interface ActionDef {
  id: ActionId;
  group: 'Move' | 'Panes' | 'Turns' | 'Find' | 'Shard' | 'Screen';
  keys: readonly string[];
  description: string;
}

export const ACTIONS: readonly ActionDef[] = [
  {
    id: 'move.down',
    group: 'Move',
    keys: ['down', 'j'],
    description: 'Next row (in the transcript: scroll down)',
  },
  {
    id: 'move.up',
    group: 'Move',
    keys: ['up', 'k'],
    description: 'Previous row (in the transcript: scroll up)',
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
    id: 'select',
    group: 'Panes',
    keys: ['enter', 'space'],
    description: 'Expand or collapse; in a list, go to the item',
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
    id: 'chain.check',
    group: 'Shard',
    keys: ['c'],
    description: 'Check the whole audit chain now (with progress)',
  },
  { id: 'demo', group: 'Shard', keys: ['d'], description: 'On an empty shard: load the demo sessions' },
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
    id: 'restore',
    group: 'Shard',
    keys: ['R'],
    description: 'Restore the selected archived session (after a confirmation)',
  },
  { id: 'help', group: 'Screen', keys: ['?'], description: 'This help' },
  {
    id: 'close',
    group: 'Screen',
    keys: ['escape'],
    description: 'Close the overlay; cancel a running question',
  },
  { id: 'quit', group: 'Screen', keys: ['q', 'C-c'], description: 'Quit' },
];

/** Keys of the question box; fixed (typing must reach the text), listed in the help and docs. */
export const INPUT_KEYS: readonly [string, string][] = [
  ['enter', 'Ask the question'],
  ['escape', 'Cancel'],
  ['backspace', 'Delete the character before the cursor'],
  ['C-u', 'Clear the line'],
  ['C-w', 'Delete the word before the cursor'],
];

/** Keys of the entries list (`entries`) and of a confirmation; fixed, listed in the help and docs. */
export const ENTRIES_KEYS: readonly [string, string][] = [
  ['r', 'Entries list: reset the selected entry (it moves to a new, empty session)'],
  ['x', 'Entries list: delete the selected entry (also Delete)'],
  ['enter', "Entries list: go to the entry's current session"],
  ['y', 'Confirmation: do it (also Enter)'],
  ['n', 'Confirmation: cancel, nothing is written (also Esc)'],
];

/** Keys of the find box (`/`); fixed like the question box's, besides the rebindable scope toggle (find.scope). */
export const FIND_KEYS: readonly [string, string][] = [
  ['down', 'Next hit (also C-n)'],
  ['up', 'Previous hit (also C-p)'],
  ['enter', 'Go to the selected hit: its session opens, the turn is selected, ready for a question'],
  ['escape', 'Close, back to where you were'],
  ['backspace', 'Delete the character before the cursor'],
  ['C-u', 'Clear the line'],
  ['C-w', 'Delete the word before the cursor'],
];

const NAMED = new Set([
  'up',
  'down',
  'left',
  'right',
  'pageup',
  'pagedown',
  'home',
  'end',
  'insert',
  'delete',
  'tab',
  'enter',
  'escape',
  'space',
  'backspace',
  ...Array.from({ length: 12 }, (_, i) => `f${i + 1}`),
]);

/** True for a key name blessed can report (see the module comment). */
export function isValidKey(key: string): boolean {
  if (typeof key !== 'string' || key === '') return false;
  const chars = [...key];
  if (chars.length === 1)
    return /^[\x21-\x7e]$/u.test(key) || (key.codePointAt(0)! > 0xa0 && !/\s/u.test(key));
  const m = /^((?:[CMS]-)*)(.+)$/.exec(key)!;
  const mods = m[1];
  const base = m[2];
  if (mods !== '' && new Set(mods.match(/[CMS]/g)).size !== mods.length / 2) return false;
  if (NAMED.has(base)) return true;
  // C-x and M-x with a letter/digit (S- with a printable char is just the char: `J`, not `S-j`).
  return mods !== '' && !mods.includes('S') && /^[a-z0-9]$/.test(base);
}

export class KeymapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeymapError';
  }
}

export interface Binding {
  id: ActionId;
  group: ActionDef['group'];
  keys: string[];
  description: string;
}

export interface Keymap {
  bindings: Binding[];
  /** key name -> action */
  byKey: Map<string, ActionId>;
  keysOf(id: ActionId): string[];
}

/**
 * Builds the key map: the defaults, with each action named in `overrides` taking the keys given there (a string
 * or a list of strings). An unknown action, an invalid key, or a key bound to two actions is refused with a
 * one-line reason (KeymapError).
 */
export function buildKeymap(overrides: unknown = {}, source = 'keys.json'): Keymap {
  if (overrides === null || typeof overrides !== 'object' || Array.isArray(overrides)) {
    throw new KeymapError(`${source}: expected an object mapping action ids to keys`);
  }
  const known = new Map(ACTIONS.map((a) => [a.id as string, a]));
  const given = overrides as Record<string, unknown>;
  for (const [id, v] of Object.entries(given)) {
    if (!known.has(id)) {
      throw new KeymapError(
        `${source}: unknown action '${id}' (known: ${ACTIONS.map((a) => a.id).join(', ')})`,
      );
    }
    const list = typeof v === 'string' ? [v] : v;
    if (!Array.isArray(list) || list.some((k) => typeof k !== 'string')) {
      throw new KeymapError(`${source}: keys of '${id}' must be a key name or a list of key names`);
    }
    for (const k of list as string[]) {
      if (!isValidKey(k)) throw new KeymapError(`${source}: '${k}' (for ${id}) is not a key name`);
    }
  }
  const bindings: Binding[] = ACTIONS.map((a) => {
    const o = given[a.id];
    const keys = o === undefined ? [...a.keys] : [...new Set(typeof o === 'string' ? [o] : (o as string[]))];
    return { id: a.id, group: a.group, keys, description: a.description };
  });
  const byKey = new Map<string, ActionId>();
  for (const b of bindings) {
    for (const k of b.keys) {
      const other = byKey.get(k);
      if (other !== undefined) {
        throw new KeymapError(`${source}: key '${k}' is bound to both ${other} and ${b.id}`);
      }
      byKey.set(k, b.id);
    }
  }
  const quit = bindings.find((b) => b.id === 'quit')!;
  if (quit.keys.length === 0) throw new KeymapError(`${source}: quit must keep at least one key`);
  return {
    bindings,
    byKey,
    keysOf: (id) => bindings.find((b) => b.id === id)?.keys ?? [],
  };
}

/** Parses keys.json text; a syntax error is one line too. */
export function parseKeysJson(text: string, source = 'keys.json'): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new KeymapError(`${source}: not valid JSON (${(err as Error).message.split('\n')[0]})`);
  }
}

const PRETTY: Record<string, string> = {
  up: '↑',
  down: '↓',
  left: '←',
  right: '→',
  pageup: 'PgUp',
  pagedown: 'PgDn',
  home: 'Home',
  end: 'End',
  tab: 'Tab',
  enter: 'Enter',
  escape: 'Esc',
  space: 'Space',
  backspace: 'Backspace',
  insert: 'Ins',
  delete: 'Del',
};

/** A key as a person reads it: `↑`, `PgDn`, `Ctrl-C`, `Shift-Tab`. */
export function prettyKey(key: string): string {
  if ([...key].length === 1) return key;
  const m = /^((?:[CMS]-)*)(.+)$/.exec(key)!;
  const base = PRETTY[m[2]] ?? (/^f\d+$/.test(m[2]) ? m[2].toUpperCase() : m[2].toUpperCase());
  const mods = (m[1].match(/[CMS]/g) ?? []).map((c) => ({ C: 'Ctrl-', M: 'Alt-', S: 'Shift-' })[c]!);
  return mods.join('') + base;
}

/** The help overlay's lines: [keys, description] per action, grouped, from the same table as docs/keys.md. */
export function helpRows(km: Keymap): { group: string; rows: [string, string][] }[] {
  const groups: { group: string; rows: [string, string][] }[] = [];
  for (const b of km.bindings) {
    let g = groups.find((x) => x.group === b.group);
    if (!g) {
      g = { group: b.group, rows: [] };
      groups.push(g);
    }
    g.rows.push([b.keys.map(prettyKey).join(' ') || '(unbound)', b.description]);
  }
  groups.push({ group: 'Question box', rows: INPUT_KEYS.map(([k, d]) => [prettyKey(k), d]) });
  groups.push({ group: 'Entries', rows: ENTRIES_KEYS.map(([k, d]) => [prettyKey(k), d]) });
  groups.push({ group: 'Find box', rows: FIND_KEYS.map(([k, d]) => [prettyKey(k), d]) });
  return groups;
}

/** docs/keys.md, generated from the default table (tests/keymap checks the file has not drifted). */
export function keysMarkdown(km: Keymap = buildKeymap()): string {
  const code = (k: string) => (k === '`' ? '`` ` ``' : `\`${k}\``);
  const lines = [
    '# Keys',
    '',
    '<!-- Generated from src/keymap/index.ts; do not edit by hand. tests/keymap/keymap.test.ts fails when this',
    '     file drifts; regenerate with `UPDATE_KEYS_DOC=1 npx vitest run tests/keymap`. -->',
    '',
    'The full-screen browser (`arborist` with no command) is driven by these keys. The `?` overlay shows the',
    'same table, with your own bindings.',
    '',
  ];
  for (const g of helpRows(km)) {
    if (g.group === 'Question box' || g.group === 'Find box' || g.group === 'Entries') continue;
    lines.push(`## ${g.group}`, '', '| Action | Keys | What it does |', '|---|---|---|');
    for (const b of km.bindings.filter((x) => x.group === g.group)) {
      lines.push(`| \`${b.id}\` | ${b.keys.map(code).join(', ')} | ${b.description.replace(/\|/g, '\\|')} |`);
    }
    lines.push('');
  }
  lines.push(
    '## Question box',
    '',
    'While typing a question (`ask`, `fork`) every printable key is text; these keys are fixed:',
    '',
    '| Keys | What it does |',
    '|---|---|',
    ...INPUT_KEYS.map(([k, d]) => `| ${code(k)} | ${d} |`),
    '',
    '## Entries',
    '',
    `The entries list (${km.keysOf('entries').map(code).join(', ') || 'unbound'}) and the confirmation it opens take these fixed keys:`,
    '',
    '| Keys | What it does |',
    '|---|---|',
    ...ENTRIES_KEYS.map(([k, d]) => `| ${code(k)} | ${d} |`),
    '',
    '## Find box',
    '',
    'While the find box (`/`) is open every printable key is text (so `n` and `q` are letters there); besides',
    `\`find.scope\` (${km.keysOf('find.scope').map(code).join(', ') || 'unbound'}), these keys are fixed:`,
    '',
    '| Keys | What it does |',
    '|---|---|',
    ...FIND_KEYS.map(([k, d]) => `| ${code(k)} | ${d} |`),
    '',
    '## Rebinding',
    '',
    'Put a JSON object in `$ARBORIST_HOME/keys.json` (default `~/.arborist/keys.json`) mapping action ids to a key',
    'or a list of keys. An action you name takes exactly the keys you give; the others keep their defaults:',
    '',
    '```json',
    '{ "move.down": ["down", "j", "C-n"], "move.up": ["up", "k", "C-p"], "quit": "q" }',
    '```',
    '',
    'Key names: a printable character as itself (`j`, `J`, `?`, `[`), or a named key (`up`, `down`, `left`,',
    '`right`, `pageup`, `pagedown`, `home`, `end`, `tab`, `enter`, `escape`, `space`, `backspace`, `insert`,',
    '`delete`, `f1`..`f12`) with optional `C-` (Ctrl), `M-` (Alt) or `S-` (Shift) prefixes: `C-c`, `S-tab`, `M-x`.',
    '',
    'arborist refuses to start (exit code 2, one line on stderr) when the file names an unknown action, uses a key',
    'name it does not know, binds one key to two actions, or leaves `quit` without a key.',
    '',
  );
  return lines.join('\n');
}
