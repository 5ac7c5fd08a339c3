import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve as resolvePath } from 'node:path';
import { type AgentExit, type AgentRun, startAgent } from '../../agent/index.js';
import type { ProviderSpec } from '../../ask/types.js';
import { keysPath } from '../../config/index.js';
import { type Keymap, KeymapError } from '../../keymap/index.js';
import { ArboristError, Shard } from '../../store/index.js';
import { oneLine } from '../../text/sanitize.js';
import type { Action } from '../core/actions.js';
import { type HistoryOffer, initialState, type State } from '../core/state.js';
import { update } from '../core/update.js';
import { ASCII_GLYPHS, type Glyphs, UNICODE_GLYPHS, view } from '../core/view.js';
import { warmStep } from '../features/transcript/markdown.js';
import { buildDemo } from '../runtime/demo.js';
import { describe, Runtime } from '../runtime/runtime.js';
import { type BlessedKey, keyName, loadKeymap } from './keys.js';
import { leaveScreen } from './outside.js';
import { attrTable, chooseTerminal, createScreen, paint, type TermChoice } from './terminal.js';
import { Trace } from './trace.js';

export { keyName, loadKeymap };

import type { AgentLabel } from '../features/tree/groups.js';

export interface TuiOptions {
  dbPath: string;
  mouse?: boolean;
  provider?: ProviderSpec;
  /** keys.json; default $ARBORIST_HOME/keys.json (a missing file means the defaults). */
  keysPath?: string;
  /** On an empty shard, offer to load the demo (default true). */
  offerDemo?: boolean;
  /**
   * The demo's own shard (`$ARBORIST_HOME/demo.db`): `d` on an empty shard opens it, built on first use, and leaves
   * the empty one as it was. Absent, or the shard shown itself: the demo is built into the shard shown.
   */
  demoDbPath?: string;
  /**
   * Histories found on this machine, offered for import on an empty shard. A function is called only when the
   * shard, once open, is empty (so a shard with sessions is opened once, and the disk is not searched).
   */
  histories?: HistoryOffer[] | (() => HistoryOffer[] | Promise<HistoryOffer[]>);
  /** argv that runs arborist, for the background state check (`verify`); absent: no state check. */
  verifyCommand?: readonly string[];
  /** The agents' names and badges by source kind (src/import/agents.ts): the sessions' badges and their help. */
  agents?: Readonly<Record<string, AgentLabel>>;
}

/** Whether two paths name one file (a link to it too); a path not there yet is compared as written. */
function samePath(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolvePath(p);
    }
  };
  return real(a) === real(b);
}

/** A path as a person reads it on a status line: the home folder as `~`. */
function tildePath(path: string): string {
  const home = homedir();
  return home && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

const err = (line: string) => process.stderr.write(`arborist: ${line}\n`);

/** Runs the browser until it quits; the exit code (2: refused to start, with one line on stderr). */
export async function runTui(opts: TuiOptions): Promise<number> {
  let keymap: Keymap;
  try {
    keymap = loadKeymap(opts.keysPath ?? keysPath());
  } catch (e) {
    if (e instanceof KeymapError) {
      err(e.message);
      return 2;
    }
    throw e;
  }
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    err(
      'the browser needs a terminal (stdin and stdout must be a tty); see arborist --help for the commands',
    );
    return 2;
  }
  const choice = chooseTerminal(process.env);
  if (choice.refuse) {
    err(choice.refuse);
    return 2;
  }
  // Before the screen: a long schema upgrade is said on the terminal as it starts, not behind a blank screen.
  const shard = Shard.open(opts.dbPath, { onUpgrade: (note) => err(oneLine(note)) });
  // An interactive process has quiet moments: new turns are indexed by FTS5 then, not inside each question's commit.
  shard.deferIndexing = true;
  let histories: HistoryOffer[] | undefined;
  try {
    histories =
      typeof opts.histories === 'function' ? (shard.isEmpty() ? await opts.histories() : []) : opts.histories;
    // Shown, not used: the import runs every source's own default paths. `~/.codex` reads at a glance.
    histories = histories?.map((h) => ({ ...h, path: tildePath(h.path) }));
  } catch (e) {
    shard.close();
    throw e;
  }
  return new Promise<number>((resolve, reject) =>
    new Program(shard, keymap, choice, { ...opts, histories }, resolve, reject).start(),
  );
}

/** Store housekeeping waits for this long without input, so it never delays a key press. */
const QUIET_MS = 2000;
/** ... and runs at most this often. */
const IDLE_EVERY_MS = 5000;
/** Progress of a long chain check repaints at most 4 times a second. */
const PROGRESS_EVERY_MS = 250;

/** One run of the browser: the state, the loop that updates and repaints it, and the way out. */
class Program {
  private readonly screen: ReturnType<typeof createScreen>;
  private readonly attrs: ReturnType<typeof attrTable>;
  private readonly glyphs: Glyphs;
  private shard: Shard;
  private runtime: Runtime;
  private readonly trace = new Trace();
  private readonly timer: ReturnType<typeof setInterval>;
  private state: State;
  private done = false;
  private depth = 0;
  private renderQueued = false;
  private lastProgress = 0;
  private lastInput = Date.now();
  /** The markdown renderer still has parts to load in quiet moments (features/transcript/markdown.ts). */
  private warming = true;
  private lastIdle = 0;
  /** The agent has the terminal (`r`): nothing is drawn, and `back` takes the screen again. */
  private outside: { run: AgentRun | null; back: () => void } | null = null;
  private readonly onTerm = () => this.dieOf('SIGTERM');
  private readonly onHup = () => this.dieOf('SIGHUP');
  private readonly fail = (e: unknown) => this.failWith(e);

  constructor(
    shard: Shard,
    private readonly keymap: Keymap,
    private readonly choice: TermChoice,
    private readonly opts: TuiOptions & { histories?: HistoryOffer[] },
    private readonly resolve: (code: number) => void,
    /** A failure, once the terminal is restored: the entry point reports it under the CLI's one error policy. */
    private readonly reject: (err: unknown) => void,
  ) {
    this.screen = createScreen(choice, { mouse: opts.mouse ?? false });
    this.attrs = attrTable(choice.colors);
    this.glyphs = choice.ascii ? ASCII_GLYPHS : UNICODE_GLYPHS;
    this.state = initialState({
      cols: this.screen.cols,
      rows: this.screen.rows,
      keymap,
      offerDemo: opts.offerDemo ?? true,
      histories: opts.histories,
      agents: opts.agents,
    });
    this.shard = shard;
    this.runtime = this.runtimeOf(shard);
    this.timer = setInterval(() => this.guard(() => this.onTimer()), 500);
  }

  private runtimeOf(shard: Shard): Runtime {
    const demo = this.opts.demoDbPath;
    const ownDemo = demo !== undefined && !samePath(demo, shard.path);
    return new Runtime(
      shard,
      (a) => this.dispatch(a),
      () => this.state,
      {
        provider: this.opts.provider,
        verifyCommand: this.opts.verifyCommand,
        runOutside: (exe, argv, cwd) => this.runOutside(exe, argv, cwd),
        // After the effects of this key have run: the runtime that runs them is the one the demo replaces.
        openDemo: ownDemo ? () => setImmediate(() => this.guard(() => this.openDemo(demo))) : undefined,
      },
    );
  }

  start(): void {
    process.on('SIGTERM', this.onTerm);
    process.on('SIGHUP', this.onHup);
    process.on('uncaughtException', this.fail);
    process.on('unhandledRejection', this.fail);
    this.listen();
    this.guard(() => this.show());
  }

  /** The first screen of the shard, then the sessions it left out and the first full check. */
  private show(): void {
    this.dispatch({ type: 'resize', cols: this.screen.cols, rows: this.screen.rows });
    this.runtime.run([{ type: 'loadSessions' }]);
    this.render();
    this.runtime.changed();
    setImmediate(() =>
      this.guard(() => {
        if (this.done) return;
        this.runtime.completeSessions();
        this.runtime.check(true);
      }),
    );
  }

  /**
   * `d` on an empty shard: the browser moves to the demo's own shard (built on first use, as `arborist demo` builds
   * it), so a first look at the demo never writes into the user's history. The empty shard is left as it was, and
   * the next `arborist` opens it again. A demo shard that cannot be opened is said, and the browser stays.
   */
  private openDemo(path: string): void {
    if (this.done) return;
    let demo: Shard;
    try {
      demo = Shard.open(path);
      try {
        if (demo.isEmpty()) buildDemo(demo);
      } catch (e) {
        demo.close();
        throw e;
      }
    } catch (e) {
      this.dispatch({
        type: 'message',
        text: `the demo shard cannot be opened: ${describe(e)}`,
        level: 'error',
      });
      return;
    }
    demo.deferIndexing = true;
    this.runtime.close();
    this.shard.close();
    this.shard = demo;
    this.runtime = this.runtimeOf(demo);
    this.state = initialState({
      cols: this.screen.cols,
      rows: this.screen.rows,
      keymap: this.keymap,
      offerDemo: false,
      histories: [],
      agents: this.opts.agents,
    });
    this.show();
    this.dispatch({
      type: 'message',
      text: `demo shard ${tildePath(path)} · your shard stays empty · → opens a session`,
      level: 'info',
    });
  }

  /** Runs `f`; an exception ends the program with the terminal restored. */
  private guard(f: () => void): void {
    try {
      f();
    } catch (e) {
      this.failWith(e);
    }
  }

  private listen(): void {
    const s = this.screen;
    s.on('keypress', (ch: string | undefined, key: BlessedKey | undefined) =>
      this.guard(() => {
        this.lastInput = Date.now();
        const k = keyName(ch, key ?? {});
        if (k) this.dispatchNow({ type: 'key', key: k.key, ch: k.ch });
      }),
    );
    s.on('resize', () => this.guard(() => this.dispatchNow({ type: 'resize', cols: s.cols, rows: s.rows })));
    if (this.opts.mouse) {
      s.on('mouse', (m: { action: string; x: number; y: number }) =>
        this.guard(() => {
          if (m.action === 'wheelup' || m.action === 'wheeldown' || m.action === 'mousedown') {
            this.dispatchNow({ type: 'mouse', kind: m.action, x: m.x, y: m.y });
          }
        }),
      );
    }
  }

  private dispatch(a: Action): void {
    if (this.done) return;
    if (a.type === 'chainProgress') {
      const now = Date.now();
      if (now - this.lastProgress < PROGRESS_EVERY_MS) return;
      this.lastProgress = now;
    }
    this.depth++;
    try {
      const [next, effects] = update(this.state, a);
      this.state = next;
      this.trace.updated(a, effects);
      if (effects.some((e) => e.type === 'quit')) {
        this.runtime.run(effects.filter((e) => e.type !== 'quit'));
        this.finish(0);
        return;
      }
      this.runtime.run(effects);
    } finally {
      this.depth--;
    }
    if (this.depth === 0) this.renderSoon();
  }

  /** Key presses repaint at once (the latency a person feels); everything else is coalesced. */
  private dispatchNow(a: Action): void {
    this.trace.keyPressed();
    // An input before the rest of the sessions were read (right after the first screen): read them first.
    this.runtime.completeSessions();
    this.dispatch(a);
    this.trace.keyHandled();
    if (this.renderQueued && !this.done) this.render();
  }

  private render(): void {
    this.renderQueued = false;
    if (this.done || this.outside) return;
    this.trace.viewing();
    const frame = view(this.state, { glyphs: this.glyphs });
    this.trace.viewed();
    paint(this.screen, frame, this.attrs, this.choice.ascii);
    this.screen.render();
    this.screen.program.flush();
    this.trace.painted(this.state);
  }

  private renderSoon(): void {
    if (this.renderQueued || this.done) return;
    this.renderQueued = true;
    setImmediate(() => this.render());
  }

  /**
   * Hands the terminal to the agent (`r`, runtime/resume.ts) and takes it back when it exits: the alternate screen
   * is left, input paused and raw mode off while it runs (term/outside.ts); the timers and the watcher go on, but
   * nothing is drawn until the screen is back, then every cell is drawn again.
   */
  private async runOutside(executable: string, argv: readonly string[], cwd: string): Promise<AgentExit> {
    if (this.done) return { code: null, signal: null, error: 'arborist is closing' };
    const back = leaveScreen(this.screen, { mouse: this.opts.mouse ?? false });
    const outside: { run: AgentRun | null; back: () => void } = { run: null, back };
    this.outside = outside;
    try {
      outside.run = startAgent(executable, argv, cwd);
      return await outside.run.done;
    } finally {
      if (this.outside === outside) {
        this.outside = null;
        back();
        if (!this.done) {
          this.lastInput = Date.now();
          this.render();
        }
      }
    }
  }

  /**
   * Twice a second: notice other writers, move the clock, and in quiet moments let the store index the turns
   * whose FTS5 rows were deferred and checkpoint its WAL (never delaying a key press, nor inside the commit of
   * the next question).
   */
  private onTimer(): void {
    // The shard deleted or replaced under the browser: a question asked now would go into a file nobody can open.
    if (this.shard.detached()) {
      this.failWith(
        new ArboristError(
          'shard',
          `the shard ${this.shard.path} was deleted or replaced while the browser ran; it stops rather than write into a file nobody can open`,
        ),
      );
      return;
    }
    if (this.runtime.changed()) this.dispatch({ type: 'dataChanged' });
    this.dispatch({ type: 'tick', now: Date.now() });
    const now = Date.now();
    if (now - this.lastInput > QUIET_MS && now - this.lastIdle > IDLE_EVERY_MS && !this.state.ask) {
      this.lastIdle = now;
      this.shard.idle();
    } else if (now - this.lastInput > QUIET_MS && this.warming) this.warming = warmStep();
  }

  private cleanup(): void {
    if (this.done) return;
    this.done = true;
    if (this.outside) {
      // Told to stop while the agent runs: it goes too, and the terminal is taken back to be restored.
      try {
        this.outside.run?.kill();
      } catch {
        // already gone
      }
      this.outside.back(); // never throws (term/outside.ts)
      this.outside = null;
    }
    this.trace.flush();
    clearInterval(this.timer);
    this.runtime.close();
    try {
      this.screen.destroy();
    } catch {
      // The terminal may be gone (ssh drop): nothing left to restore.
    }
    process.off('SIGTERM', this.onTerm);
    process.off('SIGHUP', this.onHup);
    process.off('uncaughtException', this.fail);
    process.off('unhandledRejection', this.fail);
    try {
      this.shard.close();
    } catch {
      // closing is best effort
    }
  }

  private finish(code: number): void {
    this.cleanup();
    this.resolve(code);
  }

  private failWith(e: unknown): void {
    this.cleanup();
    this.reject(e);
  }

  /**
   * After restoring the terminal, die of the signal itself (the conventional status). Exiting normally would
   * make Node reset the tty at exit, which aborts the process when the terminal is gone (an ssh drop).
   */
  private dieOf(sig: NodeJS.Signals): void {
    process.stdout.on('error', () => {});
    this.cleanup();
    process.kill(process.pid, sig);
  }
}
