import { closest } from '../text/suggest.js';
/**
 * The commands of the line-mode REPL (`arborist session`: `/cd BATES`) and of the browser's command line (`:cd
 * BATES`), declared once: name, argument, one line of help. Both parse a line with parseCommandLine, complete it
 * with completeLine and list the commands with commandHelp, so the two cannot drift apart. Pure data and string
 * functions: no terminal, no shard (the candidates for completion are handed in).
 */

/**
 * What a command takes: nothing; a turn (a Bates id, a turn number of the current session, a session id or label,
 * or `..`), required or optional; or free text.
 */
export type ArgKind = 'none' | 'target' | 'target?' | 'query';

export interface CommandDef {
  name: string;
  aliases?: readonly string[];
  arg: ArgKind;
  /** How the argument is written in usage lines. */
  argText?: string;
  help: string;
  /** Set when the browser cannot run the command: what to do instead. */
  notInBrowser?: string;
}

export const COMMANDS = [
  {
    name: 'cd',
    arg: 'target',
    argText: '<bates|seq|label>',
    help: 'go to a turn: a Bates id, a turn number here, a session (its newest turn) or .. (the parent); questions go on from it',
  },
  {
    name: 'find',
    arg: 'query',
    argText: 'QUERY',
    help: 'find turns of every session, typos forgiven: [bates] audit question',
  },
  {
    name: 'branches',
    arg: 'target?',
    argText: '[bates|sid]',
    help: "the session's branch points (turns with two or more children)",
  },
  { name: 'tree', arg: 'target?', argText: '[bates|sid]', help: "the session's turns as a tree" },
  { name: 'list', arg: 'none', help: 'the sessions' },
  {
    name: 'path',
    arg: 'target?',
    argText: '[bates]',
    help: 'the turns from the root down to the current turn, across sessions',
  },
  {
    name: 'show',
    arg: 'target?',
    argText: '[bates]',
    help: 'a turn with every field (default: the current one)',
  },
  { name: 'chain-check', arg: 'none', help: 'check the whole audit chain' },
  {
    name: 'export',
    arg: 'target?',
    argText: '[bates]',
    help: 'the path down to the current turn as markdown, on stdout',
    notInBrowser:
      'the browser has no stdout to print to: run `arborist export BATES` (--out FILE writes a file)',
  },
  { name: 'help', aliases: ['h', '?'], arg: 'none', help: 'these commands' },
  { name: 'quit', aliases: ['q', 'exit'], arg: 'none', help: 'leave' },
] as const satisfies readonly CommandDef[];

export type CommandName = (typeof COMMANDS)[number]['name'];

/** Where a line is typed: the REPL (commands start with `/`, other lines are questions) or the browser's `:` line. */
export type CommandMode = 'repl' | 'browser';

/** The character that starts a command in each mode, as help and completion write it. */
export function commandPrefix(mode: CommandMode): string {
  return mode === 'repl' ? '/' : ':';
}

export type ParsedLine =
  | { kind: 'empty' }
  /** REPL only: a question (a line that is not a command; `//x` asks `/x`). */
  | { kind: 'question'; text: string }
  | { kind: 'command'; name: CommandName; def: CommandDef; arg: string }
  | { kind: 'unknown'; name: string }
  /** A known command used wrongly (a missing or an extra argument): `message` says how to use it. */
  | { kind: 'bad'; name: CommandName; message: string };

/** A command by name or alias (any case). */
export function findCommand(name: string): CommandDef | undefined {
  const n = name.toLowerCase();
  return (COMMANDS as readonly CommandDef[]).find((c) => c.name === n || c.aliases?.includes(n));
}

/** `/cd <bates|seq|label>`: a command as its usage line writes it. */
export function usageOf(def: CommandDef, mode: CommandMode): string {
  return `${commandPrefix(mode)}${def.name}${def.argText ? ` ${def.argText}` : ''}`;
}

/**
 * Reads one line. In the REPL a command starts with `/` and any other line is a question (`//x` is the question
 * `/x`); in the browser every line is a command (a leading `:` or `/` typed out of habit is allowed).
 */
export function parseCommandLine(line: string, mode: CommandMode): ParsedLine {
  let t = line.trim();
  if (t === '') return { kind: 'empty' };
  if (mode === 'repl') {
    if (!t.startsWith('/')) return { kind: 'question', text: t };
    if (t.startsWith('//')) return { kind: 'question', text: t.slice(1) };
    t = t.slice(1);
  } else if (t.startsWith(':') || t.startsWith('/')) t = t.slice(1);
  const m = /^(\S*)\s*([\s\S]*)$/.exec(t)!;
  const name = m[1];
  const arg = m[2].trim();
  const def = findCommand(name);
  if (!def) return { kind: 'unknown', name };
  const cname = def.name as CommandName;
  const usage = `usage: ${usageOf(def, mode)}`;
  if (def.arg === 'none' && arg !== '')
    return { kind: 'bad', name: cname, message: `${usageOf(def, mode)} takes no argument` };
  if ((def.arg === 'target' || def.arg === 'query') && arg === '')
    return { kind: 'bad', name: cname, message: usage };
  if ((def.arg === 'target' || def.arg === 'target?') && /\s/.test(arg))
    return { kind: 'bad', name: cname, message: `${usage} (one id)` };
  return { kind: 'command', name: cname, def, arg };
}

/** One line saying a command is not known, naming the way to the list. */
export function unknownCommand(name: string, mode: CommandMode): string {
  const p = commandPrefix(mode);
  const names = (COMMANDS as readonly CommandDef[])
    .filter((c) => mode === 'repl' || c.notInBrowser === undefined)
    .map((c) => c.name);
  const near = closest(name, names);
  return `unknown command '${p}${name}' (${near === undefined ? '' : `did you mean ${p}${near}? `}${p}help lists the commands)`;
}

/** The commands a mode can run, as [usage, help] rows, in table order: the REPL's /help and the browser's help. */
export function commandHelp(mode: CommandMode): [string, string][] {
  return (COMMANDS as readonly CommandDef[])
    .filter((c) => mode === 'repl' || c.notInBrowser === undefined)
    .map((c) => [usageOf(c, mode), c.help]);
}

// ---- completion ------------------------------------------------------------------------------------------------

/** What completion may offer, from whoever holds the data (the REPL's shard, the browser's view state). */
export interface CompletionSource {
  /** Sessions by id and label. */
  sessions(): readonly { sid: string; label: string | null }[];
  /** The Bates ids of a session's turns, or null when they are not at hand (the browser has not loaded them). */
  turns(sid: string): readonly string[] | null;
}

export interface Completion {
  /** Where the completed word starts in the line. */
  start: number;
  /** The word as typed. */
  word: string;
  /** Every candidate that starts with the word, sorted. */
  matches: string[];
  /** What the word becomes: the one match, or the longest prefix all matches share (the word itself if none). */
  replacement: string;
  /** A session whose turns completion needed but the source did not have (the browser loads them). */
  wanted?: string;
}

/** The candidates that start with `word`, and the longest prefix they share. */
export function complete(word: string, candidates: Iterable<string>): { matches: string[]; common: string } {
  const matches = [...new Set([...candidates].filter((c) => c.startsWith(word)))].sort();
  if (matches.length === 0) return { matches, common: word };
  let common = matches[0];
  for (const m of matches) {
    let i = 0;
    while (i < common.length && i < m.length && common[i] === m[i]) i++;
    common = common.slice(0, i);
  }
  return { matches, common: common.length >= word.length ? common : word };
}

/** A label worth offering: one word of printable text (a label with spaces or controls is typed, never completed). */
const COMPLETABLE = /^[\p{L}\p{N}._+@#-]{1,64}$/u;

/**
 * Completes the word before the end of `line` (the part up to the cursor): a command name, or a command's
 * argument. A target completes to session ids (as `<sid>-`, so the next Tab goes on into its turns), labels
 * and `..`; a word with a `-` completes to the Bates ids of that session.
 */
export function completeLine(line: string, mode: CommandMode, src: CompletionSource): Completion {
  const none = (start: number, word: string): Completion => ({ start, word, matches: [], replacement: word });
  const lead = line.length - line.trimStart().length;
  const body = line.slice(lead);
  let prefix = '';
  if (mode === 'repl') {
    if (!body.startsWith('/') || body.startsWith('//')) return none(line.length, '');
    prefix = '/';
  } else if (body.startsWith(':') || body.startsWith('/')) prefix = body[0];
  const rest = body.slice(prefix.length);
  const sp = rest.search(/\s/);
  if (sp < 0) {
    // The command name itself: a command that takes an argument completes with the space after it.
    const names = (COMMANDS as readonly CommandDef[])
      .filter((c) => mode === 'repl' || c.notInBrowser === undefined)
      .map((c) => `${prefix}${c.name}${c.arg === 'none' ? '' : ' '}`);
    const word = body;
    const { matches, common } = complete(word, names);
    return { start: lead, word, matches, replacement: matches.length === 1 ? matches[0] : common };
  }
  const def = findCommand(rest.slice(0, sp));
  const argStart = line.length - rest.slice(sp).trimStart().length;
  const word = line.slice(argStart);
  if (!def || (def.arg !== 'target' && def.arg !== 'target?') || /\s/.test(word))
    return none(line.length, word);
  let candidates: string[];
  let wanted: string | undefined;
  const dash = word.indexOf('-');
  const sessions = src.sessions();
  if (dash > 0 && sessions.some((s) => s.sid === word.slice(0, dash))) {
    const sid = word.slice(0, dash);
    const turns = src.turns(sid);
    if (turns === null) wanted = sid;
    candidates = [...(turns ?? [])];
  } else {
    candidates = ['..'];
    for (const s of sessions) {
      candidates.push(`${s.sid}-`);
      if (s.label && COMPLETABLE.test(s.label)) candidates.push(s.label);
    }
  }
  const { matches, common } = complete(word, candidates);
  const c: Completion = {
    start: argStart,
    word,
    matches,
    replacement: matches.length === 1 ? matches[0] : common,
  };
  if (wanted !== undefined) c.wanted = wanted;
  return c;
}
