/**
 * What follows a prompt in an aider chat history, read into its parts in order: the model's text, its reasoning
 * (between aider's reasoning tags), its SEARCH/REPLACE edits, and aider's own output (each run of `> ` lines). The
 * answer (chat.ts) and the details (details.ts) both read a turn through this one walk, so call i of the answer is
 * call i of the details.
 *
 * Edits follow aider's own parser (Aider-AI/aider aider/coders/editblock_coder.py `find_original_update_blocks`):
 * a line `<<<<<<< SEARCH`, the text to find, `=======`, its replacement, `>>>>>>> REPLACE` (each marker alone on its
 * line, spaces around it allowed); the file is named on one of the three lines before it (fence lines passed
 * over; `strip_filename`: `#`, `` ` ``, `*` and a trailing `:` around the name dropped), else it is the previous
 * block's file. A block with no file, or not closed, stays text, as aider refuses it.
 */

/** aider/reasoning_tags.py REASONING_TAG: the model's reasoning, which aider itself strips from replies. */
const REASONING = 'thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b';
const HEAD = '<<<<<<< SEARCH';
const DIVIDER = '=======';
const UPDATED = '>>>>>>> REPLACE';
const MARKERS = new Set([HEAD, DIVIDER, UPDATED]);
const FENCE = /^(`{3,}|~{3,})/;

/** The names the answer and the details give an edit and a run of aider's output (aider names neither). */
export const EDIT_CALL = 'edit';
export const OUTPUT_CALL = 'aider';

export type ReplyPart =
  | { kind: 'text'; lines: string[] }
  | { kind: 'reasoning'; text: string }
  /** aider's own output: the lines without their `> ` and the two trailing spaces. */
  | { kind: 'output'; lines: string[] }
  | { kind: 'edit'; file: string; search: string; replace: string };

export const isPrompt = (t: string | null) => t?.startsWith('#### ') === true;
export const isTool = (t: string | null) => t === '>' || t?.startsWith('> ') === true;
/** aider ends each line of a prompt and of its own output with two spaces (a markdown line break). */
export const unbreak = (t: string) => (t.endsWith('  ') ? t.slice(0, -2) : t);

/** editblock_coder.py `strip_filename`: a name line as aider reads it, or '' when it names no file. */
function fileName(line: string): string {
  let f = line.trim();
  if (f === '...' || FENCE.test(f)) return '';
  f = f.replace(/:+$/, '').replace(/^#+/, '').trim();
  f = f.replace(/^`+|`+$/g, '').replace(/^\*+|\*+$/g, '');
  return f.replaceAll('\\_', '_');
}

/**
 * The file a block names: editblock_coder.py `find_filename`, the nearest of the three lines before it past fence
 * lines. '' when that line is blank (the block is in the previous block's file, as aider takes it); null when it is
 * no path (aider would try a file of that name and fail; such a line is most often a heading of aider's own
 * message quoting the block that failed): the block is then text.
 */
function blockFile(before: readonly string[]): string | null {
  for (let i = before.length - 1; i >= 0; i--) {
    if (FENCE.test(before[i].trim())) continue;
    const name = fileName(before[i]);
    return name === '' ? '' : /\s/.test(name) ? null : name;
  }
  return '';
}

/** The model's text of a reply with its SEARCH/REPLACE blocks taken out as edits (their fences and file lines with them). */
function textParts(lines: readonly string[], out: ReplyPart[], last: { file: string }): void {
  let text: string[] = [];
  const flush = () => {
    if (text.length > 0) out.push({ kind: 'text', lines: text });
    text = [];
  };
  // The next marker after each line, found in one pass: a search from each `<<<<<<< SEARCH` to the end took time
  // in the square of a reply's length when the markers never came (a reply of many unclosed blocks).
  const next = new Int32Array(lines.length + 1).fill(-1);
  for (let k = lines.length - 1; k >= 0; k--) next[k] = MARKERS.has(lines[k].trim()) ? k : next[k + 1];
  const marker = (from: number) => next[from + 1];
  /** The fence the block before opened and left open for the next block in it (several blocks in one fence). */
  let open: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.trim() !== HEAD) {
      text.push(l);
      continue;
    }
    // Only a whole block: a marker out of place (a divider of eight `=`, a block never closed) makes aider refuse
    // the reply (`The LLM did not conform to the edit format`), and the block stays text, as written.
    const div = marker(i);
    const end = div < 0 || lines[div].trim() !== DIVIDER ? -1 : marker(div);
    const named = blockFile(lines.slice(Math.max(0, i - 3), i));
    const file = named === '' ? last.file : named;
    if (end < 0 || lines[end].trim() !== UPDATED || !file) {
      text.push(l);
      continue;
    }
    last.file = file;
    // The fence and the file line before the block are the block's, not text.
    const fence: RegExpExecArray | null =
      open === null && text.length > 0 ? FENCE.exec(text[text.length - 1].trim()) : null;
    if (fence) text.pop();
    if (text.length > 0 && fileName(text[text.length - 1]) === file) text.pop();
    flush();
    const body = (from: number, to: number) =>
      lines
        .slice(from, to)
        .map((x) => `${x}\n`)
        .join('');
    out.push({ kind: 'edit', file, search: body(i + 1, div), replace: body(div + 1, end) });
    open = fence ? fence[1] : open;
    i = end;
    // Its closing fence, or the next block in the same fence.
    let k = end + 1;
    while (k < lines.length && lines[k].trim() === '') k++;
    if (open !== null && lines[k]?.trim() === open) {
      open = null;
      i = k;
    } else if (open !== null && lines[k]?.trim() === HEAD) i = k - 1;
    else open = null;
  }
  flush();
}

/** A reply's parts in order; `lines` are the lines after the prompt (a line that was not UTF-8 is null, passed over). */
export function replyParts(lines: readonly (string | null)[]): ReplyPart[] {
  const out: ReplyPart[] = [];
  const last = { file: '' };
  let text: string[] = [];
  let tool: string[] = [];
  let thought: string[] | null = null;
  const flush = () => {
    if (text.length > 0) textParts(text, out, last);
    // A run of bare `>` lines says nothing: no part (the answer would show a call with no result).
    if (tool.some((t) => t.trim() !== '')) out.push({ kind: 'output', lines: tool });
    text = [];
    tool = [];
  };
  for (const l of lines) {
    if (l === null) continue;
    if (thought !== null || l.startsWith(`<${REASONING}>`)) {
      if (thought === null) {
        flush();
        thought = [];
      }
      thought.push(l);
      if (l.includes(`</${REASONING}>`)) {
        const t = thought.join('\n');
        const from = t.indexOf('>') + 1;
        out.push({ kind: 'reasoning', text: t.slice(from, t.lastIndexOf(`</${REASONING}>`)).trim() });
        thought = null;
      }
      continue;
    }
    if (isTool(l)) {
      if (text.length > 0) flush();
      tool.push(unbreak(l.slice(2)));
    } else {
      if (tool.length > 0) flush();
      text.push(l);
    }
  }
  // Reasoning never closed (aider still writing, or cut): left out of the answer, as before, and kept as thinking.
  if (thought !== null)
    out.push({
      kind: 'reasoning',
      text: thought
        .join('\n')
        .slice(REASONING.length + 2)
        .trim(),
    });
  flush();
  return out;
}
