/**
 * One Codex rollout's bytes into JSON lines. A rollout is plain JSONL (`rollout-….jsonl`) or, once Codex has
 * compressed it, the same bytes in a Zstandard frame (`rollout-….jsonl.zst`); the frame is recognised by its magic
 * bytes, not the name, and inflated with the bounded decoder (../zstd.ts) (Node 20's zlib has no zstd).
 * Each line is decoded and parsed once; a line that cannot be used is one problem `file:line: reason` and is
 * skipped, as in the Claude Code reader; nothing here throws for bad content.
 */
import { isUtf8 } from 'node:buffer';
import { readRegular } from '../files.js';
import { cutLine, MAX_LINE_BYTES } from '../long-lines.js';
import type { ImportProblem } from '../model.js';
import { unzstd } from '../zstd.js';

/** Past this a rollout is refused (it is held in memory whole while read), compressed or not. */
export const MAX_FILE_BYTES = 1024 * 1024 * 1024;

export interface JsonLine {
  /** 1-based line number in the (decompressed) file. */
  line: number;
  /** The line's text without its line end (a line over the limit as cut). */
  raw: string;
  obj: Record<string, unknown>;
}

export interface RolloutBytes {
  lines: JsonLine[];
  mtimeMs: number;
  /** The last line has no line end and does not parse: Codex is still writing it. */
  truncatedEnd: boolean;
  /** The file was a Zstandard frame. */
  compressed: boolean;
}

const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];
const OTHER_BINARY: readonly (readonly number[])[] = [
  [0x89, 0x50, 0x4e, 0x47], // PNG
  [0x1f, 0x8b], // gzip
  [0x50, 0x4b, 0x03, 0x04], // zip
  [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], // "SQLite"
];

function startsWith(buf: Buffer, magic: readonly number[]): boolean {
  return buf.length >= magic.length && magic.every((b, i) => buf[i] === b);
}

function oneLine(e: unknown): string {
  const m = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ');
  return m.length > 80 ? `${m.slice(0, 79)}…` : m;
}

function sizeOf(bytes: number): string {
  const mib = bytes / 2 ** 20;
  return `${mib >= 100 ? Math.round(mib) : Math.round(mib * 10) / 10} MiB`;
}

/**
 * Reads a rollout (plain or zstd) into its JSON object lines. Throws a one-line Error only when the file cannot
 * be read at all; binary data that is not zstd, or a frame that does not inflate, is one problem on line 0.
 */
export function readRollout(path: string, problems: ImportProblem[]): RolloutBytes {
  let buf: Buffer;
  let mtimeMs = 0;
  try {
    const r = readRegular(path, MAX_FILE_BYTES);
    buf = r.buf;
    mtimeMs = r.st.mtimeMs;
  } catch (e) {
    throw new Error(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? oneLine(e)}`);
  }
  const out: RolloutBytes = { lines: [], mtimeMs, truncatedEnd: false, compressed: false };
  if (startsWith(buf, ZSTD_MAGIC)) {
    out.compressed = true;
    try {
      buf = unzstd(buf, MAX_FILE_BYTES);
    } catch (e) {
      problems.push({ file: path, line: 0, reason: `zstd-compressed rollout: ${oneLine(e)}; not read` });
      return out;
    }
  }
  if (OTHER_BINARY.some((m) => startsWith(buf, m)) || buf.subarray(0, 8192).indexOf(0) >= 0) {
    problems.push({ file: path, line: 0, reason: 'binary data, not a Codex rollout' });
    return out;
  }
  splitLines(buf, path, problems, out);
  return out;
}

function splitLines(buf: Buffer, path: string, problems: ImportProblem[], out: RolloutBytes): void {
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
    // A line over the limit is cut before it is decoded (src/import/long-lines.ts): it costs itself only.
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
      obj = JSON.parse(lineNo === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw);
    } catch (e) {
      if (lastWithoutNewline) out.truncatedEnd = true;
      problems.push({
        file: path,
        line: lineNo,
        reason: lastWithoutNewline
          ? 'truncated last line (no newline; still being written?); skipped'
          : `not valid JSON (${oneLine(e)}); skipped`,
      });
      continue;
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
      problems.push({ file: path, line: lineNo, reason: 'not a JSON object; skipped' });
      continue;
    }
    if (long !== undefined)
      problems.push({
        file: path,
        line: lineNo,
        reason: `line of ${long} is over the 16 MiB limit; its text cut to fit`,
      });
    out.lines.push({ line: lineNo, raw, obj: obj as Record<string, unknown> });
  }
}
