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
 * The details call of each of the answer's calls: in order, by name (the readers give the answer's names), so a
 * call the records do not show (or a reader that counted differently) leaves its call as the answer has it.
 */
export function alignCalls(names: readonly string[], calls: readonly ShownCall[]): (ShownCall | undefined)[] {
  const out: (ShownCall | undefined)[] = [];
  let j = 0;
  for (const name of names) {
    let k = j;
    while (k < calls.length && sanitize(calls[k].name || 'tool') !== name) k++;
    if (k < calls.length) {
      out.push(calls[k]);
      j = k + 1;
    } else out.push(undefined);
  }
  return out;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function textLines(s: string): string[] {
  return sanitize(s).replace(/\n+$/, '').split('\n');
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
    const n = readable.reduce((a, b) => a + textLines(b.text).length, 0);
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
    const lines = b.redacted ? ['(redacted: the source kept no readable text)'] : textLines(b.text);
    for (const l of lines)
      for (const w of wrap(l.slice(0, LINE_CHARS), Math.max(1, inner - 2)))
        out.push({ role: 'thinking', text: `  ${w}` });
  }
  return out;
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
): void {
  const w = Math.max(1, width - indent.length);
  let used = 0;
  for (let i = 0; i < lines.length; i++) {
    const parts = wrap(lines[i].slice(0, LINE_CHARS), w);
    if (used + parts.length > max && used > 0) {
      out.push({
        role: 'result',
        text: `${indent}… ${plural(lines.length - i, 'more line')}${what === 'more' ? '' : ` ${what}`}`,
      });
      return;
    }
    const r = roleOf ? roleOf(lines[i]) : role;
    for (const p of parts) out.push({ role: r, text: `${indent}${p}` });
    used += parts.length;
  }
}

/** A value as lines: a string as written, anything else as indented JSON. */
function valueLines(v: unknown): string[] {
  if (typeof v === 'string') return textLines(v);
  let json: string | undefined;
  try {
    json = JSON.stringify(v, null, 2);
  } catch {
    json = undefined;
  }
  return textLines(json ?? String(v));
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
    const diff = d.diff.map((l) => sanitize(l));
    capped(out, 'input', diff, '  ', width, DIFF_LINES, 'of the diff', diffRole);
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
  edit.pairs.forEach((pair, i) => {
    if (edit.pairs.length > 1) out.push(`@@ edit ${i + 1} of ${edit.pairs.length} @@`);
    const nl = (s: string) => (s === '' || s.endsWith('\n') ? s : `${s}\n`);
    const diff = patch(edit.file, edit.file, nl(pair.old), nl(pair.new), undefined, undefined, {
      context: 3,
    });
    // No diff (it gave up on a huge pair): the old text deleted and the new added, which still says what changed.
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
