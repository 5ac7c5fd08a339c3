/**
 * The files that decide what a Gemini CLI chat file yields (SourceReader.inputs; src/import/fingerprint.ts): the
 * chat, its session's subagent chats (`chats/<session id>/`, chat.ts), and the files its project folder is looked up
 * from (paths.ts, projectCwd). The session id comes from the file's head, where both generations write it first: the
 * JSONL metadata line, the JSON document's first key (gemini-cli `ChatRecordingService`; the fixtures under
 * tests/import/fixtures/gemini). A head that does not show it there, a `logs.json` (it reads which sessions have
 * chats), or a file that cannot be read: undefined, and the file is read every time, as before.
 */
import { basename, dirname, join } from 'node:path';
import { readHead } from '../files.js';
import type { FileInputs, ListingCache } from '../fingerprint.js';
import { projectCwdFiles, projectDirOf, safeSessionId, subagentFiles } from './paths.js';

/** Bytes of a chat's head searched for its session id (a metadata line is a few hundred bytes). */
const HEAD_BYTES = 16 * 1024;

/** The session id a chat file's head names first, or undefined. */
export function headSessionId(head: string): string | undefined {
  // JSONL: the whole first line is the metadata object.
  const nl = head.indexOf('\n');
  if (nl > 0 && head.trimStart().startsWith('{"')) {
    try {
      const meta = JSON.parse(head.slice(0, nl)) as Record<string, unknown>;
      if (meta !== null && typeof meta.sessionId === 'string' && meta.sessionId !== '') return meta.sessionId;
    } catch {
      // not a one-line metadata object: perhaps the JSON generation, pretty-printed
    }
  }
  // JSON: `{` then "sessionId" as the document's first key, its value a plain string (no escapes to decode). (A
  // `$set` that changed the id later in a JSONL file, which gemini-cli never writes, would be missed here.)
  const m = /^\s*\{\s*"sessionId"\s*:\s*"([^"\\\n]+)"\s*,/.exec(head);
  return m?.[1];
}

/** The subagent chats' names in a session's folder, as chat.ts reads them (none when there is no such folder). */
const subagentNames = (dir: string): string[] =>
  subagentFiles(dirname(dir), basename(dir), []).map((f) => basename(f));

export function geminiInputs(file: string, listings: ListingCache): FileInputs | undefined {
  if (basename(file) === 'logs.json') return undefined;
  let sid: string | undefined;
  try {
    sid = headSessionId(readHead(file, HEAD_BYTES).toString('utf8'));
  } catch {
    return undefined;
  }
  if (sid === undefined) return undefined;
  const files = [file];
  const projectDir = projectDirOf(file);
  if (projectDir !== undefined) {
    const sub = join(dirname(file), safeSessionId(sid));
    for (const name of listings.list(sub, subagentNames)) files.push(join(sub, name));
    for (const f of projectCwdFiles(projectDir)) if (f !== undefined) files.push(f);
  }
  return { reader: 'gemini', files };
}
