import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { eventsSeqIsRowid } from '../db/events-table.js';
import { EVENTS_NOT_BYTES, firstGuarded } from '../db/guards.js';
import { integerList } from '../db/page-lists.js';
import { cachedStatement } from '../db/statements.js';
import { equal32, eventHash, sha256Equals, ZERO_HASH } from '../model/hash.js';

/**
 * Checking the audit chain (docs/sessions.md, "The audit chain"): page by page on a fast path that only ever says
 * "intact", row by row where it does not, and, on a long chain, on every core: helper threads (check-worker.ts) and
 * this one take chunks of it from a shared counter.
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
  'SELECT seq, body, prev_hash, event_hash FROM audit_events NOT INDEXED WHERE seq > ? ORDER BY seq LIMIT ?';

/** AuditLog.check: events after `from` (or all) up to `headSeq`; `count` gives the total when the chain breaks. */
// One loop on purpose: the parallel chunks, the fast path and the row-by-row fallback hand the same cursor around.
export function checkChain(
  db: Database.Database,
  headSeq: number,
  count: () => number,
  from?: { seq: number; hash: Buffer },
  onProgress?: (checked: number) => void,
): ChainCheck {
  const page = cachedStatement(db, PAGE_ROWS_SQL, 'raw');
  // The fast path vouches only below the first event with a value that is not a blob (the guard's answer), or asks
  // typeof() itself when the guard cannot be trusted; the row-by-row check names that event.
  const notBytes = firstGuarded(db, EVENTS_NOT_BYTES);
  const guarded = notBytes !== undefined;
  const fastPage = cachedStatement(db, fastPageSql(guarded), 'raw');
  let prevSeq = from?.seq ?? 0;
  // The fast page counts rows (n rows over (lo, hi] are every seq of it): only where seq is the table's rowid.
  const fastTo = !eventsSeqIsRowid(db)
    ? prevSeq
    : Math.min(headSeq, notBytes == null ? headSeq : notBytes - 1);
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
  // Resuming: the event verified last time must still be the one verified, its own bytes included. Its stored hash
  // alone is not enough: an edit of its body (or prev_hash) that leaves event_hash as it was keeps every later
  // event linking to it. H(stored prev_hash || stored body) = the hash remembered vouches for both.
  if (from && from.seq > 0) {
    const row = cachedStatement(
      db,
      'SELECT prev_hash, body, event_hash FROM audit_events NOT INDEXED WHERE seq = ?',
      'raw',
    ).get(from.seq) as [unknown, unknown, unknown] | undefined;
    const [prevStored, body, stored] = row ?? [];
    if (
      !Buffer.isBuffer(prevStored) ||
      !Buffer.isBuffer(body) ||
      !Buffer.isBuffer(stored) ||
      !stored.equals(from.hash) ||
      !eventHash(prevStored, body).equals(from.hash)
    ) {
      // Nothing is vouched for any more: the next check starts from the beginning.
      prevSeq = 0;
      prev = ZERO_HASH;
      return broken(from.seq, `event ${from.seq} changed after it was verified`);
    }
  }
  // A long chain is checked by every core at once (chunks taken from a shared counter, this thread linking them in
  // order as they are done): sha256 is most of the cost, and Node hashes one event per call. A helper's word is only
  // ever "intact"; from the first chunk that is not, the pass below checks on alone and names the exact break.
  const par = checkInParallel(db, guarded, prevSeq, prev, fastTo, (done) => {
    checked = done;
    onProgress?.(checked);
  });
  if (par) {
    prevSeq = par.seq;
    prev = par.hash;
  }
  for (;;) {
    // Fast path: the next PAGE seqs in one value, checked on views into it. It only ever says "intact"; a gap or
    // a mismatch of any kind sends the page to the row-by-row check below, which names the exact break.
    const hi = Math.min(prevSeq + PAGE, fastTo);
    const r = hi > prevSeq ? pageIntact(fastPage, prevSeq, hi, prev) : null;
    if (r !== null) {
      checked += hi - prevSeq;
      prev = r.last;
      prevSeq = hi;
      onProgress?.(checked);
      continue;
    }
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
  const low = cachedStatement(db, 'SELECT min(seq) FROM audit_events NOT INDEXED', 'pluck').get() as
    | number
    | null;
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
/** The body lengths of the page being checked (a thread checks one page at a time). */
const pageLengths = new Float64Array(PAGE);
/** Below this many events a second thread costs more to start (~50 ms) than it saves. */
const PARALLEL_MIN = 150_000;
/** The longest range shared between threads (its chunks' state is 68 bytes each, in one SharedArrayBuffer). */
const MAX_SHARED = 2 ** 31;

/**
 * A page of events (seq in (@lo, @hi]) as a handful of values: making three Buffers per event cost more than hashing
 * it. group_concat(body, prev_hash) puts each event's own prev_hash before its body (a row's separator precedes its
 * value), so every event's prev_hash || body, the bytes its hash covers, lies whole in one blob, with no
 * concatenation per row; the first event's prev_hash, which group_concat leaves out, comes by its own lookup. The
 * event hashes follow as one blob of 32 bytes each and the body lengths as a list to cut by. A rowid range is read
 * in rowid order. A null or a missing row shifts the counts and fails the page (it then goes row by row). So does a
 * hash of another length: `odd` asks every row's two hash lengths (length() of a blob reads no content), since
 * bytes moved from one row's hash into the next row's leave the concatenation and the body lengths as they were.
 * Storage classes are left to the guard (guards.ts); without one, `odd` asks them too.
 */
export function fastPageSql(guarded: boolean): string {
  const lengths = 'length(prev_hash) <> 32 OR length(event_hash) <> 32';
  return `SELECT group_concat(length(body), ','), CAST(group_concat(body, prev_hash) AS BLOB),
      CAST(group_concat(event_hash, '') AS BLOB), (SELECT prev_hash FROM audit_events NOT INDEXED WHERE seq = @lo + 1),
      sum(${guarded ? lengths : `${lengths} OR ${EVENTS_NOT_BYTES.where}`})
    FROM audit_events NOT INDEXED WHERE seq > @lo AND seq <= @hi`;
}
type FastPage = [string | null, Buffer | null, Buffer | null, unknown, number | null];

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
    const hi = Math.min(at + PAGE, to);
    const r = pageIntact(page, at, hi, prev);
    if (r === null) return null;
    first ??= r.first;
    prev = r.last;
    at = hi;
  }
  return first && prev ? { first, last: prev } : null;
}

/**
 * The chunks (lo, hi] a parallel check of (from, to] takes: about 32 per thread, so that a thread that starts late or
 * runs slower leaves the others at most one small chunk to wait for; at least a page, at most 8 pages.
 */
export function chainChunks(from: number, to: number, threads: number): { lo: number; hi: number }[] {
  const size = Math.min(8 * PAGE, Math.max(PAGE, Math.ceil((to - from) / (32 * threads))));
  const out: { lo: number; hi: number }[] = [];
  for (let lo = from; lo < to; lo += size) out.push({ lo, hi: Math.min(lo + size, to) });
  return out;
}

/** What a helper thread is given (check-worker.ts): the shard, the chunks, and the shared memory they answer in. */
export interface ChunkJob {
  path: string;
  /** Whether the fast page may leave storage classes to the guard (fastPageSql). */
  guarded: boolean;
  chunks: { lo: number; hi: number }[];
  shared: SharedArrayBuffer;
}

/**
 * The shared memory of a parallel check: the next chunk to take (Int32 at 0), each chunk's state (Int32: 0 not
 * done, 1 intact, 2 not vouched for), and each chunk's first stored prev_hash and last event_hash (64 bytes).
 */
export function chunkViews(shared: SharedArrayBuffer, chunks: number) {
  return {
    next: new Int32Array(shared, 0, 1),
    state: new Int32Array(shared, 4, chunks),
    out: new Uint8Array(shared, 4 + 4 * chunks, 64 * chunks),
  };
}

/** Takes chunks from the shared counter until none is left, checking each on the fast path; `each` after each. */
export function takeChunks(page: Database.Statement, job: ChunkJob, each?: () => void): void {
  const { next, state, out } = chunkViews(job.shared, job.chunks.length);
  for (let i = Atomics.add(next, 0, 1); i < job.chunks.length; i = Atomics.add(next, 0, 1)) {
    let r: { first: Buffer; last: Buffer } | null = null;
    try {
      r = scanRange(page, job.chunks[i].lo, job.chunks[i].hi);
    } finally {
      if (r) {
        out.set(r.first, 64 * i);
        out.set(r.last, 64 * i + 32);
      }
      Atomics.store(state, i, r ? 1 : 2);
      Atomics.notify(state, i);
    }
    each?.();
  }
}

/**
 * (from, to] on every thread: this one and helpers (check-worker.ts, on their own read-only connections) take
 * chunks from a shared counter, and this thread links the done ones in order, each chunk's first prev_hash to the
 * hash before it. Returns the end of the linked prefix (all of (from, to] when every chunk is intact and links),
 * or null when the chain is too short to share (or there is no file, or no worker build). Whatever it does not
 * vouch for is left to the caller, which checks it alone and names the exact break.
 */
function checkInParallel(
  db: Database.Database,
  guarded: boolean,
  from: number,
  fromHash: Buffer,
  to: number,
  onProgress: (checked: number) => void,
): { seq: number; hash: Buffer } | null {
  const threads = chainCheckThreads(to - from);
  // A head numbered far beyond any real chain (an edit) is no reason to cut billions of chunks: the pass below
  // finds the gap before it.
  if (threads < 2 || db.memory || db.inTransaction || !(to - from <= MAX_SHARED)) return null;
  const url = new URL('./check-worker.js', import.meta.url);
  if (url.protocol !== 'file:' || !existsSync(fileURLToPath(url))) return null; // e.g. run from TypeScript sources
  const chunks = chainChunks(from, to, threads);
  const job: ChunkJob = {
    path: db.name,
    guarded,
    chunks,
    shared: new SharedArrayBuffer(4 + 68 * chunks.length),
  };
  const { next, state, out } = chunkViews(job.shared, chunks.length);
  const workers: Worker[] = [];
  for (let t = 1; t < threads; t++) {
    try {
      const w = new Worker(url, { workerData: job, stdout: true, stderr: true });
      w.unref();
      workers.push(w);
    } catch {
      break; // no helper: the chunks are left to this thread
    }
  }
  let linked = 0; // chunks linked so far
  let seq = from;
  let hash = fromHash;
  let broken = false;
  /** Links every done chunk after the linked prefix; with `wait`, waits (bounded) for each one still running. */
  const link = (wait: boolean) => {
    while (!broken && linked < chunks.length) {
      // Bounded wait: a helper that never answers (it died) is given up on and the rest checked by the caller.
      for (let waited = 0; wait && Atomics.load(state, linked) === 0 && waited < 120_000; waited += 100)
        Atomics.wait(state, linked, 0, 100);
      if (Atomics.load(state, linked) === 0) return;
      const at = 64 * linked;
      if (Atomics.load(state, linked) !== 1 || Buffer.compare(out.subarray(at, at + 32), hash) !== 0) {
        broken = true;
        Atomics.store(next, 0, chunks.length); // the helpers take no more
        return;
      }
      hash = Buffer.from(out.subarray(at + 32, at + 64));
      seq = chunks[linked].hi;
      linked++;
      onProgress(seq - from);
    }
  };
  try {
    takeChunks(cachedStatement(db, fastPageSql(guarded), 'raw'), job, () => link(false));
    link(true);
  } finally {
    for (const w of workers) void w.terminate().catch(() => undefined);
  }
  return { seq, hash };
}

/**
 * How many threads a check of `events` events uses: every core (at most 8), or one below PARALLEL_MIN.
 * bench/chain.ts measures its ceiling on as many.
 */
export function chainCheckThreads(events: number): number {
  return events >= PARALLEL_MIN ? Math.max(1, Math.min(8, availableParallelism())) : 1;
}

/**
 * Checks the events (lo, hi] on the fast page: all hi - lo present, each stored prev_hash equal to the hash before
 * it (the first one to `prev`; with null, the stored one is taken and returned for the caller to link) and each
 * event_hash H(prev_hash || body). Returns the first stored prev_hash and the last event hash (copies) when all
 * hold, else null.
 */
function pageIntact(
  page: Database.Statement,
  lo: number,
  hi: number,
  prev: Buffer | null,
): { first: Buffer; last: Buffer } | null {
  const [lengths, bodies, hashes, first, odd] = page.get({ lo, hi }) as FastPage;
  const n = hi - lo;
  if (lengths === null || bodies === null || hashes === null || odd !== 0) return null;
  if (!Buffer.isBuffer(first) || first.length !== 32 || (prev !== null && !first.equals(prev))) return null;
  const lens = pageLengths;
  if (hashes.length !== 32 * n || n > lens.length || !integerList(lengths, lens, 0, n)) return null;
  // The first event's bytes are not whole in `bodies` (its prev_hash came apart): the one copy a page makes.
  let end = lens[0];
  if (!(end <= bodies.length) || !sha256Equals(Buffer.concat([first, bodies.subarray(0, end)]), hashes, 0))
    return null;
  for (let k = 1; k < n; k++) {
    const at = end;
    if (!equal32(bodies, at, hashes, 32 * (k - 1))) return null;
    end = at + 32 + lens[k];
    if (!(end <= bodies.length) || !sha256Equals(bodies.subarray(at, end), hashes, 32 * k)) return null;
  }
  return end === bodies.length
    ? { first: Buffer.from(first), last: Buffer.from(hashes.subarray(32 * (n - 1))) }
    : null;
}
