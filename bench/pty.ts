/** What the pty benchmarks share: the real binary, node-pty and a headless xterm.js to read the screen back. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
export const pty = require('node-pty') as typeof import('node-pty');
export const { Terminal } = require('@xterm/headless') as typeof import('@xterm/headless');
export const { Unicode11Addon } =
  require('@xterm/addon-unicode11') as typeof import('@xterm/addon-unicode11');

/** The repository root (this file runs from dist/bench/). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The real binary, as a user runs it. */
export const BIN = `${ROOT}bin/arborist`;

/** A headless terminal of the given size with Unicode 11 widths, as the e2e tests use. */
export function openTerminal(cols: number, rows: number): import('@xterm/headless').Terminal {
  const term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
  return term;
}

/** A Node program in a pty with a clean environment (what a user's terminal gives it); `env` adds to it. */
function spawnNode(args: string[], cols: number, rows: number, env: Record<string, string> = {}) {
  return pty.spawn(process.execPath, args, {
    name: 'xterm-256color',
    cols,
    rows,
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      ...env,
    },
  });
}

/**
 * `arborist --db DB` in a pty with a clean environment; `env` adds to it (ARBORIST_HOME, trace files). `bin`: another
 * build's bin/arborist (a before/after comparison).
 */
export function spawnTui(db: string, cols: number, rows: number, env: Record<string, string>, bin = BIN) {
  return spawnNode([bin, '--db', db], cols, rows, env);
}

/** The floor program (bench/trivial-screen.ts), beside this file once built. */
export const TRIVIAL = `${ROOT}dist/bench/trivial-screen.js`;

/** The trivial program in a pty with the same clean environment as the TUI's (trivial-screen.js and its cells file). */
export function spawnTrivial(cellsPath: string, cols: number, rows: number) {
  return spawnNode([TRIVIAL, cellsPath], cols, rows);
}

type Pty = ReturnType<typeof spawnTui>;

/**
 * One program in a pty, read back by a headless xterm: the screen's lines, waits on what it shows, and the timing
 * of a key's repaint. Used alike for the TUI and for the trivial program, so figure and floor are measured by the
 * same code through the same pty and emulator.
 */
export class Session {
  readonly term: import('@xterm/headless').Terminal;
  /** When the program was spawned (performance.now()). */
  readonly t0: number;
  private pending = 0;
  private listeners: ((arrived: number) => void)[] = [];
  private exited: Promise<void>;

  constructor(
    readonly p: Pty,
    readonly cols: number,
    readonly rows: number,
    t0: number,
  ) {
    this.t0 = t0;
    this.term = openTerminal(cols, rows);
    p.onData((d) => {
      const arrived = performance.now();
      this.pending++;
      this.term.write(d, () => {
        this.pending--;
        for (const f of [...this.listeners]) f(arrived);
      });
    });
    this.term.onData((d) => p.write(d));
    this.exited = new Promise<void>((r) => p.onExit(() => r()));
  }

  static tui(db: string, cols: number, rows: number, env: Record<string, string>, bin = BIN): Session {
    const t0 = performance.now();
    return new Session(spawnTui(db, cols, rows, env, bin), cols, rows, t0);
  }

  static trivial(cellsPath: string, cols: number, rows: number): Session {
    const t0 = performance.now();
    return new Session(spawnTrivial(cellsPath, cols, rows), cols, rows, t0);
  }

  get pid(): number {
    return this.p.pid;
  }

  line(y: number): string {
    return this.term.buffer.active.getLine(y)?.translateToString(true) ?? '';
  }

  /** Every row but the status bar (which a clock or a progress count repaints without any key). */
  body(): string {
    const out: string[] = [];
    for (let y = 0; y < this.rows - 1; y++) out.push(this.line(y));
    return out.join('\n');
  }

  screen(): string {
    return [...Array(this.rows).keys()].map((y) => this.line(y)).join('\n');
  }

  /** Calls `f` after each parsed chunk with the time it arrived; returns the way to stop. */
  private listen(f: (arrived: number) => void): () => void {
    this.listeners.push(f);
    return () => {
      this.listeners = this.listeners.filter((g) => g !== f);
    };
  }

  /** Resolves with the time (performance.now()) the emulator had parsed the chunk after which `pred` holds. */
  until(pred: () => boolean, ms: number, what: string): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      if (this.pending === 0 && pred()) {
        resolve(performance.now());
        return;
      }
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`timeout waiting for ${what}; screen:\n${this.screen()}`));
      }, ms);
      const stop = this.listen(() => {
        if (this.pending !== 0 || !pred()) return;
        clearTimeout(timer);
        stop();
        resolve(performance.now());
      });
    });
  }

  /** Resolves once `ms` pass without output. */
  quiet(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      let timer = setTimeout(done, ms);
      const stop = this.listen(() => {
        clearTimeout(timer);
        timer = setTimeout(done, ms);
      });
      function done() {
        stop();
        resolve();
      }
    });
  }

  /**
   * Writes `key` and times its repaint: to the parse of the last chunk that changed the screen above the status
   * bar, once `settle` ms pass without such a change (output that only touches the status bar, a clock or a
   * progress count, is no key's). With `shows`, to the parse of the chunk after which the screen shows it instead
   * (a find box's echo, before its hits). Null when nothing changed within `ms`.
   */
  async key(
    key: string,
    opts: { ms?: number; settle?: number; shows?: () => boolean } = {},
  ): Promise<number | null> {
    const ms = opts.ms ?? 150;
    const settle = opts.settle ?? 8;
    if (opts.shows) {
      const start = performance.now();
      this.p.write(key);
      const at = await this.until(opts.shows, 10_000, `the repaint of ${JSON.stringify(key)}`);
      return at - start;
    }
    let before = this.body();
    let last = 0;
    const start = performance.now();
    return new Promise<number | null>((resolve) => {
      let timer = setTimeout(done, ms);
      const stop = this.listen(() => {
        if (this.pending !== 0) return;
        const now = this.body();
        if (now === before) return;
        before = now;
        last = performance.now();
        clearTimeout(timer);
        timer = setTimeout(done, settle);
      });
      function done() {
        stop();
        resolve(last === 0 ? null : last - start);
      }
      this.p.write(key);
    });
  }

  /** Quits with `q` and waits for the exit. */
  async quit(): Promise<void> {
    this.p.write('q');
    await this.exited;
  }

  /** The screen's cells as runs of equal attributes, for bench/trivial-screen.ts to draw. */
  cells(): [string, number, number, number][][] {
    const buf = this.term.buffer.active;
    const rows: [string, number, number, number][][] = [];
    const cell = buf.getNullCell();
    for (let y = 0; y < this.rows; y++) {
      const line = buf.getLine(y);
      const runs: [string, number, number, number][] = [];
      for (let x = 0; line && x < this.cols; x++) {
        line.getCell(x, cell);
        if (cell.getWidth() === 0) continue; // the second half of a wide character
        const fg = cell.isFgPalette() ? cell.getFgColor() : -1;
        const bg = cell.isBgPalette() ? cell.getBgColor() : -1;
        const flags = (cell.isBold() ? 1 : 0) | (cell.isUnderline() ? 2 : 0) | (cell.isInverse() ? 8 : 0);
        const ch = cell.getChars() || ' ';
        const prev = runs[runs.length - 1];
        if (prev && prev[1] === fg && prev[2] === bg && prev[3] === flags) prev[0] += ch;
        else runs.push([ch, fg, bg, flags]);
      }
      rows.push(runs);
    }
    return rows;
  }
}

/** VmRSS / VmHWM (and any other field) of a process, in kB, from /proc; 0 when it cannot be read. */
export function memKb(pid: number, field: string): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}
