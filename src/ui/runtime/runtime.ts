/**
 * The side effects beside the reducer: SQLite reads, asking, the chain-check worker and the data_version poll.
 * Each effect comes back as an action. Nothing here draws.
 */
import { Worker } from 'node:worker_threads';
import type { AskRequest, AskResult, ProviderSpec } from '../../ask/types.js';
import type { ChainCheck, Shard } from '../../store/index.js';
import { parseBates } from '../../store/index.js';
import { oneLine } from '../../text/sanitize.js';
import type { Action } from '../core/actions.js';
import type { Effect } from '../core/effects.js';
import type { BranchItem, State } from '../core/state.js';
import { toFound } from '../features/find/model.js';
import { archivedSet, type MaintenanceEffect } from '../features/maintenance/model.js';
import { Archives } from './archives.js';
import { buildDemo } from './demo.js';
import type { FindReply, FindRequest } from './find-worker.js';

export interface RuntimeOptions {
  provider?: ProviderSpec;
  /** Where the chain worker's module lives (the compiled chain-worker.js). */
  workerUrl?: URL;
  /** Run chain checks inline instead of in a worker (tests). */
  inlineChecks?: boolean;
  /** Where the find worker's module lives (the compiled find-worker.js). */
  findWorkerUrl?: URL;
  /** Run find queries in this thread (setImmediate) instead of the worker (tests). */
  inlineFind?: boolean;
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

export class Runtime {
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
  private abort: AbortController | null = null;
  private lastVersion = -1;
  private closed = false;
  // Find: at most one query in flight and one (the newest) waiting; anything older is never run.
  private findWorker: Worker | null = null;
  /** The find worker could not start (or died): queries run in this thread, between events. */
  private findInline = false;
  private findBusy: FindRequest | null = null;
  private findNext: FindRequest | null = null;

  constructor(
    private readonly shard: Shard,
    private readonly dispatch: (a: Action) => void,
    private readonly getState: () => State,
    private readonly opts: RuntimeOptions = {},
  ) {}

  /** Runs the effects in order; each may dispatch actions (which may run more effects). */
  run(effects: Effect[]): void {
    const seen = new Set<string>();
    for (const e of effects) {
      const key = JSON.stringify(e);
      if (seen.has(key)) continue;
      seen.add(key);
      try {
        this.perform(e);
      } catch (err) {
        this.dispatch({ type: 'message', text: describe(err), level: 'error' });
      }
    }
  }

  private perform(e: Effect): void {
    const sh = this.shard;
    switch (e.type) {
      case 'loadSessions':
        // With archived sessions shown, their list comes along (read from the archive records).
        if (this.getState().showArchived)
          this.dispatch({
            type: 'sessions',
            sessions: sh.sessionSummaries(),
            archived: this.archives.summaries(),
          });
        else this.dispatch({ type: 'sessions', sessions: sh.sessionSummaries() });
        return;
      case 'loadOutline': {
        const nodes = this.isArchived(e.sid) ? this.archives.outline(e.sid) : sh.sessionOutline(e.sid);
        this.dispatch({ type: 'outline', sid: e.sid, nodes, reveal: e.reveal });
        return;
      }
      case 'loadPath':
        this.dispatch({ type: 'path', bates: e.bates, turns: this.pathTo(e.bates) });
        return;
      case 'loadTitles': {
        const titles: [string, string][] = [];
        for (const sid of e.sids) {
          if (this.isArchived(sid)) {
            titles.push([sid, this.archives.title(sid)]);
            continue;
          }
          let q = '';
          try {
            const r = sh.resolve('1', sid);
            if (r.kind === 'node') q = r.node.question;
          } catch {
            // no first turn (an empty or archived start): no title
          }
          titles.push([sid, oneLine(q.slice(0, 200))]);
        }
        this.dispatch({ type: 'titles', titles });
        return;
      }
      case 'reveal': {
        const node = sh.getNode(e.bates);
        const asid = node ? undefined : parseBates(e.bates)?.sid;
        if (asid && this.isArchived(asid)) {
          this.dispatch({ type: 'outline', sid: asid, nodes: this.archives.outline(asid), reveal: e.bates });
          return;
        }
        if (!node) {
          this.dispatch({ type: 'message', text: `no turn ${e.bates}`, level: 'error' });
          return;
        }
        if (!this.getState().sessions.some((s) => s.sid === node.sid)) this.perform({ type: 'loadSessions' });
        this.dispatch({
          type: 'outline',
          sid: node.sid,
          nodes: sh.sessionOutline(node.sid),
          reveal: node.bates,
        });
        return;
      }
      case 'loadBranches': {
        if (this.isArchived(e.sid)) {
          this.dispatch({ type: 'branches', sid: e.sid, items: this.archives.branches(e.sid) });
          return;
        }
        const items: BranchItem[] = sh.branchPoints(e.sid).map((b) => ({
          bates: b.bates,
          n_children: b.n_children,
          q: oneLine((sh.getNode(b.bates)?.question ?? '').slice(0, 300)),
        }));
        this.dispatch({ type: 'branches', sid: e.sid, items });
        return;
      }
      case 'ask':
        this.ask(e);
        return;
      case 'cancelAsk':
        this.abort?.abort();
        return;
      case 'checkChain':
        this.check(true);
        return;
      case 'syncChain':
        this.sync();
        return;
      case 'buildDemo':
        buildDemo(sh);
        this.dispatch({ type: 'demoBuilt' });
        return;
      case 'search':
        this.search({ seq: e.seq, query: e.query, scope: e.scope, limit: e.limit });
        return;
      case 'loadEntries':
      case 'planChange':
      case 'applyChange':
      case 'restoreArchive':
        this.maintenance(e);
        return;
      case 'quit':
        return;
    }
  }

  // ---- entries and the archive tier --------------------------------------------------------------------------

  private archivesReader: Archives | null = null;

  private get archives(): Archives {
    this.archivesReader ??= new Archives(this.shard);
    return this.archivesReader;
  }

  /** Archived sessions are known from the state: only those the tree shows are read from their archives. */
  private isArchived(sid: string): boolean {
    return archivedSet(this.getState().sessions).has(sid);
  }

  private pathTo(bates: string) {
    const sid = parseBates(bates)?.sid;
    if (sid && this.isArchived(sid)) return this.archives.pathTo(bates, (x) => this.isArchived(x));
    return this.shard.pathTo(bates);
  }

  /** Entries, and the confirmed reset, delete and restore (each one write transaction, its own audit events). */
  private maintenance(e: MaintenanceEffect): void {
    try {
      switch (e.type) {
        case 'loadEntries':
          this.dispatch({ type: 'entries', items: this.archives.entries() });
          return;
        case 'planChange':
          this.dispatch({ type: 'changePlan', op: e.op, key: e.key, plan: this.archives.plan(e.op, e.key) });
          return;
        case 'applyChange': {
          const r = this.archives.apply(e.op, e.key, e.expect);
          if ('stale' in r)
            this.dispatch({ type: 'changePlan', op: e.op, key: e.key, plan: r.stale, stale: true });
          else this.dispatch({ type: 'changeDone', op: e.op, key: e.key, ...r });
          return;
        }
        case 'restoreArchive':
          this.dispatch({ type: 'restoreDone', ...this.archives.restore(e.sid) });
          return;
      }
    } catch (err) {
      this.dispatch({ type: 'maintFailed', error: describe(err) });
    }
  }

  // ---- asking -----------------------------------------------------------------------------------------------

  private ask(e: Extract<Effect, { type: 'ask' }>): void {
    const ctl = new AbortController();
    this.abort = ctl;
    // Loaded on first use: start-up does not pay for the providers.
    const ask = (req: AskRequest): Promise<AskResult> =>
      import('../../ask/index.js').then((m) => m.ask(this.shard, req));
    ask({
      question: e.question,
      parent: e.parent ?? undefined,
      session: e.parent === null && e.session !== null ? e.session : undefined,
      fork: e.mode === 'fork' ? true : undefined,
      provider: this.opts.provider,
      signal: ctl.signal,
      onChunk: (text) => {
        if (!this.closed) this.dispatch({ type: 'askChunk', text });
      },
    }).then(
      (r) => {
        if (this.abort === ctl) this.abort = null;
        if (!this.closed)
          this.dispatch({ type: 'askDone', bates: r.bates, sid: r.sid, createdSession: r.created_session });
      },
      (err) => {
        if (this.abort === ctl) this.abort = null;
        if (this.closed) return;
        const text = ctl.signal.aborted ? 'question cancelled; nothing was added' : describe(err);
        this.dispatch({ type: 'askFailed', error: text });
      },
    );
  }

  // ---- chain checks -----------------------------------------------------------------------------------------

  /** Called on start and on `c`: verify every event. */
  check(full: true): void {
    if (this.running) {
      if (full) this.queuedFull = true;
      return;
    }
    this.start(undefined);
  }

  /**
   * After another writer committed: new events are checked from the last verified one. When the old ones may have
   * changed (the verified event is gone or different, the chain got shorter, or data changed without a new event,
   * which no arborist write does), check everything again.
   */
  sync(): void {
    if (this.running) {
      this.queuedSync = true;
      return;
    }
    if (!this.verified || this.broken || Date.now() - this.lastFullAt > FULL_EVERY_MS) {
      this.start(undefined);
      return;
    }
    const head = this.shard.audit.head();
    const v = this.verified;
    const anchor = v.seq === 0 ? null : this.shard.audit.event(v.seq);
    const anchorOk = v.seq === 0 || (anchor !== undefined && anchor !== null && anchor.event_hash === v.hash);
    if (!anchorOk || head.seq < v.seq || (head.seq === v.seq && head.hash.toString('hex') !== v.hash)) {
      this.start(undefined);
      return;
    }
    if (head.seq === v.seq) {
      // Changed, but no event was appended: something wrote outside the chain. Look at all of it.
      this.start(undefined);
      return;
    }
    if (head.seq - v.seq <= INLINE_EVENTS || this.opts.inlineChecks) {
      const r = this.shard.chainCheck({ from: v });
      this.finish(r, false);
      return;
    }
    this.start(v);
  }

  private start(from: { seq: number; hash: string } | undefined): void {
    const full = from === undefined;
    const head = this.shard.audit.head().seq;
    const base = from?.seq ?? 0;
    this.dispatch({ type: 'chainStart', full, total: Math.max(0, head - base) });
    if (this.opts.inlineChecks || head - base <= INLINE_FULL) {
      this.finish(this.shard.chainCheck({ from }), full);
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
        const full = this.running.full;
        this.running = null;
        this.finish(m.result!, full);
      } else {
        this.running = null;
        this.dispatch({ type: 'message', text: `chain check failed: ${m.error}`, level: 'error' });
        this.next();
      }
    });
    w.on('error', (err) => {
      this.worker = null;
      this.running = null;
      if (!this.closed)
        this.dispatch({ type: 'message', text: `chain check failed: ${describe(err)}`, level: 'error' });
    });
    this.worker = w;
    return w;
  }

  private finish(r: ChainCheck, full: boolean): void {
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

  // ---- find -------------------------------------------------------------------------------------------------

  /**
   * A query while another is in flight waits, replacing whatever was waiting (typed over: its answer would be
   * dropped anyway). So a burst of keystrokes costs at most two queries: the one running and the last one.
   */
  private search(req: FindRequest): void {
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

  // ---- polling ----------------------------------------------------------------------------------------------

  /** True when another connection committed since the last call. */
  changed(): boolean {
    const v = this.shard.dataVersion();
    if (this.lastVersion === -1) {
      this.lastVersion = v;
      return false;
    }
    if (v === this.lastVersion) return false;
    this.lastVersion = v;
    return true;
  }

  close(): void {
    this.closed = true;
    this.abort?.abort();
    if (this.worker) {
      void this.worker.terminate();
      this.worker = null;
    }
    if (this.findWorker) {
      const w = this.findWorker;
      this.findWorker = null;
      void w.terminate();
    }
  }
}

export function describe(err: unknown): string {
  const e = err as { message?: string };
  return (e?.message ?? String(err)).split('\n')[0];
}
