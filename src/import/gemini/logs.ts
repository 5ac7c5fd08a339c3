/**
 * A project's `logs.json` (gemini-cli `core/logger.ts`): every prompt typed, `[{sessionId, messageId, timestamp,
 * type: "user", message}]`, kept after the chats are gone. Read only when named: a session whose chat file is
 * beside it (`chats/`) is left to that file; each other session becomes prompt-only turns (empty answer, a note),
 * one ParsedSource per session. The answers were never in this file.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readHead, readRegular } from '../files.js';
import { jsonText, TOO_DEEP } from '../json-text.js';
import { emptySource, type ImportProblem, type ParsedSource, type ParsedTurn } from '../model.js';
import { isoOf } from '../times.js';
import { type Json, obj } from './parts.js';
import { isChatFile, projectCwd } from './paths.js';

const MAX_LOGS_BYTES = 256 * 1024 * 1024;
export const PROMPT_ONLY = 'prompt only (logs.json)';

interface Entry {
  e: Json;
  /** The entry's JSON text, its record. */
  raw: string;
  line: number;
}

function parseError(e: unknown): string {
  const m = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ');
  return m.length > 80 ? `${m.slice(0, 79)}…` : m;
}

/** The session ids that have a chat file in `chatsDir`: the file name's 8-character id, then its sessionId. */
function sessionsWithChats(chatsDir: string, ids: string[]): Set<string> {
  const out = new Set<string>();
  let names: string[];
  try {
    names = readdirSync(chatsDir).filter(isChatFile);
  } catch {
    return out;
  }
  const byShort = new Map<string, string[]>();
  for (const n of names) {
    const short = /-([^-]{8})\.jsonl?$/.exec(n)?.[1];
    if (!short) continue;
    const list = byShort.get(short);
    if (list) list.push(n);
    else byShort.set(short, [n]);
  }
  for (const id of ids) {
    for (const n of byShort.get(id.slice(0, 8)) ?? []) {
      let head = '';
      try {
        head = readHead(join(chatsDir, n), 4096).toString('utf8');
      } catch {
        continue;
      }
      const said = /"sessionId"\s*:\s*"([^"]*)"/.exec(head)?.[1];
      if (said === id) {
        out.add(id);
        break;
      }
    }
  }
  return out;
}

export function* readLogsFile(file: string): Iterable<ParsedSource> {
  const problems: ImportProblem[] = [];
  const one = (reason: string): ParsedSource => emptySource('gemini', file, [{ file, line: 0, reason }]);
  const buf = readRegular(file, MAX_LOGS_BYTES).buf;
  if (buf.subarray(0, 8192).indexOf(0) >= 0) {
    yield one('binary data, not a Gemini CLI logs.json');
    return;
  }
  const text = buf.toString('utf8');
  let doc: unknown;
  try {
    doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    yield one(`not valid JSON (${parseError(e)}); not read`);
    return;
  }
  if (!Array.isArray(doc)) {
    yield one('not a Gemini CLI logs.json (not a JSON array)');
    return;
  }
  // The CLI writes the array with JSON.stringify(logs, null, 2): each entry starts on a line `  {`.
  const starts: number[] = [];
  text.split('\n').forEach((l, i) => {
    if (l.trimEnd() === '  {') starts.push(i + 1);
  });
  const lineOf = (k: number) => (starts.length === doc.length ? starts[k] : 0);
  const bySession = new Map<string, Entry[]>();
  for (const [k, raw] of doc.entries()) {
    const e = obj(raw);
    // The entries the CLI itself keeps (`Logger._readLogFile`).
    if (
      !e ||
      typeof e.sessionId !== 'string' ||
      typeof e.messageId !== 'number' ||
      typeof e.timestamp !== 'string' ||
      typeof e.type !== 'string' ||
      typeof e.message !== 'string'
    ) {
      problems.push({ file, line: lineOf(k), reason: `entry ${k + 1} is not a log entry; skipped` });
      continue;
    }
    if (e.type !== 'user' || e.message.trim() === '') continue;
    const json = jsonText(e);
    if (json === undefined) {
      problems.push({ file, line: lineOf(k), reason: `entry ${k + 1} ${TOO_DEEP}; skipped` });
      continue;
    }
    const list = bySession.get(e.sessionId);
    if (list) list.push({ e, raw: json, line: lineOf(k) });
    else bySession.set(e.sessionId, [{ e, raw: json, line: lineOf(k) }]);
  }
  if (bySession.size === 0 && doc.length > 0 && problems.length === doc.length) {
    yield one(`no Gemini CLI log entries among ${doc.length} (another format?)`);
    return;
  }
  const project = dirname(file);
  const covered = sessionsWithChats(join(project, 'chats'), [...bySession.keys()]);
  const cwd = projectCwd(project, undefined);
  for (const [sid, entries] of bySession) {
    if (covered.has(sid)) continue;
    // The file's own problems go with the first session read; each session's with it.
    const own = problems.splice(0);
    entries.sort((a, b) => (a.e.messageId as number) - (b.e.messageId as number));
    const turns: ParsedTurn[] = [];
    let parent: string | null = null;
    for (const { e, raw, line } of entries) {
      const createdAt = isoOf(e.timestamp);
      if (!createdAt) own.push({ file, line, reason: 'bad timestamp; the epoch is used' });
      const sourceId = `${sid}/log:${e.messageId}`;
      const t: ParsedTurn = {
        sourceId,
        parentSourceId: parent,
        sourceSession: sid,
        question: e.message as string,
        answer: '',
        createdAt: createdAt ?? new Date(0).toISOString(),
        raw: [raw],
        line,
        complete: true,
        note: PROMPT_ONLY,
      };
      if (cwd) t.cwd = cwd;
      turns.push(t);
      parent = sourceId;
    }
    const session = { sourceSession: sid, createdAt: turns[0].createdAt, ...(cwd ? { cwd } : {}) };
    yield { kind: 'gemini', file, sessions: [session], turns, entries: [], problems: own };
  }
  if (problems.length > 0) yield emptySource('gemini', file, problems);
}
