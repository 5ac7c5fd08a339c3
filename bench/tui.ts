/**
 * TUI speed, measured as a person feels it, each figure beside its floor in the same run (issue 12): the binary
 * runs in a pseudo-terminal and its output is parsed by a headless xterm.js, exactly as in the end-to-end tests;
 * the floor is bench/trivial-screen.ts, a program that draws the very cells of the TUI's first screen (read back
 * from the emulator in a warm-up run) through the same pty and emulator and answers each key with a small repaint.
 *
 *   node dist/bench/tui.js --db SHARD [--runs 5] [--keys 120] [--cols 120] [--rows 40] [--json] [--bin bin/arborist]
 *     [--cold]  (every start without the browser's code cache: the first start after an install)
 *
 * Per pair: the trivial program (first screen, key repaints, memory), then the TUI once with its keys timed after
 * its first chain check, then the TUI once more with its keys timed while that check runs and a find runs too.
 * - first full screen: spawn to the parse of the first complete screen (both panes' borders, a session row, the
 *   selected session's details, the status bar); target <= 150 ms above the trivial program's;
 * - key to repaint p95: a key written to the parse of the last chunk that changed the screen above the status bar
 *   (8 ms without such a change end it; a key that changes nothing in 150 ms is not counted); target <= 16 ms;
 * - the same while the first full chain check runs in its worker (and `arborist verify` in its process) and find
 *   queries run in theirs: every few keys the walk opens the find box, types a common prefix, and closes it again,
 *   so the next keys are answered while that query runs; in the box, a key's repaint is its echo. Target <= 16 ms;
 * - resident memory: VmHWM (the peak VmRSS) of the TUI after its walk; target <= 200 MB. The floor is the trivial
 *   program's (a bare Node process with the same screen).
 * The shard is only read (no key that writes is pressed), so a shared benchmark shard can be used as is; the TUI
 * opens it as a user does (read-write, but writes nothing: its idle housekeeping finds nothing to do).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findBox } from '../src/ui/features/find/model.js';
import { benchArgs } from './args.js';
import { BIN, memKb, Session } from './pty.js';
import { type Pair, Report } from './ratio.js';
import { percentile } from './stats.js';

export interface TuiBenchOptions {
  db: string;
  runs?: number;
  keys?: number;
  cols?: number;
  rows?: number;
  /** The binary to time (default: this build's bin/arborist). */
  bin?: string;
  /**
   * Every start without the browser's code cache (ARBORIST_CODE_CACHE=off): the first start after an install or
   * an upgrade. Otherwise the warm-up run writes the cache (src/cli/code-cache.ts) and the timed runs use it.
   */
  cold?: boolean;
}

const SEQ: Record<string, string> = {
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  pageup: '\x1b[5~',
  pagedown: '\x1b[6~',
  home: '\x1b[H',
  end: '\x1b[F',
  tab: '\t',
  esc: '\x1b',
};

/**
 * A walk a person might do: move over sessions, open them, walk turns, page, jump, scroll, collapse. Every key
 * changes the screen above the status bar (a key that changes nothing cannot be timed).
 */
export const WALK = [
  'down',
  'down',
  'right',
  'right',
  'down',
  'down',
  'down',
  'up',
  'left',
  'left',
  'down',
  'right',
  'right',
  'down',
  'down',
  'pagedown',
  'pagedown',
  'down',
  'right',
  'right',
  'down',
  'tab',
  'down',
  'down',
  'pagedown',
  'up',
  'tab',
  'pageup',
  'up',
  'end',
  'up',
  'right',
  'right',
  'down',
  'home',
  'J',
  'K',
  'down',
  'up',
];

/** In the walk while the chain check runs: after every this many tree keys, a find (`/`, a prefix, Esc). */
const FIND_EVERY = 6;
/** Common prefixes of the generator's vocabulary: the slowest queries find has (issue 12). */
const FIND_PREFIXES = ['th', 'wh', 'ho', 'sh'];

/** The complete first screen: both panes' borders, a session row, the selected session's details, the status bar. */
export function fullScreen(s: Session): boolean {
  const top = s.line(0);
  return (
    top.startsWith('┌ sessions') &&
    top.endsWith('┐') &&
    s.line(1).startsWith('│▸') &&
    /││ \S/.test(s.line(1)) &&
    s.line(s.rows - 2).startsWith('└') &&
    s.line(s.rows - 1).includes('chain')
  );
}

const checked = (s: Session) => /chain (✓|BROKEN)/.test(s.line(s.rows - 1));

export interface Floor {
  first: number;
  p95: number;
  p99: number;
  hwm: number;
}

/** The trivial program: first screen, `keys` key repaints, memory. */
export async function floorRun(cellsPath: string, cols: number, rows: number, keys: number): Promise<Floor> {
  const s = Session.trivial(cellsPath, cols, rows);
  const first = (await s.until(() => fullScreen(s), 20_000, 'the trivial first screen')) - s.t0;
  await s.quiet(50);
  const times: number[] = [];
  for (let i = 0; i < keys; i++) {
    const ms = await s.key(SEQ.down);
    if (ms !== null) times.push(ms);
  }
  const hwm = memKb(s.pid, 'VmHWM') / 1024;
  await s.quit();
  return { first, p95: percentile(times, 95), p99: percentile(times, 99), hwm };
}

interface Figure {
  first: number;
  times: number[];
  slow: [string, number][];
  rss: number;
  hwm: number;
  /** Keys timed while the first chain check was still running (the `during` run). */
  during: number;
  /** ARBORIST_TUI_TRACE: in-app ms per key, from the key event to the frame written. */
  app: number[];
}

/**
 * The TUI: first screen, then the walk; `during` times the keys at once, with finds, while the first chain check
 * runs (and only those keys, up to `keys`), else after that check is done.
 */
async function tuiRun(o: Required<TuiBenchOptions>, during: boolean, cellsOut?: string): Promise<Figure> {
  const dir = mkdtempSync(join(tmpdir(), 'arborist-tui-bench-'));
  const tracePath = join(dir, 'trace');
  const env: Record<string, string> = { ARBORIST_HOME: dir, ARBORIST_TUI_TRACE: tracePath };
  if (o.cold) env.ARBORIST_CODE_CACHE = 'off';
  const s = Session.tui(o.db, o.cols, o.rows, env, o.bin);
  const first = (await s.until(() => fullScreen(s), 30_000, 'the first full screen')) - s.t0;
  if (cellsOut) writeFileSync(cellsOut, JSON.stringify(s.cells()));
  if (!during) {
    await s.until(() => checked(s), 600_000, 'the first chain check');
    await s.quiet(50);
  }
  const box = findBox(o.cols, o.rows);
  const echoed = (q: string) => s.line(box.y + 1).includes(`/ ${q}▏`);
  const times: number[] = [];
  const slow: [string, number][] = [];
  let n = 0;
  const time = (what: string, ms: number | null) => {
    if (ms === null) return;
    times.push(ms);
    if (ms > 16) slow.push([what, Math.round(ms)]);
  };
  for (let i = 0; times.length < o.keys && i < o.keys * 3; i++) {
    if (during && checked(s)) break;
    if (during && i > 0 && i % FIND_EVERY === 0) {
      // The find box opens, a common prefix is typed (its query runs in the find worker), and the box closes while
      // that query may still run: the next tree keys are answered beside it.
      const q = FIND_PREFIXES[n++ % FIND_PREFIXES.length];
      time('/', await s.key('/', { shows: () => echoed('') }));
      for (let j = 1; j <= q.length; j++)
        time(q[j - 1], await s.key(q[j - 1], { shows: () => echoed(q.slice(0, j)) }));
      time('esc', await s.key(SEQ.esc));
      continue;
    }
    const k = WALK[i % WALK.length];
    time(k, await s.key(SEQ[k] ?? k));
  }
  const duringCount = during ? times.length : 0;
  const rss = memKb(s.pid, 'VmRSS') / 1024;
  const hwm = memKb(s.pid, 'VmHWM') / 1024;
  await s.quit();
  let app: number[] = [];
  try {
    app = readFileSync(tracePath, 'utf8')
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => Number(l.split(' ')[3]));
  } catch {
    // no trace written
  }
  rmSync(dir, { recursive: true, force: true });
  return { first, times, slow, rss, hwm, during: duringCount, app };
}

/** The TUI's first screen's cells, written to `path` for the trivial program (one TUI run, which also warms the cache). */
export async function captureCells(
  db: string,
  cols: number,
  rows: number,
  path: string,
  bin = BIN,
  cold = false,
): Promise<void> {
  await tuiRun({ db, cols, rows, runs: 1, keys: 10, bin, cold }, false, path);
}

/** Runs the pairs and adds the TUI's figures to `report`. */
export async function benchTui(opts: TuiBenchOptions, report: Report): Promise<void> {
  const o: Required<TuiBenchOptions> = {
    runs: 5,
    keys: 120,
    cols: 120,
    rows: 40,
    bin: BIN,
    cold: false,
    ...opts,
  };
  const dir = mkdtempSync(join(tmpdir(), 'arborist-tui-cells-'));
  const cells = join(dir, 'cells.json');
  try {
    // Warm-up: the shard's pages in the cache, and the first screen's cells for the trivial program.
    await captureCells(o.db, o.cols, o.rows, cells, o.bin, o.cold);
    const first: Pair[] = [];
    const keys: Pair[] = [];
    const during: Pair[] = [];
    const mem: Pair[] = [];
    const slow: string[] = [];
    const counts: number[] = [];
    const app: number[] = [];
    let rss = 0;
    // One pair is the floor first, then the figures (ratio.ts's order), at least 5 times; the three programs of a
    // pair run one after the other, so each figure is paired with the floor measured just before it.
    for (let i = 0; i < Math.max(5, o.runs); i++) {
      {
        const f = await floorRun(cells, o.cols, o.rows, Math.min(o.keys, 60));
        const a = await tuiRun(o, false);
        const b = await tuiRun(o, true);
        first.push({ figure: a.first, floor: f.first });
        keys.push({ figure: percentile(a.times, 95), floor: f.p95 });
        if (b.during > 0) during.push({ figure: percentile(b.times, 95), floor: f.p95 });
        mem.push({ figure: Math.max(a.hwm, b.hwm), floor: f.hwm });
        rss = Math.max(rss, a.rss, b.rss);
        counts.push(b.during);
        app.push(...a.app);
        slow.push(
          ...a.slow.map(([k, ms]) => `${k} ${ms}`),
          ...b.slow.map(([k, ms]) => `${k} ${ms} (during)`),
        );
        process.stderr.write(
          `pair ${first.length}: first screen ${a.first.toFixed(0)} ms (trivial ${f.first.toFixed(0)}), key p95 ${percentile(a.times, 95).toFixed(1)} ms, during check ${percentile(b.times, 95).toFixed(1)} ms (${b.during} keys) (trivial ${f.p95.toFixed(1)}), peak RSS ${Math.max(a.hwm, b.hwm).toFixed(0)} MB\n`,
        );
      }
    }
    const trivial =
      'the trivial program (bench/trivial-screen.ts) drawing the same cells, same pty and emulator';
    report.fact('tui shard', o.db);
    report.fact('tui screen', `${o.cols}x${o.rows}`);
    if (o.bin !== BIN) report.fact('tui binary', o.bin);
    report.fact(
      'code cache',
      o.cold
        ? 'off: every start compiles the bundle (--cold)'
        : 'written by the warm-up run, used by the rest',
    );
    report.add({
      name: 'TUI first full screen',
      kind: 'time',
      unit: 'ms',
      floorIs: trivial,
      pairs: first,
      target: { above: 150 },
    });
    report.add({
      name: 'TUI key to repaint p95',
      kind: 'time',
      unit: 'ms',
      floorIs: `${trivial}: a key's repaint`,
      pairs: keys,
      target: { at_most: 16 },
      note: `in the app p50 ${percentile(app, 50).toFixed(2)} ms, p95 ${percentile(app, 95).toFixed(2)} ms (key event to frame written)`,
    });
    if (during.length > 0)
      report.add({
        name: 'TUI key to repaint p95, during the first chain check and finds',
        kind: 'time',
        unit: 'ms',
        floorIs: `${trivial}: a key's repaint`,
        pairs: during,
        target: { at_most: 16 },
        note: `keys timed while the check ran, per run: ${counts.join(', ')}${slow.length ? `; over 16 ms: ${slow.slice(0, 12).join(', ')}` : ''}`,
      });
    report.add({
      name: 'TUI resident memory (VmHWM)',
      kind: 'time',
      unit: 'MB',
      floorIs: 'the trivial program (a bare Node process with the same screen)',
      pairs: mem,
      target: { at_most: 200 },
      note: `VmRSS after the walk at most ${rss.toFixed(0)} MB`,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const USAGE =
  'usage: node dist/bench/tui.js --db SHARD [--runs N] [--keys N] [--cols C] [--rows R] [--json] [--bin PATH] [--cold]';

async function main(): Promise<void> {
  const { values } = benchArgs(
    'tui',
    {
      options: {
        db: { type: 'string' },
        runs: { type: 'string', default: '5' },
        keys: { type: 'string', default: '120' },
        cols: { type: 'string', default: '120' },
        rows: { type: 'string', default: '40' },
        json: { type: 'boolean', default: false },
        bin: { type: 'string' },
        cold: { type: 'boolean', default: false },
      },
      strict: true,
    },
    ['db'],
  );
  if (!values.db || !existsSync(values.db)) {
    process.stderr.write(`tui bench: no shard given or found\n${USAGE}\n`);
    process.exit(2);
  }
  const report = new Report(
    'tui bench (issue 12: each figure beside its floor, measured in pairs)',
    values.json,
  );
  await benchTui(
    {
      db: values.db,
      runs: Number(values.runs),
      keys: Number(values.keys),
      cols: Number(values.cols),
      rows: Number(values.rows),
      ...(values.bin ? { bin: values.bin } : {}),
      cold: values.cold,
    },
    report,
  );
  report.end();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
