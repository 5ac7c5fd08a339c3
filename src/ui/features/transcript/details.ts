/**
 * What the transcript shows of a turn beyond its stored answer, laid out as lines (pure): its thinking (one dim line
 * saying it is there, or the text when shown), and an open call's whole input, its diff when it is an edit, and its
 * whole result. The details come from the turn's source records (src/import/details.ts, loaded by the runtime,
 * src/ui/runtime/details.ts); every string in them is untrusted and sanitised here before it is laid out.
 */
import type { CallDetail, Edit, Thinking } from '../../../import/details.js';
import { oneLine, sanitize } from '../../../text/sanitize.js';
import { wrap } from '../../../text/width.js';
import type { Piece } from './calls.js';

/** A call's details with its edit as unified diff lines (`+`, `-`, ` `, `@@ …`, `*** …`), made by the runtime. */
export interface ShownCall extends CallDetail {
  diff?: string[];
}

export interface Shown {
  thinking: Thinking[];
  calls: ShownCall[];
}

/** Per turn: its details, null when its records hold none (asked here, an old shard, a source not read), or asked. */
export type DetailsEntry = Shown | null | 'pending';

export type DetailRole =
  | 'tool'
  | 'result'
  | 'error'
  | 'thinking'
  | 'input'
  | 'diffAdd'
  | 'diffDel'
  | 'diffHunk';

export interface DetailLine {
  role: DetailRole;
  text: string;
}

/** Lines of one input value shown before `… N more lines`. */
export const VALUE_LINES = 10;
/** Lines of a result shown before `… N more lines`. */
export const RESULT_LINES = 40;
/** Lines of a diff shown before `… N more lines of the diff`. */
export const DIFF_LINES = 200;
/** Milliseconds of diffing one edit may take in all; its pairs after that show as their old and new text. */
const EDIT_DIFF_MS = 250;
/** A source line longer than this is cut before wrapping: a minified file must not become a thousand lines. */
const LINE_CHARS = 2000;

/** The fields an edit's diff already shows: not repeated as input. */
const EDIT_FIELDS = new Set([
  'old_string',
  'new_string',
  'edits',
  'content',
  'oldText',
  'newText',
  'oldString',
  'newString',
  'input',
  'patch',
]);

/**
 * The details call of each of the answer's calls: the k-th call of a name in the answer is the k-th of that name in
 * the records. When the two count a name differently, order proves nothing: the answer's text is the model's, and a
 * paragraph of its own reading `→ Edit: x` parses as a call, which by order alone took the real Edit's diff and
 * pushed every later Edit's onto the wrong line. Then a call gets the one call of its name whose input holds its
 * argument (`args`, as its line shows it), when exactly one does and no other call of that name shows the same
 * argument; any other keeps the answer's view.
 */
export function alignCalls(
  names: readonly string[],
  calls: readonly ShownCall[],
  args: readonly string[] = [],
): (ShownCall | undefined)[] {
  const byName = new Map<string, ShownCall[]>();
  for (const c of calls) {
    const name = sanitize(c.name || 'tool');
    const list = byName.get(name);
    if (list) list.push(c);
    else byName.set(name, [c]);
  }
  const wanted = new Map<string, number>();
  for (const n of names) wanted.set(n, (wanted.get(n) ?? 0) + 1);
  const taken = new Map<string, number>();
  return names.map((name, i) => {
    const own = byName.get(name);
    if (!own) return undefined;
    if (own.length === wanted.get(name)) {
      const k = taken.get(name) ?? 0;
      taken.set(name, k + 1);
      return own[k];
    }
    const arg = args[i] ?? '';
    if (arg === '' || names.some((n, j) => j !== i && n === name && args[j] === arg)) return undefined;
    const holding = own.filter((c) => holdsArg(c.input, arg));
    return holding.length === 1 ? holding[0] : undefined;
  });
}

/** Whether a call's input has a string (itself, or one of its fields) whose one line starts with a call line's argument. */
function holdsArg(input: unknown, arg: string): boolean {
  const head = arg.replace(/…$/, '');
  const values =
    typeof input === 'string'
      ? [input]
      : input !== null && typeof input === 'object' && !Array.isArray(input)
        ? Object.values(input as Record<string, unknown>)
        : [];
  return values.some((v) => typeof v === 'string' && oneLine(v).replace(/ +/g, ' ').trim().startsWith(head));
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function textLines(s: string): string[] {
  return sanitize(s).replace(/\n+$/, '').split('\n');
}

/**
 * A thinking block's lines, cleaned once: the turn is laid out again at every t and resize, and a block can be
 * megabytes (10 MB took 0.3 s to clean for its line count alone, at each press).
 */
const thoughtLines = new WeakMap<Thinking, string[]>();
function linesOf(b: Thinking): string[] {
  let l = thoughtLines.get(b);
  if (!l) {
    l = textLines(b.text);
    thoughtLines.set(b, l);
  }
  return l;
}

/** Thinking blocks that stood together, as one dim line when hidden (`✻ thinking · 3 lines hidden (t shows)`). */
export function thinkingLines(
  blocks: readonly Thinking[],
  shown: boolean,
  key: string,
  width: number,
): DetailLine[] {
  const readable = blocks.filter((b) => !b.redacted);
  const redacted = blocks.length - readable.length;
  const inner = Math.max(1, width);
  if (!shown || readable.length === 0) {
    const n = readable.reduce((a, b) => a + linesOf(b).length, 0);
    const parts: string[] = [];
    if (readable.length > 1) parts.push(plural(readable.length, 'block'));
    if (readable.length > 0) parts.push(`${plural(n, 'line')} hidden (${key} shows)`);
    if (redacted > 0)
      parts.push(
        readable.length === 0
          ? `redacted: the source kept no readable text${redacted > 1 ? ` (${redacted} blocks)` : ''}`
          : `${redacted} redacted`,
      );
    return wrap(`✻ thinking · ${parts.join(', ')}`, inner).map((text) => ({ role: 'thinking', text }));
  }
  const out: DetailLine[] = [{ role: 'thinking', text: `✻ thinking (${key} hides)` }];
  for (const b of blocks) {
    const lines = b.redacted ? ['(redacted: the source kept no readable text)'] : linesOf(b);
    for (const l of lines)
      for (const w of wrap(l.slice(0, LINE_CHARS), Math.max(1, inner - 2)))
        out.push({ role: 'thinking', text: `  ${w}` });
  }
  return out;
}

/**
 * A diff line wrapped with its mark (`+`, `-`, or the space of a context line) at the start of every row: a row
 * wrapped from an added line read as context without colour (NO_COLOR), its colour being all that said otherwise.
 */
function markedWrap(line: string, width: number): string[] {
  const mark = line[0];
  if (line.length < 2 || (mark !== '+' && mark !== '-' && mark !== ' '))
    return wrap(line.slice(0, LINE_CHARS), width);
  return wrap(line.slice(1, LINE_CHARS), Math.max(1, width - 1)).map((p) => mark + p);
}

/** `lines` under `indent`, wrapped, at most `max` of them and then `… N more lines`. */
function capped(
  out: DetailLine[],
  role: DetailRole,
  lines: readonly string[],
  indent: string,
  width: number,
  max: number,
  what = 'more',
  roleOf?: (l: string) => DetailRole,
  clean: (l: string) => string = (l) => l,
  marked = false,
): void {
  const w = Math.max(1, width - indent.length);
  let used = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = clean(lines[i]);
    const parts = marked ? markedWrap(line, w) : wrap(line.slice(0, LINE_CHARS), w);
    if (used + parts.length > max && used > 0) {
      out.push({
        role: 'result',
        text: `${indent}… ${plural(lines.length - i, 'more line')}${what === 'more' ? '' : ` ${what}`}`,
      });
      return;
    }
    const r = roleOf ? roleOf(line) : role;
    for (const p of parts) out.push({ role: r, text: `${indent}${p}` });
    used += parts.length;
  }
}

/** A value as lines: a string as written, anything else as indented JSON. */
function valueLines(v: unknown): string[] {
  if (typeof v === 'string') return textLines(v);
  try {
    return textLines(JSON.stringify(v, null, 2) ?? String(v));
  } catch {
    // Records parse at any depth, but stringify (and an array's String()) recurse: a hostile input overflowed the
    // stack here, inside the layout, and the loader then blanked the details of every turn queued with it.
    return ['(a value nested too deeply to show)'];
  }
}

/** The input's fields, the one the answer's line shows first, the rest in their order; an edit's text left to its diff. */
function inputLines(out: DetailLine[], d: ShownCall, arg: string, width: number): void {
  const input = d.input;
  const edit = d.diff !== undefined;
  if (input === undefined || input === null || input === '') return;
  if (typeof input !== 'object' || Array.isArray(input)) {
    if (!edit) capped(out, 'input', valueLines(input), '  ', width, VALUE_LINES);
    return;
  }
  const entries = Object.entries(input as Record<string, unknown>).filter(
    ([k]) =>
      !(edit && (EDIT_FIELDS.has(k) || (d.edit?.kind === 'patch' && (k === 'command' || k === 'cmd')))),
  );
  const head = arg.replace(/…$/, '');
  const key =
    head === '' ? -1 : entries.findIndex(([, v]) => typeof v === 'string' && oneLine(v).startsWith(head));
  if (key > 0) entries.unshift(...entries.splice(key, 1));
  for (const [k, v] of entries) {
    const lines = valueLines(v);
    const name = sanitize(k);
    if (lines.length === 1 && lines[0].length + name.length + 2 <= LINE_CHARS) {
      capped(out, 'input', [`${name}: ${lines[0]}`], '  ', width, VALUE_LINES);
    } else {
      out.push({ role: 'input', text: `  ${name}:` });
      capped(out, 'input', lines, '    ', width, VALUE_LINES);
    }
  }
}

function diffRole(l: string): DetailRole {
  if (l.startsWith('@@') || l.startsWith('***')) return 'diffHunk';
  if (l.startsWith('+')) return 'diffAdd';
  if (l.startsWith('-')) return 'diffDel';
  return 'input';
}

/**
 * An open call with its details: the call's line, its input (the key argument first, long values capped), its diff
 * when it is an edit (coloured by role; the `+`/`-` marks keep the meaning without colour), then its whole result
 * (capped). The call's own line is the caller's (it carries the call's index).
 */
export function openCallLines(
  p: Extract<Piece, { kind: 'call' }>,
  d: ShownCall,
  width: number,
): DetailLine[] {
  const out: DetailLine[] = [];
  inputLines(out, d, p.arg, width);
  if (d.diff) {
    // Each line cleaned as it is shown: the layout runs again at every t and resize, and a written file's diff
    // can be a million lines of which DIFF_LINES show.
    capped(out, 'input', d.diff, '  ', width, DIFF_LINES, 'of the diff', diffRole, sanitize, true);
  }
  const r = d.result;
  if (!r) {
    out.push({ role: 'result', text: '  ⎿ (no result in the records)' });
    return out;
  }
  const lines = textLines(r.text);
  if (lines.length === 1 && lines[0] === '') {
    out.push({ role: r.error ? 'error' : 'result', text: `  ⎿ ${r.error ? 'error, ' : ''}(empty result)` });
    return out;
  }
  out.push({
    role: r.error ? 'error' : 'result',
    text: `  ⎿ ${r.error ? 'error · ' : ''}result · ${plural(lines.length, 'line')}`,
  });
  capped(out, 'result', lines, '    ', width, RESULT_LINES);
  return out;
}

/** A unified diff's hunks, as jsdiff's structuredPatch gives them (only what is used here). */
export type StructuredPatch = (
  oldName: string,
  newName: string,
  oldStr: string,
  newStr: string,
  oldHeader: undefined,
  newHeader: undefined,
  options: { context: number },
) =>
  | { hunks: { oldStart: number; oldLines: number; newStart: number; newLines: number; lines: string[] }[] }
  | undefined;

/**
 * An edit as diff lines. A replacement is diffed old -> new (its hunk numbers count lines of the replaced text, not
 * of the file, which the records do not hold); a written file is all added lines; a patch is already one.
 */
export function diffLines(edit: Edit, patch: StructuredPatch): string[] {
  if (edit.kind === 'patch') return edit.patch.split('\n');
  if (edit.kind === 'write') {
    const lines = edit.content.replace(/\n$/, '').split('\n');
    return [
      `@@ ${edit.file || 'file'} written: ${plural(lines.length, 'line')} @@`,
      ...lines.map((l) => `+${l}`),
    ];
  }
  const out: string[] = [];
  const start = performance.now();
  edit.pairs.forEach((pair, i) => {
    if (edit.pairs.length > 1) out.push(`@@ edit ${i + 1} of ${edit.pairs.length} @@`);
    const nl = (s: string) => (s === '' || s.endsWith('\n') ? s : `${s}\n`);
    // One budget for the whole edit: jsdiff's own timeout is per pair, and a MultiEdit of 200 pairs it gives up
    // on held the event loop (the browser) for 20 s.
    const diff =
      performance.now() - start < EDIT_DIFF_MS
        ? patch(edit.file, edit.file, nl(pair.old), nl(pair.new), undefined, undefined, { context: 3 })
        : undefined;
    // No diff (it gave up on a huge pair, or the budget is spent): the old text deleted and the new added, which still says what changed.
    if (!diff) {
      for (const l of pair.old === '' ? [] : nl(pair.old).slice(0, -1).split('\n')) out.push(`-${l}`);
      for (const l of pair.new === '' ? [] : nl(pair.new).slice(0, -1).split('\n')) out.push(`+${l}`);
      return;
    }
    for (const h of diff.hunks) {
      // An empty side is numbered from the line before it, as unified diffs write it (and jsdiff's formatPatch).
      const from = (start: number, n: number) => (n === 0 ? start - 1 : start);
      out.push(
        `@@ -${from(h.oldStart, h.oldLines)},${h.oldLines} +${from(h.newStart, h.newLines)},${h.newLines} @@`,
      );
      for (const l of h.lines) if (!l.startsWith('\\')) out.push(l);
    }
  });
  return out;
}
