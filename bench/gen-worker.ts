/**
 * bench/gen.ts's text maker on a thread of its own: while the main thread writes batch k, this one makes batch
 * k + 1. Asked for a batch by its end (a turn count), it answers with the batch; asked for `stats`, with the totals.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { turnMaker } from './gen-texts.js';

const { nodes, seed } = workerData as { nodes: number; seed: number };
const maker = turnMaker(nodes, seed);
parentPort?.on('message', (m: { end: number } | 'stats') => {
  if (m === 'stats') parentPort?.postMessage({ stats: maker.stats() });
  else parentPort?.postMessage({ batch: maker.next(m.end) });
});
