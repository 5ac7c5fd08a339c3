import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import type Database from 'better-sqlite3';
import { damaged } from '../base/errors.js';
import { cachedStatement } from '../db/statements.js';
import { sha256 } from '../model/hash.js';

/**
 * What the shard remembers of imported histories (docs/import.md): which arborist session a source's session
 * became, which turn a source id became, and each imported turn's source records, byte for byte.
 */

export interface SessionSourceInfo {
  cwd?: string;
  project?: string;
  title?: string;
  /** A session pulled by sync (source 'sync'): the host id it was made on (docs/sync.md). */
  host?: string;
  /** A session pulled by sync, or imported from an arborist export: the source it came from (`claude`, ...). */
  agent?: string;
}

/**
 * A session's agent as every view shows it: its source, or for a session pulled by sync or imported from an
 * arborist export the source it had where it was made (a Claude Code session pulled from a laptop is a Claude Code
 * session here too); null when asked in arborist.
 */
export function agentOf(o: SessionSource | undefined): string | null {
  if (!o) return null;
  const a = o.info.agent;
  const carried = o.source === 'sync' || o.source === 'arborist';
  return carried && typeof a === 'string' && /^[a-z0-9-]{1,32}$/.test(a) ? a : o.source;
}

/**
 * A session's project as every view shows it (browser, list, show, find, the MCP server): the working directory
 * the source recorded, else the source's own name for it (a folder or project name). One rule, so a session reads
 * as the same project everywhere. Info is parsed JSON, so a value that is not text counts as none.
 */
export function projectOf(info: SessionSourceInfo | undefined): string | null {
  for (const v of [info?.cwd, info?.project]) if (typeof v === 'string' && v !== '') return v;
  return null;
}

export interface SessionSource {
  source: string;
  source_session: string;
  sid: string;
  info: SessionSourceInfo;
}

/** The arborist session a source session was imported into, if any (live or archived: sids are never reused). */
export function sessionForSource(
  db: Database.Database,
  source: string,
  sourceSession: string,
): string | undefined {
  return cachedStatement(
    db,
    'SELECT sid FROM session_sources WHERE source = ? AND source_session = ?',
    'pluck',
  ).get(source, sourceSession) as string | undefined;
}

/** Where a session came from, when it was imported. */
export function sourceOfSession(db: Database.Database, sid: string): SessionSource | undefined {
  const r = cachedStatement(
    db,
    'SELECT source, source_session, sid, info_json FROM session_sources WHERE sid = ?',
  ).get(sid) as { source: string; source_session: string; sid: string; info_json: string } | undefined;
  if (!r) return undefined;
  return { source: r.source, source_session: r.source_session, sid: r.sid, info: infoOf(r.info_json) };
}

/**
 * Where every live imported session came from, by sid: its source (the agent), the source's session id and what the
 * source said of it (cwd, title). One pass over session_sources; sessions asked in arborist have no entry.
 */
export function sessionOrigins(db: Database.Database): Map<string, SessionSource> {
  const rows = cachedStatement(
    db,
    `SELECT o.source, o.source_session, o.sid, o.info_json FROM session_sources o
      WHERE EXISTS (SELECT 1 FROM sessions s WHERE s.sid = o.sid)`,
  ).all() as { source: string; source_session: string; sid: string; info_json: string }[];
  const out = new Map<string, SessionSource>();
  for (const r of rows) out.set(r.sid, { ...r, info: infoOf(r.info_json) });
  return out;
}

/**
 * Where the given sessions came from, by sid: the rows of sessionOrigins for these sids only (a browser's visible
 * rows), read through session_sources' sid index rather than every mapping. Sessions with no entry are absent;
 * an archived session keeps its entry (its sid is never reused), so the rows it is shown in can name it too.
 */
export function sessionOriginsOf(db: Database.Database, sids: readonly string[]): Map<string, SessionSource> {
  const q = cachedStatement(
    db,
    `SELECT source, source_session, sid, info_json FROM session_sources
      WHERE sid IN (SELECT value FROM json_each(?))`,
  );
  const out = new Map<string, SessionSource>();
  for (let i = 0; i < sids.length; i += LOOKUP_PAGE) {
    const page = JSON.stringify(sids.slice(i, i + LOOKUP_PAGE));
    for (const r of q.all(page) as {
      source: string;
      source_session: string;
      sid: string;
      info_json: string;
    }[])
      out.set(r.sid, { ...r, info: infoOf(r.info_json) });
  }
  return out;
}

function infoOf(json: string): SessionSourceInfo {
  try {
    const v = JSON.parse(json) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as SessionSourceInfo) : {};
  } catch {
    return {}; // verify reports a changed info_json; readers get no info rather than an exception
  }
}

const LOOKUP_PAGE = 500;

/** The Bates ids of turns already imported from `source`, by source id (live turns only). */
export function turnsBySourceId(
  db: Database.Database,
  source: string,
  sourceIds: readonly string[],
): Map<string, string> {
  const out = new Map<string, string>();
  const q = cachedStatement(
    db,
    `SELECT source_id, bates FROM nodes INDEXED BY nodes_source
      WHERE source = ? AND source_id IN (SELECT value FROM json_each(?))`,
    'raw',
  );
  for (let i = 0; i < sourceIds.length; i += LOOKUP_PAGE) {
    const page = JSON.stringify(sourceIds.slice(i, i + LOOKUP_PAGE));
    for (const [id, bates] of q.all(source, page) as [string, string][]) out.set(id, bates);
  }
  return out;
}

/**
 * Source ids of `source` that sit in archived sessions: importing them again would put a second copy live. The
 * archive documents keep the node rows; the source records stay in node_sources by Bates id, so this asks the
 * session mapping instead: any source session mapped to an archived sid.
 */
export function archivedSourceSessions(db: Database.Database, source: string): Set<string> {
  const rows = cachedStatement(
    db,
    `SELECT s.source_session FROM session_sources s JOIN session_archives a ON a.sid = s.sid WHERE s.source = ?`,
    'pluck',
  ).all(source) as string[];
  return new Set(rows);
}

/**
 * Chunks are brotli at quality 0: on transcript JSON it compressed 2.7x faster than deflate at level 1 (223 against
 * 83 MB/s on this machine) and a little smaller (25 against 26% of the input), and it is in Node's zlib.
 */
export function encodeChunk(raw: Buffer): Buffer {
  return brotliCompressSync(raw, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 0, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
  });
}

/** A chunk's records, never more than the `bytes` it claims (a forged body cannot inflate without bound). */
export function decodeChunk(body: Buffer, bytes: number): Buffer {
  return brotliDecompressSync(body, { maxOutputLength: Math.max(1, bytes) });
}

/** One imported turn's source records, exactly as read (each record followed by a newline), or undefined. */
export function sourceRecords(db: Database.Database, bates: string): Buffer | undefined {
  const ref = cachedStatement(db, 'SELECT chunk_id, start, length FROM node_sources WHERE bates = ?').get(
    bates,
  ) as { chunk_id: number; start: number; length: number } | undefined;
  if (!ref) return undefined;
  const chunk = readChunk(db, ref.chunk_id);
  if (ref.start + ref.length > chunk.length)
    throw damaged(`the source records of ${bates} point past their chunk`);
  return chunk.subarray(ref.start, ref.start + ref.length);
}

/**
 * The source records of many turns (a path: `arborist resume`), each chunk decompressed and checked once: one
 * sourceRecords call per turn decompressed a 4 MiB chunk per turn (a 5,000-turn path took a minute). Turns
 * without records are absent from the map.
 */
export function sourceRecordsOf(db: Database.Database, bates: readonly string[]): Map<string, Buffer> {
  const q = cachedStatement(
    db,
    `SELECT bates, chunk_id, start, length FROM node_sources
      WHERE bates IN (SELECT value FROM json_each(?))`,
  );
  const refs: { bates: string; chunk_id: number; start: number; length: number }[] = [];
  for (let i = 0; i < bates.length; i += LOOKUP_PAGE)
    refs.push(...(q.all(JSON.stringify(bates.slice(i, i + LOOKUP_PAGE))) as typeof refs));
  refs.sort((a, b) => a.chunk_id - b.chunk_id);
  const out = new Map<string, Buffer>();
  let id = -1;
  let chunk: Buffer = Buffer.alloc(0);
  for (const r of refs) {
    if (r.chunk_id !== id) {
      id = r.chunk_id;
      chunk = readChunk(db, id);
    }
    if (r.start + r.length > chunk.length)
      throw damaged(`the source records of ${r.bates} point past their chunk`);
    out.set(r.bates, chunk.subarray(r.start, r.start + r.length));
  }
  return out;
}

/** A chunk of source records, decompressed and checked against its stored digest. */
export function readChunk(db: Database.Database, id: number): Buffer {
  const row = cachedStatement(db, 'SELECT bytes, sha256, body FROM source_chunks WHERE id = ?').get(id) as
    | { bytes: number; sha256: Buffer; body: Buffer }
    | undefined;
  if (!row) throw damaged(`source chunk ${id} is missing`);
  let raw: Buffer;
  try {
    raw = decodeChunk(row.body, row.bytes);
  } catch {
    throw damaged(`source chunk ${id} does not decompress`);
  }
  if (raw.length !== row.bytes || !sha256(raw).equals(row.sha256))
    throw damaged(`source chunk ${id} does not match its digest`);
  return raw;
}
