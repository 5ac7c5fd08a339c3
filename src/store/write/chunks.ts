import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { cachedStatement } from '../db/statements.js';
import { sha256 } from '../model/hash.js';
import { encodeChunk } from './sources.js';

/**
 * The record chunks of the bulk path (bulk.ts), hashed and compressed on a thread of their own (chunk-worker.ts)
 * while this one writes the batch's rows and goes on with the next files: brotli and sha256 of the chunks were
 * ~0.85 s of a 5.9 s import of 20,000 turns (docs/benchmarks.md, issue 29). A chunk's id is given here at once (its
 * turns' node.add events name it); its sha256 is waited for before the batch's closing event, which names it (the
 * chain binds it); its row and its turns' node_sources rows are written once it is compressed, at the latest just
 * before the transaction commits (Shard.write calls `writeWaitingChunks`), so the chunk is in the same commit as
 * its turns, as before, or, when the write rolls back, nowhere (`dropWaitingChunks`). Should the thread fail or
 * stall, or be missing (run from TypeScript sources), chunks are hashed and compressed here.
 */

export interface ChunkJob {
  /** [0]: chunks compressed; [1]: 1 once the thread has loaded. */
  shared: SharedArrayBuffer;
  port: MessagePort;
}
export interface ChunkRequest {
  ticket: number;
  raw: Uint8Array;
}
/** No body: the thread could not hash or compress it, and this one does. */
export interface ChunkReply {
  ticket: number;
  sha256?: Uint8Array;
  body?: Uint8Array;
}

/** Smaller chunks are compressed here: an appended turn's chunk costs less than a message to the thread. */
const THREAD_MIN_BYTES = 64 * 1024;
/** Bytes sent and not yet back past which a new chunk waits for one: the raw copies stay bounded in memory. */
const MAX_IN_FLIGHT_BYTES = 12 * 1024 * 1024;
/** A thread that compressed nothing for this long is given up on: ms (START_MS before it has loaded). */
const STALL_MS = 60_000;
const START_MS = 10_000;

export interface Waiting {
  id: number;
  bytes: number;
  /** Known once the chunk is back from the thread (or at once when it is done here). */
  sha256?: Buffer;
  /** [bates, start, length] of each turn whose records are in it. */
  refs: [string, number, number][];
  /** While the thread has it. */
  raw?: Buffer;
  ticket?: number;
  body?: Buffer;
}

class Compressor {
  private readonly state: Int32Array;
  private seen = 0;
  failed = false;

  private constructor(
    private readonly worker: Worker,
    private readonly port: MessagePort,
    shared: SharedArrayBuffer,
  ) {
    this.state = new Int32Array(shared);
  }

  static start(): Compressor | null {
    try {
      const url = new URL('./chunk-worker.js', import.meta.url);
      if (url.protocol !== 'file:' || !existsSync(fileURLToPath(url))) return null;
      const { port1, port2 } = new MessageChannel();
      const job: ChunkJob = { shared: new SharedArrayBuffer(8), port: port2 };
      const w = new Worker(url, { workerData: job, transferList: [port2], stdout: true, stderr: true });
      w.unref();
      port1.unref();
      const c = new Compressor(w, port1, job.shared);
      w.on('error', () => c.fail());
      w.on('exit', () => {
        c.failed = true;
      });
      return c;
    } catch {
      return null;
    }
  }

  send(ticket: number, raw: Buffer): boolean {
    if (this.failed) return false;
    try {
      // A copy of its own, moved to the thread (a structured clone of 4 MiB cost more than compressing it): the raw
      // bytes stay here, for when the thread fails.
      const copy = Buffer.allocUnsafeSlow(raw.length);
      raw.copy(copy);
      this.port.postMessage({ ticket, raw: copy } satisfies ChunkRequest, [copy.buffer]);
      return true;
    } catch {
      this.fail();
      return false;
    }
  }

  /** A reply already back, or undefined. */
  poll(): ChunkReply | undefined {
    const m = receiveMessageOnPort(this.port);
    if (m === undefined) return undefined;
    this.seen++;
    return m.message as ChunkReply;
  }

  /** The next reply, waiting for it; undefined when the thread failed or stalled (then it is given up on). */
  next(): ChunkReply | undefined {
    let since = performance.now();
    let last = Atomics.load(this.state, 0);
    for (;;) {
      const m = this.poll();
      if (m !== undefined) return m;
      if (this.failed) return undefined;
      const done = Atomics.load(this.state, 0);
      // Posted before it was counted: in the port's queue in a moment.
      if (done > this.seen) Atomics.wait(this.state, 1, Atomics.load(this.state, 1), 1);
      else Atomics.wait(this.state, 0, done, 1000);
      const now = Atomics.load(this.state, 0);
      if (now !== last) {
        last = now;
        since = performance.now();
      } else if (performance.now() - since > (Atomics.load(this.state, 1) === 1 ? STALL_MS : START_MS)) {
        this.fail();
        return undefined;
      }
    }
  }

  fail(): void {
    this.failed = true;
    void this.worker.terminate().catch(() => {});
  }
}

/** The process's one compression thread: undefined until a chunk first wants it, null when there is none. */
let compressor: Compressor | null | undefined;
let tickets = 0;
const inFlight = new Map<number, Waiting>();
let inFlightBytes = 0;

function thread(): Compressor | null {
  if (compressor === undefined) compressor = Compressor.start();
  return compressor?.failed ? null : compressor;
}

/** The chunks of each connection's open write, in id order, and the next id to give. */
interface Open {
  nextId: number | undefined;
  chunks: Map<number, Waiting>;
}
const open = new WeakMap<Database.Database, Open>();

function openOf(db: Database.Database): Open {
  let o = open.get(db);
  if (o === undefined) {
    o = { nextId: undefined, chunks: new Map() };
    open.set(db, o);
  }
  return o;
}

const bufferOf = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/** A chunk back from the thread; without a reply (the thread failed), or one without a body, it is done here. */
function settle(w: Waiting, r: ChunkReply | undefined): void {
  if (w.ticket === undefined) return;
  inFlight.delete(w.ticket);
  inFlightBytes -= w.bytes;
  w.ticket = undefined;
  if (r?.body !== undefined && r.sha256 !== undefined) {
    w.sha256 = bufferOf(r.sha256);
    w.body = bufferOf(r.body);
  } else {
    w.sha256 = sha256(w.raw!);
    w.body = encodeChunk(w.raw!);
  }
  w.raw = undefined;
}

function take(r: ChunkReply): void {
  const w = inFlight.get(r.ticket);
  if (w !== undefined) settle(w, r);
}

/** Takes the replies back; with `wait`, waits for at least one (all chunks in flight are done here if the thread fails). */
function collect(wait: boolean): void {
  const c = compressor;
  if (!c) return;
  let got = false;
  for (let r = c.poll(); r !== undefined; r = c.poll()) {
    take(r);
    got = true;
  }
  if (got || !wait || inFlight.size === 0) return;
  const r = c.next();
  if (r !== undefined) take(r);
  else for (const w of [...inFlight.values()]) settle(w, undefined);
}

/** The id of the next chunk written through this connection (inside a write). */
export function nextChunkId(db: Database.Database): number {
  const o = openOf(db);
  if (o.nextId === undefined)
    o.nextId =
      (cachedStatement(db, 'SELECT coalesce(max(id), 0) FROM source_chunks', 'pluck').get() as number) + 1;
  return o.nextId++;
}

/**
 * A chunk whose id (nextChunkId) is given: hashed and compressed now or on the thread (`digestOf` waits for its
 * sha256), its rows written once it is compressed.
 */
export function queueChunk(
  db: Database.Database,
  id: number,
  raw: Buffer,
  refs: [string, number, number][],
): Waiting {
  const w: Waiting = { id, bytes: raw.length, refs };
  openOf(db).chunks.set(id, w);
  const c = raw.length >= THREAD_MIN_BYTES ? thread() : null;
  const ticket = ++tickets;
  if (c?.send(ticket, raw)) {
    w.raw = raw;
    w.ticket = ticket;
    inFlight.set(ticket, w);
    inFlightBytes += raw.length;
    collect(false);
    while (inFlightBytes > MAX_IN_FLIGHT_BYTES) collect(true);
  } else {
    w.sha256 = sha256(raw);
    w.body = encodeChunk(raw);
  }
  writeReady(db);
  return w;
}

/** The chunk's sha256, waiting for the thread when it is not back yet. */
export function digestOf(w: Waiting): Buffer {
  while (w.sha256 === undefined) collect(true);
  return w.sha256;
}

/** Writes the chunks already compressed, and their node_sources rows: a compressed body is not kept in memory. */
function writeReady(db: Database.Database, all = false): void {
  const o = open.get(db);
  if (o === undefined) return;
  const row = cachedStatement(db, 'INSERT INTO source_chunks (id, bytes, sha256, body) VALUES (?, ?, ?, ?)');
  const ref = cachedStatement(
    db,
    'INSERT INTO node_sources (bates, chunk_id, start, length) VALUES (?, ?, ?, ?)',
  );
  for (const [id, w] of o.chunks) {
    if (w.body === undefined) {
      if (!all) continue;
      while (w.body === undefined) collect(true);
    }
    row.run(w.id, w.bytes, w.sha256!, w.body);
    for (const [bates, start, length] of w.refs) ref.run(bates, w.id, start, length);
    o.chunks.delete(id);
  }
}

/** Writes the open write's chunks left, and their node_sources rows (Shard.write, just before COMMIT). */
export function writeWaitingChunks(db: Database.Database): void {
  const o = open.get(db);
  if (o === undefined) return;
  o.nextId = undefined;
  writeReady(db, true);
}

/** Forgets the open write's chunks from id `from` on (all of them by default): the write, or a part of it, failed. */
export function dropWaitingChunks(db: Database.Database, from = 0): void {
  const o = open.get(db);
  if (o === undefined) return;
  // One on the thread comes back all the same (and is then let go): nothing waits for it forever.
  for (const id of [...o.chunks.keys()]) if (id >= from) o.chunks.delete(id);
  // A part of a write that failed after writing rows dooms the write (Shard.write): its ids are not given again.
  if (from === 0) o.nextId = undefined;
}
