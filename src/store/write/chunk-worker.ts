/**
 * The chunk thread of the bulk path (chunks.ts): sha256 and brotli of the record chunks, off the writing thread.
 * Each chunk comes as a message on the port it was given and goes back hashed and compressed on the same port; each one done is
 * counted in shared memory, since the writing thread waits for them with Atomics.wait inside its transaction and
 * cannot take messages the usual way (it takes them with receiveMessageOnPort).
 */
import { createHash } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type MessagePort, workerData } from 'node:worker_threads';
import type { ChunkJob, ChunkReply, ChunkRequest } from './chunks.js';
import { encodeChunk } from './sources.js';

const job = workerData as ChunkJob;
const state = new Int32Array(job.shared);
const port = job.port as MessagePort;

/**
 * A young-generation collection after each chunk: this thread allocates almost no JavaScript, so V8 left every
 * chunk's buffers (a copy of the raw bytes, brotli's output) until their total reached its external-memory limit,
 * ~50 MiB more peak RSS for an import. V8's own `gc`, in a context of this thread only (the flag makes it visible to
 * contexts made afterwards); none when that fails.
 */
let collect: (() => void) | undefined;
try {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (o: { type: 'minor' }) => void;
  collect = () => gc({ type: 'minor' });
} catch {
  collect = undefined;
}

port.on('message', (m: ChunkRequest) => {
  let reply: ChunkReply;
  try {
    const raw = Buffer.from(m.raw.buffer, m.raw.byteOffset, m.raw.byteLength);
    const digest = createHash('sha256').update(raw).digest();
    let body = encodeChunk(raw);
    // Moved back, never a buffer of Node's shared pool (moving it would take the pool from this thread).
    if (body.byteOffset !== 0 || body.buffer.byteLength !== body.length) {
      const own = Buffer.allocUnsafeSlow(body.length);
      body.copy(own);
      body = own;
    }
    reply = { ticket: m.ticket, sha256: new Uint8Array(digest), body };
  } catch {
    reply = { ticket: m.ticket }; // the writing thread compresses it itself
  }
  port.postMessage(reply, reply.body ? [reply.body.buffer as ArrayBuffer] : []);
  Atomics.add(state, 0, 1);
  Atomics.notify(state, 0);
  collect?.();
});
Atomics.store(state, 1, 1);
Atomics.notify(state, 0);
