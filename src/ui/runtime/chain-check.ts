/**
 * The audit chain check, scheduled so it never delays a key press: small checks run inline, long ones in a
 * low-priority worker (chain-check-worker.ts) with progress; after a change only the new events are checked,
 * unless the old ones may have changed. At most one check runs; one more (full or incremental) may wait.
 */
import { Worker } from 'node:worker_threads';
import type { ChainCheck, Shard } from '../../store/index.js';
import type { Action } from '../core/actions.js';

export interface ChainCheckOptions {
  /** Where the chain worker's module lives (the compiled chain-check-worker.js). */
  workerUrl?: URL;
  /** Run chain checks inline instead of in a worker (tests). */
  inlineChecks?: boolean;
}

/** Fewer new events than this are checked inline (a few ms); more go to the worker. */
const INLINE_EVENTS = 256;
/** A whole chain this short is checked inline too (tens of ms, less than starting the worker). */
const INLINE_FULL = 2000;
/**
 * An incremental check trusts the events verified before. When the last full pass is older than this, a change
 * triggers a full pass instead (in the low-priority worker), so an old event rewritten together with a valid new
 * one cannot stay unnoticed for long.
 */
const FULL_EVERY_MS = 5 * 60_000;

export class ChainChecker {
  private worker: Worker | null = null;
  private nextId = 1;
  private running: { id: number; full: boolean; base: number } | null = null;
  /** A full check was asked for while another check ran. */
  private queuedFull = false;
  private queuedSync = false;
  /** The last event known good, to resume from. Null until the first full check finishes. */
  private verified: { seq: number; hash: string } | null = null;
  private broken = false;
  private lastFullAt = 0;
  private closed = false;

  constructor(
    private readonly shard: Shard,
    private readonly dispatch: (a: Action) => void,
    private readonly opts: ChainCheckOptions = {},
  ) {}

  /** Called on start and on `c`: verify every event. */
  check(full: true): void {
    if (this.running) {
      if (full) this.queuedFull = true;
      return;
    }
    this.guarded(() => this.start(undefined));
  }

  /**
   * After another writer committed: new events are checked from the last verified one, which the store checks
   * again first (its bytes still hash to what was verified: audit/check.ts). When the old ones may have changed
   * (the verified event is gone or different, the chain got shorter, or data changed without a new event, which
   * no arborist write does), check everything again.
   */
  sync(): void {
    if (this.running) {
      this.queuedSync = true;
      return;
    }
    this.guarded(() => this.syncNow());
  }

  private syncNow(): void {
    if (!this.verified || this.broken || Date.now() - this.lastFullAt > FULL_EVERY_MS) {
      this.start(undefined);
      return;
    }
    const head = this.shard.audit.head();
    const v = this.verified;
    if (head.seq <= v.seq) {
      // Shorter, or changed without an event appended: something wrote outside the chain. Look at all of it.
      this.start(undefined);
      return;
    }
    if (head.seq - v.seq <= INLINE_EVENTS || this.opts.inlineChecks) {
      const r = this.shard.chainCheck({ from: v });
      this.finish(r, false, v.seq);
      return;
    }
    this.start(v);
  }

  /**
   * Runs a step of the check; if it throws (a shard that cannot be read), the chain is no longer vouched for and
   * the bar says so. The error's own text never reaches the bar: it may quote the shard's bytes.
   */
  private guarded(step: () => void): void {
    try {
      step();
    } catch {
      this.failed();
    }
  }

  private failed(): void {
    const events = this.verified?.seq ?? 0;
    this.running = null;
    this.broken = true;
    this.verified = null;
    const result: ChainCheck = {
      ok: false,
      events,
      head: '',
      first_broken_seq: null,
      reason: 'the chain could not be read',
      verified: { seq: 0, hash: '' },
    };
    this.dispatch({ type: 'chainDone', result, full: false });
    this.dispatch({
      type: 'message',
      text: 'chain check failed: the chain could not be read (arborist chain-check says where)',
      level: 'error',
    });
    this.next();
  }

  private start(from: { seq: number; hash: string } | undefined): void {
    const full = from === undefined;
    const head = this.shard.audit.head().seq;
    const base = from?.seq ?? 0;
    this.dispatch({ type: 'chainStart', full, total: Math.max(0, head - base) });
    if (this.opts.inlineChecks || head - base <= INLINE_FULL) {
      this.finish(this.shard.chainCheck({ from }), full, base);
      return;
    }
    const id = this.nextId++;
    this.running = { id, full, base };
    this.ensureWorker().postMessage({ id, from });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const url = this.opts.workerUrl ?? new URL('./chain-check-worker.js', import.meta.url);
    const w = new Worker(url, { workerData: { dbPath: this.shard.path } });
    w.unref();
    w.on('message', (m: { id: number; type: string; done?: number; result?: ChainCheck; error?: string }) => {
      if (this.closed || !this.running || m.id !== this.running.id) return;
      if (m.type === 'progress') this.dispatch({ type: 'chainProgress', done: m.done! });
      else if (m.type === 'done') {
        const { full, base } = this.running;
        this.running = null;
        this.guarded(() => this.finish(m.result!, full, base));
      } else this.failed();
    });
    w.on('error', () => {
      this.worker = null;
      if (!this.closed) this.failed();
    });
    this.worker = w;
    return w;
  }

  private finish(r: ChainCheck, full: boolean, base: number): void {
    if (!full && !r.ok && r.first_broken_seq === base) {
      // The event the check resumed from is not the one verified any more: find the first break from the start,
      // so the bar names the event `arborist chain-check` names.
      this.verified = null;
      this.start(undefined);
      return;
    }
    if (full) this.lastFullAt = Date.now();
    if (r.ok) {
      this.verified = r.verified;
      this.broken = false;
    } else {
      this.broken = true;
      if (full) this.verified = null;
    }
    this.dispatch({ type: 'chainDone', result: r, full });
    this.next();
  }

  private next(): void {
    if (this.queuedFull) {
      this.queuedFull = false;
      this.queuedSync = false;
      this.start(undefined);
    } else if (this.queuedSync) {
      this.queuedSync = false;
      this.sync();
    }
  }

  close(): void {
    this.closed = true;
    if (this.worker) {
      void this.worker.terminate();
      this.worker = null;
    }
  }
}
