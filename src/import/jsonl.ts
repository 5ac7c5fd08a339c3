/**
 * Reading JSONL into parsed lines, shared by the Claude Code, Codex, Gemini CLI and Copilot CLI readers: one capped
 * read (./files.ts), newline positions found with Buffer.indexOf (native), each line decoded and JSON.parse'd once.
 * Every line that cannot be used is one problem `file:line: reason` (1-based) and is skipped; nothing here throws
 * for bad content. The splitting takes a buffer, so that bytes inflated from a zstd frame (a Codex rollout) are
 * read like a file's.
 */
import { isUtf8 } from 'node:buffer';
import { closeSync, readSync, statSync } from 'node:fs';
import { binaryMagic, openRegular, readHead, readRegular, wideText } from './files.js';
import { cutLine, MAX_LINE_BYTES } from './long-lines.js';
import { type ImportProblem, ProblemList } from './model.js';

/**
 * Past this size a JSONL file is refused (a problem, not read): the whole file is held in memory while its lines
 * are parsed (Node's readFileSync would stop at 2 GiB anyway).
 */
export const MAX_FILE_BYTES = 1024 * 1024 * 1024;

/** How much of the start of a file is checked for NUL bytes to call it binary. */
const BINARY_PROBE = 8192;

/**
 * True for bytes that are no JSONL: a known binary format's magic, or a NUL near the start. A zstd frame counts
 * unless `zstd` is false (a reader that inflates frames looks at them first).
 */
export function looksBinary(buf: Buffer, zstd = true): boolean {
  if (binaryMagic(buf, zstd)) return true;
  return buf.subarray(0, Math.min(buf.length, BINARY_PROBE)).indexOf(0) >= 0;
}

/** An error message (V8 quotes part of the input in JSON.parse's) cut to one short line. */
export function oneLine(e: unknown): string {
  const m = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ');
  return m.length > 80 ? `${m.slice(0, 79)}…` : m;
}

/** A line's size for a reason: `200 MiB`, `16.2 MiB`. */
function sizeOf(bytes: number): string {
  const mib = bytes / 2 ** 20;
  return `${mib >= 100 ? Math.round(mib) : Math.round(mib * 10) / 10} MiB`;
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v}`;
}

/** A whole file's bytes and time. Throws one line, `cannot read <path>: <code>`, when it cannot be read at all. */
export function readWhole(path: string): { buf: Buffer; mtimeMs: number } {
  try {
    const r = readRegular(path, MAX_FILE_BYTES);
    return { buf: r.buf, mtimeMs: r.st.mtimeMs };
  } catch (e) {
    throw new Error(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? oneLine(e)}`);
  }
}

/**
 * Called with each JSON object line, in order, as it is parsed (the object is not kept here): its text without
 * the line end (a line over the limit as cut) and 1-based number. Returning false stops the reading there.
 */
export type EachLine = (obj: Record<string, unknown>, raw: string, line: number) => boolean;

export interface SplitOptions {
  /** Says what a line that is JSON but not an object is (`not a JSON object but an array`); else only that it is not. */
  sayKind?: boolean;
}

/**
 * Splits `buf` into JSON object lines for `each`. Blank lines are passed over; invalid UTF-8, bad JSON, a value
 * that is not an object and a line over 16 MiB that cannot be cut are each a problem and skipped; a line over
 * 16 MiB that can be cut (./long-lines.ts) is a problem and kept cut. Says whether the last line had no newline and
 * did not parse (the file is still being written).
 */
export function splitJsonLines(
  buf: Buffer,
  file: string,
  problems: ImportProblem[],
  each: EachLine,
  { sayKind = false }: SplitOptions = {},
): { truncatedEnd: boolean } {
  const out = { truncatedEnd: false };
  const bad = new ProblemList(problems, file);
  // One native check for the whole buffer; per-line checks only when it fails.
  const allUtf8 = isUtf8(buf);
  const len = buf.length;
  let pos = 0;
  let lineNo = 0;
  while (pos < len) {
    let nl = buf.indexOf(10, pos);
    const lastWithoutNewline = nl < 0;
    if (nl < 0) nl = len;
    lineNo++;
    let end = nl;
    if (end > pos && buf[end - 1] === 13) end--;
    const start = pos;
    pos = nl + 1;
    if (end === start) continue;
    if (!allUtf8 && !isUtf8(buf.subarray(start, end))) {
      bad.add(lineNo, 'invalid UTF-8; line skipped');
      continue;
    }
    // A line over the limit is cut before it is decoded: one huge record costs itself, not its session.
    const long = end - start > MAX_LINE_BYTES ? sizeOf(end - start) : undefined;
    let raw: string;
    if (long === undefined) raw = buf.toString('utf8', start, end);
    else {
      const cut = cutLine(buf.subarray(start, end));
      if (cut === undefined) {
        const reason = `line of ${long} is over the 16 MiB limit and is not text that can be cut; skipped`;
        bad.add(lineNo, reason);
        continue;
      }
      raw = cut.text;
    }
    if (raw.charCodeAt(0) <= 32 && raw.trim() === '') continue;
    // Once problems are only counted, a line that does not open an object is one without parsing it: a file of
    // millions of such lines costs a count, not millions of exceptions.
    if (
      bad.full &&
      raw.trimStart().charCodeAt(0) !== 0x7b &&
      !(lineNo === 1 && raw.charCodeAt(0) === 0xfeff)
    ) {
      bad.add(lineNo, '');
      continue;
    }
    let obj: unknown;
    try {
      // a byte-order mark before the first line is not part of the JSON (it stays in raw)
      obj = JSON.parse(lineNo === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw);
    } catch (e) {
      if (lastWithoutNewline) out.truncatedEnd = true;
      bad.add(
        lineNo,
        lastWithoutNewline
          ? 'truncated last line (no newline; still being written?); skipped'
          : `not valid JSON (${oneLine(e)}); skipped`,
      );
      continue;
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
      const reason = sayKind ? `not a JSON object but ${kindOf(obj)}; skipped` : 'not a JSON object; skipped';
      bad.add(lineNo, reason);
      continue;
    }
    if (long !== undefined) bad.add(lineNo, `line of ${long} is over the 16 MiB limit; its text cut to fit`);
    if (each(obj as Record<string, unknown>, raw, lineNo) === false) break;
  }
  return out;
}

/** Called with each JSON object line, in file order, as it is parsed (the object is not kept here). */
export type LineVisitor = (obj: Record<string, unknown>, line: number) => void;

export interface ReadFile {
  path: string;
  /** The exact text of each JSON object line (a line over the limit as cut), without its newline (and CR)... */
  raws: string[];
  /** ...and its 1-based line number in the file. */
  lineNos: number[];
  mtimeMs: number;
  /** The last line had no newline and was not valid JSON: the file is still being written. */
  truncatedEnd: boolean;
}

/**
 * Reads a JSONL file's lines (the Claude Code reader's wording), handing each parsed object to `visit` (so that a
 * caller keeps only what it needs). Throws (one line) only when the file cannot be read at all; a binary file, or
 * an OpenClaw transcript (its session header first), is one problem and no lines.
 */
export function readJsonLines(path: string, problems: ImportProblem[], visit: LineVisitor): ReadFile {
  // Both checks look at the first bytes only: a large file that fails them is refused before it is read whole
  // (a 300 MB binary under a transcript's name cost a keeper 370 MB of RSS, kept after the reading).
  const refused = (buf: Buffer): string | undefined =>
    wideText(buf) ?? (looksBinary(buf) ? 'binary data, not a JSONL transcript' : undefined);
  let early: string | undefined;
  try {
    early = refused(readHead(path, BINARY_PROBE));
  } catch {
    // cannot be read: readWhole says why
  }
  if (early !== undefined) {
    problems.push({ file: path, line: 0, reason: early });
    let mtimeMs = 0;
    try {
      mtimeMs = statSync(path).mtimeMs;
    } catch {
      // gone meanwhile: nothing was read from it anyway
    }
    return { path, raws: [], lineNos: [], mtimeMs, truncatedEnd: false };
  }
  const { buf, mtimeMs } = readWhole(path);
  const out: ReadFile = { path, raws: [], lineNos: [], mtimeMs, truncatedEnd: false };
  const reason = refused(buf); // the file may have changed since its head was read
  if (reason !== undefined) {
    problems.push({ file: path, line: 0, reason });
    return out;
  }
  const split = splitJsonLines(
    buf,
    path,
    problems,
    (o, raw, line) => {
      if (out.raws.length === 0 && o.type === 'session' && typeof o.id === 'string' && !('uuid' in o)) {
        // OpenClaw's transcripts open with {type:"session", version, id, timestamp, cwd} (DESIGN.md 8a).
        const reason = 'an OpenClaw session header: not a Claude Code transcript; file skipped';
        problems.push({ file: path, line, reason });
        return false;
      }
      out.raws.push(raw);
      out.lineNos.push(line);
      visit(o, line);
      return true;
    },
    { sayKind: true },
  );
  out.truncatedEnd = split.truncatedEnd;
  return out;
}

/** How far into a file the first timestamp is looked for before falling back to the file's time. */
const HEAD_BYTES = 1 << 20;
const CHUNK = 64 * 1024;

/**
 * The time (ms) of the first line with a valid top-level `timestamp`, read from the file's head; else NaN. A
 * discovery sorts by it, so that a session is imported before a later one that resumed or forked it.
 */
export function firstTimestamp(path: string): number {
  let fd: number;
  try {
    fd = openRegular(path).fd;
  } catch {
    return Number.NaN;
  }
  try {
    // Grown as the head is read: the first timestamp is nearly always in the first line, and a zeroed MiB for each
    // of a home's files was ~3% of a mixed import's profile (its pages touched for nothing).
    let buf = Buffer.allocUnsafe(CHUNK);
    let have = 0;
    let scanned = 0; // bytes of complete lines already looked at
    for (;;) {
      if (have === buf.length && have < HEAD_BYTES) {
        const more = Buffer.allocUnsafe(Math.min(HEAD_BYTES, buf.length * 2));
        buf.copy(more, 0, 0, have);
        buf = more;
      }
      const n = have < HEAD_BYTES ? readSync(fd, buf, have, Math.min(CHUNK, buf.length - have), have) : 0;
      have += n;
      for (;;) {
        const nl = buf.indexOf(10, scanned);
        if (nl < 0 || nl >= have) break;
        const t = lineTime(buf.toString('utf8', scanned, nl));
        if (!Number.isNaN(t)) return t;
        scanned = nl + 1;
      }
      if (n === 0) {
        // the end of the file (or of the head): a last line without a newline still counts
        return scanned < have ? lineTime(buf.toString('utf8', scanned, have)) : Number.NaN;
      }
    }
  } catch {
    return Number.NaN;
  } finally {
    closeSync(fd);
  }
}

function lineTime(s: string): number {
  try {
    const o = JSON.parse(s) as { timestamp?: unknown };
    if (o === null || typeof o !== 'object') return Number.NaN;
    const ts = o.timestamp;
    if (typeof ts !== 'string' && typeof ts !== 'number') return Number.NaN;
    return new Date(ts).getTime();
  } catch {
    return Number.NaN;
  }
}
