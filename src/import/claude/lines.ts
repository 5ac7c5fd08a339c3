/**
 * Reading one Claude Code JSONL file into parsed lines: one capped read (../files.ts), newline positions found with
 * Buffer.indexOf (native), each line decoded and JSON.parse'd once. Every line that cannot be used is reported
 * with its 1-based number and skipped; nothing here throws for bad content.
 */
import { isUtf8 } from 'node:buffer';
import { readRegular } from '../files.js';
import { cutLine, MAX_LINE_BYTES } from '../long-lines.js';
import type { ImportProblem } from '../model.js';

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

/** The first bytes that mark a file as binary (a PNG, a gzip, a zip, a SQLite database...). */
const BINARY_MAGIC: readonly (readonly number[])[] = [
  [0x89, 0x50, 0x4e, 0x47], // PNG
  [0x1f, 0x8b], // gzip
  [0x50, 0x4b, 0x03, 0x04], // zip
  [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], // "SQLite"
  [0x28, 0xb5, 0x2f, 0xfd], // zstd
];

/**
 * Past this size a transcript is refused (a problem, not read): the whole file is held in memory while its lines
 * are parsed (Node's readFileSync would stop at 2 GiB anyway).
 */
const MAX_FILE_BYTES = 1024 * 1024 * 1024;

/** How much of the start of a file is checked for NUL bytes to call it binary. */
const BINARY_PROBE = 8192;

function looksBinary(buf: Buffer): boolean {
  for (const magic of BINARY_MAGIC) {
    if (buf.length >= magic.length && magic.every((b, i) => buf[i] === b)) return true;
  }
  const probe = buf.subarray(0, Math.min(buf.length, BINARY_PROBE));
  return probe.indexOf(0) >= 0;
}

/** A line's size for a reason: `200 MiB`, `16.2 MiB`. */
function sizeOf(bytes: number): string {
  const mib = bytes / 2 ** 20;
  return `${mib >= 100 ? Math.round(mib) : Math.round(mib * 10) / 10} MiB`;
}

/** A JSON.parse message cut to one short line (V8 quotes part of the input in it). */
function parseError(e: unknown): string {
  const m = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ');
  return m.length > 80 ? `${m.slice(0, 79)}…` : m;
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return `a ${typeof v}`;
}

/**
 * Reads the file's lines, handing each parsed object to `visit` (so that a caller keeps only what it needs).
 * Throws (one line) only when the file cannot be read at all; a binary file or a file of another format is one
 * problem and no lines.
 */
export function readJsonLines(path: string, problems: ImportProblem[], visit: LineVisitor): ReadFile {
  let buf: Buffer;
  let mtimeMs = 0;
  try {
    const r = readRegular(path, MAX_FILE_BYTES);
    buf = r.buf;
    mtimeMs = r.st.mtimeMs;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? parseError(e);
    throw new Error(`cannot read ${path}: ${code}`);
  }
  const out: ReadFile = { path, raws: [], lineNos: [], mtimeMs, truncatedEnd: false };
  if (looksBinary(buf)) {
    problems.push({ file: path, line: 0, reason: 'binary data, not a JSONL transcript' });
    return out;
  }
  // One native check for the whole file; per-line checks only when it fails.
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
      problems.push({ file: path, line: lineNo, reason: 'invalid UTF-8; line skipped' });
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
        problems.push({ file: path, line: lineNo, reason });
        continue;
      }
      raw = cut.text;
    }
    if (raw.charCodeAt(0) <= 32 && raw.trim() === '') continue;
    let obj: unknown;
    try {
      // a byte-order mark before the first line is not part of the JSON (it stays in raw)
      obj = JSON.parse(lineNo === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw);
    } catch (e) {
      if (lastWithoutNewline) out.truncatedEnd = true;
      problems.push({
        file: path,
        line: lineNo,
        reason: lastWithoutNewline
          ? 'truncated last line (no newline; still being written?); skipped'
          : `not valid JSON (${parseError(e)}); skipped`,
      });
      continue;
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
      problems.push({ file: path, line: lineNo, reason: `not a JSON object but ${kindOf(obj)}; skipped` });
      continue;
    }
    const o = obj as Record<string, unknown>;
    if (long !== undefined)
      problems.push({
        file: path,
        line: lineNo,
        reason: `line of ${long} is over the 16 MiB limit; its text cut to fit`,
      });
    if (out.raws.length === 0 && o.type === 'session' && typeof o.id === 'string' && !('uuid' in o)) {
      // OpenClaw's transcripts open with {type:"session", version, id, timestamp, cwd} (DESIGN.md 8a).
      problems.push({
        file: path,
        line: lineNo,
        reason: 'an OpenClaw session header: not a Claude Code transcript; file skipped',
      });
      return out;
    }
    out.raws.push(raw);
    out.lineNos.push(lineNo);
    visit(o, lineNo);
  }
  return out;
}
