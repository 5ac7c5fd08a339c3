/**
 * `arborist` with no command: the full-screen browser. Wires the pieces together:
 *   keys -> keymap -> action -> update(state) -> [state, effects] -> runtime -> more actions ... -> view -> paint
 * and guarantees the terminal is given back on quit, on an exception, and on SIGTERM/SIGHUP.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProviderSpec } from '../../ask/types.js';
import { buildKeymap, type Keymap, KeymapError, parseKeysJson } from '../../keymap/index.js';
import { ArboristError, arboristHome, Shard } from '../../store/index.js';
import type { Action } from '../core/actions.js';
import { initialState, type State } from '../core/state.js';
import { update } from '../core/update.js';
import { ASCII_GLYPHS, UNICODE_GLYPHS, view } from '../core/view.js';
import { Runtime } from '../runtime/runtime.js';
import { attrTable, chooseTerminal, createScreen, paint } from './terminal.js';

export interface TuiOptions {
  dbPath: string;
  mouse?: boolean;
  provider?: ProviderSpec;
  /** keys.json; default $ARBORIST_HOME/keys.json (a missing file means the defaults). */
  keysPath?: string;
  /** On an empty shard, offer to load the demo (default true). */
  offerDemo?: boolean;
}

/** Loads the key map, or explains in one line why not. */
export function loadKeymap(path: string): Keymap {
  if (!existsSync(path)) return buildKeymap({}, path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new KeymapError(`${path}: cannot be read (${(err as { code?: string }).code ?? err})`);
  }
  return buildKeymap(parseKeysJson(text, path), path);
}

/** Normalises blessed's (ch, key) into our key names: printable characters as themselves, else key.full. */
export function keyName(
  ch: string | undefined,
  key: { name?: string; full?: string; ctrl?: boolean; meta?: boolean },
): { key: string; ch?: string } | null {
  if (key.name === 'return') return null; // blessed reports Enter twice (enter + return)
  const printable =
    ch !== undefined && ch.length > 0 && !key.ctrl && !key.meta && !/[\x00-\x1f\x7f]/.test(ch);
  if (printable && ch === ' ') return { key: 'space', ch };
  if (printable && [...ch].length === 1 && key.name !== 'enter' && key.name !== 'tab') return { key: ch, ch };
  if (key.full) return { key: key.full, ch: printable ? ch : undefined };
  if (printable) return { key: ch, ch };
  return null;
}

export async function runTui(opts: TuiOptions): Promise<number> {
  const err = (line: string) => process.stderr.write(`arborist: ${line}\n`);
  let keymap: Keymap;
  try {
    keymap = loadKeymap(opts.keysPath ?? join(arboristHome(), 'keys.json'));
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
  const shard = Shard.open(opts.dbPath);
  // An interactive process has quiet moments: new turns are indexed by FTS5 then, not inside each question's commit.
  shard.deferIndexing = true;
  return new Promise<number>((resolve) => {
    let done = false;
    const screen = createScreen(choice, { mouse: opts.mouse ?? false });
    const attrs = attrTable(choice.colors);
    const glyphs = choice.ascii ? ASCII_GLYPHS : UNICODE_GLYPHS;
    let state: State = initialState({
      cols: screen.cols,
      rows: screen.rows,
      keymap,
      offerDemo: opts.offerDemo ?? true,
    });
    let depth = 0;
    let renderQueued = false;

    // ARBORIST_TUI_TRACE=FILE: one line per key press with where the time went (bench/tui.ts reads it).
    const tracePath = process.env.ARBORIST_TUI_TRACE;
    const trace: string[] = [];
    let keyStart = 0;
    let keyDone = 0;
    // ARBORIST_FIND_TRACE=FILE: one line per find query whose hits got drawn: its seq, the ms from asking (the
    // key press) to the hits on screen, and the ms the query itself took (bench/find-tui.ts reads it).
    const findTracePath = process.env.ARBORIST_FIND_TRACE;
    const findAsked = new Map<number, number>();
    const findMs = new Map<number, number>();
    const findTrace: string[] = [];

    const render = () => {
      renderQueued = false;
      if (done) return;
      const t0 = tracePath ? performance.now() : 0;
      const frame = view(state, { glyphs });
      const t1 = tracePath ? performance.now() : 0;
      paint(screen, frame, attrs, choice.ascii);
      screen.render();
      screen.program.flush();
      if (findTracePath && state.overlay?.kind === 'find') {
        const asked = findAsked.get(state.overlay.shown);
        if (asked !== undefined) {
          const seq = state.overlay.shown;
          findTrace.push(
            `${seq} ${(performance.now() - asked).toFixed(2)} ${findMs.get(seq)?.toFixed(2) ?? '-'}`,
          );
          findAsked.delete(seq);
          findMs.delete(seq);
        }
      }
      if (tracePath && keyStart > 0) {
        const t2 = performance.now();
        trace.push(
          `${(keyDone - keyStart).toFixed(2)} ${(t1 - t0).toFixed(2)} ${(t2 - t1).toFixed(2)} ${(t2 - keyStart).toFixed(2)}`,
        );
        keyStart = 0;
      }
    };
    const renderSoon = () => {
      if (renderQueued || done) return;
      renderQueued = true;
      setImmediate(render);
    };
    // Progress of a long chain check repaints at most 4 times a second.
    let lastProgress = 0;

    const runtime = new Runtime(
      shard,
      (a) => dispatch(a),
      () => state,
      { provider: opts.provider },
    );

    function dispatch(a: Action): void {
      if (done) return;
      if (a.type === 'chainProgress') {
        const now = Date.now();
        if (now - lastProgress < 250) return;
        lastProgress = now;
      }
      depth++;
      try {
        const [next, effects] = update(state, a);
        state = next;
        if (findTracePath) {
          for (const e of effects) if (e.type === 'search') findAsked.set(e.seq, performance.now());
          if (a.type === 'found' && a.ms !== undefined) findMs.set(a.seq, a.ms);
        }
        if (effects.some((e) => e.type === 'quit')) {
          runtime.run(effects.filter((e) => e.type !== 'quit'));
          finish(0);
          return;
        }
        runtime.run(effects);
      } finally {
        depth--;
      }
      if (depth === 0) renderSoon();
    }

    /** Key presses repaint at once (the latency a person feels); everything else is coalesced. */
    const dispatchNow = (a: Action) => {
      if (tracePath) keyStart = performance.now();
      dispatch(a);
      if (tracePath) keyDone = performance.now();
      if (renderQueued && !done) render();
    };

    // Store housekeeping (WAL checkpoint, an FTS5 merge step) runs only after two quiet seconds, so it never
    // delays a key press nor lands inside the commit of the next question.
    let lastInput = Date.now();
    let lastIdle = 0;
    const timer = setInterval(() => {
      try {
        if (runtime.changed()) dispatch({ type: 'dataChanged' });
        dispatch({ type: 'tick', now: Date.now() });
        const now = Date.now();
        if (now - lastInput > 2000 && now - lastIdle > 5000 && !state.ask) {
          lastIdle = now;
          shard.idle();
        }
      } catch (e) {
        fail(e);
      }
    }, 500);

    function cleanup(): void {
      if (done) return;
      done = true;
      if (tracePath) {
        try {
          appendFileSync(tracePath, trace.map((l) => `${l}\n`).join(''));
        } catch {
          // tracing is best effort
        }
      }
      if (findTracePath) {
        try {
          appendFileSync(findTracePath, findTrace.map((l) => `${l}\n`).join(''));
        } catch {
          // tracing is best effort
        }
      }
      clearInterval(timer);
      runtime.close();
      try {
        screen.destroy();
      } catch {
        // The terminal may be gone (ssh drop): nothing left to restore.
      }
      process.off('SIGTERM', onTerm);
      process.off('SIGHUP', onHup);
      process.off('uncaughtException', fail);
      process.off('unhandledRejection', fail);
      try {
        shard.close();
      } catch {
        // closing is best effort
      }
    }

    function finish(code: number): void {
      cleanup();
      resolve(code);
    }

    function fail(e: unknown): void {
      cleanup();
      const msg = e instanceof ArboristError ? e.message : `internal error: ${(e as Error)?.message ?? e}`;
      err(msg.split('\n')[0]);
      if (process.env.ARBORIST_DEBUG) process.stderr.write(`${(e as Error)?.stack}\n`);
      resolve(e instanceof ArboristError ? 2 : 1);
    }

    // After restoring the terminal, die of the signal itself (the conventional status). Exiting normally would
    // make Node reset the tty at exit, which aborts the process when the terminal is gone (an ssh drop).
    const dieOf = (sig: NodeJS.Signals) => {
      process.stdout.on('error', () => {});
      cleanup();
      process.kill(process.pid, sig);
    };
    const onTerm = () => dieOf('SIGTERM');
    const onHup = () => dieOf('SIGHUP');
    process.on('SIGTERM', onTerm);
    process.on('SIGHUP', onHup);
    process.on('uncaughtException', fail);
    process.on('unhandledRejection', fail);

    screen.on(
      'keypress',
      (ch: string | undefined, key: { name?: string; full?: string; ctrl?: boolean; meta?: boolean }) => {
        try {
          lastInput = Date.now();
          const k = keyName(ch, key ?? {});
          if (!k) return;
          dispatchNow({ type: 'key', key: k.key, ch: k.ch });
        } catch (e) {
          fail(e);
        }
      },
    );
    screen.on('resize', () => {
      try {
        dispatchNow({ type: 'resize', cols: screen.cols, rows: screen.rows });
      } catch (e) {
        fail(e);
      }
    });
    if (opts.mouse) {
      screen.on('mouse', (m: { action: string; x: number; y: number }) => {
        try {
          if (m.action === 'wheelup' || m.action === 'wheeldown' || m.action === 'mousedown') {
            dispatchNow({ type: 'mouse', kind: m.action, x: m.x, y: m.y });
          }
        } catch (e) {
          fail(e);
        }
      });
    }

    try {
      dispatch({ type: 'resize', cols: screen.cols, rows: screen.rows });
      runtime.run([{ type: 'loadSessions' }]);
      render();
      runtime.changed();
      // The first full check starts once the first screen is out.
      setImmediate(() => {
        try {
          if (!done) runtime.check(true);
        } catch (e) {
          fail(e);
        }
      });
    } catch (e) {
      fail(e);
    }
  });
}
