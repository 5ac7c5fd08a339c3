/**
 * An aider chat history's bytes into lines: one capped read, one UTF-8 check (per line only when the file fails
 * it), line ends cut (a CR before the LF too). A binary file (by its first bytes) is one problem; a line that is not UTF-8 is a problem
 * and is left out; a line over the 16 MiB every reader keeps to (../long-lines.ts) is cut to fit, with a problem.
 */
import { isUtf8 } from 'node:buffer';
import { binaryMagic, readRegular, wideText } from '../files.js';
import { MAX_LINE_BYTES } from '../long-lines.js';
import { type ImportProblem, ProblemList } from '../model.js';

/** Past this size a history is refused (a problem, not read): it is parsed whole in memory. */
const MAX_FILE_BYTES = 1024 * 1024 * 1024;
/** What an over-long line keeps: a margin under 16 MiB for the rest of its turn. */
const KEEP_BYTES = 15 * 2 ** 20;

export interface Lines {
  /** Each line's text without its line end, or null when it is not UTF-8. `lines[i]` is line i + 1. */
  lines: (string | null)[];
  /** The last line has no line end: aider may be writing it right now. */
  openEnded: boolean;
}

/** `bytes` cut at a character boundary at most `max` long. */
function cutText(bytes: Buffer, max: number): string {
  let end = max;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return `${bytes.toString('utf8', 0, end)}… [cut: ${bytes.length - end} more bytes]`;
}

/** Reads the file; throws (one line) only when it cannot be read at all. Null: not text (one problem said). */
export function readLines(file: string, problems: ImportProblem[]): Lines | null {
  let buf: Buffer;
  try {
    buf = readRegular(file, MAX_FILE_BYTES).buf;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new Error(`cannot read ${file}: ${code}`);
  }
  // A binary file by its first bytes (a PNG, a gzip, a zip, a SQLite database, a zstd frame) only: a NUL byte
  // does not make one, aider writes whatever a prompt or a reply held, NUL included.
  const wide = wideText(buf);
  if (wide !== undefined) {
    problems.push({ file, line: 0, reason: wide });
    return null;
  }
  if (binaryMagic(buf)) {
    problems.push({ file, line: 0, reason: 'binary data, not an aider chat history' });
    return null;
  }
  const whole = isUtf8(buf);
  const bad = new ProblemList(problems, file);
  const lines: (string | null)[] = [];
  let pos = 0;
  let no = 0;
  while (pos < buf.length) {
    let nl = buf.indexOf(10, pos);
    if (nl < 0) nl = buf.length;
    no++;
    let end = nl;
    if (end > pos && buf[end - 1] === 13) end--;
    const bytes = buf.subarray(pos, end);
    pos = nl + 1;
    if (!whole && !isUtf8(bytes)) {
      bad.add(no, 'invalid UTF-8; line skipped');
      lines.push(null);
    } else if (bytes.length > MAX_LINE_BYTES) {
      const mib = Math.round((bytes.length / 2 ** 20) * 10) / 10;
      bad.add(no, `line of ${mib} MiB is over the 16 MiB limit; its text cut to fit`);
      lines.push(cutText(bytes, KEEP_BYTES));
    } else lines.push(bytes.toString('utf8'));
  }
  return { lines, openEnded: buf.length > 0 && buf[buf.length - 1] !== 10 };
}
