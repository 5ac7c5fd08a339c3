/**
 * The `?` overlay's rows and docs/keys.md, both generated from the action table and the context rules, with the
 * user's own keys (tests/keymap checks docs/keys.md against the defaults).
 */
import { COMMANDS, type CommandDef, commandHelp } from './commands.js';
import { CONTEXT_HELP, CONTEXTS, type HelpGroup, type Rule } from './contexts.js';
import { buildKeymap, type Keymap } from './keymap.js';
import { prettyKey, spokenKey } from './names.js';

export interface HelpGroupRows {
  group: HelpGroup | typeof COMMANDS_GROUP;
  rows: [string, string][];
}

/** The rebindable actions by group, in table order: [keys as a person reads them, description]. */
function actionGroups(km: Keymap): HelpGroupRows[] {
  const groups: HelpGroupRows[] = [];
  for (const b of km.bindings) {
    let g = groups.find((x) => x.group === b.group);
    if (!g) {
      g = { group: b.group, rows: [] };
      groups.push(g);
    }
    g.rows.push([b.keys.map(prettyKey).join(' ') || '(unbound)', b.description]);
  }
  return groups;
}

/**
 * A context group's rows: [first key name, help text], the other keys named in the text ("Next hit (also C-n)").
 * A rule with only rebindable keys shows the first of them.
 */
function contextRows(km: Keymap, group: string): [string, string][] {
  const out: [string, string][] = [];
  for (const { contexts } of CONTEXT_HELP.filter((c) => c.group === group)) {
    for (const ctx of contexts) {
      for (const r of CONTEXTS[ctx] as readonly Rule[]) {
        if (!r.help) continue;
        // In a text box a key that types (`J`) is text, not the rule: the first key that types nothing is named.
        const via = (r.via ?? []).flatMap((a) =>
          km
            .keysOf(a)
            .filter((k) => !r.notText || !types(k))
            .slice(0, 1),
        );
        const fixed = r.keys ?? [];
        const first = fixed[0] ?? via[0];
        const also =
          fixed.length > 0 ? [...new Set([...fixed.slice(1), ...via])].filter((k) => k !== first) : [];
        const text = also.length > 0 ? `${r.help} (also ${also.map(spokenKey).join(', ')})` : r.help;
        out.push([first ?? '(unbound)', text]);
      }
    }
  }
  return out;
}

/** A key that types a character (a text box takes it as text). */
function types(key: string): boolean {
  return key === 'space' || [...key].length === 1;
}

/** The help group that lists the command line's commands (src/keymap/commands.ts). */
export const COMMANDS_GROUP = 'Commands (after :)';

/** The browser's commands as help rows: [`:name`, argument and help]. */
function commandRows(): [string, string][] {
  return commandHelp('browser').map(([usage, help]) => {
    const [name, ...arg] = usage.split(' ');
    return [name, arg.length > 0 ? `${arg.join(' ')}: ${help}` : help];
  });
}

/** The help overlay's lines: [keys, description] per action, grouped, from the same tables as docs/keys.md. */
export function helpRows(km: Keymap): HelpGroupRows[] {
  const groups = actionGroups(km);
  for (const { group } of CONTEXT_HELP) {
    groups.push({ group, rows: contextRows(km, group).map(([k, d]) => [prettyKey(k), d]) });
  }
  groups.push({ group: COMMANDS_GROUP, rows: commandRows() });
  return groups;
}

/** docs/keys.md, generated from the default table (tests/keymap checks the file has not drifted). */
export function keysMarkdown(km: Keymap = buildKeymap()): string {
  const code = (k: string) => (k === '`' ? '`` ` ``' : `\`${k}\``);
  const lines = [
    '# Keys',
    '',
    '<!-- Generated from src/keymap (actions.ts, contexts.ts); do not edit by hand. tests/keymap/keymap.test.ts fails',
    '     when this file drifts; regenerate with `UPDATE_KEYS_DOC=1 npx vitest run tests/keymap`. -->',
    '',
    'The full-screen browser (`arborist` with no command) is driven by these keys. The `?` overlay shows the',
    'same table, with your own bindings.',
    '',
  ];
  for (const g of actionGroups(km)) {
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
    ...contextRows(km, 'Question box').map(([k, d]) => `| ${code(k)} | ${d} |`),
    '',
    '## Command line',
    '',
    `${km.keysOf('command').map(code).join(', ') || 'The command action (unbound)'} opens a one-line command box that takes the commands of`,
    '`arborist session` (there they start with `/`, here the box is the `:`). Every printable key is text; these keys',
    'are fixed:',
    '',
    '| Keys | What it does |',
    '|---|---|',
    ...contextRows(km, 'Command line').map(([k, d]) => `| ${code(k)} | ${d} |`),
    '',
    'The commands (src/keymap/commands.ts; `/help` in `arborist session` lists the same table):',
    '',
    '| Command | What it does |',
    '|---|---|',
    ...commandHelp('browser').map(
      ([u, d]) => `| \`${u.replace(/\|/g, '\\|')}\` | ${d.replace(/\|/g, '\\|')} |`,
    ),
    ...(COMMANDS as readonly CommandDef[])
      .filter((c) => c.notInBrowser !== undefined)
      .map(
        (c) => `| \`/${c.name}\` | only in \`arborist session\`: ${c.notInBrowser!.replace(/\|/g, '\\|')} |`,
      ),
    '',
    '## Entries',
    '',
    `The entries list (${km.keysOf('entries').map(code).join(', ') || 'unbound'}) and the confirmation it opens take these fixed keys:`,
    '',
    '| Keys | What it does |',
    '|---|---|',
    ...contextRows(km, 'Entries').map(([k, d]) => `| ${code(k)} | ${d} |`),
    '',
    '## Resume',
    '',
    `Resuming a turn in its agent (${km.keysOf('resume').map(code).join(', ') || 'unbound'}) first shows what will be written and run (docs/resume.md); its confirmation takes these fixed keys:`,
    '',
    '| Keys | What it does |',
    '|---|---|',
    ...contextRows(km, 'Resume').map(([k, d]) => `| ${code(k)} | ${d} |`),
    '',
    '## Find box',
    '',
    'While the find box (`/`) is open every printable key is text (so `n` and `q` are letters there); besides',
    `\`find.scope\` (${km.keysOf('find.scope').map(code).join(', ') || 'unbound'}) and \`find.preview\` (${km.keysOf('find.preview').map(code).join(', ') || 'unbound'}), these keys work`,
    'there (the preview scrolls with the keys of `transcript.down` and `transcript.up` that type nothing):',
    '',
    '| Keys | What it does |',
    '|---|---|',
    ...contextRows(km, 'Find box').map(([k, d]) => `| ${code(k)} | ${d} |`),
    '',
    '## Sessions pane',
    '',
    "Each session's row shows its agent's badge (the sources' table in the README; `AR` for arborist: a session",
    'asked here or imported from an arborist export; `?` lists them), its project (the working directory its agent',
    'recorded, shortened from the left; one column for the rows on screen, so that the titles line up), its title',
    "(its label, else its agent's own title, else its first question),",
    `its turns and its age. ${km.keysOf('sessions.group').map(code).join(', ') || 'The sessions.group action (unbound)'} groups the sessions by project under a heading`,
    'each (newest activity first; Left closes one, Right opens it); the filter prompt',
    `(${km.keysOf('sessions.filter').map(code).join(', ') || 'unbound'}) keeps the sessions of an agent or a project and takes these fixed keys:`,
    '',
    '| Keys | What it does |',
    '|---|---|',
    ...contextRows(km, 'Sessions filter').map(([k, d]) => `| ${code(k)} | ${d} |`),
    '',
    "The pane's title says how it is grouped and filtered (`sessions 4 · by project · filter agent:codex`).",
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
