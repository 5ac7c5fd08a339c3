/**
 * The side effects beside the reducer: each effect is performed here and answered with actions. Reading the tree
 * goes through the session source (live or archived alike), chain checks through the chain checker, find queries
 * through the find scheduler, entries and archiving through the maintenance ops. Nothing here draws.
 */
import type { AskRequest, AskResult, ProviderSpec } from '../../ask/types.js';
import { parseBates, type Shard } from '../../store/index.js';
import type { Action } from '../core/actions.js';
import type { Effect } from '../core/effects.js';
import type { State } from '../core/state.js';
import { archivedSet } from '../features/maintenance/model.js';
import { ChainChecker, type ChainCheckOptions } from './chain-check.js';
import { buildDemo } from './demo.js';
import { describe } from './describe.js';
import { DetailsLoader } from './details.js';
import { type FindOptions, FindScheduler } from './find-search.js';
import { importHistories } from './import-histories.js';
import { Maintenance } from './maintenance.js';
import { PreviewLoader } from './preview.js';
import { Resumer, type RunOutside } from './resume.js';
import { SessionSource } from './sessions.js';
import { StateChecker } from './state-check.js';
import { SyncRunner } from './sync.js';

export { describe };

const isBates = (x: string) => parseBates(x) !== null;

export interface RuntimeOptions extends ChainCheckOptions, FindOptions {
  provider?: ProviderSpec;
  /** argv that runs arborist, for the state check (state-check.ts) and the first start's import; absent: none. */
  verifyCommand?: readonly string[];
  /** Hands the terminal to the agent (`r`: term/app.ts); absent, resuming is refused. */
  runOutside?: RunOutside;
  /**
   * Opens the demo's own shard in place of this one (`d`: term/app.ts), so the demo never mixes with the user's
   * history; absent, the demo is built into the shard shown (it is the demo's own: `arborist demo`).
   */
  openDemo?: () => void;
}

/** After a change, the state is checked again once the last check is older than this. */
const STATE_EVERY_MS = 5 * 60_000;
/** The first state check waits this long after start, so it never competes with the first screen. */
const STATE_DELAY_MS = 1500;

export class Runtime {
  private readonly source: SessionSource;
  private readonly chain: ChainChecker;
  private readonly finder: FindScheduler;
  private readonly maint: Maintenance;
  private readonly state: StateChecker;
  private readonly resumer: Resumer;
  private readonly details: DetailsLoader;
  private readonly preview: PreviewLoader;
  private readonly syncer: SyncRunner;
  private stateTimer: NodeJS.Timeout | null = null;
  private abort: AbortController | null = null;
  private lastVersion = -1;
  /** Sessions were read once; `sessionsPending`: that read was the first screen's rows only (loadSessions). */
  private sessionsRead = false;
  private sessionsPending = false;
  private closed = false;

  constructor(
    private readonly shard: Shard,
    private readonly dispatch: (a: Action) => void,
    private readonly getState: () => State,
    private readonly opts: RuntimeOptions = {},
  ) {
    // Archived sessions are known from the state: only those the tree shows are read from their archives.
    this.source = new SessionSource(shard, (sid) => archivedSet(this.getState().sessions).has(sid));
    this.chain = new ChainChecker(shard, dispatch, opts);
    this.finder = new FindScheduler(shard, dispatch, opts);
    this.maint = new Maintenance(shard);
    this.state = new StateChecker(shard.path, dispatch, opts.verifyCommand ?? null);
    this.resumer = new Resumer(shard, dispatch, opts.runOutside ?? null);
    this.details = new DetailsLoader(shard, dispatch);
    this.syncer = new SyncRunner(opts.verifyCommand ?? null, shard.path, dispatch);
    this.preview = new PreviewLoader(
      (bates) =>
        this.source.turn(bates) ?? {
          turn: null,
          archived: false,
          error: `turn ${bates} is no longer in the shard (deleted since the search)`,
        },
      dispatch,
      () => shard.dataVersion(),
    );
  }

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
        // A path that cannot be read is recorded as such, so the reducer does not ask for it again (and again).
        if (e.type === 'loadPath')
          this.dispatch({ type: 'path', bates: e.bates, turns: [], error: describe(err) });
        this.dispatch({ type: 'message', text: describe(err), level: 'error' });
      }
    }
  }

  private perform(e: Effect): void {
    const src = this.source;
    switch (e.type) {
      case 'loadSessions':
        this.loadSessions();
        return;
      case 'loadOutline':
        this.dispatch({ type: 'outline', sid: e.sid, nodes: src.outline(e.sid), reveal: e.reveal });
        return;
      case 'loadPath':
        this.dispatch({ type: 'path', bates: e.bates, turns: src.pathTo(e.bates) });
        return;
      case 'loadDetails':
        this.details.load(e.turns);
        return;
      case 'loadTitles':
        this.dispatch({ type: 'titles', ...src.titles(e.sids) });
        return;
      case 'loadOrigins': {
        const s = this.getState();
        const missing = s.sessions.filter((x) => !s.origins.has(x.sid)).map((x) => x.sid);
        this.dispatch({ type: 'origins', origins: src.origins(missing), of: s.sessions });
        return;
      }
      case 'reveal':
        this.reveal(e.bates);
        return;
      case 'goto':
        this.goto(e);
        return;
      case 'loadBranches':
        this.dispatch({ type: 'branches', sid: e.sid, items: src.branches(e.sid) });
        return;
      case 'ask':
        this.ask(e);
        return;
      case 'cancelAsk':
        this.abort?.abort();
        return;
      case 'checkChain':
        this.chain.check(true);
        this.state.check();
        return;
      case 'syncChain':
        this.chain.sync();
        if (Date.now() - this.state.lastStartedAt > STATE_EVERY_MS) this.state.check();
        return;
      case 'importHistories':
        importHistories(this.opts.verifyCommand ?? null, this.shard.path, this.dispatch);
        return;
      case 'buildDemo':
        if (this.opts.openDemo) this.opts.openDemo();
        else {
          buildDemo(this.shard);
          this.dispatch({ type: 'demoBuilt' });
        }
        return;
      case 'search':
        this.preview.typed();
        this.finder.search({ seq: e.seq, query: e.query, scope: e.scope, limit: e.limit });
        return;
      case 'previewTurn':
        this.preview.request(e.bates);
        return;
      case 'loadEntries':
      case 'planChange':
      case 'applyChange':
      case 'restoreArchive':
        this.maintenance(e);
        return;
      case 'planResume':
      case 'runResume':
        this.resumer.perform(e);
        return;
      case 'sync':
        this.syncer.start();
        return;
      case 'quit':
        return;
    }
  }

  /**
   * The first read of the sessions is the newest ones that fit on the screen and their count, so the first
   * screen does not wait for every session (13,747 on a 1,000,000-turn shard: a sort and an object each);
   * completeSessions reads the rest. Every later read is the whole list.
   */
  private loadSessions(): void {
    const s = this.getState();
    if (!this.sessionsRead && !s.showArchived) {
      this.sessionsRead = true;
      const limit = Math.max(1, s.rows);
      const first = this.source.newest(limit);
      // Fewer rows than asked for: that is every session (the count may be older or newer by a session).
      if (first.sessions.length < limit) {
        this.dispatch({ type: 'sessions', sessions: first.sessions });
        return;
      }
      this.sessionsPending = true;
      const total = Math.max(first.total, first.sessions.length);
      this.dispatch({ type: 'sessions', sessions: first.sessions, total });
      return;
    }
    this.sessionsRead = true;
    this.sessionsPending = false;
    this.dispatch({ type: 'sessions', ...this.source.sessions(s.showArchived) });
  }

  /**
   * Reads the sessions the first screen left out, if any: called right after the first screen is out, and before
   * any key, click or resize is handled, so nothing a person does ever sees a partial list.
   */
  completeSessions(): void {
    if (this.sessionsPending) this.run([{ type: 'loadSessions' }]);
  }

  /** Opens the turn's session in the tree (loading the sessions first when it is new) and selects the turn. */
  private reveal(bates: string): boolean {
    const at = this.source.locate(bates);
    if (!at) {
      this.dispatch({ type: 'message', text: `no turn ${bates}`, level: 'error' });
      return false;
    }
    if (at.live && !this.getState().sessions.some((s) => s.sid === at.sid))
      this.perform({ type: 'loadSessions' });
    this.dispatch({ type: 'outline', sid: at.sid, nodes: at.nodes, reveal: at.bates });
    return true;
  }

  /**
   * `:cd` and the commands that take a target: a Bates id is revealed as it is (live or archived); anything else
   * is resolved by the store against the selection. The view the command names opens once the turn is selected.
   */
  private goto(e: Extract<Effect, { type: 'goto' }>): void {
    const target = e.target.trim();
    let bates: string | null = target;
    if (!isBates(target)) {
      const t = this.shard.resolveTurn(target, { sid: e.sid, bates: e.from });
      bates = t.bates;
      if (bates === null) {
        const why =
          target === '..' ? `${e.from} is the first turn of its tree` : `session ${t.sid} has no turns yet`;
        this.dispatch({ type: 'message', text: why, level: 'info' });
        return;
      }
    }
    if (this.reveal(bates)) this.dispatch({ type: 'arrived', bates, follow: e.follow });
  }

  /** Entries, and the confirmed reset, delete and restore. */
  private maintenance(
    e: Extract<Effect, { type: 'loadEntries' | 'planChange' | 'applyChange' | 'restoreArchive' }>,
  ) {
    try {
      this.dispatch(this.maint.answer(e));
    } catch (err) {
      this.dispatch({ type: 'maintFailed', error: describe(err) });
    }
  }

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
        const cancelled = ctl.signal.aborted;
        const text = cancelled ? 'question cancelled; nothing was added' : describe(err);
        this.dispatch({ type: 'askFailed', error: text, cancelled });
      },
    );
  }

  /**
   * Called on start: verify every event, and a moment later (in its own process, once the first screen is up and
   * the first keys are answered) the state against them.
   */
  check(full: true): void {
    this.chain.check(full);
    if (this.stateTimer === null) {
      this.stateTimer = setTimeout(() => this.state.check(), STATE_DELAY_MS);
      this.stateTimer.unref();
    }
  }

  /** Where find queries run now: the worker, this thread (it could not start, or tests), or none yet. */
  findThread(): 'worker' | 'main' | null {
    return this.finder.findThread();
  }

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
    this.resumer.close();
    this.chain.close();
    this.finder.close();
    this.preview.close();
    this.syncer.close();
    if (this.stateTimer) clearTimeout(this.stateTimer);
    this.state.close();
  }
}
