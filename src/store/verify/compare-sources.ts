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

/**
 * Compares sync_state and sync_marks (docs/sync.md) with what the `sync` events recorded, both ways: a row no event
 * wrote, a row changed since, a row an event wrote that is gone. The rows steer what the next sync imports, so a row
 * edited behind arborist's back (a host's commit moved on, past turns never imported) is said here.
 */
export function compareSync(db: Database.Database, claims: ChainClaims): Problem[] {
  const out: Problem[] = [];
  const p = (id: string, detail: string) => out.push({ kind: 'sync', id, detail });
  const seen = new Set<string>();
  for (const [remote, host, commit, seq, hash] of db
    .prepare('SELECT remote, host, commit_id, seq, hash FROM sync_state NOT INDEXED')
    .raw(true)
    .iterate() as Iterable<[unknown, unknown, unknown, unknown, unknown]>) {
    const key = `${String(remote)}\0${String(host)}`;
    const name = `${String(remote)}/${String(host)}`;
    seen.add(key);
    const c = claims.syncStates.get(key);
    if (!c) p(name, 'a sync state no sync event recorded');
    else if (c.commit !== commit || c.seq !== seq || c.hash !== hash)
      p(name, `its sync state differs from the one event ${c.event} recorded`);
  }
  for (const [key, c] of claims.syncStates)
    if (!seen.has(key)) p(key.replace('\0', '/'), `its sync state (event ${c.event}) is missing`);
  const seenMarks = new Set<string>();
  for (const [sid, host, archived] of db
    .prepare('SELECT sid, host, archived FROM sync_marks NOT INDEXED')
    .raw(true)
    .iterate() as Iterable<[unknown, unknown, unknown]>) {
    const key = String(sid);
    seenMarks.add(key);
    const c = claims.syncMarks.get(key);
    if (!c) p(key, 'an archived-there mark no sync event recorded');
    else if (c.host !== host || (c.archived ? 1 : 0) !== archived)
      p(key, `its archived-there mark differs from the one event ${c.event} recorded`);
  }
  for (const [sid, c] of claims.syncMarks)
    if (!seenMarks.has(sid)) p(sid, `its archived-there mark (event ${c.event}) is missing`);
  return out;
}
