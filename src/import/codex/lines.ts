/**
 * One Codex rollout's bytes into JSON lines. A rollout is plain JSONL (`rollout-….jsonl`) or, once Codex has
 * compressed it, the same bytes in a Zstandard frame (`rollout-….jsonl.zst`); the frame is recognised by its magic
 * bytes, not the name, and inflated with the bounded decoder (../zstd.ts: Node 20's zlib has no zstd). The lines
 * are split as every JSONL reader's are (../jsonl.ts); nothing here throws for bad content.
 */

import { startsWith, wideText, ZSTD_MAGIC } from '../files.js';
import { looksBinary, MAX_FILE_BYTES, oneLine, readWhole, splitJsonLines } from '../jsonl.js';
import type { ImportProblem } from '../model.js';
import { unzstd } from '../zstd.js';

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

/**
 * Reads a rollout (plain or zstd, at most 1 GiB either way) into its JSON object lines. Throws a one-line Error
 * only when the file cannot be read at all; binary data that is not zstd, or a frame that does not inflate, is one
 * problem on line 0.
 */
export function readRollout(path: string, problems: ImportProblem[]): RolloutBytes {
  let { buf, mtimeMs } = readWhole(path);
  const out: RolloutBytes = { lines: [], mtimeMs, truncatedEnd: false, compressed: false };
  const wide = wideText(buf);
  if (wide !== undefined) {
    problems.push({ file: path, line: 0, reason: wide });
    return out;
  }
  if (startsWith(buf, ZSTD_MAGIC)) {
    out.compressed = true;
    try {
      buf = unzstd(buf, MAX_FILE_BYTES);
    } catch (e) {
      problems.push({ file: path, line: 0, reason: `zstd-compressed rollout: ${oneLine(e)}; not read` });
      return out;
    }
  }
  if (looksBinary(buf, false)) {
    problems.push({ file: path, line: 0, reason: 'binary data, not a Codex rollout' });
    return out;
  }
  out.truncatedEnd = splitJsonLines(buf, path, problems, (obj, raw, line) => {
    out.lines.push({ line, raw, obj });
    return true;
  }).truncatedEnd;
  return out;
}
