/**
 * One pi-format JSONL transcript (a file's bytes, or an archive blob) into a session and its turns: the records
 * parsed (records.ts), the header checked, the turns built (transcript.ts). Pi writes these files and OpenClaw
 * writes the same format through pi's SessionManager, so both readers go through here; only the tool's name in
 * the "another format" problem differs.
 */
import { type Header, type Problems, parseJsonl, problem, type Rec } from './records.js';
import { buildSession, type ForkSource, type SessionOutput } from './transcript.js';

export interface JsonlSessionOptions {
  /** The tool's name, for the one problem a file of another format gets (`not a Pi transcript`). */
  tool: string;
  fallbackSessionId: string;
  archived?: { reason: 'reset' | 'deleted'; at: string };
  growing: boolean;
  fallbackCreatedAt?: string;
  /** Where the session was forked from, once its header is known (pi: the parent file the header names). */
  lineage?: (header: Header) => ForkSource | undefined;
}

export interface JsonlSession {
  out: SessionOutput;
  /** The records as the turn builder kept them (version 1 entries with the `@<line>` ids it gave them). */
  records: Rec[];
}

/** A JSONL transcript's bytes into a session, its turns and its records; null (one problem) for another format. */
export function readJsonlSession(buf: Buffer, p: Problems, o: JsonlSessionOptions): JsonlSession | null {
  const before = p.list.length;
  const parsed = parseJsonl(buf, p);
  if (parsed.header === null) {
    if (!parsed.records.some((r) => r.id !== null)) {
      // Another format: one problem for the file, not one for each of its lines.
      p.list.length = before;
      const a = /^[aeiou]/i.test(o.tool) ? 'an' : 'a';
      problem(p, 0, `not ${a} ${o.tool} transcript (no session header and no entries with ids)`);
      return null;
    }
    problem(p, 1, `no session header; the session id ${o.fallbackSessionId} is taken from the file name`);
  } else if (parsed.headerLine !== 1) {
    problem(p, parsed.headerLine, 'the session header is not on line 1');
  }
  const out = buildSession({
    header: parsed.header,
    headerRaw: parsed.headerRaw,
    truncatedEnd: parsed.truncatedEnd,
    fallbackSessionId: o.fallbackSessionId,
    records: parsed.records,
    p,
    archived: o.archived,
    growing: o.growing,
    fallbackCreatedAt: o.fallbackCreatedAt,
    fork: parsed.header && o.lineage ? o.lineage(parsed.header) : undefined,
  });
  return { out, records: parsed.records };
}

/** A JSONL transcript's bytes into a session and its turns; null (and one problem) for a file of another format. */
export function sessionFromJsonl(buf: Buffer, p: Problems, o: JsonlSessionOptions): SessionOutput | null {
  return readJsonlSession(buf, p, o)?.out ?? null;
}
