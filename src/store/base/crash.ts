/**
 * Test hook: ARBORIST_TEST_CRASH_AFTER=POINT[:N] makes the process SIGKILL itself the N-th time (default 1st) it
 * reaches POINT, to prove that a crash leaves the before or the after state, never half. Points inside the
 * archive transaction: serialise, delete-fts, delete-nodes, delete-session, ripple, archive-record, audit; inside a
 * restore: insert-nodes, ripple; inside a bulk write (an import's file): bulk-rows; a fresh build (build.ts) indexed and closed, before its link: build-link; after any maintenance transaction committed: commit. Unset, it costs one
 * environment lookup per point.
 */

export const CRASH_HOOK_ENV = 'ARBORIST_TEST_CRASH_AFTER';
const crashCounts = new Map<string, number>();

export function crashPoint(point: string): void {
  const want = process.env[CRASH_HOOK_ENV];
  if (!want) return;
  const [name, nth] = want.split(':');
  if (name !== point) return;
  const n = (crashCounts.get(point) ?? 0) + 1;
  crashCounts.set(point, n);
  if (n < Number(nth ?? 1)) return;
  process.kill(process.pid, 'SIGKILL');
  // A signal to oneself is delivered at once; never carry on with the transaction if it somehow is not.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10_000);
  throw new Error(`${CRASH_HOOK_ENV}: ${point}`);
}
