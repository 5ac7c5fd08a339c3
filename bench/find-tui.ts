/**
 * The find box's speed as a person feels it, beside its floor in the same run (issue 12): the binary runs in a
 * pseudo-terminal, its output is parsed by a headless xterm.js (as in the end-to-end tests), `/` opens the box and
 * queries are typed one key at a time. The floor is bench/trivial-screen.ts echoing a key through the same pty and
 * emulator (it draws the TUI's own first screen's cells); each pair is one trivial run then one TUI run.
 *
 *   node dist/bench/find-tui.js --db SHARD [--runs 5] [--cols 120] [--rows 40] [--during-check] [--json]
 *                               [--queries 'lifetime,borrow checker,...'] [--typos 'lifetme,borow,...']
 *
 * Per keystroke: from writing the key to the pty until the screen shows the hits for the query typed so far (the
 * query line reads it, and the counts line says "N of M" without "searching…", which the box shows while the hits
 * on screen answer an older query). Also: the echo (key to the query line showing it), the same measured inside the
 * app (ARBORIST_FIND_TRACE: key event to hits painted), and a burst (keys 15 ms apart, faster than any query:
 * the last key to its hits), which shows that stale queries are dropped rather than queued.
 * Keys are timed once the first chain check is over (its progress repaints are output no key caused), unless
 * --during-check. The shard is only read (no key that writes is pressed): a shared benchmark shard can be used as is.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findBox } from '../src/ui/features/find/model.js';
import { benchArgs } from './args.js';
import { Session } from './pty.js';
import { type Pair, Report } from './ratio.js';
import { percentile } from './stats.js';
import { captureCells, type Floor, floorRun } from './tui.js';

export interface FindTuiOptions {
  db: string;
  runs?: number;
  cols?: number;
  rows?: number;
  duringCheck?: boolean;
  /** Words of the generator's vocabulary (bench/words.ts): common, middling and rare; phrases; short prefixes. */
  queries?: string[];
  /** One-letter slips (a letter left out, two swapped, one wrong), typed letter by letter like the rest. */
  typos?: string[];
}

const QUERIES = 'lifetime,borrow checker,how do i,mutex lock,fsync,terminal,async await,the'.split(',');
const TYPOS = 'lifetme,borow,refrence,mutx,compilr,termnal,fsycn,animaton'.split(',');

interface Run {
  /** Key written -> hits for it received (the last byte of that repaint). */
  keys: number[];
  typoKeys: number[];
  /** Key written -> the query line showing it. */
  echo: number[];
  /** Burst typing: last key written -> its hits received. */
  burst: number[];
  /** ARBORIST_FIND_TRACE: key event -> hits painted, inside the app. */
  app: number[];
  /** ... of which the query itself (in the worker). */
  query: number[];
  /** ARBORIST_TUI_TRACE: the frame a key paints at once (the echo): view and paint. */
  view: number[];
  paint: number[];
  slow: [string, number][];
}

async function once(o: Required<FindTuiOptions>): Promise<Run> {
  const { cols: COLS, rows: ROWS } = o;
  const dir = mkdtempSync(join(tmpdir(), 'arborist-find-bench-'));
  const tracePath = join(dir, 'find-trace');
  const keyTracePath = join(dir, 'key-trace');
  const s = Session.tui(o.db, COLS, ROWS, {
    ARBORIST_HOME: dir,
    ARBORIST_FIND_TRACE: tracePath,
    ARBORIST_TUI_TRACE: keyTracePath,
  });
  const line = (y: number) => s.line(y);
  const box = findBox(COLS, ROWS);
  const inputY = box.y + 1;
  const countY = box.y + 2;
  const echoed = (q: string) => line(inputY).includes(`/ ${q}▏`);
  const answered = (q: string) =>
    echoed(q) && /│ \d+ of [\d,]+/.test(line(countY)) && !line(countY).includes('searching');

  await s.until(
    () => line(ROWS - 1).includes('chain') && line(0).startsWith('┌ sessions'),
    30_000,
    'first frame',
  );
  if (!o.duringCheck)
    await s.until(() => /chain (✓|BROKEN)/.test(line(ROWS - 1)), 600_000, 'the first chain check');
  await s.quiet(100);

  s.p.write('/');
  await s.until(() => line(countY).includes('type to find among'), 10_000, 'the find box');
  await s.quiet(50);

  const run: Run = {
    keys: [],
    typoKeys: [],
    echo: [],
    burst: [],
    app: [],
    query: [],
    view: [],
    paint: [],
    slow: [],
  };
  const typeOut = async (q: string, typo: boolean) => {
    for (let i = 1; i <= q.length; i++) {
      const prefix = q.slice(0, i);
      let echoAt = 0;
      const start = performance.now();
      const got = s.until(
        () => {
          if (echoAt === 0 && echoed(prefix)) echoAt = performance.now();
          return answered(prefix);
        },
        10_000,
        `hits for "${prefix}"`,
      );
      s.p.write(q[i - 1]);
      const ms = (await got) - start;
      run.keys.push(ms);
      if (typo) run.typoKeys.push(ms);
      run.echo.push((echoAt || performance.now()) - start);
      if (ms > 30) run.slow.push([prefix, Math.round(ms)]);
      // A person types a key every 100-200 ms; the next one comes once this one's hits are up.
      await s.quiet(20);
    }
    s.p.write('\x15'); // Ctrl-U
    await s.until(() => line(countY).includes('type to find among'), 10_000, 'a cleared box');
    await s.quiet(20);
  };
  for (const q of o.queries) await typeOut(q, false);
  for (const q of o.typos) await typeOut(q, true);
  // Bursts: keys 15 ms apart, faster than many queries take; only the last one's hits matter.
  for (const q of [...o.queries, ...o.typos]) {
    for (let i = 0; i < q.length - 1; i++) {
      s.p.write(q[i]);
      await new Promise((r) => setTimeout(r, 15));
    }
    const start = performance.now();
    const got = s.until(() => answered(q), 10_000, `hits for "${q}" (burst)`);
    s.p.write(q[q.length - 1]);
    run.burst.push((await got) - start);
    await s.quiet(20);
    s.p.write('\x15');
    await s.until(() => line(countY).includes('type to find among'), 10_000, 'a cleared box');
    await s.quiet(20);
  }
  s.p.write('\x1b');
  await s.quiet(50);
  await s.quit();
  const fields = (path: string) => {
    try {
      return readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.split(' ').map(Number));
    } catch {
      return []; // an older build without the trace
    }
  };
  const found = fields(tracePath);
  run.app = found.map((f) => f[1]);
  run.query = found.map((f) => f[2]).filter((x) => Number.isFinite(x));
  const keyed = fields(keyTracePath);
  run.view = keyed.map((f) => f[1]);
  run.paint = keyed.map((f) => f[2]);
  rmSync(dir, { recursive: true, force: true });
  return run;
}

const f1 = (n: number) => n.toFixed(1);
const stats = (xs: number[]) =>
  `p50 ${f1(percentile(xs, 50))} ms, p95 ${f1(percentile(xs, 95))} ms, max ${f1(Math.max(...xs))} ms (${xs.length})`;

/** Runs the pairs (a trivial program's echo, then the TUI's find box) and adds the find figures to `report`. */
export async function benchFindTui(opts: FindTuiOptions, report: Report): Promise<void> {
  const o: Required<FindTuiOptions> = {
    runs: 5,
    cols: 120,
    rows: 40,
    duringCheck: false,
    queries: QUERIES,
    typos: TYPOS,
    ...opts,
  };
  const dir = mkdtempSync(join(tmpdir(), 'arborist-find-cells-'));
  const cells = join(dir, 'cells.json');
  try {
    await captureCells(o.db, o.cols, o.rows, cells);
    const runs: Run[] = [];
    const floors: Floor[] = [];
    for (let i = 0; i < Math.max(5, o.runs); i++) {
      floors.push(await floorRun(cells, o.cols, o.rows, 60));
      const r = await once(o);
      runs.push(r);
      process.stderr.write(
        `run ${i + 1}: key to hits p50 ${f1(percentile(r.keys, 50))} ms p95 ${f1(percentile(r.keys, 95))} ms (${r.keys.length} keys), trivial echo p95 ${f1(floors[i].p95)} ms` +
          `${r.slow.length ? `; over 30 ms: ${r.slow.map(([q, ms]) => `"${q}" ${ms}`).join(', ')}` : ''}\n`,
      );
    }
    const all = (k: keyof Omit<Run, 'slow'>) => runs.flatMap((r) => r[k]);
    const pairsOf = (f: (r: Run) => number, fl: (x: Floor) => number): Pair[] =>
      runs.map((r, i) => ({ figure: f(r), floor: fl(floors[i]) }));
    const floorIs = 'the trivial program (bench/trivial-screen.ts) echoing a key, same pty and emulator';
    report.fact('find-tui shard', o.db);
    report.fact(
      'find-tui while',
      o.duringCheck ? 'the first chain check runs' : 'the first chain check is done',
    );
    report.add({
      name: 'find box: key to hits drawn p95',
      kind: 'time',
      unit: 'ms',
      floorIs: `${floorIs} (p95)`,
      pairs: pairsOf(
        (r) => percentile(r.keys, 95),
        (x) => x.p95,
      ),
      target: { at_most: 30 },
      note: `all keys: ${stats(all('keys'))}; typo queries: ${stats(all('typoKeys'))}`,
    });
    report.add({
      name: 'find box: key to hits drawn p99',
      kind: 'time',
      unit: 'ms',
      floorIs: `${floorIs} (p99)`,
      pairs: pairsOf(
        (r) => percentile(r.keys, 99),
        (x) => x.p99,
      ),
      target: { at_most: 60 },
    });
    report.add({
      name: 'find box: echo of the key p95',
      kind: 'time',
      unit: 'ms',
      floorIs: `${floorIs} (p95)`,
      pairs: pairsOf(
        (r) => percentile(r.echo, 95),
        (x) => x.p95,
      ),
      target: { at_most: 16 },
      note:
        all('app').length > 0
          ? `in the app: ${stats(all('app'))} (key event to hits painted)${all('query').length > 0 ? `; the query in the worker: ${stats(all('query'))}` : ''}`
          : undefined,
    });
    report.add({
      name: 'find box: burst (keys 15 ms apart), last key to its hits p95',
      kind: 'time',
      unit: 'ms',
      floorIs: `${floorIs} (p95)`,
      pairs: pairsOf(
        (r) => percentile(r.burst, 95),
        (x) => x.p95,
      ),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const USAGE =
  'usage: node dist/bench/find-tui.js --db SHARD [--runs N] [--cols C] [--rows R] [--during-check] [--json]\n' +
  "                                  [--queries 'a,b c'] [--typos 'lifetme,borow']";

async function main(): Promise<void> {
  const { values } = benchArgs(
    'find-tui',
    {
      options: {
        db: { type: 'string' },
        runs: { type: 'string', default: '5' },
        cols: { type: 'string', default: '120' },
        rows: { type: 'string', default: '40' },
        'during-check': { type: 'boolean', default: false },
        queries: { type: 'string' },
        typos: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
    },
    ['db'],
  );
  if (!values.db || !existsSync(values.db)) {
    process.stderr.write(`find-tui bench: no shard given or found\n${USAGE}\n`);
    process.exit(2);
  }
  const list = (v: string | undefined) => v?.split(',').filter(Boolean);
  const report = new Report(
    'find-tui bench (issue 12: the find box beside a trivial echo, in pairs)',
    values.json,
  );
  await benchFindTui(
    {
      db: values.db,
      runs: Number(values.runs),
      cols: Number(values.cols),
      rows: Number(values.rows),
      duringCheck: values['during-check'],
      ...(list(values.queries) ? { queries: list(values.queries) } : {}),
      ...(list(values.typos) ? { typos: list(values.typos) } : {}),
    },
    report,
  );
  report.end();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
