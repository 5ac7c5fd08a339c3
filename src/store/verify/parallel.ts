import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { ChainClaims } from '../chain/claims.js';
import { type ChildLists, subtreesHold } from './hashes.js';
import { type FastChunk, fastChunk, PAGE, type PageStatements } from './nodes.js';

/**
 * verify on every core (verify.ts): helper threads (verify-worker.ts), each on its own read-only connection, and
 * verify's own thread take chunks of the node id range from a shared counter and compute them on the fast path;
 * the first helper rebuilds the chain's claims first, which otherwise came after the nodes on one thread. verify's
 * thread then joins the chunks in id order. A helper's word is only ever "every node of this chunk hashes to its
 * stored hash"; anything else, and any chunk a helper never answers, is read again by verify's thread.
 *
 * Same state: each helper reads in its own transaction, and starts only if its snapshot has the chain head verify's
 * snapshot has (every change the store makes appends an event). A helper that sees another head vouches for
 * nothing and sends no claims: verify's thread then does that work itself.
 */

/** Below this many nodes a helper costs more to start (~50-100 ms) than it saves. */
export const PARALLEL_MIN = 50_000;

/** How many threads verify uses for `nodes` nodes: every core (at most 8), or one below `from` (bench/chain.ts gives its ceiling as many). */
export function verifyThreadCount(nodes: number, from = PARALLEL_MIN): number {
  return nodes >= from ? Math.max(1, Math.min(8, availableParallelism())) : 1;
}

/**
 * Chunks of about 16 per thread, from one page to 8: small enough that a thread that starts late or runs slower
 * leaves the others little to wait for.
 */
function chunkSize(maxId: number, threads: number): number {
  return Math.min(8 * PAGE, Math.max(PAGE, Math.ceil(maxId / (16 * threads))));
}

/** What a helper is given. */
export interface VerifyJob {
  path: string;
  head: { seq: number; hash: string };
  guardedBelow: number;
  chunks: { lo: number; hi: number }[];
  /**
   * Int32 at 0: the next chunk to take; at 1: the claims' state; at 2: the subtree check's (0 not yet, 1 sent on
   * the port, 2 none: the helper can go); then each chunk's state (0 pending, 1 answered, 2 not vouched; for the
   * claims, 1 sent, 2 none).
   */
  shared: SharedArrayBuffer;
  /** Whether this helper rebuilds the claims first. */
  claims: boolean;
  port: MessagePort;
}

export type VerifyMessage =
  | { kind: 'chunk'; k: number; chunk: FastChunk }
  | { kind: 'claims'; claims: ChainClaims | null };

/**
 * The subtree check verify's thread hands its helpers once every node is read (verify-hashes.ts, subtreesHold):
 * the hashes and child lists in shared memory, cut into ranges taken from a shared counter. `state`: Int32 at 0,
 * the next range; then each range's state (0 pending, 1 holds, 2 does not, or was not checked).
 */
export interface SubtreeJob {
  kind: 'subtrees';
  computedNode: Uint8Array;
  storedSub: Uint8Array;
  lists: ChildLists;
  ranges: { from: number; to: number }[];
  state: SharedArrayBuffer;
}

/** Nodes a range of the subtree check holds: big enough that taking one costs nothing, small enough to share. */
const SUBTREE_RANGE = 32_768;

const PENDING = 0;
const ANSWERED = 1;
const NOT_VOUCHED = 2;

/**
 * Waits while view[i] is PENDING, at most two minutes (a thread that died never answers), and gives what it holds
 * then.
 */
function waitWhilePending(view: Int32Array, i: number): number {
  for (let waited = 0; Atomics.load(view, i) === PENDING && waited < 120_000; waited += 50)
    Atomics.wait(view, i, PENDING, 50);
  return Atomics.load(view, i);
}

/** Bytes of VerifyJob.shared before the chunks' states. */
const HEADER = 12;

/** The views of VerifyJob.shared: its header, and (with `chunks`) each chunk's state. */
export function chunkState(shared: SharedArrayBuffer, chunks = 0) {
  return {
    next: new Int32Array(shared, 0, 1),
    claims: new Int32Array(shared, 4, 1),
    subtrees: new Int32Array(shared, 8, 1),
    state: new Int32Array(shared, HEADER, chunks),
  };
}

/**
 * A helper, its chunks done: waits for the subtree check (bounded: verify's thread sends it, or says there is none,
 * once it has joined every chunk) and takes ranges of it until none is left.
 */
export function takeSubtreeRanges(job: Pick<VerifyJob, 'shared' | 'port'>): void {
  const flag = chunkState(job.shared).subtrees;
  if (waitWhilePending(flag, 0) !== ANSWERED) return;
  let m: SubtreeJob | undefined;
  for (let waited = 0; m === undefined && waited < 120_000; waited += 10) {
    m = receiveMessageOnPort(job.port)?.message as SubtreeJob | undefined;
    if (m === undefined) Atomics.wait(flag, 0, ANSWERED, 10);
  }
  if (m?.kind === 'subtrees') checkRanges(m);
}

/** Takes ranges of the subtree check from its counter until none is left. */
function checkRanges(job: SubtreeJob): void {
  const next = new Int32Array(job.state, 0, 1);
  const state = new Int32Array(job.state, 4, job.ranges.length);
  for (let r = Atomics.add(next, 0, 1); r < job.ranges.length; r = Atomics.add(next, 0, 1)) {
    let holds = false;
    try {
      const { from, to } = job.ranges[r];
      holds = subtreesHold(job.computedNode, job.storedSub, job.lists, from, to);
    } finally {
      Atomics.store(state, r, holds ? ANSWERED : NOT_VOUCHED);
      Atomics.notify(state, r);
    }
  }
}

/** The helper that rebuilds the claims says it is done (sent, or none), so verify's thread stops waiting. */
export function claimsDone(shared: SharedArrayBuffer, sent: boolean): void {
  const { claims } = chunkState(shared);
  Atomics.store(claims, 0, sent ? ANSWERED : NOT_VOUCHED);
  Atomics.notify(claims, 0);
}

/**
 * Takes chunks from the shared counter until none is left; `answer` gets each result (null: not vouched), and
 * `between`, if given, runs after each chunk's state is published.
 */
export function takeChunks(
  pages: PageStatements,
  job: Pick<VerifyJob, 'chunks' | 'shared'>,
  answer: (k: number, c: FastChunk | null) => void,
  between?: () => void,
): void {
  const { next, state } = chunkState(job.shared, job.chunks.length);
  for (let k = Atomics.add(next, 0, 1); k < job.chunks.length; k = Atomics.add(next, 0, 1)) {
    let c: FastChunk | null = null;
    try {
      c = fastChunk(pages, job.chunks[k].lo, job.chunks[k].hi);
      answer(k, c);
    } finally {
      Atomics.store(state, k, c ? ANSWERED : NOT_VOUCHED);
      Atomics.notify(state, k);
    }
    between?.();
  }
}

export class VerifyHelpers {
  private readonly workers: Worker[] = [];
  /** One port per helper (a port can be given to one thread only), read here without an event loop. */
  private readonly ports: MessagePort[] = [];
  private readonly own = new Map<number, FastChunk | null>();
  private readonly received = new Map<number, FastChunk>();
  private claimsAnswer: ChainClaims | null | undefined = undefined;
  private fromHelpers = 0;
  private readonly state: Int32Array;
  private readonly claimsState: Int32Array;
  private readonly subtreeFlag: Int32Array;

  private constructor(
    readonly chunks: { lo: number; hi: number }[],
    private readonly shared: SharedArrayBuffer,
  ) {
    const views = chunkState(shared, chunks.length);
    this.state = views.state;
    this.claimsState = views.claims;
    this.subtreeFlag = views.subtrees;
  }

  /**
   * Helpers for a verify of `db` (read in verify's transaction, so `head` is its snapshot's), or null when the
   * shard is too small to share, is not a file, has sparse ids, or has no worker build (run from TypeScript).
   */
  static start(
    db: Database.Database,
    head: { seq: number; hash: string },
    maxId: number,
    total: number,
    guardedBelow: number,
    from = PARALLEL_MIN,
  ): VerifyHelpers | null {
    const threads = Math.max(verifyThreadCount(total, from), from < PARALLEL_MIN ? 2 : 1);
    const size = chunkSize(maxId, threads);
    if (threads < 2 || db.memory || maxId > 2 * total + size) return null;
    const url = new URL('./verify-worker.js', import.meta.url);
    if (url.protocol !== 'file:' || !existsSync(fileURLToPath(url))) return null;
    const chunks: { lo: number; hi: number }[] = [];
    for (let lo = 0; lo < maxId; lo += size) chunks.push({ lo, hi: Math.min(lo + size, maxId) });
    const shared = new SharedArrayBuffer(HEADER + 4 * chunks.length);
    const helpers = new VerifyHelpers(chunks, shared);
    for (let t = 1; t < threads; t++) {
      const { port1, port2 } = new MessageChannel();
      const job: VerifyJob = {
        path: db.name,
        head,
        guardedBelow,
        chunks,
        shared,
        claims: t === 1,
        port: port2,
      };
      try {
        const w = new Worker(url, { workerData: job, transferList: [port2], stdout: true, stderr: true });
        w.unref();
        helpers.workers.push(w);
        helpers.ports.push(port1);
      } catch {
        port1.close();
        if (t === 1) helpers.claimsAnswer = null; // nobody rebuilds the claims: verify's thread does
        break;
      }
    }
    return helpers;
  }

  /**
   * This thread's share of the chunks, on its own connection's statements; `between` after each one (verify joins
   * the chunks that are ready then, so that joining them is not left until every chunk is read, with the helpers
   * idle).
   */
  work(pages: PageStatements, between?: () => void): void {
    takeChunks(pages, { chunks: this.chunks, shared: this.shared }, (k, c) => this.own.set(k, c), between);
  }

  /** Whether chunk k's result can be taken without waiting (this thread's, or a helper's that has answered). */
  ready(k: number): boolean {
    if (this.own.has(k)) return true;
    const s = Atomics.load(this.state, k);
    if (s === PENDING) return false;
    if (s !== ANSWERED || this.received.has(k)) return true;
    while (this.drain()) if (this.received.has(k)) return true;
    return false;
  }

  /** What the helpers did (VerifyStats), once every result was taken. */
  stats(): { chunks: number; helperChunks: number; helperClaims: boolean } {
    return { chunks: this.chunks.length, helperChunks: this.fromHelpers, helperClaims: !!this.claimsAnswer };
  }

  /** Chunk k (taken once), waiting (bounded) for the helper that took it; null when nobody vouched for it. */
  result(k: number): FastChunk | null {
    if (this.own.has(k)) {
      // Taken once (verify joins each chunk once), and let go: a million nodes' chunks would otherwise stay alive.
      const c = this.own.get(k) ?? null;
      this.own.delete(k);
      return c;
    }
    if (!this.awaitMessage(this.state, k, () => this.received.has(k))) return null;
    const c = this.received.get(k) ?? null;
    this.received.delete(k);
    if (c) this.fromHelpers++;
    return c;
  }

  /** The claims the first helper rebuilt, or null (verify's thread rebuilds them). */
  claims(): ChainClaims | null {
    if (this.claimsAnswer !== undefined) return this.claimsAnswer;
    if (!this.awaitMessage(this.claimsState, 0, () => this.claimsAnswer !== undefined)) return null;
    return this.claimsAnswer ?? null;
  }

  /**
   * Hands the subtree check to the helpers (they take ranges of it while this thread does the rest of verify);
   * `finish` takes what is left, waits (bounded) for the rest and says whether every node held.
   */
  checkSubtrees(
    computedNode: Buffer,
    storedSub: Buffer,
    lists: ChildLists,
    n: number,
  ): { finish: () => boolean } {
    const ranges: { from: number; to: number }[] = [];
    for (let from = 0; from < n; from += SUBTREE_RANGE)
      ranges.push({ from, to: Math.min(from + SUBTREE_RANGE, n) });
    const job: SubtreeJob = {
      kind: 'subtrees',
      computedNode,
      storedSub,
      lists,
      ranges,
      state: new SharedArrayBuffer(4 + 4 * ranges.length),
    };
    for (const port of this.ports) port.postMessage(job);
    Atomics.store(this.subtreeFlag, 0, ANSWERED);
    Atomics.notify(this.subtreeFlag, 0);
    const state = new Int32Array(job.state, 4, ranges.length);
    return {
      finish: () => {
        checkRanges(job);
        for (let r = 0; r < ranges.length; r++) if (waitWhilePending(state, r) !== ANSWERED) return false;
        return true;
      },
    };
  }

  close(): void {
    // Helpers still waiting for a subtree check are let go.
    if (Atomics.compareExchange(this.subtreeFlag, 0, PENDING, NOT_VOUCHED) === PENDING)
      Atomics.notify(this.subtreeFlag, 0);
    for (const w of this.workers) void w.terminate().catch(() => undefined);
    for (const p of this.ports) p.close();
  }

  /**
   * Waits (bounded) until view[i] says a helper answered, then takes messages until `arrived` (the answer is posted
   * before its state is set); false when the helper said it has none, or never answered.
   */
  private awaitMessage(view: Int32Array, i: number, arrived: () => boolean): boolean {
    if (waitWhilePending(view, i) !== ANSWERED) return false;
    for (let waited = 0; !arrived() && waited < 120_000; ) {
      if (!this.drain()) {
        Atomics.wait(view, i, ANSWERED, 10);
        waited += 10;
      }
    }
    return true;
  }

  /** Takes one waiting message; false when none is waiting. */
  private drain(): boolean {
    let any = false;
    for (const port of this.ports) {
      const m = receiveMessageOnPort(port)?.message as VerifyMessage | undefined;
      if (m === undefined) continue;
      any = true;
      if (m.kind === 'chunk') this.received.set(m.k, m.chunk);
      else this.claimsAnswer = m.claims === null ? null : reviveClaims(m.claims);
    }
    return any;
  }
}

/** Claims as they arrive: a plain object with the same fields, its Buffers plain Uint8Arrays. */
function reviveClaims(data: ChainClaims): ChainClaims {
  const claims = Object.assign(Object.create(ChainClaims.prototype) as ChainClaims, data);
  for (const s of claims.sessions.values())
    s.hashes = Buffer.from(s.hashes.buffer, s.hashes.byteOffset, s.hashes.byteLength);
  return claims;
}
