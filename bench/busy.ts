/**
 * The benchmark's own background load (issue 12: people type while an import or a chain check runs): one worker
 * thread that keeps one core busy hashing 300-byte buffers with sha256, as a chain check does, until stopped.
 * Started before the figures it loads and stopped after them, so that figure and floor run under the same load.
 */
import { Worker } from 'node:worker_threads';

const SPIN = `
const { hash } = require('node:crypto');
const { parentPort } = require('node:worker_threads');
const buf = Buffer.alloc(300, 7);
let stop = false, n = 0;
parentPort.on('message', () => { stop = true; });
function burst() {
  for (let i = 0; i < 20000; i++) { hash('sha256', buf); n++; }
  if (stop) parentPort.postMessage(n); else setImmediate(burst);
}
parentPort.postMessage(0);
burst();
`;

export interface BusyCore {
  /** What the load is, for the report. */
  readonly describe: string;
  /** Stops the worker; resolves to its rate, hashes/s (so a report shows the load really ran). */
  stop(): Promise<number>;
}

/** Starts the busy core and resolves once it runs. */
export async function startBusyCore(): Promise<BusyCore> {
  const w = new Worker(SPIN, { eval: true });
  await new Promise<void>((resolve, reject) => {
    w.once('message', () => resolve());
    w.once('error', reject);
  });
  const t0 = performance.now();
  return {
    describe: 'one worker thread hashing 300-byte buffers with sha256 non-stop (one busy core)',
    stop: () =>
      new Promise<number>((resolve, reject) => {
        w.once('message', (n: number) => {
          const secs = (performance.now() - t0) / 1000;
          void w.terminate().then(() => resolve(n / Math.max(secs, 1e-9)));
        });
        w.once('error', reject);
        w.postMessage('stop');
      }),
  };
}
