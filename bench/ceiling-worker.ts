/**
 * One thread of the ceilings bench/chain.ts measures: it hashes a range of byte strings that the caller read into
 * shared memory beforehand (no SQLite, no cutting, nothing but sha256 one string at a time, as the store hashes),
 * or runs a bare SQLite read (one aggregate per table, so no value crosses into JavaScript) over a range of rows.
 * The digest is taken as a latin1 string, the cheapest form Node 20 gives it in ('buffer' allocates a backing store
 * per call, which costs as much as hashing 300 bytes): the ceiling is the fastest this machine hashes these bytes.
 * Each message is one job; the answer is sent when it is done, and the caller times all threads' jobs as one.
 */
import { hash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import Database from 'better-sqlite3';

export type CeilingJob =
  | { kind: 'hash'; bytes: SharedArrayBuffer; offsets: SharedArrayBuffer; from: number; to: number }
  | { kind: 'read'; path: string; statements: { sql: string; params: number[] }[] }
  | { kind: 'stop' };

const port = parentPort;
if (port) {
  const dbs = new Map<string, Database.Database>();
  port.on('message', (job: CeilingJob) => {
    if (job.kind === 'stop') {
      for (const db of dbs.values()) db.close();
      port.close();
      return;
    }
    let sink = 0;
    if (job.kind === 'hash') {
      const bytes = Buffer.from(job.bytes);
      const offsets = new Float64Array(job.offsets);
      for (let k = job.from; k < job.to; k++)
        sink ^= hash('sha256', bytes.subarray(offsets[k], offsets[k + 1]), 'binary').charCodeAt(0);
    } else {
      let db = dbs.get(job.path);
      if (!db) {
        db = new Database(job.path, { readonly: true, fileMustExist: true });
        db.pragma('cache_size = -65536');
        dbs.set(job.path, db);
      }
      for (const s of job.statements)
        sink ^=
          Number(
            db
              .prepare(s.sql)
              .pluck()
              .get(...s.params) ?? 0,
          ) & 0xff;
    }
    port.postMessage(sink);
  });
}
