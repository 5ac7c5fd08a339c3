/**
 * The find box's speed as a person feels it: the binary runs in a pseudo-terminal, its output is parsed by a
 * headless xterm.js (as in the end-to-end tests), `/` opens the box and queries are typed one key at a time.
 *
 *   node dist/bench/find-tui.js --db /tmp/arb-tui/1m.db [--runs 3] [--cols 120] [--rows 40] [--during-check]
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
import { parseArgs } from 'node:util';
import { findBox } from '../src/ui/features/find/model.js';
import { openTerminal, spawnTui } from './pty.js';
import { percentile } from './stats.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    runs: { type: 'string', default: '3' },
    cols: { type: 'string', default: '120' },
    rows: { type: 'string', default: '40' },
    'during-check': { type: 'boolean', default: false },
    queries: { type: 'string' },
    typos: { type: 'string' },
  },
  strict: true,
});
if (!values.db || !existsSync(values.db)) {
  process.stderr.write(
    'usage: node dist/bench/find-tui.js --db SHARD [--runs N] [--cols C] [--rows R] [--during-check]\n' +
      "                                  [--queries 'a,b c'] [--typos 'lifetme,borow']\n",
  );
  process.exit(2);
}
const DB = values.db;
const RUNS = Number(values.runs);
const COLS = Number(values.cols);
const ROWS = Number(values.rows);
// Words of the generator's vocabulary (bench/words.ts): common, middling and rare; phrases; short prefixes.
const QUERIES = (
  values.queries ?? 'lifetime,borrow checker,how do i,mutex lock,fsync,terminal,async await,the'
)
  .split(',')
  .filter(Boolean);
// One-letter slips (a letter left out, two swapped, one wrong), typed letter by letter like the rest.
const TYPOS = (values.typos ?? 'lifetme,borow,refrence,mutx,compilr,termnal,fsycn,animaton')
  .split(',')
  .filter(Boolean);

interface Run {
  /** Key written -> hits for it received (the last byte of that repaint). */
  keys: number[];
  typoKeys: number[];
  /** ... and parsed by the emulator. */
  parsed: number[];
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

async function once(): Promise<Run> {
  const term = openTerminal(COLS, ROWS);
  const dir = mkdtempSync(join(tmpdir(), 'arborist-find-bench-'));
  const tracePath = join(dir, 'find-trace');
  const keyTracePath = join(dir, 'key-trace');
  const p = spawnTui(DB, COLS, ROWS, {
    ARBORIST_HOME: dir,
    ARBORIST_FIND_TRACE: tracePath,
    ARBORIST_TUI_TRACE: keyTracePath,
  });
  const line = (y: number) => term.buffer.active.getLine(y)?.translateToString(true) ?? '';
  let pending = 0;
  let chainDone = false;
  /** Called after each parsed chunk with the time the chunk arrived. */
  let onParsed: ((arrived: number) => void) | null = null;
  p.onData((d) => {
    const arrived = performance.now();
    pending++;
    term.write(d, () => {
      pending--;
      if (!chainDone && /chain (✓|BROKEN)/.test(line(ROWS - 1))) chainDone = true;
      onParsed?.(arrived);
    });
  });
  term.onData((d) => p.write(d));

  /** Resolves with the arrival time of the chunk after which `pred` holds. */
  const until = (pred: () => boolean, ms: number, what: string) =>
    new Promise<number>((resolve, reject) => {
      if (pending === 0 && pred()) {
        resolve(performance.now());
        return;
      }
      const timer = setTimeout(() => {
        onParsed = null;
        reject(
          new Error(`timeout waiting for ${what}; screen:\n${[...Array(ROWS).keys()].map(line).join('\n')}`),
        );
      }, ms);
      onParsed = (arrived) => {
        if (!pred()) return;
        clearTimeout(timer);
        onParsed = null;
        resolve(arrived);
      };
    });
  const quiet = (ms: number) =>
    new Promise<void>((resolve) => {
      let timer = setTimeout(done, ms);
      function done() {
        onParsed = null;
        resolve();
      }
      onParsed = () => {
        clearTimeout(timer);
        timer = setTimeout(done, ms);
      };
    });

  const box = findBox(COLS, ROWS);
  const inputY = box.y + 1;
  const countY = box.y + 2;
  const echoed = (q: string) => line(inputY).includes(`/ ${q}▏`);
  const answered = (q: string) =>
    echoed(q) && /│ \d+ of [\d,]+/.test(line(countY)) && !line(countY).includes('searching');

  await until(
    () => line(ROWS - 1).includes('chain') && line(0).startsWith('┌ sessions'),
    30_000,
    'first frame',
  );
  if (!values['during-check']) await until(() => chainDone, 600_000, 'the first chain check');
  await quiet(100);

  p.write('/');
  await until(() => line(countY).includes('type to find among'), 10_000, 'the find box');
  await quiet(50);

  const run: Run = {
    keys: [],
    typoKeys: [],
    parsed: [],
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
      const got = until(
        () => {
          if (echoAt === 0 && echoed(prefix)) echoAt = performance.now();
          return answered(prefix);
        },
        10_000,
        `hits for "${prefix}"`,
      );
      p.write(q[i - 1]);
      const arrived = await got;
      const ms = arrived - start;
      run.keys.push(ms);
      if (typo) run.typoKeys.push(ms);
      run.parsed.push(performance.now() - start);
      run.echo.push((echoAt || performance.now()) - start);
      if (ms > 30) run.slow.push([prefix, Math.round(ms)]);
      // A person types a key every 100-200 ms; the next one comes once this one's hits are up.
      await quiet(20);
    }
    p.write('\x15'); // Ctrl-U
    await until(() => line(countY).includes('type to find among'), 10_000, 'a cleared box');
    await quiet(20);
  };
  for (const q of QUERIES) await typeOut(q, false);
  for (const q of TYPOS) await typeOut(q, true);
  // Bursts: keys 15 ms apart, faster than many queries take; only the last one's hits matter.
  for (const q of [...QUERIES, ...TYPOS]) {
    for (let i = 0; i < q.length - 1; i++) {
      p.write(q[i]);
      await new Promise((r) => setTimeout(r, 15));
    }
    const start = performance.now();
    const got = until(() => answered(q), 10_000, `hits for "${q}" (burst)`);
    p.write(q[q.length - 1]);
    run.burst.push((await got) - start);
    await quiet(20);
    p.write('\x15');
    await until(() => line(countY).includes('type to find among'), 10_000, 'a cleared box');
    await quiet(20);
  }
  p.write('\x1b');
  await quiet(50);
  p.write('q');
  await new Promise<void>((r) => p.onExit(() => r()));
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

const runs: Run[] = [];
for (let i = 0; i < RUNS; i++) {
  const r = await once();
  runs.push(r);
  process.stderr.write(
    `run ${i + 1}: key to hits p50 ${f1(percentile(r.keys, 50))} ms p95 ${f1(percentile(r.keys, 95))} ms (${r.keys.length} keys)` +
      `${r.slow.length ? `; over 30 ms: ${r.slow.map(([q, ms]) => `"${q}" ${ms}`).join(', ')}` : ''}\n`,
  );
}
const all = (k: keyof Omit<Run, 'slow'>) => runs.flatMap((r) => r[k]);
process.stdout.write(
  [
    `find-tui bench: ${DB}, ${COLS}x${ROWS}, ${RUNS} runs${values['during-check'] ? ', during the chain check' : ''}`,
    `key to hits drawn:   ${stats(all('keys'))}   (target p50 <= 10 ms, p95 <= 30 ms)`,
    `  typo queries only: ${stats(all('typoKeys'))}`,
    `  and parsed:        ${stats(all('parsed'))}`,
    `  echo of the key:   ${stats(all('echo'))}`,
    ...(all('app').length > 0
      ? [`  in the app:        ${stats(all('app'))}   (key event to hits painted)`]
      : []),
    ...(all('query').length > 0
      ? [`    the query:       ${stats(all('query'))}   (in the search worker)`]
      : []),
    ...(all('view').length > 0
      ? [
          `    a frame:         view p50 ${f1(percentile(all('view'), 50))} ms, paint p50 ${f1(percentile(all('paint'), 50))} ms`,
        ]
      : []),
    `burst (15 ms/key):   ${stats(all('burst'))}   (last key to its hits)`,
    '',
  ].join('\n'),
);
