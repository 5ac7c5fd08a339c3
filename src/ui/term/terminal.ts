/**
 * The only module that touches the terminal: a neo-blessed Screen used as a cell buffer with diffed output,
 * terminfo, key/mouse input, the alternate screen and resize events. Our view paints a Frame; `paint` copies it
 * into blessed's buffer; blessed writes only what changed.
 *
 * neo-blessed's known faults, and what we do about them:
 * - terminfo: it fails to compile some entries (screen-256color prints "Error on screen-256color.plab_norm" on the
 *   screen; tmux-256color falls back to 8 colours). We choose one of the three entries it bundles and compiles
 *   cleanly (xterm-256color, xterm, linux) from $TERM/$COLORTERM and load it from neo-blessed's own folder, so the
 *   system's terminfo never matters. tmux and screen understand the xterm sequences we use.
 * - width: its tables predate Unicode emoji widths (one cell short for most emoji). We install our own width
 *   function (Unicode 11, as xterm.js and current terminals) as blessed's, and lay text out with the same one.
 * - tags and escapes: we never hand text to a blessed element, so its tag parser never sees untrusted text; every
 *   string is sanitised before it is painted, and the Frame drops any control character that slips through.
 * - colours: it ignores NO_COLOR; we pick a monochrome theme ourselves.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { cpWidth } from '../../text/width.js';
import type { Frame } from './canvas.js';
import { Style } from './canvas.js';

const require = createRequire(import.meta.url);

export type ColorMode = 'mono' | '8' | '256';

export interface TermChoice {
  /** The terminfo entry we load (from neo-blessed's bundled files). */
  terminfo: 'xterm-256color' | 'xterm' | 'linux';
  colors: ColorMode;
  /** Draw tree marks with ASCII (the Linux console's fonts lack most symbols). */
  ascii: boolean;
  /** Set when the terminal cannot show a full-screen UI at all. */
  refuse?: string;
}

export function chooseTerminal(env: NodeJS.ProcessEnv): TermChoice {
  const term = (env.TERM ?? '').toLowerCase();
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  const mono = (c: ColorMode): ColorMode => (noColor ? 'mono' : c);
  if (term === '' || term === 'dumb' || term === 'unknown') {
    return {
      terminfo: 'xterm',
      colors: 'mono',
      ascii: true,
      refuse: `TERM=${term || '(unset)'} cannot show the full-screen browser; set TERM (e.g. xterm-256color) or use the commands (arborist --help)`,
    };
  }
  if (term === 'linux' || term.startsWith('linux-'))
    return { terminfo: 'linux', colors: mono('8'), ascii: true };
  const colorterm = (env.COLORTERM ?? '').toLowerCase();
  if (/256col|truecolor|24bit|direct/.test(term) || /truecolor|24bit/.test(colorterm)) {
    return { terminfo: 'xterm-256color', colors: mono('256'), ascii: false };
  }
  if (term.includes('mono') || term === 'vt100' || term === 'vt102' || term === 'vt220') {
    return { terminfo: 'xterm', colors: 'mono', ascii: false };
  }
  return { terminfo: 'xterm', colors: mono('8'), ascii: false };
}

// ---- themes ---------------------------------------------------------------------------------------------------

const BOLD = 1;
const UNDERLINE = 2;
const INVERSE = 8;
const DEF = 0x1ff;

type Spec = [fg: number, bg: number, flags: number];

const T256: Partial<Record<Style, Spec>> = {
  [Style.border]: [240, DEF, 0],
  [Style.borderFocus]: [37, DEF, 0],
  [Style.title]: [245, DEF, 0],
  [Style.titleFocus]: [81, DEF, BOLD],
  [Style.sid]: [179, DEF, 0],
  [Style.label]: [DEF, DEF, BOLD],
  [Style.dim]: [244, DEF, 0],
  [Style.selFocus]: [231, 24, BOLD],
  [Style.selBlur]: [DEF, 237, 0],
  [Style.link]: [170, DEF, 0],
  [Style.branch]: [214, DEF, 0],
  [Style.status]: [252, 236, 0],
  [Style.statusOk]: [114, 236, BOLD],
  [Style.statusBroken]: [231, 160, BOLD],
  [Style.statusChecking]: [221, 236, 0],
  [Style.qLabel]: [81, DEF, BOLD],
  [Style.aLabel]: [114, DEF, BOLD],
  [Style.header]: [75, DEF, 0],
  [Style.headerSel]: [222, DEF, BOLD],
  [Style.cross]: [170, DEF, BOLD],
  [Style.cite]: [244, DEF, 0],
  [Style.error]: [203, 236, BOLD],
  [Style.overlayBorder]: [81, DEF, 0],
  [Style.key]: [221, DEF, BOLD],
  [Style.input]: [231, DEF, 0],
  [Style.info]: [117, 236, 0],
  [Style.pending]: [221, DEF, 0],
  [Style.banner]: [DEF, DEF, BOLD],
  [Style.hint]: [221, 236, BOLD],
  [Style.count]: [244, DEF, 0],
  [Style.match]: [221, DEF, BOLD],
  [Style.matchSel]: [221, 24, BOLD],
  [Style.badge]: [179, DEF, 0],
  [Style.project]: [109, DEF, 0],
  [Style.heading]: [75, DEF, BOLD],
  [Style.diffAdd]: [114, DEF, 0],
  [Style.diffDel]: [210, DEF, 0],
  [Style.diffHunk]: [81, DEF, 0],
  [Style.mdH1]: [213, DEF, BOLD | UNDERLINE],
  [Style.mdH2]: [81, DEF, BOLD],
  [Style.mdH3]: [117, DEF, BOLD],
  [Style.mdStrong]: [DEF, DEF, BOLD],
  [Style.mdEm]: [223, DEF, 0],
  [Style.mdCode]: [180, 236, 0],
  [Style.mdLink]: [75, DEF, UNDERLINE],
  [Style.mdUrl]: [244, DEF, 0],
  [Style.mdQuote]: [244, DEF, 0],
  [Style.mdBullet]: [179, DEF, 0],
  [Style.mdRule]: [240, DEF, 0],
  [Style.mdCodeText]: [252, DEF, 0],
  [Style.hlKeyword]: [170, DEF, 0],
  [Style.hlString]: [114, DEF, 0],
  [Style.hlComment]: [244, DEF, 0],
  [Style.hlNumber]: [179, DEF, 0],
  [Style.hlTitle]: [75, DEF, 0],
  [Style.hlType]: [80, DEF, 0],
  [Style.hlAttr]: [180, DEF, 0],
  [Style.hlMeta]: [139, DEF, 0],
  [Style.hlAdd]: [114, DEF, 0],
  [Style.hlDel]: [203, DEF, 0],
};

const T8: Partial<Record<Style, Spec>> = {
  [Style.borderFocus]: [6, DEF, 0],
  [Style.titleFocus]: [6, DEF, BOLD],
  [Style.sid]: [3, DEF, 0],
  [Style.label]: [DEF, DEF, BOLD],
  [Style.selFocus]: [7, 4, BOLD],
  [Style.selBlur]: [DEF, DEF, UNDERLINE],
  [Style.link]: [5, DEF, 0],
  [Style.branch]: [3, DEF, 0],
  [Style.status]: [7, 4, 0],
  [Style.statusOk]: [2, 4, BOLD],
  [Style.statusBroken]: [7, 1, BOLD],
  [Style.statusChecking]: [3, 4, BOLD],
  [Style.qLabel]: [6, DEF, BOLD],
  [Style.aLabel]: [2, DEF, BOLD],
  [Style.header]: [4, DEF, BOLD],
  [Style.headerSel]: [3, DEF, BOLD],
  [Style.cross]: [5, DEF, BOLD],
  [Style.error]: [7, 1, BOLD],
  [Style.overlayBorder]: [6, DEF, 0],
  [Style.key]: [3, DEF, BOLD],
  [Style.info]: [6, 4, 0],
  [Style.pending]: [3, DEF, 0],
  [Style.banner]: [DEF, DEF, BOLD],
  [Style.hint]: [3, 4, BOLD],
  [Style.match]: [3, DEF, BOLD],
  [Style.matchSel]: [3, 4, BOLD],
  [Style.badge]: [3, DEF, 0],
  [Style.project]: [6, DEF, 0],
  [Style.heading]: [4, DEF, BOLD],
  [Style.diffAdd]: [2, DEF, 0],
  [Style.diffDel]: [1, DEF, 0],
  [Style.diffHunk]: [6, DEF, 0],
  [Style.mdH1]: [5, DEF, BOLD | UNDERLINE],
  [Style.mdH2]: [6, DEF, BOLD],
  [Style.mdH3]: [4, DEF, BOLD],
  [Style.mdStrong]: [DEF, DEF, BOLD],
  [Style.mdEm]: [DEF, DEF, UNDERLINE],
  [Style.mdCode]: [3, DEF, 0],
  [Style.mdLink]: [4, DEF, UNDERLINE],
  [Style.mdBullet]: [3, DEF, 0],
  [Style.hlKeyword]: [5, DEF, 0],
  [Style.hlString]: [2, DEF, 0],
  [Style.hlComment]: [6, DEF, 0],
  [Style.hlNumber]: [3, DEF, 0],
  [Style.hlTitle]: [4, DEF, 0],
  [Style.hlType]: [6, DEF, 0],
  [Style.hlAttr]: [3, DEF, 0],
  [Style.hlMeta]: [5, DEF, 0],
  [Style.hlAdd]: [2, DEF, 0],
  [Style.hlDel]: [1, DEF, 0],
};

/** NO_COLOR: attributes only. */
const TMONO: Partial<Record<Style, Spec>> = {
  [Style.borderFocus]: [DEF, DEF, BOLD],
  [Style.titleFocus]: [DEF, DEF, BOLD],
  [Style.label]: [DEF, DEF, BOLD],
  [Style.selFocus]: [DEF, DEF, INVERSE],
  [Style.selBlur]: [DEF, DEF, UNDERLINE],
  [Style.status]: [DEF, DEF, INVERSE],
  [Style.statusOk]: [DEF, DEF, INVERSE | BOLD],
  [Style.statusBroken]: [DEF, DEF, BOLD | UNDERLINE],
  [Style.statusChecking]: [DEF, DEF, INVERSE],
  [Style.qLabel]: [DEF, DEF, BOLD],
  [Style.aLabel]: [DEF, DEF, BOLD],
  [Style.header]: [DEF, DEF, BOLD],
  [Style.headerSel]: [DEF, DEF, BOLD | UNDERLINE],
  [Style.cross]: [DEF, DEF, BOLD],
  [Style.error]: [DEF, DEF, BOLD | UNDERLINE],
  [Style.key]: [DEF, DEF, BOLD],
  [Style.info]: [DEF, DEF, INVERSE],
  [Style.banner]: [DEF, DEF, BOLD],
  [Style.hint]: [DEF, DEF, INVERSE | BOLD],
  [Style.match]: [DEF, DEF, BOLD | UNDERLINE],
  [Style.heading]: [DEF, DEF, BOLD],
  [Style.matchSel]: [DEF, DEF, INVERSE | BOLD | UNDERLINE],
  // Markdown keeps its structure without colour: heading levels by weight and underline, code by inverse video,
  // links underlined; bullets, bars, rules and frames are characters anyway. Highlighted code: keywords bold.
  [Style.mdH1]: [DEF, DEF, BOLD | UNDERLINE],
  [Style.mdH2]: [DEF, DEF, BOLD],
  [Style.mdH3]: [DEF, DEF, UNDERLINE],
  [Style.mdStrong]: [DEF, DEF, BOLD],
  [Style.mdEm]: [DEF, DEF, UNDERLINE],
  [Style.mdCode]: [DEF, DEF, INVERSE],
  [Style.mdLink]: [DEF, DEF, UNDERLINE],
  [Style.mdBullet]: [DEF, DEF, BOLD],
  [Style.hlKeyword]: [DEF, DEF, BOLD],
  [Style.hlAdd]: [DEF, DEF, BOLD],
  [Style.hlDel]: [DEF, DEF, UNDERLINE],
};

/** blessed's attribute word for each style: (flags << 18) | (fg << 9) | bg. */
export function attrTable(mode: ColorMode): Int32Array {
  const t = mode === '256' ? T256 : mode === '8' ? T8 : TMONO;
  // Room for every style a Frame cell can name (its styles are bytes).
  const out = new Int32Array(256);
  for (let i = 0; i < out.length; i++) {
    const [fg, bg, flags] = t[i as Style] ?? [DEF, DEF, 0];
    out[i] = (flags << 18) | (fg << 9) | bg;
  }
  return out;
}

// ---- the screen -----------------------------------------------------------------------------------------------

interface BlessedCell extends Array<number | string> {
  0: number;
  1: string;
}
type BlessedLine = BlessedCell[] & { dirty?: boolean };

export interface BlessedScreen {
  cols: number;
  rows: number;
  lines: BlessedLine[];
  program: {
    enableMouse(): void;
    disableMouse(): void;
    hideCursor(): void;
    showCursor(): void;
    flush(): void;
    tput: { colors: number };
  };
  render(): void;
  destroy(): void;
  // biome-ignore lint/suspicious/noExplicitAny: blessed's events carry different arguments per event
  on(ev: string, fn: (...args: any[]) => void): void;
  destroyed?: boolean;
}

let patched = false;

type Compile = (this: unknown, info: unknown, key: string, str: unknown) => unknown;

interface BlessedModule {
  unicode: { charWidth: (str: string | number, i?: number) => number };
  Tput: { prototype: { _prefix: (this: unknown, term?: string) => string; _compile: Compile } };
  screen(opts: Record<string, unknown>): BlessedScreen;
}

export function patchBlessed(blessed: BlessedModule): void {
  if (patched) return;
  patched = true;
  // One width function for layout and for blessed's drawing (wide characters eat the next cell).
  blessed.unicode.charWidth = (str: string | number, i?: number) => {
    const cp = typeof str === 'string' ? (str.codePointAt(i ?? 0) ?? 0) : str;
    return cpWidth(cp);
  };
  // Load the terminfo entries neo-blessed bundles (and compiles cleanly), never the system's.
  const usr = join(dirname(require.resolve('neo-blessed/package.json')), 'usr');
  const bundled: Record<string, string> = {
    'xterm-256color': join(usr, 'xterm-256color'),
    xterm: join(usr, 'xterm'),
    linux: join(usr, 'linux'),
  };
  const orig = blessed.Tput.prototype._prefix;
  blessed.Tput.prototype._prefix = function (this: unknown, term?: string) {
    if (term && bundled[term]) return bundled[term];
    return orig.call(this, term);
  };
  // Tput turns every string capability of the entry (~400) into a JavaScript function with `new Function` before
  // the first byte is written: the largest single cost of the first screen. We use a few dozen of them, so each is
  // compiled on its first call instead, by the same compiler with the same arguments (the function it returns is
  // the one blessed would have made); booleans, numbers and files read at set-up still go through it at once.
  const compile = blessed.Tput.prototype._compile;
  blessed.Tput.prototype._compile = function (this: unknown, info: unknown, key: string, str: unknown) {
    if (typeof str !== 'string' || str === '' || key === 'init_file' || key === 'reset_file')
      return compile.call(this, info, key, str);
    const tput = this;
    let fn: ((...args: unknown[]) => unknown) | null = null;
    return function (this: unknown, ...args: unknown[]) {
      if (fn === null) {
        // Compile errors are printed with console.error, which would land on the screen (see createScreen).
        const origError = console.error;
        console.error = () => {};
        try {
          fn = compile.call(tput, info, key, str) as (...args: unknown[]) => unknown;
        } finally {
          console.error = origError;
        }
      }
      return fn.apply(this, args);
    };
  };
}

/**
 * The three parts of neo-blessed we use, each from its own file: its index loads all 34 widgets (lists, tables, a
 * terminal emulator, images, video...), ~30-40 ms of start-up for classes we never make. The Screen brings the
 * few it builds on (Node, Element, Box, Log, Program, Tput); these are the very objects the index would hand out.
 */
export function loadBlessed(): BlessedModule {
  const Screen = require('neo-blessed/lib/widgets/screen') as new (
    opts: Record<string, unknown>,
  ) => BlessedScreen;
  return {
    unicode: require('neo-blessed/lib/unicode') as BlessedModule['unicode'],
    Tput: require('neo-blessed/lib/tput') as BlessedModule['Tput'],
    screen: (opts) => new Screen(opts),
  };
}

export function createScreen(choice: TermChoice, opts: { mouse: boolean }): BlessedScreen {
  const blessed = loadBlessed();
  patchBlessed(blessed);
  // blessed prints terminfo compile errors with console.error, straight onto the screen: swallow them.
  const origError = console.error;
  console.error = () => {};
  let screen: BlessedScreen;
  try {
    screen = blessed.screen({
      terminal: choice.terminfo,
      smartCSR: true,
      fullUnicode: true,
      forceUnicode: true,
      autoPadding: false,
      warnings: false,
      dockBorders: false,
      resizeTimeout: 30,
      title: undefined,
    });
  } finally {
    console.error = origError;
  }
  // Write box-drawing characters as UTF-8, never through the DEC line-drawing charset (ACS): blessed would also
  // map '·' and friends to ACS glyphs, and a terminal that mishandles charset switching shows 'lqqk' instead.
  (screen as unknown as { tput: { brokenACS: boolean } }).tput.brokenACS = true;
  if (opts.mouse) screen.program.enableMouse();
  return screen;
}

/**
 * Symbols of our own UI that the Linux console's fonts lack, with one-cell stand-ins (box drawing, arrows and
 * Latin-1 are in every console font and stay).
 */
const CONSOLE_SAFE: Record<string, string> = {
  '…': '~',
  '⇢': '>',
  '▍': '_',
  '▏': '_',
  '⑂': 'Y',
  '↳': '>',
  '↰': '^',
  '▸': '>',
  '▾': 'v',
  '✓': '+',
};

/** Copies a Frame into blessed's buffer, marking changed lines; then screen.render() writes the difference. */
export function paint(screen: BlessedScreen, frame: Frame, attrs: Int32Array, ascii = false): void {
  const rows = Math.min(screen.rows, frame.height, screen.lines.length);
  for (let y = 0; y < rows; y++) {
    const line = screen.lines[y];
    const cols = Math.min(line.length, frame.width);
    let dirty = false;
    const base = y * frame.width;
    for (let x = 0; x < cols; x++) {
      let ch = frame.ch[base + x];
      if (ch === '') ch = ' ';
      else if (ascii && ch.length === 1 && ch.charCodeAt(0) > 0x2000) ch = CONSOLE_SAFE[ch] ?? ch;
      const a = attrs[frame.st[base + x]];
      const cell = line[x];
      if (cell[0] !== a || cell[1] !== ch) {
        cell[0] = a;
        cell[1] = ch;
        dirty = true;
      }
    }
    if (dirty) line.dirty = true;
  }
}
