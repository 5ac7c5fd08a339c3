/**
 * The storage generation (OpenCode up to 1.1.x): one JSON file per record under `<data>/storage/`:
 * `session/<projectID>/<sessionID>.json`, `message/<sessionID>/<messageID>.json`, `part/<messageID>/<partID>.json`
 * (anomalyco/opencode packages/opencode/src/storage/storage.ts; the ids come from the paths, as OpenCode's own
 * migration to the database takes them: packages/opencode/src/storage/json-migration.ts). A unit is one session
 * file; its messages and parts are read from the folders beside it. Files are only ever read.
 */
import { isUtf8 } from 'node:buffer';
import { readdirSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { RefusedFile, readRegular } from '../files.js';
import { cutLine, MAX_LINE_BYTES } from '../long-lines.js';
import { type ImportProblem, type ParsedSource, unreadableFolder } from '../model.js';
import { statOf } from '../walk.js';
import { sessionSource } from './links.js';
import {
  byId,
  dig,
  FORK_TITLE,
  isJson,
  type Json,
  msOf,
  type OcMessage,
  type OcPart,
  type OcSession,
  type SessionSource,
  str,
} from './records.js';

/** A record file larger than this is refused (its JSON is parsed whole; a part's text is cut at 16 MiB anyway). */
const MAX_FILE_BYTES = 256 * 2 ** 20;

/** The storage folder a session file belongs to, when it sits where OpenCode puts one (else null). */
export function storageRootOf(sessionFile: string): string | null {
  const projectDir = dirname(sessionFile);
  if (basename(dirname(projectDir)) !== 'session') return null;
  return dirname(dirname(projectDir));
}

/** A record, or why not: `content` when the file was read but is not such a record. */
type Refused = { problem: string; content?: boolean };
type Read = { json: Json; raw: string } | Refused;

/** One record file: parsed, and its record for `raw` (`{"file":<path in storage>,"text":<its text>}`). */
function readRecord(root: string, file: string): Read {
  let buf: Buffer;
  try {
    buf = readRegular(file, MAX_FILE_BYTES).buf;
  } catch (e) {
    if (e instanceof RefusedFile) return { problem: e.message };
    return { problem: `cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})` };
  }
  if (!isUtf8(buf)) return { problem: 'invalid UTF-8; file skipped', content: true };
  let text: string;
  if (buf.length > MAX_LINE_BYTES) {
    // Over the store's 16 MiB: its long strings are cut (as a Claude Code line is), the rest of it kept.
    const cut = cutLine(buf);
    if (cut === undefined)
      return {
        problem: `a record of ${Math.round(buf.length / 2 ** 20)} MiB, mostly structure: skipped`,
        content: true,
      };
    text = cut.text;
  } else text = buf.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: 'not JSON: skipped', content: true };
  }
  if (!isJson(value)) return { problem: 'not a JSON object: skipped', content: true };
  return { json: value, raw: JSON.stringify({ file: relative(root, file), text }) };
}

/** The `.json` files of a folder, by name (OpenCode lists them sorted: its ids sort in time order). */
function jsonFiles(dir: string, problems: ImportProblem[]): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    unreadableFolder(dir, e, problems);
    return [];
  }
  return names
    .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
    .sort()
    .map((n) => join(dir, n));
}

const idOf = (file: string) => basename(file, '.json');

/** A session: its file, then its messages and their parts from the folders beside it. */
export function loadStorageSession(root: string, file: string): OcSession | Refused {
  const head = readRecord(root, file);
  if ('problem' in head) return head;
  const problems: ImportProblem[] = [];
  const id = idOf(file);
  const messages: OcMessage[] = [];
  for (const mf of jsonFiles(join(root, 'message', id), problems)) {
    const m = readRecord(root, mf);
    if ('problem' in m) {
      problems.push({ file: mf, line: 0, reason: m.problem });
      continue;
    }
    if (typeof m.json.role !== 'string') {
      problems.push({ file: mf, line: 0, reason: 'message without a role: skipped' });
      continue;
    }
    const parts: OcPart[] = [];
    for (const pf of jsonFiles(join(root, 'part', idOf(mf)), problems)) {
      const p = readRecord(root, pf);
      if ('problem' in p) problems.push({ file: pf, line: 0, reason: p.problem });
      else parts.push({ id: idOf(pf), data: p.json, raw: p.raw });
    }
    parts.sort(byId);
    messages.push({ id: idOf(mf), data: m.json, raw: m.raw, file, line: messages.length + 1, parts });
  }
  messages.sort(byId);
  messages.forEach((m, i) => {
    m.line = i + 1;
  });
  return { id, info: head.json, raw: head.raw, file, line: 0, messages, problems };
}

/** Other sessions of the same storage folder: parents by id, fork originals by title in the same project. */
class StorageSessions implements SessionSource {
  constructor(private readonly root: string) {}

  private projects(): string[] {
    try {
      return readdirSync(join(this.root, 'session')).sort();
    } catch {
      return [];
    }
  }

  load(id: string): OcSession | undefined {
    for (const p of this.projects()) {
      const f = join(this.root, 'session', p, `${id}.json`);
      if (!exists(f)) continue;
      const s = loadStorageSession(this.root, f);
      return 'messages' in s ? s : undefined;
    }
    return undefined;
  }

  forkCandidates(s: OcSession): OcSession[] {
    const base = FORK_TITLE.exec(str(s.info.title))?.[1];
    const started = msOf(dig(s.info, 'time', 'created')) ?? Number.POSITIVE_INFINITY;
    const out: OcSession[] = [];
    for (const f of jsonFiles(dirname(s.file), [])) {
      if (f === s.file) continue;
      const head = readRecord(this.root, f);
      if ('problem' in head) continue;
      const title = str(head.json.title);
      const created = msOf(dig(head.json, 'time', 'created')) ?? Number.POSITIVE_INFINITY;
      if (created > started || (title !== base && FORK_TITLE.exec(title)?.[1] !== base)) continue;
      const o = loadStorageSession(this.root, f);
      if ('messages' in o) out.push(o);
    }
    return out;
  }
}

function exists(f: string): boolean {
  return statOf(f)?.isFile() === true;
}

/** One session file as its ParsedSource, or null when the file is not a session where OpenCode keeps one. */
export function readStorageSession(file: string): ParsedSource | { problem: string } {
  const root = storageRootOf(file);
  const s = loadStorageSession(root ?? dirname(file), file);
  if (!('messages' in s))
    return {
      problem: 'content' in s && s.content ? `not an OpenCode session file (${s.problem})` : s.problem,
    };
  if (typeof s.info.id !== 'string' || !('title' in s.info || 'projectID' in s.info || 'directory' in s.info))
    return { problem: 'not an OpenCode session file (no session id, title or directory)' };
  if (root === null)
    return {
      problem: 'an OpenCode session file outside storage/session/<project>/: its messages cannot be found',
    };
  return sessionSource(s, new StorageSessions(root), file);
}
