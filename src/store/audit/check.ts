import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { cachedStatement } from '../db/statements.js';
import { eventHash, sha256, ZERO_HASH } from '../hash.js';

/**
 * Checking the audit chain (docs/sessions.md, "The audit chain"): page by page on a fast path that only ever says
 * "intact", row by row where it does not, and, on a long chain, with a helper thread (check-worker.ts) taking the
 * later half.
 */

export interface ChainCheck {
  ok: boolean;
  events: number;
  head: string;
  first_broken_seq: number | null;
  reason: string | null;
  /** The last event that verified, so a later check can resume from it. */
  verified: { seq: number; hash: string };
}

export function formatHead(seq: number, hash: Buffer | string): string {
  return `${seq}:${typeof hash === 'string' ? hash : hash.toString('hex')}`;
}

const PAGE_ROWS_SQL =
  'SELECT seq, body, prev_hash, event_hash FROM audit_events WHERE seq > ? ORDER BY seq LIMIT ?';

/** AuditLog.check: events after `from` (or all) up to `headSeq`; `count` gives the total when the chain breaks. */
// One loop on purpose: the fast path, the helper's half and the row-by-row fallback hand the same cursor around.
export function checkChain(
  db: Database.Database,
  headSeq: number,
  count: () => number,
  from?: { seq: number; hash: Buffer },
  onProgress?: (checked: number) => void,
): ChainCheck {
  const fastPage = cachedStatement(db, FAST_PAGE_SQL, 'raw');
  const page = cachedStatement(db, PAGE_ROWS_SQL, 'raw');
  let prevSeq = from?.seq ?? 0;
  let prev = from?.hash ?? ZERO_HASH;
  let checked = 0;
  const broken = (seq: number, reason: string): ChainCheck => ({
    ok: false,
    events: count(),
    head: formatHead(prevSeq, prev),
    first_broken_seq: seq,
    reason,
    verified: { seq: prevSeq, hash: prev.toString('hex') },
  });
  // Resuming at the head: the event verified last time must still be the one verified. (With events after it, the
  // first of them no longer links to it, and the pass below names that one.)
  if (from && from.seq > 0 && from.seq >= headSeq) {
    const still = cachedStatement(db, 'SELECT event_hash FROM audit_events WHERE seq = ?', 'pluck').get(
      from.seq,
    );
    if (!Buffer.isBuffer(still) || !still.equals(from.hash)) {
      // Nothing is vouched for any more: the next check starts from the beginning.
      prevSeq = 0;
      prev = ZERO_HASH;
      return broken(from.seq, `event ${from.seq} changed after it was verified`);
    }
  }
  // A long chain is checked by two threads at once: sha256 is most of the cost, and Node hashes one event per
  // call. A helper takes the later half; its word is only ever "intact", anything else is rechecked here.
  let helper = startHelper(db, prevSeq, headSeq);
  for (;;) {
    if (helper && prevSeq === helper.from) {
      const joined = helper.join(prev);
      helper = null;
      if (joined) {
        checked += joined.to - prevSeq;
        prevSeq = joined.to;
        prev = joined.last;
        onProgress?.(checked);
        continue;
      }
    }
    // Fast path: the next PAGE seqs in one value, checked on views into it. It only ever says "intact"; a gap or
    // a mismatch of any kind sends the page to the row-by-row check below, which names the exact break.
    const until = helper ? Math.min(prevSeq + PAGE, helper.from) : prevSeq + PAGE;
    const [n, hi, lengths, blob] = fastPage.get(prevSeq, until) as FastPage;
    if (n > 0 && hi === prevSeq + n && lengths !== null && blob !== null) {
      const last = pageIntact(prev, lengths, blob, n);
      if (last !== null) {
        prev = last;
        prevSeq = hi;
        checked += n;
        onProgress?.(checked);
        continue;
      }
    }
    helper?.stop();
    helper = null;
    const rows = page.all(prevSeq, PAGE) as [number, unknown, unknown, unknown][];
    for (const [seq, body, prevStored, stored] of rows) {
      let reason: string | null = null;
      if (seq !== prevSeq + 1) reason = `event ${prevSeq + 1} is missing`;
      else if (!Buffer.isBuffer(body) || !Buffer.isBuffer(prevStored) || !Buffer.isBuffer(stored))
        reason = `event ${seq} is not stored as bytes`;
      else if (!prevStored.equals(prev)) reason = `event ${seq} does not link to event ${prevSeq}`;
      else if (!eventHash(prev, body).equals(stored)) reason = `event ${seq} does not match its hash`;
      if (reason) return broken(seq !== prevSeq + 1 ? prevSeq + 1 : seq, reason);
      prev = stored as Buffer;
      prevSeq = seq;
      checked++;
    }
    onProgress?.(checked);
    if (rows.length < PAGE) break;
  }
  // The pass walked seq 1, 2, ... to the last row, so any event it did not see is numbered below 1 (every event
  // renumbered to <= 0 once passed as "intact, 0 events").
  const low = cachedStatement(db, 'SELECT min(seq) FROM audit_events', 'pluck').get() as number | null;
  if (low !== null && low < 1)
    return broken(low, `event ${low} is numbered outside the chain (events start at 1)`);
  return {
    ok: true,
    events: prevSeq,
    head: formatHead(prevSeq, prev),
    first_broken_seq: null,
    reason: null,
    verified: { seq: prevSeq, hash: prev.toString('hex') },
  };
}

const PAGE = 2000;
/** Below this many events a second thread costs more to start (~50 ms) than it saves. */
const PARALLEL_MIN = 150_000;

/** How many threads a check of `events` events uses (bench/chain.ts measures its ceiling on as many). */
export function chainCheckThreads(events: number): number {
  return events >= PARALLEL_MIN ? 2 : 1;
}

/**
 * A page of events (seq in (from, to]) as ONE value: prev_hash || body || event_hash of each event back to back
 * (|| on blobs concatenates their bytes; CAST keeps them), with the body lengths to cut it apart. Making three
 * Buffers per event cost more than hashing it. A rowid range is read in rowid order, so the concatenation is in
 * seq order. The bytes are all the check needs: a hash that is not 32 bytes (or a body stored as text of another
 * length) shifts the cuts, and the page then fails and goes row by row.
 */
export const FAST_PAGE_SQL = `SELECT count(*), max(seq), group_concat(length(body), ','),
    CAST(group_concat(prev_hash || body || event_hash, '') AS BLOB)
  FROM audit_events WHERE seq > ? AND seq <= ?`;
type FastPage = [number, number | null, string | null, Buffer | null];

/**
 * Fast path over (from, to]: every seq present and every page intact. The first link is taken from the stored
 * prev_hash of event from + 1 (the caller checks it against the hash it has for event `from`). Returns that
 * prev_hash and the last event hash, or null at the first doubt.
 */
export function scanRange(
  page: Database.Statement,
  from: number,
  to: number,
): { first: Buffer; last: Buffer } | null {
  let first: Buffer | null = null;
  let prev: Buffer | null = null;
  for (let at = from; at < to; ) {
    const [n, hi, lengths, blob] = page.get(at, Math.min(at + PAGE, to)) as FastPage;
    if (n === 0 || hi !== at + n || n !== Math.min(PAGE, to - at) || lengths === null || blob === null)
      return null;
    if (first === null) first = Buffer.from(blob.subarray(0, 32));
    const last = pageIntact(prev ?? first, lengths, blob, n);
    if (last === null) return null;
    prev = last;
    at = hi;
  }
  return first && prev ? { first, last: prev } : null;
}

interface Helper {
  from: number;
  /** Waits for the helper; its range's first link must be `prev`. The range's end and last hash, or null. */
  join(prev: Buffer): { to: number; last: Buffer } | null;
  stop(): void;
}

/** Starts a worker thread on (mid, to] of a long chain, or returns null (short chain, no file, no worker build). */
function startHelper(db: Database.Database, from: number, to: number): Helper | null {
  if (to - from < PARALLEL_MIN || db.memory || db.inTransaction) return null;
  const url = new URL('./check-worker.js', import.meta.url);
  if (url.protocol !== 'file:' || !existsSync(fileURLToPath(url))) return null; // e.g. run from TypeScript sources
  const mid = from + Math.floor((to - from) / 2);
  const shared = new SharedArrayBuffer(4 + 64);
  const state = new Int32Array(shared, 0, 1); // 0 running, 1 intact, 2 not vouched for
  const out = new Uint8Array(shared, 4, 64); // first prev_hash, last event_hash
  let worker: Worker;
  try {
    worker = new Worker(url, {
      workerData: { path: db.name, from: mid, to, shared },
      stdout: true,
      stderr: true,
    });
    worker.unref();
  } catch {
    return null;
  }
  const stop = () => void worker.terminate().catch(() => undefined);
  return {
    from: mid,
    stop,
    join(prev) {
      // Bounded wait: a helper that never answers (it died) is given up on and its half checked here.
      for (let waited = 0; Atomics.load(state, 0) === 0 && waited < 120_000; waited += 100)
        Atomics.wait(state, 0, 0, 100);
      const ok = Atomics.load(state, 0) === 1 && Buffer.from(out.subarray(0, 32)).equals(prev);
      if (!ok) stop();
      return ok ? { to, last: Buffer.from(out.subarray(32, 64)) } : null;
    },
  };
}

/**
 * Checks a page of n events laid out as prev_hash || body || event_hash each (body lengths in `lengths`): every
 * prev_hash must equal the hash before it (the first one `prev`) and every event_hash H(prev_hash || body).
 * Returns the last event hash (a copy) when all hold, else null.
 */
function pageIntact(prev: Buffer, lengths: string, blob: Buffer, n: number): Buffer | null {
  const lens = lengths.split(',');
  if (lens.length !== n) return null;
  let before = prev;
  let beforeAt = 0;
  let at = 0;
  for (let k = 0; k < n; k++) {
    if (blob.compare(before, beforeAt, beforeAt + 32, at, at + 32) !== 0) return null;
    const end = at + 32 + Number(lens[k]);
    if (end + 32 > blob.length) return null;
    if (sha256(blob.subarray(at, end)).compare(blob, end, end + 32) !== 0) return null;
    before = blob;
    beforeAt = end;
    at = end + 32;
  }
  return at === blob.length ? Buffer.from(blob.subarray(beforeAt, beforeAt + 32)) : null;
}
