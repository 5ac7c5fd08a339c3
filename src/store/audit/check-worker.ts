/**
 * The helper thread of AuditLog.check on a long chain: checks events (from, to] of the shard at `path` on the fast
 * path only, on its own read-only connection, and reports through shared memory (the checking thread waits with
 * Atomics.wait, so it cannot take messages). State 1: intact, with the range's first stored prev_hash and last
 * event hash; state 2: not vouched for (the caller then checks the range itself and names any break).
 */
import { workerData } from 'node:worker_threads';

const { path, from, to, shared } = workerData as {
  path: string;
  from: number;
  to: number;
  shared: SharedArrayBuffer;
};
const state = new Int32Array(shared, 0, 1);
const out = new Uint8Array(shared, 4, 64);
let result = 2;
try {
  // Loaded here, not at the top, so that a failure to load still answers instead of leaving the caller waiting.
  const { default: Database } = await import('better-sqlite3');
  const { FAST_PAGE_SQL, scanRange } = await import('./check.js');
  const { cachedStatement } = await import('../db/statements.js');
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const r = scanRange(cachedStatement(db, FAST_PAGE_SQL, 'raw'), from, to);
    if (r) {
      out.set(r.first, 0);
      out.set(r.last, 32);
      result = 1;
    }
  } finally {
    db.close();
  }
} catch {
  result = 2;
}
Atomics.store(state, 0, result);
Atomics.notify(state, 0);
