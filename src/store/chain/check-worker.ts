/**
 * A helper thread of AuditLog.check on a long chain (check.ts, checkInParallel): takes chunks of the chain from
 * the shared counter and checks each on the fast path only, on its own read-only connection, answering in shared
 * memory (the checking thread waits with Atomics.wait, so it cannot take messages). A chunk's state 1 is intact,
 * with its first stored prev_hash and last event hash; state 2 is not vouched for (the checking thread then checks
 * from there itself and names any break). A helper that cannot start takes no chunk: the others take them all.
 */
import { workerData } from 'node:worker_threads';
import type { ChunkJob } from './check.js';

const job = workerData as ChunkJob;
try {
  // Loaded here, not at the top, so that a failure to load leaves the chunks to the other threads.
  const { default: Database } = await import('better-sqlite3');
  const { fastPageSql, takeChunks } = await import('./check.js');
  const { cachedStatement } = await import('../db/statements.js');
  const db = new Database(job.path, { readonly: true, fileMustExist: true });
  try {
    takeChunks(cachedStatement(db, fastPageSql(job.guarded), 'raw'), job);
  } finally {
    db.close();
  }
} catch {
  // A chunk this thread took is already marked "not vouched for" (takeChunks' finally).
}
