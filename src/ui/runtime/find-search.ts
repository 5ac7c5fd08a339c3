/**
 * Find queries, off the UI thread: at most one in flight (in find-worker.ts, or in this thread when the worker
 * cannot start) and one, the newest, waiting; anything older is never run.
 */
import { Worker } from 'node:worker_threads';
import type { Shard } from '../../store/index.js';
import type { Action } from '../core/actions.js';
import { toFound } from '../features/find/model.js';
import { describe } from './describe.js';
import type { FindReply, FindRequest } from './find-worker.js';

export interface FindOptions {
  /** Where the find worker's module lives (the compiled find-worker.js). */
  findWorkerUrl?: URL;
  /** Run find queries in this thread (setImmediate) instead of the worker (tests). */
  inlineFind?: boolean;
}

export class FindScheduler {
  private findWorker: Worker | null = null;
  /** The find worker could not start (or died): queries run in this thread, between events. */
  private findInline = false;
  private findBusy: FindRequest | null = null;
  private findNext: FindRequest | null = null;
  private closed = false;

  constructor(
    private readonly shard: Shard,
    private readonly dispatch: (a: Action) => void,
    private readonly opts: FindOptions = {},
  ) {}

  /**
   * A query while another is in flight waits, replacing whatever was waiting (typed over: its answer would be
   * dropped anyway). So a burst of keystrokes costs at most two queries: the one running and the last one.
   */
  search(req: FindRequest): void {
    if (this.findBusy) {
      this.findNext = req;
      return;
    }
    this.sendFind(req);
  }

  private sendFind(req: FindRequest): void {
    this.findBusy = req;
    // The worker's read connection sees only what FTS5 holds: index turns still waiting (none, usually).
    try {
      this.shard.flushIndex();
    } catch {
      // locked by another writer: search what is indexed
    }
    if (!this.findInline && !this.opts.inlineFind) {
      try {
        this.ensureFindWorker().postMessage(req);
        return;
      } catch {
        this.findWorker = null;
        this.findInline = true;
      }
    }
    // In this thread, but after the events already waiting (keys typed meanwhile replace the next query).
    setImmediate(() => this.findHere(req));
  }

  /** Where find queries run now: the worker, this thread (it could not start, or tests), or none yet. */
  findThread(): 'worker' | 'main' | null {
    if (this.findInline || this.opts.inlineFind) return 'main';
    return this.findWorker ? 'worker' : null;
  }

  private findHere(req: FindRequest): void {
    if (this.closed || this.findBusy !== req) return;
    let a: Action;
    const t0 = performance.now();
    try {
      const r = this.shard.search(req.query, {
        limit: req.limit,
        scope: req.scope ?? undefined,
        snippets: 0,
        answerSnippets: true,
      });
      a = { type: 'found', seq: req.seq, ...toFound(r), ms: performance.now() - t0 };
    } catch (err) {
      a = { type: 'findFailed', seq: req.seq, error: describe(err) };
    }
    this.findDone(a);
  }

  private findDone(a: Action): void {
    this.findBusy = null;
    const next = this.findNext;
    this.findNext = null;
    if (next) {
      // A newer query is waiting: this answer is stale, so it is not even shown; the newer one runs now.
      this.sendFind(next);
      return;
    }
    if (!this.closed) this.dispatch(a);
  }

  private ensureFindWorker(): Worker {
    if (this.findWorker) return this.findWorker;
    const url = this.opts.findWorkerUrl ?? new URL('./find-worker.js', import.meta.url);
    const w = new Worker(url, { workerData: { dbPath: this.shard.path } });
    w.unref();
    w.on('message', (m: FindReply) => {
      if (this.closed || m.type === 'ready' || this.findBusy?.seq !== m.seq) return;
      if (m.type === 'found')
        this.findDone({
          type: 'found',
          seq: m.seq,
          hits: m.hits,
          searched: m.searched,
          corrections: m.corrections,
          problems: m.problems,
          match: m.match,
          ms: m.ms,
        });
      else this.findDone({ type: 'findFailed', seq: m.seq, error: m.error });
    });
    // It cannot start (a missing module, a shard it cannot open) or it died: from now on, search in this thread.
    const fallBack = () => {
      if (this.findWorker !== w) return;
      this.findWorker = null;
      this.findInline = true;
      void w.terminate();
      const req = this.findBusy;
      if (req && !this.closed) setImmediate(() => this.findHere(req));
    };
    w.on('error', fallBack);
    w.on('exit', fallBack);
    this.findWorker = w;
    return w;
  }

  close(): void {
    this.closed = true;
    if (this.findWorker) {
      const w = this.findWorker;
      this.findWorker = null;
      void w.terminate();
    }
  }
}
