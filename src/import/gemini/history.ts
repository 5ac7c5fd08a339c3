/**
 * One Gemini CLI chat file, either generation, replayed into its messages as a tree (docs/import.md, "Gemini CLI"):
 *
 * - JSONL (v0.39+): a metadata line, then message records (`id`), `{"$set": {...}}` metadata updates (a `messages`
 *   key there rebuilds the whole conversation: a checkpoint) and `{"$rewindTo": id}` (the conversation cut back to
 *   just before that message). A message changed later is appended again whole: the last version wins, the first
 *   appearance keeps its place.
 * - JSON (up to v0.38): one document `{sessionId, projectHash, startTime, lastUpdated, messages[], summary?, kind?}`,
 *   rewritten whole on every change (a rewind there removes the messages: nothing of them is left).
 *
 * Each message's parent is the message before it in the conversation when it first appeared, so what a rewind cut
 * off stays, as a branch beside what followed. Never throws for bad content.
 */
import { isUtf8 } from 'node:buffer';
import { readHead, readRegular } from '../files.js';
import { jsonText, TOO_DEEP } from '../json-text.js';
import { readJsonLines } from '../jsonl.js';
import { cutLine, MAX_LINE_BYTES } from '../long-lines.js';
import type { ImportProblem } from '../model.js';
import { type Json, obj } from './parts.js';

export interface Message {
  id: string;
  /** The last version of the record. */
  rec: Json;
  /** The message before it in the conversation when it first appeared (null at the start). */
  parent: string | null;
  /** 1-based line of its first appearance. */
  line: number;
  /** Index (into History.raws) of the record that last carried it, for the newest turn's end. */
  last: number;
  /** Its place in the conversation as the CLI sees it now, -1 when not in it. */
  pos: number;
}

export interface History {
  file: string;
  /** The metadata: the first line merged with every `$set` (JSONL), or the document without `messages` (JSON). */
  meta: Json;
  /** Messages in order of first appearance: a parent always comes before its children. */
  messages: Message[];
  /** The source records, each exactly as read: JSONL lines (without line ends), or JSON text (the JSON generation). */
  raws: string[];
  lineNos: number[];
  /** For each record, the message it carries (a message line) or null (metadata, `$set`, `$rewindTo`). */
  carries: (string | null)[];
  /** The file ends in the middle of a line: it is being written. */
  truncatedEnd: boolean;
  legacy: boolean;
  /** False when nothing in the file is a Gemini CLI record. */
  recognised: boolean;
}

/** A whole-document JSON file is parsed at once (JSON.parse needs several times its size). */
const MAX_JSON_BYTES = 256 * 1024 * 1024; // ~5x its size while parsed: 256 MiB stays near 1.3 GB

function isMeta(r: Json): boolean {
  return typeof r.sessionId === 'string' && typeof r.projectHash === 'string';
}

class Replay {
  readonly byId = new Map<string, Message>();
  readonly messages: Message[] = [];
  /**
   * The conversation as the CLI sees it now (ids); each message knows its place in it (Message.pos), so a rewind
   * finds it without a scan, and no set or map churns (V8 rehashes a Map or Set whose one key is deleted and added
   * again and again: a file of rewinds to its newest message took minutes either way).
   */
  cur: string[] = [];
  meta: Json = {};

  constructor(
    private readonly file: string,
    private readonly problems: ImportProblem[],
  ) {}

  /** A message record at record index `at`: new, or a later version of one (a checkpoint's copy does not replace). */
  upsert(rec: Json, line: number, at: number, fromCheckpoint: boolean): void {
    const id = rec.id as string;
    const known = this.byId.get(id);
    if (known) {
      if (!fromCheckpoint) known.rec = rec;
      known.last = at;
    } else {
      const m: Message = { id, rec, parent: this.cur.at(-1) ?? null, line, last: at, pos: -1 };
      this.byId.set(id, m);
      this.messages.push(m);
    }
    const m = this.byId.get(id) as Message;
    if (m.pos < 0) {
      m.pos = this.cur.length;
      this.cur.push(id);
    }
  }

  /** The conversation cut back to its first `at` messages. */
  private cutTo(at: number): void {
    for (let i = at; i < this.cur.length; i++) (this.byId.get(this.cur[i]) as Message).pos = -1;
    this.cur.length = at;
  }

  rewind(to: string, line: number): void {
    const at = this.byId.get(to)?.pos ?? -1;
    if (at < 0) {
      this.problems.push({
        file: this.file,
        line,
        reason: `rewind to message ${to}, which is not in the conversation; the CLI starts over from nothing`,
      });
      this.cutTo(0);
      return;
    }
    this.cutTo(at);
  }

  checkpoint(list: unknown[], line: number, at: number): void {
    this.cutTo(0);
    for (const m of list) {
      const o = obj(m);
      if (o && typeof o.id === 'string') this.upsert(o, line, at, true);
    }
  }

  mergeMeta(patch: Json): void {
    for (const [k, v] of Object.entries(patch)) if (k !== 'messages') this.meta[k] = v;
  }
}

/** Reads a JSONL chat file. */
function readJsonl(file: string, problems: ImportProblem[]): History {
  const rp = new Replay(file, problems);
  const carries: (string | null)[] = [];
  let recognised = 0;
  let index = 0;
  const rf = readJsonLines(file, problems, (o, line) => {
    const at = index++;
    carries.push(null);
    if (typeof o.$rewindTo === 'string') {
      recognised++;
      rp.rewind(o.$rewindTo, line);
    } else if (typeof o.id === 'string') {
      recognised++;
      carries[at] = o.id;
      rp.upsert(o, line, at, false);
    } else if (obj(o.$set)) {
      recognised++;
      const set = o.$set as Json;
      rp.mergeMeta(set);
      if (Array.isArray(set.messages)) rp.checkpoint(set.messages, line, at);
    } else if (isMeta(o)) {
      recognised++;
      rp.mergeMeta(o);
      // The whole JSON generation's document written on one line is read the same way (as the CLI does).
      if (Array.isArray(o.messages)) for (const m of o.messages) addMessage(rp, m, line, at);
    } else {
      problems.push({
        file,
        line,
        reason: 'not a Gemini CLI chat record (no id, $set, $rewindTo or sessionId); skipped',
      });
    }
  });
  return {
    file,
    meta: rp.meta,
    messages: rp.messages,
    raws: rf.raws,
    lineNos: rf.lineNos,
    carries,
    truncatedEnd: rf.truncatedEnd,
    legacy: false,
    recognised: recognised > 0,
  };
}

function addMessage(rp: Replay, m: unknown, line: number, at: number): void {
  const o = obj(m);
  if (o && typeof o.id === 'string') rp.upsert(o, line, at, false);
}

/** A JSON.parse message cut to one short line. */
function parseError(e: unknown): string {
  const m = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ');
  return m.length > 80 ? `${m.slice(0, 79)}…` : m;
}

/**
 * Reads a whole-document JSON chat file. Its records are made up: the document without `messages` (as JSON text),
 * then each message as JSON text; each message's line is where its `"id"` is written in the file.
 */
function readJson(file: string, buf: Buffer, problems: ImportProblem[]): History {
  const empty: History = {
    file,
    meta: {},
    messages: [],
    raws: [],
    lineNos: [],
    carries: [],
    truncatedEnd: false,
    legacy: true,
    recognised: false,
  };
  if (buf.subarray(0, 8192).indexOf(0) >= 0 || !isUtf8(buf)) {
    problems.push({ file, line: 0, reason: 'binary data or invalid UTF-8, not a Gemini CLI chat file' });
    return empty;
  }
  let text = buf.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let doc: Json | null;
  try {
    doc = obj(JSON.parse(text));
  } catch (e) {
    // The JSON generation rewrites the file in place: a reader can catch it half written.
    const cut = /end of (JSON )?input|Unterminated/i.test(String(e));
    problems.push({
      file,
      line: 0,
      reason: cut
        ? 'the JSON document ends early (still being written?); not read'
        : `not valid JSON (${parseError(e)}); not read`,
    });
    return { ...empty, truncatedEnd: cut };
  }
  // The CLI's own fallback for this generation asks only for a sessionId (`parseLegacyRecordFallback`).
  if (!doc || typeof doc.sessionId !== 'string' || !Array.isArray(doc.messages)) {
    problems.push({ file, line: 0, reason: 'not a Gemini CLI chat file (no sessionId and messages)' });
    return empty;
  }
  const rp = new Replay(file, problems);
  const { messages, ...meta } = doc;
  rp.mergeMeta(meta);
  // The metadata is the document less its messages: one nested too deeply is kept as an empty record.
  const metaRaw = jsonText(meta);
  if (metaRaw === undefined)
    problems.push({ file, line: 1, reason: `session metadata ${TOO_DEEP}; left out` });
  const raws = [metaRaw ?? '{}'];
  const lineNos = [1];
  const carries: (string | null)[] = [null];
  let pos = 0;
  let line = 1;
  for (const [k, m] of (messages as unknown[]).entries()) {
    const o = obj(m);
    if (!o || typeof o.id !== 'string') {
      problems.push({ file, line: 0, reason: `message ${k + 1} is not an object with an id; skipped` });
      continue;
    }
    // The line of the message: where its id is written, looked for from the previous message on.
    const at = text.indexOf(JSON.stringify(o.id), pos);
    if (at >= 0) {
      for (let i = text.indexOf('\n', pos); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) line++;
      pos = at;
    }
    const kept = fitRecord(o, file, line, problems);
    if (!kept) continue;
    raws.push(kept.raw);
    lineNos.push(line);
    carries.push(o.id);
    rp.upsert(kept.rec, line, raws.length - 1, false);
  }
  return {
    file,
    meta: rp.meta,
    messages: rp.messages,
    raws,
    lineNos,
    carries,
    truncatedEnd: false,
    legacy: true,
    recognised: true,
  };
}

/**
 * A message of the JSON generation as its record: its JSON text, cut like an over-long JSONL line when it is over
 * the 16 MiB a record may hold (../long-lines.ts), and reported; undefined (reported) when even cut it is too long
 * or it nests too deeply to be written out again.
 */
function fitRecord(
  o: Json,
  file: string,
  line: number,
  problems: ImportProblem[],
): { raw: string; rec: Json } | undefined {
  const raw = jsonText(o);
  if (raw === undefined) {
    problems.push({ file, line, reason: `message ${TOO_DEEP}; skipped` });
    return undefined;
  }
  if (raw.length <= MAX_LINE_BYTES / 4 || Buffer.byteLength(raw) <= MAX_LINE_BYTES) return { raw, rec: o };
  const mib = `${Math.round(Buffer.byteLength(raw) / 2 ** 20)} MiB`;
  const cut = cutLine(Buffer.from(raw));
  if (cut === undefined) {
    problems.push({
      file,
      line,
      reason: `message of ${mib} is over the 16 MiB limit and is not text that can be cut; skipped`,
    });
    return undefined;
  }
  problems.push({ file, line, reason: `message of ${mib} is over the 16 MiB limit; its text cut to fit` });
  return { raw: cut.text, rec: JSON.parse(cut.text) as Json };
}

/** A pretty-printed document starts with a line holding only `{`: the JSON generation (any file name). */
function looksLikeDocument(buf: Buffer): boolean {
  let i = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  while (i < buf.length && (buf[i] === 0x20 || buf[i] === 0x09)) i++;
  if (buf[i] !== 0x7b) return false; // '{'
  i++;
  while (i < buf.length && (buf[i] === 0x20 || buf[i] === 0x09 || buf[i] === 0x0d)) i++;
  return i >= buf.length || buf[i] === 0x0a;
}

/**
 * Reads one chat file of either generation. Throws (one line) only when the file cannot be read at all; another
 * format is one problem.
 */
export function readHistory(file: string, problems: ImportProblem[]): History {
  let head: Buffer;
  try {
    head = readHead(file, 4096);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? parseError(e);
    throw new Error(`cannot read ${file}: ${code}`);
  }
  if (looksLikeDocument(head)) {
    let buf: Buffer;
    try {
      buf = readRegular(file, MAX_JSON_BYTES).buf;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? parseError(e);
      throw new Error(`cannot read ${file}: ${code}`);
    }
    return readJson(file, buf, problems);
  }
  const before = problems.length;
  const h = readJsonl(file, problems);
  if (!h.recognised && h.raws.length > 0) {
    // Another format is one problem for the file, not one for each of its lines.
    problems.length = before;
    problems.push({
      file,
      line: 0,
      reason: `no Gemini CLI records among ${h.raws.length} JSON lines (another format?)`,
    });
  }
  return h;
}
