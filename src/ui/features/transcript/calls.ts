/**
 * An answer's stored text read back into its pieces, so the transcript can fold each tool call to one line. The
 * shapes are the ones every importer writes through AnswerBuilder (src/import/answer.ts): parts joined by a blank
 * line; a call is a part of one line `→ Name` or `→ Name: argument`; its result is the next part, every line
 * indented two spaces (`  error: …` first when it failed, `  … N more lines` last when cut); `[error] …` and
 * `» typed while busy: …` are parts of their own. Only a whole part counts: a `→` line inside a paragraph or a
 * fenced code block is text. Folding is a view: the stored text is never changed.
 */

export type Piece =
  | { kind: 'text'; lines: string[] }
  | { kind: 'call'; name: string; arg: string; result: string[]; more: number; error: boolean }
  | { kind: 'error'; text: string }
  | { kind: 'steer'; lines: string[] };

import { displayWidth, truncate, truncateLeft } from '../../../text/width.js';

const CALL = /^→ (\S.*)$/;
const MORE = /^ {2}… (\d+) more lines?$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

const blank = (l: string | undefined): boolean => l === undefined || l.trim() === '';

/** The pieces of an answer's text (already sanitised for display; the shapes survive sanitising). */
export function parseAnswer(text: string): Piece[] {
  const lines = text.split('\n');
  const out: Piece[] = [];
  let para: string[] = [];
  let fence: string | null = null;
  const flush = (): void => {
    while (para.length > 0 && blank(para[para.length - 1])) para.pop();
    if (para.length > 0) out.push({ kind: 'text', lines: para });
    para = [];
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const own = fence === null && blank(lines[i - 1]) && !blank(line);
    const m = own && blank(lines[i + 1]) ? CALL.exec(line) : null;
    if (m) {
      flush();
      const head = m[1];
      const cut = head.indexOf(': ');
      const name = cut < 0 ? head : head.slice(0, cut);
      const arg = cut < 0 ? '' : head.slice(cut + 2);
      // The result: the next part, when every one of its lines is indented.
      let k = i + 2;
      while (k < lines.length && lines[k].startsWith('  ') && !blank(lines[k])) k++;
      const isResult = lines[i + 1] === '' && k > i + 2 && blank(lines[k]);
      const raw = isResult ? lines.slice(i + 2, k) : [];
      let more = 0;
      const mm = raw.length > 0 ? MORE.exec(raw[raw.length - 1]) : null;
      if (mm) {
        more = Number(mm[1]);
        raw.pop();
      }
      const error = raw.length > 0 && raw[0].startsWith('  error: ');
      const result = raw.map((l, j) => (j === 0 && error ? l.slice('  error: '.length) : l.slice(2)));
      out.push({ kind: 'call', name, arg, result, more, error });
      i = isResult ? k : i + 1;
      continue;
    }
    if (own && blank(lines[i + 1]) && line.startsWith('[error] ')) {
      flush();
      out.push({ kind: 'error', text: line.slice('[error] '.length) });
      i++;
      continue;
    }
    if (own && line.startsWith('» typed while busy: ')) {
      flush();
      const steer: string[] = [];
      while (i < lines.length && !blank(lines[i])) steer.push(lines[i++]);
      out.push({ kind: 'steer', lines: steer });
      continue;
    }
    if (blank(line) && fence === null) {
      // A blank line ends a paragraph; keep one so two paragraphs still read as two.
      if (para.length > 0 && !blank(para[para.length - 1])) para.push('');
      i++;
      continue;
    }
    const f = FENCE.exec(line);
    if (f) {
      if (fence === null) fence = f[1];
      else if (f[1][0] === fence[0] && f[1].length >= fence.length) fence = null;
    }
    para.push(line);
    i++;
  }
  flush();
  return out;
}

/** How many lines the stored result held: the lines kept plus the ones it counted. */
export function resultSize(p: Extract<Piece, { kind: 'call' }>): number {
  return p.result.length + p.more;
}

/**
 * A tool name in at most `max` columns: whole when it fits; else from its last `__` part on (an MCP tool's own
 * name, `mcp__server__tool`), when that fits; else cut from its start.
 */
function shortName(name: string, max: number): string {
  if (displayWidth(name) <= max) return name;
  const tool = name.slice(name.lastIndexOf('__') + 2);
  return name.includes('__') && tool !== '' && displayWidth(tool) < max
    ? `…${tool}`
    : truncateLeft(name, max);
}

/**
 * Below this many columns for the argument and the result's first line together (the transcript of an 80-column
 * terminal has about 28), the argument comes first: it says what the call did (the command, the file), and the
 * two-fifths split left it 10 columns (`→ Bash  python /t…  · Hello, Al… · 3 lines`).
 */
const NARROW_ROOM = 32;
/** In a narrow row the result's first line shows only in this many columns at least (`  · ` and a word), or whole. */
const FIRST_MIN = 12;

/**
 * The one line a folded call reads as, at most `width` columns: `→ Bash  npm test  · first line · 212 lines`.
 * The size always shows. In a wide row a long argument gives up room so the result's first line still starts on
 * the line; in a narrow one (NARROW_ROOM) the argument keeps the room it needs and the first line takes what is left.
 */
export function foldedCall(p: Extract<Piece, { kind: 'call' }>, width = Number.POSITIVE_INFINITY): string {
  // A name wider than half the row (an MCP tool's `mcp__server__tool`) is cut from its start, where the server's
  // part is: whole, it left no room for the result and pushed the size off the row.
  const half = Math.max(8, Math.floor(width / 2)) - 2;
  const name = `→ ${shortName(p.name, half)}`;
  if (p.result.length === 0) {
    const long = '  · no result under it';
    const argRoom = (tail: string) => width - displayWidth(name) - tail.length - 2;
    // The short tail when the long one would cut the argument in a narrow row.
    const tail = argRoom(long) < Math.min(displayWidth(p.arg), NARROW_ROOM) ? '  · no result' : long;
    return `${name}${p.arg === '' ? '' : `  ${truncate(p.arg, argRoom(tail))}`}${tail}`;
  }
  const n = resultSize(p);
  const size = ` · ${n} ${n === 1 ? 'line' : 'lines'}`;
  const first = `  · ${p.error ? 'error: ' : ''}${p.result[0].trim()}`;
  const room = width - displayWidth(name) - size.length;
  const narrow = room < NARROW_ROOM;
  let arg = '';
  if (p.arg !== '') {
    const wanted = displayWidth(p.arg) + 2;
    // Two fifths of the row at least; more when the first result line is short and would leave the rest empty.
    const give = narrow ? room : Math.max(12, Math.floor((room * 2) / 5), room - displayWidth(first));
    arg = `  ${truncate(p.arg, Math.min(wanted, give) - 2)}`;
  }
  const rest = room - displayWidth(arg);
  const shown =
    !narrow || rest >= FIRST_MIN || rest >= displayWidth(first) ? truncate(first, Math.max(4, rest)) : '';
  return truncate(`${name}${arg}${shown}${size}`, width);
}
