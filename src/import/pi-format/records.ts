/**
 * Pi-format transcript records (pi's SessionManager writes them; OpenClaw stores the same entries): one JSONL line
 * (pi's and OpenClaw's files, OpenClaw's archive blobs) or one OpenClaw `transcript_events` row (SQLite), parsed
 * once into the shape the turn builder walks. Every generation goes through `recordFromText`, so the same entry
 * reads the same way wherever it was stored.
 */
import { cutLine, lineMib, MAX_LINE_BYTES } from '../long-lines.js';
import { type ImportProblem, ProblemList } from '../model.js';

/** A line longer than every reader's limit is not parsed (its links are still kept when its head shows them). */
export { MAX_LINE_BYTES };

/** How much of an oversized or undecodable line is searched for its type, id and parentId. */
const HEAD_CHARS = 4096;

export type Json = Record<string, unknown>;

export interface Header {
  id: string;
  timestamp?: string;
  cwd?: string;
  version?: number;
  parentSession?: string;
  /** Pi's version 1 name for the same link: the file a branched session was copied from. */
  branchedFrom?: string;
}

/** One stored entry. A hole keeps an unreadable line's links (when they could be seen) but carries no content. */
export interface Rec {
  line: number;
  /** The source line or row as it will appear in `ParsedTurn.raw`; null for holes. */
  raw: string | null;
  entry: Json | null;
  type: string;
  id: string | null;
  parentId: string | null;
  hole: boolean;
}

export interface Problems {
  file: string;
  prefix: string;
  list: ImportProblem[];
  /** Set on the first problem: what lists them, up to a bound. */
  bounded?: ProblemList;
}

export function problem(p: Problems, line: number, reason: string): void {
  // The list may have been emptied or replaced since (a file of another format says so once).
  if (p.bounded === undefined || p.bounded.list !== p.list || p.list.length === 0)
    p.bounded = new ProblemList(p.list, p.file);
  p.bounded.add(line, p.prefix + reason);
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/** `"key":"value"` near the start of a line JSON.stringify wrote (SessionManager writes type, id, parentId first). */
function headField(head: string, key: string): string | null {
  const m = new RegExp(`"${key}"\\s*:\\s*(null|"((?:[^"\\\\]|\\\\.){1,256})")`).exec(head);
  if (!m) return null;
  if (m[1] === 'null') return null;
  try {
    return JSON.parse(`"${m[2]}"`) as string;
  } catch {
    return null;
  }
}

/** A hole for a line that cannot be read whole: its links, when its head shows them, keep the tree connected. */
export function holeFrom(head: string, line: number): Rec | null {
  const h = head.slice(0, HEAD_CHARS);
  const id = headField(h, 'id');
  if (id === null) return null;
  return {
    line,
    raw: null,
    entry: null,
    type: headField(h, 'type') ?? 'unknown',
    id,
    parentId: headField(h, 'parentId'),
    hole: true,
  };
}

export type Parsed = { kind: 'header'; header: Header } | { kind: 'entry'; rec: Rec } | { kind: 'skip' };

/** Parses one line or row's JSON text. Reports what is wrong and says what to do with it. */
export function recordFromText(text: string, line: number, raw: string, p: Problems, last: boolean): Parsed {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    const why = e instanceof Error ? e.message.split('\n')[0] : 'bad JSON';
    problem(p, line, last ? `truncated last line (${why})` : `not JSON (${why})`);
    const hole = holeFrom(text, line);
    return hole ? { kind: 'entry', rec: hole } : { kind: 'skip' };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    problem(p, line, 'not a JSON object');
    return { kind: 'skip' };
  }
  const o = v as Json;
  const type = str(o.type) ?? '';
  if (type === 'session') {
    const id = str(o.id);
    if (id === null) {
      problem(p, line, 'session header without an id');
      return { kind: 'skip' };
    }
    return {
      kind: 'header',
      header: {
        id,
        timestamp: str(o.timestamp) ?? undefined,
        cwd: str(o.cwd) ?? undefined,
        version: typeof o.version === 'number' ? o.version : undefined,
        parentSession: str(o.parentSession) ?? undefined,
        branchedFrom: str(o.branchedFrom) ?? undefined,
      },
    };
  }
  if (type === '') {
    problem(p, line, 'entry without a type');
    return { kind: 'skip' };
  }
  const parentId = o.parentId === null || o.parentId === undefined ? null : str(o.parentId);
  return { kind: 'entry', rec: { line, raw, entry: o, type, id: str(o.id), parentId, hole: false } };
}

const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export interface JsonlResult {
  header: Header | null;
  headerLine: number;
  /** The header's line as read, so that `export --format source` writes it back. */
  headerRaw: string | null;
  /** The last line has no line end and does not parse: the tool is still writing it. */
  truncatedEnd: boolean;
  records: Rec[];
  /** The last line had no line end (the writer may still be appending). */
  openEnded: boolean;
}

/**
 * Splits a JSONL buffer into records: one pass over the bytes, one decode, one JSON.parse per line. Blank lines are
 * skipped; a line of invalid UTF-8, an oversized line, broken JSON and a truncated last line are each reported.
 */
export function parseJsonl(buf: Buffer, p: Problems): JsonlResult {
  const out: JsonlResult = {
    header: null,
    headerLine: 0,
    headerRaw: null,
    truncatedEnd: false,
    records: [],
    openEnded: false,
  };
  // Fast path: the whole buffer decodes (no invalid UTF-8 anywhere), so split the string.
  let whole: string | null = null;
  try {
    whole = fatal.decode(buf);
  } catch {
    whole = null;
  }
  const lines: { text: string | null; start: number; end: number }[] = [];
  if (whole !== null) {
    let s = 0;
    while (s <= whole.length) {
      let e = whole.indexOf('\n', s);
      if (e === -1) e = whole.length;
      lines.push({ text: whole.slice(s, e), start: s, end: e });
      s = e + 1;
    }
    out.openEnded = whole.length > 0 && !whole.endsWith('\n');
  } else {
    let s = 0;
    while (s <= buf.length) {
      let e = buf.indexOf(10, s);
      if (e === -1) e = buf.length;
      let text: string | null;
      try {
        text = fatal.decode(buf.subarray(s, e));
      } catch {
        text = null;
      }
      lines.push({ text, start: s, end: e });
      s = e + 1;
    }
    out.openEnded = buf.length > 0 && buf[buf.length - 1] !== 10;
  }
  let lastNonBlank = lines.length - 1;
  while (lastNonBlank >= 0 && lines[lastNonBlank].text?.trim() === '') lastNonBlank--;
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const { text, start, end } = lines[i];
    if (text === null) {
      problem(p, n, 'invalid UTF-8');
      const hole = holeFrom(buf.toString('utf8', start, Math.min(end, start + HEAD_CHARS)), n);
      if (hole) out.records.push(hole);
      continue;
    }
    let line = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (line.trim() === '') continue;
    if (n === 1 && line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    // A UTF-16 unit is at most 3 UTF-8 bytes: count bytes only for lines that could be over the limit.
    const bytes =
      whole === null ? end - start : line.length * 3 > MAX_LINE_BYTES ? Buffer.byteLength(line) : 0;
    if (bytes > MAX_LINE_BYTES) {
      // Cut as every reader cuts one (../long-lines.ts): the entry keeps its shape, so a prompt with a pasted log
      // is still a prompt and the answer under it still has its turn. Only a line that is mostly structure is left
      // out, its links kept as a hole.
      const cut = cutLine(whole === null ? buf.subarray(start, end) : Buffer.from(line));
      if (cut === undefined) {
        problem(
          p,
          n,
          `line of ${lineMib(bytes)} is over the 16 MiB limit and is not text that can be cut; skipped`,
        );
        const hole = holeFrom(line, n);
        if (hole) out.records.push(hole);
        continue;
      }
      problem(p, n, `line of ${lineMib(bytes)} is over the 16 MiB limit; its text cut to fit`);
      line = cut.text;
    }
    const r = recordFromText(line, n, line, p, i === lastNonBlank && out.openEnded);
    if (
      i === lastNonBlank &&
      out.openEnded &&
      (r.kind === 'skip' || (r.kind === 'entry' && r.rec.raw === null))
    )
      out.truncatedEnd = true;
    if (r.kind === 'header') {
      if (out.header === null && out.records.length === 0) {
        out.header = r.header;
        out.headerLine = n;
        out.headerRaw = line;
      } else problem(p, n, 'a second session header; skipped');
    } else if (r.kind === 'entry') out.records.push(r.rec);
  }
  return out;
}
