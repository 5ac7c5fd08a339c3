/**
 * The remote layout (docs/sync.md, "Layout"), on each host's branch `refs/heads/hosts/<host id>`:
 *   HEAD.json                                 {format: 1, host, events: {seq, hash}, turns, sessions}
 *   sessions/<sid[0..2]>/<sid>/session.json   {sid, label, created_at, archived, origin}
 *   sessions/<sid[0..2]>/<sid>/<seq, 6+ digits>.json   one turn: exactly the bytes its node hash covers
 *   events/<chunk, 6 digits>.txt              the host's chain, EVENTS_PER_CHUNK lines each: `seq hash body`
 * Pure: names and formats, no git and no store.
 */

export const FORMAT = 1;
export const EVENTS_PER_CHUNK = 1000;
/** Host ids as minted (12 of [a-z0-9]); a branch name that is not one is ignored, never used in a path. */
export const HOST_RE = /^[a-z0-9]{1,32}$/;
export const SID_RE = /^[a-z0-9]{1,32}$/;
export const HEX64 = /^[0-9a-f]{64}$/;

export const HEAD_PATH = 'HEAD.json';
/** The store's own limit on a label (src/store/write/turns.ts, cleanLabel). */
const MAX_LABEL = 200;

export function sessionDir(sid: string): string {
  return `sessions/${sid.slice(0, 2)}/${sid}`;
}

export function sessionPath(sid: string): string {
  return `${sessionDir(sid)}/session.json`;
}

export function turnPath(sid: string, seq: number): string {
  return `${sessionDir(sid)}/${String(seq).padStart(6, '0')}.json`;
}

/** The chunk an event seq (1-based) is in: seqs 1..1000 in chunk 0. */
export function chunkOf(seq: number): number {
  return Math.floor((seq - 1) / EVENTS_PER_CHUNK);
}

export function chunkPath(chunk: number): string {
  return `events/${String(chunk).padStart(6, '0')}.txt`;
}

/** What a path of a host's tree is. */
export type Place =
  | { kind: 'head' }
  | { kind: 'session'; sid: string }
  | { kind: 'turn'; sid: string; seq: number }
  | { kind: 'events'; chunk: number }
  | { kind: 'other' };

const TURN_FILE = /^sessions\/([a-z0-9]{1,2})\/([a-z0-9]{1,32})\/(\d{6,})\.json$/;
const SESSION_FILE = /^sessions\/([a-z0-9]{1,2})\/([a-z0-9]{1,32})\/session\.json$/;
const CHUNK_FILE = /^events\/(\d{6,})\.txt$/;

export function placeOf(path: string): Place {
  if (path === HEAD_PATH) return { kind: 'head' };
  let m = TURN_FILE.exec(path);
  // A seq the store can mint (1 up to a safe integer): 20 digits would round, and the writer would then throw.
  if (m?.[2].startsWith(m[1]) && Number.isSafeInteger(Number(m[3])) && Number(m[3]) >= 1)
    return { kind: 'turn', sid: m[2], seq: Number(m[3]) };
  m = SESSION_FILE.exec(path);
  if (m?.[2].startsWith(m[1])) return { kind: 'session', sid: m[2] };
  m = CHUNK_FILE.exec(path);
  if (m) return { kind: 'events', chunk: Number(m[1]) };
  return { kind: 'other' };
}

export interface HeadFile {
  format: number;
  host: string;
  events: { seq: number; hash: string };
  turns: number;
  sessions: number;
}

export interface SessionFile {
  sid: string;
  label: string | null;
  created_at: string;
  archived: boolean;
  origin: { source: string; source_session: string; info: Record<string, unknown> } | null;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** HEAD.json read back: undefined when it is not one (a remote is untrusted). */
export function parseHead(buf: Buffer | null): HeadFile | undefined {
  if (!buf) return undefined;
  try {
    const v = JSON.parse(buf.toString('utf8')) as unknown;
    if (!isObject(v) || v.format !== FORMAT || typeof v.host !== 'string' || !isObject(v.events))
      return undefined;
    const { seq, hash } = v.events;
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) return undefined;
    if (typeof hash !== 'string' || !HEX64.test(hash)) return undefined;
    return {
      format: FORMAT,
      host: v.host,
      events: { seq, hash },
      turns: typeof v.turns === 'number' ? v.turns : 0,
      sessions: typeof v.sessions === 'number' ? v.sessions : 0,
    };
  } catch {
    return undefined;
  }
}

/** session.json read back: undefined when it is not one. */
export function parseSession(buf: Buffer | null): SessionFile | undefined {
  if (!buf) return undefined;
  try {
    const v = JSON.parse(buf.toString('utf8')) as unknown;
    if (!isObject(v) || typeof v.sid !== 'string' || !SID_RE.test(v.sid)) return undefined;
    // A label as the store takes one (cleanLabel: text of 1-200 characters, not blank), so that creating the session
    // here cannot fail: a throw in the writer would stop the whole sync, not just this host.
    if (
      v.label !== null &&
      (typeof v.label !== 'string' ||
        v.label.length > MAX_LABEL ||
        v.label.trim() === '' ||
        !v.label.isWellFormed())
    )
      return undefined;
    // A time as a store writes one (an ISO 8601 string), not a megabyte for every list to carry.
    if (typeof v.created_at !== 'string' || v.created_at.length > 64 || typeof v.archived !== 'boolean')
      return undefined;
    const o = v.origin;
    const origin =
      isObject(o) && typeof o.source === 'string' && typeof o.source_session === 'string' && isObject(o.info)
        ? { source: o.source, source_session: o.source_session, info: o.info }
        : null;
    return {
      sid: v.sid,
      label: v.label as string | null,
      created_at: v.created_at,
      archived: v.archived,
      origin,
    };
  } catch {
    return undefined;
  }
}

/** One line of an events chunk. */
export interface EventLine {
  seq: number;
  hash: string;
  body: Buffer;
}

export function eventLine(e: EventLine): string {
  return `${e.seq} ${e.hash} ${e.body.toString('utf8')}\n`;
}

/** A chunk's lines; a line that is not `seq hash body` is reported by its number (1-based) in `bad`. */
export function parseChunk(buf: Buffer): { lines: EventLine[]; bad: number | null } {
  const lines: EventLine[] = [];
  let pos = 0;
  let n = 0;
  while (pos < buf.length) {
    n++;
    const nl = buf.indexOf(0x0a, pos);
    if (nl < 0) return { lines, bad: n }; // every line ends: a cut chunk is not one
    const line = buf.subarray(pos, nl);
    pos = nl + 1;
    const a = line.indexOf(0x20);
    const b = a < 0 ? -1 : line.indexOf(0x20, a + 1);
    if (b < 0) return { lines, bad: n };
    const seqText = line.subarray(0, a).toString('latin1');
    const hash = line.subarray(a + 1, b).toString('latin1');
    if (!/^[1-9]\d*$/.test(seqText) || !HEX64.test(hash)) return { lines, bad: n };
    lines.push({ seq: Number(seqText), hash, body: Buffer.from(line.subarray(b + 1)) });
  }
  return { lines, bad: null };
}
