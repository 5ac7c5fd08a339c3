import type Database from 'better-sqlite3';
import type { ChainClaims, Problem } from '../chain/claims.js';
import { sha256 } from '../model/hash.js';
import { decodeChunk } from '../write/sources.js';

/**
 * Compares what the shard keeps of imported histories with what the chain recorded when it was imported: each
 * source session's mapping (session.create), each chunk of source records (its digest, in import.file) and each
 * turn's pointer into a chunk (node.add). Both ways: a row the chain never wrote, and a row the chain wrote that
 * is gone or changed. Chunks are decompressed and hashed here, so a body rewritten with a matching stored digest is
 * caught by the claimed one.
 */
export function compareSources(db: Database.Database, claims: ChainClaims): Problem[] {
  const out: Problem[] = [];
  const p = (id: string, detail: string) => out.push({ kind: 'source', id, detail });

  const seenSessions = new Set<string>();
  for (const [source, sourceSession, sid, info] of db
    .prepare('SELECT source, source_session, sid, info_json FROM session_sources NOT INDEXED')
    .raw(true)
    .iterate() as Iterable<[unknown, unknown, unknown, unknown]>) {
    const key = String(sid);
    seenSessions.add(key);
    const c = claims.sessionSources.get(key);
    if (!c) p(key, `maps ${String(source)} session ${String(sourceSession)} here, but no event recorded it`);
    else if (c.source !== source || c.source_session !== sourceSession || c.info_json !== info)
      p(key, `its source mapping differs from the one event ${c.event} recorded`);
  }
  for (const [sid, c] of claims.sessionSources)
    if (!seenSessions.has(sid)) p(sid, `its source mapping (event ${c.event}) is missing`);

  const seenChunks = new Set<number>();
  for (const [idCol, bytes, digest, body] of db
    .prepare('SELECT id, bytes, sha256, body FROM source_chunks NOT INDEXED')
    .raw(true)
    .iterate() as Iterable<[unknown, unknown, unknown, unknown]>) {
    const id = Number(idCol);
    seenChunks.add(id);
    const c = claims.chunks.get(id);
    const name = `chunk ${id}`;
    if (!c) {
      p(name, 'no event wrote this chunk of source records');
      continue;
    }
    const stored = Buffer.isBuffer(digest) ? digest.toString('hex') : '';
    if (stored !== c.sha256 || bytes !== c.bytes) {
      p(name, `its digest differs from the one event ${c.event} recorded`);
      continue;
    }
    let raw: Buffer | null = null;
    try {
      if (Buffer.isBuffer(body)) raw = decodeChunk(body, c.bytes);
    } catch {
      raw = null;
    }
    if (!raw || raw.length !== c.bytes || sha256(raw).toString('hex') !== c.sha256)
      p(name, `its records do not hash to the digest event ${c.event} recorded`);
  }
  for (const [id, c] of claims.chunks)
    if (!seenChunks.has(id)) p(`chunk ${id}`, `written by event ${c.event}, it is missing`);

  const seenRefs = new Set<string>();
  for (const [batesCol, chunk, start, length] of db
    .prepare('SELECT bates, chunk_id, start, length FROM node_sources NOT INDEXED')
    .raw(true)
    .iterate() as Iterable<[unknown, unknown, unknown, unknown]>) {
    const bates = String(batesCol);
    seenRefs.add(bates);
    const c = claims.sourceRefs.get(bates);
    if (!c) p(bates, 'has source records no event recorded');
    else if (c.chunk !== chunk || c.start !== start || c.length !== length)
      p(bates, `its source records differ from the ones event ${c.event} recorded`);
  }
  for (const [bates, c] of claims.sourceRefs)
    if (!seenRefs.has(bates)) p(bates, `its source records (event ${c.event}) are missing`);
  return out;
}
