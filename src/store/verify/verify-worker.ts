/**
 * A helper thread of verify on a large shard (verify-parallel.ts): on its own read-only connection, in one read
 * transaction whose chain head must be the one verify's thread sees, it rebuilds the chain's claims (the first
 * helper) and then takes chunks of nodes from the shared counter and computes them on the fast path, answering on
 * its port; once verify's thread has joined them, ranges of the subtree check. verify's thread waits with
 * Atomics.wait and reads the port with receiveMessageOnPort, so it needs no event loop. A helper that cannot start,
 * or sees another head, vouches for nothing: the work is done by verify's thread.
 */
import { workerData } from 'node:worker_threads';
import { claimsDone, takeChunks, takeSubtreeRanges, type VerifyJob, type VerifyMessage } from './parallel.js';

const job = workerData as VerifyJob;
let claimsSent = false;
try {
  // Loaded here, not at the top, so that a failure to load leaves the work to verify's thread.
  const { default: Database } = await import('better-sqlite3');
  const { readClaims } = await import('../chain/claims-read.js');
  const { AuditLog } = await import('../chain/log.js');
  const { pageStatements } = await import('./nodes.js');
  const db = new Database(job.path, { readonly: true, fileMustExist: true });
  try {
    db.exec('BEGIN');
    const head = new AuditLog(db).head();
    const same = head.seq === job.head.seq && head.hash.toString('hex') === job.head.hash;
    if (same) {
      if (job.claims) {
        const claims = readClaims(db);
        job.port.postMessage({ kind: 'claims', claims } satisfies VerifyMessage);
        claimsSent = true;
        claimsDone(job.shared, true);
      }
      takeChunks(pageStatements(db, job.guardedBelow), job, (k, chunk) => {
        if (chunk) job.port.postMessage({ kind: 'chunk', k, chunk } satisfies VerifyMessage);
      });
    }
    db.exec('COMMIT');
  } finally {
    db.close();
  }
  // Then the subtree check, which reads nothing from the shard: the hashes verify's thread joined.
  takeSubtreeRanges(job);
} catch {
  // A chunk this thread took is already marked "not vouched for" (takeChunks' finally).
} finally {
  if (job.claims && !claimsSent) claimsDone(job.shared, false);
  job.port.close();
}
