/**
 * Checks the audit chain off the UI thread: a 1,000,000-event chain takes seconds, and a key press must never wait
 * for it. Opens its own read-only connection; answers each request with progress messages and one result.
 */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { Shard } from '../../store/index.js';

export interface CheckRequest {
  id: number;
  from?: { seq: number; hash: string };
}

const port = parentPort!;
// Lowest CPU priority for this thread, so a long check never delays a key press (on Linux, setpriority(2) on
// "this process" applies to the calling thread only; elsewhere it lowers the whole process, which is harmless).
try {
  if (process.platform === 'linux') setPriority(19);
} catch {
  // not allowed: run at normal priority
}
// A streaming pass touches each page once: a small cache keeps this thread's memory down.
const shard = Shard.open((workerData as { dbPath: string }).dbPath, { readonly: true, cacheKib: 4096 });

port.on('message', (req: CheckRequest) => {
  try {
    const result = shard.chainCheck({
      from: req.from,
      onProgress: (done) => port.postMessage({ id: req.id, type: 'progress', done }),
    });
    port.postMessage({ id: req.id, type: 'done', result });
  } catch (err) {
    port.postMessage({ id: req.id, type: 'error', error: (err as Error).message.split('\n')[0] });
  }
});
