/**
 * Runs the find box's queries off the UI thread, on its own read-only connection, so a keystroke never waits for
 * a query. The runtime sends one request at a time (and keeps only the newest one waiting), each tagged with the
 * sequence number the reducer gave it; the answer carries the same number back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Shard } from '../../store/index.js';
import { toFound } from '../features/find/model.js';

export interface FindRequest {
  seq: number;
  query: string;
  scope: string | null;
  limit: number;
}

export type FindReply =
  | { type: 'ready' }
  | ({ type: 'found'; seq: number; ms: number } & ReturnType<typeof toFound>)
  | { type: 'error'; seq: number; error: string };

const port = parentPort!;
const shard = Shard.open((workerData as { dbPath: string }).dbPath, { readonly: true });
// Warm what every query touches (the sessions table for the count, the FTS structure record).
try {
  shard.search('', { limit: 1 });
} catch {
  // an odd shard: the first real query reports it
}
port.postMessage({ type: 'ready' } satisfies FindReply);

port.on('message', (req: FindRequest) => {
  const t0 = performance.now();
  try {
    const r = shard.search(req.query, {
      limit: req.limit,
      scope: req.scope ?? undefined,
      snippets: 0,
      answerSnippets: true,
    });
    const reply: FindReply = { type: 'found', seq: req.seq, ms: performance.now() - t0, ...toFound(r) };
    port.postMessage(reply);
  } catch (err) {
    port.postMessage({
      type: 'error',
      seq: req.seq,
      error: (err as Error).message.split('\n')[0],
    } satisfies FindReply);
  }
});
