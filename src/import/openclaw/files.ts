/** The files generation: one transcript (live, topic or archived copy) read into one ParsedSource. */
import { readRegular } from '../files.js';
import type { ParsedSource } from '../model.js';
import { classify } from './paths.js';
import { type Problems, parseJsonl, problem } from './records.js';
import { buildSession, type SessionOutput } from './transcript.js';

/** Past this size a transcript or sessions.json is refused (a problem, not read): it is parsed whole in memory. */
export const MAX_FILE_BYTES = 1024 * 1024 * 1024;

export interface JsonlSessionOptions {
  fallbackSessionId: string;
  archived?: { reason: 'reset' | 'deleted'; at: string };
  growing: boolean;
  fallbackCreatedAt?: string;
}

/** A JSONL transcript's bytes (a file, or an archive blob from the database) into a session and its turns. */
export function sessionFromJsonl(buf: Buffer, p: Problems, o: JsonlSessionOptions): SessionOutput | null {
  const before = p.list.length;
  const parsed = parseJsonl(buf, p);
  if (parsed.header === null) {
    if (!parsed.records.some((r) => r.id !== null)) {
      // Another format: one problem for the file, not one for each of its lines.
      p.list.length = before;
      problem(p, 0, 'not an OpenClaw transcript (no session header and no entries with ids)');
      return null;
    }
    problem(p, 1, `no session header; the session id ${o.fallbackSessionId} is taken from the file name`);
  } else if (parsed.headerLine !== 1) {
    problem(p, parsed.headerLine, 'the session header is not on line 1');
  }
  return buildSession({
    header: parsed.header,
    headerRaw: parsed.headerRaw,
    truncatedEnd: parsed.truncatedEnd,
    fallbackSessionId: o.fallbackSessionId,
    records: parsed.records,
    p,
    archived: o.archived,
    growing: o.growing,
    fallbackCreatedAt: o.fallbackCreatedAt,
  });
}

export function readTranscriptFile(file: string): ParsedSource {
  const k = classify(file);
  const buf = readRegular(file, MAX_FILE_BYTES).buf;
  const p: Problems = { file, prefix: '', list: [] };
  const fallbackSessionId = k.kind === 'transcript' || k.kind === 'archive' ? k.sessionId : file;
  const out = sessionFromJsonl(buf, p, {
    fallbackSessionId,
    archived: k.kind === 'archive' ? { reason: k.reason, at: k.at } : undefined,
    growing: k.kind !== 'archive',
  });
  return {
    kind: 'openclaw',
    file,
    sessions: out ? [out.session] : [],
    turns: out ? out.turns : [],
    entries: [],
    problems: p.list.sort((a, b) => a.line - b.line),
  };
}
