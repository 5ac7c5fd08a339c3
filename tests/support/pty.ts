import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IBufferCell, Terminal as XTerm } from '@xterm/headless';
import type { IPty } from 'node-pty';
import { afterAll } from 'vitest';

const require = createRequire(import.meta.url);
const { Terminal } = require('@xterm/headless') as typeof import('@xterm/headless');
const { Unicode11Addon } = require('@xterm/addon-unicode11') as typeof import('@xterm/addon-unicode11');
const pty = require('node-pty') as typeof import('node-pty');

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = `${ROOT}bin/arborist`;

/**
 * Where the TUIs a test file starts keep their code cache (src/cli/code-cache.ts): a private folder of its own,
 * never the user's cache nor a shared one that another account could have made first.
 */
export const TEST_CACHE_HOME = mkdtempSync(join(tmpdir(), 'arborist-test-cache-'));
afterAll(() => rmSync(TEST_CACHE_HOME, { recursive: true, force: true }));

/** The real binary, as a user runs it. */
export function entryPoint(): string {
  return BIN;
}

export const KEYS: Record<string, string> = {
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  home: '\x1b[H',
  end: '\x1b[F',
  pageup: '\x1b[5~',
  pagedown: '\x1b[6~',
  tab: '\t',
  enter: '\r',
  escape: '\x1b',
  backspace: '\x7f',
  'C-c': '\x03',
  'C-o': '\x0f',
  'C-u': '\x15',
  'S-up': '\x1b[1;2A',
  'S-down': '\x1b[1;2B',
};

export interface StartOptions {
  db: string;
  cols?: number;
  rows?: number;
  /** Extra environment (TERM defaults to xterm-256color; the parent environment is not inherited). */
  env?: Record<string, string>;
  args?: string[];
  /** A command and its arguments, before --db (`arborist session SID --db X`); absent: the browser. */
  command?: string[];
  /** Options for node itself (e.g. --import a fixture). */
  nodeArgs?: string[];
  /** Wait for this text before returning (default: the status bar's chain state). */
  ready?: string | RegExp | null;
}

export interface Exit {
  code: number;
  signal: number | undefined;
}

export class Tui {
  readonly term: XTerm;
  readonly proc: IPty;
  /** Everything the program wrote, raw. */
  raw = '';
  titles: string[] = [];
  /** OSC 52 (clipboard) payloads that reached the emulator. */
  clipboard: string[] = [];
  /** OSC 0/1/2 (title) payloads that reached the emulator. */
  oscTitles: string[] = [];
  bells = 0;
  exited: Promise<Exit>;
  private lastData = Date.now();
  private pending = 0;

  private constructor(opts: StartOptions) {
    const cols = opts.cols ?? 100;
    const rows = opts.rows ?? 30;
    this.term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
    this.term.loadAddon(new Unicode11Addon());
    this.term.unicode.activeVersion = '11';
    this.term.onTitleChange((t) => this.titles.push(t));
    this.term.onBell(() => this.bells++);
    this.term.parser.registerOscHandler(52, (d) => {
      this.clipboard.push(d);
      return true;
    });
    for (const n of [0, 1, 2]) {
      this.term.parser.registerOscHandler(n, (d) => {
        this.oscTitles.push(d);
        return false;
      });
    }
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      // The browser's code cache (src/cli/code-cache.ts): one for the test runs, not the user's.
      XDG_CACHE_HOME: TEST_CACHE_HOME,
      ...opts.env,
    };
    this.proc = pty.spawn(
      process.execPath,
      [
        ...(opts.nodeArgs ?? []),
        entryPoint(),
        ...(opts.command ?? []),
        '--db',
        opts.db,
        ...(opts.args ?? []),
      ],
      {
        name: env.TERM,
        cols,
        rows,
        cwd: ROOT,
        env,
      },
    );
    this.proc.onData((d) => {
      this.raw += d;
      this.lastData = Date.now();
      this.pending++;
      this.term.write(d, () => {
        this.pending--;
      });
    });
    // The emulator's replies (device attributes, cursor reports) go back to the program, as a terminal's would.
    this.term.onData((d) => {
      try {
        this.proc.write(d);
      } catch {
        // the program may have exited
      }
    });
    this.exited = new Promise((resolve) =>
      this.proc.onExit(({ exitCode, signal }) => resolve({ code: exitCode, signal })),
    );
  }

  static async start(opts: StartOptions): Promise<Tui> {
    const t = new Tui(opts);
    if (opts.ready !== null)
      await t.waitFor(opts.ready ?? /chain (✓|ok|checking|BROKEN)|This shard is empty/);
    return t;
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  /** Sends keys by name (see KEYS) or as literal text. */
  press(...keys: string[]): void {
    for (const k of keys) this.proc.write(KEYS[k] ?? k);
  }

  type(text: string): void {
    this.proc.write(text);
  }

  /** The screen, one string per row (trailing spaces trimmed). */
  lines(): string[] {
    const b = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.term.rows; y++)
      out.push(b.getLine(b.viewportY + y)?.translateToString(true) ?? '');
    return out;
  }

  screen(): string {
    return this.lines().join('\n');
  }

  cell(x: number, y: number): IBufferCell | undefined {
    const b = this.term.buffer.active;
    return b.getLine(b.viewportY + y)?.getCell(x);
  }

  /** Position of the first occurrence of `text` on screen, in cells. */
  find(text: string): { x: number; y: number } | null {
    const b = this.term.buffer.active;
    for (let y = 0; y < this.term.rows; y++) {
      const line = b.getLine(b.viewportY + y);
      if (!line) continue;
      const s = line.translateToString(false);
      const i = s.indexOf(text);
      if (i < 0) continue;
      // Map the string index to a cell index (wide characters take two cells, one string char).
      let x = 0;
      let chars = 0;
      while (x < this.term.cols && chars < i) {
        const c = line.getCell(x);
        const w = c?.getWidth() ?? 1;
        if (w === 0) {
          x++;
          continue;
        }
        chars += c?.getChars().length || 1;
        x++;
      }
      return { x, y };
    }
    return null;
  }

  /** Resolves when the screen matches (text, regex or predicate); rejects with the screen after `ms`. */
  async waitFor(what: string | RegExp | ((t: Tui) => boolean), ms = 5000): Promise<void> {
    const test =
      typeof what === 'function'
        ? () => what(this)
        : typeof what === 'string'
          ? () => this.screen().includes(what)
          : () => what.test(this.screen());
    const end = Date.now() + ms;
    for (;;) {
      await this.flushed();
      if (test()) return;
      if (Date.now() > end) {
        throw new Error(`timed out waiting for ${String(what)}; screen:\n${this.screen()}`);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Resolves once no output arrived for `quietMs` (and the emulator has parsed everything). */
  async settle(quietMs = 40, ms = 5000): Promise<void> {
    const end = Date.now() + ms;
    for (;;) {
      await this.flushed();
      if (Date.now() - this.lastData >= quietMs) return;
      if (Date.now() > end) return;
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  private async flushed(): Promise<void> {
    if (this.pending === 0) return;
    await new Promise<void>((r) => this.term.write('', () => r()));
  }

  resize(cols: number, rows: number): void {
    this.term.resize(cols, rows);
    this.proc.resize(cols, rows);
  }

  /** Presses the quit key and waits for the exit. */
  async quit(key = 'q'): Promise<Exit> {
    this.press(key);
    return this.close();
  }

  /** Waits for the program to exit (killing it after `ms`). */
  async close(ms = 5000): Promise<Exit> {
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), ms);
    const e = await this.exited;
    clearTimeout(timer);
    await this.flushed();
    return e;
  }

  kill(signal = 'SIGKILL'): void {
    try {
      this.proc.kill(signal);
    } catch {
      // already gone
    }
  }

  /** True while the emulator shows the alternate screen. */
  get altScreen(): boolean {
    return this.term.buffer.active.type === 'alternate';
  }

  /** True when the cursor is visible (DECTCEM), from the emulator's own mode state. */
  get cursorVisible(): boolean {
    const core = (this.term as unknown as { _core: { coreService: { isCursorHidden: boolean } } })._core;
    return !core.coreService.isCursorHidden;
  }
}
