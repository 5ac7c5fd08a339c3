/**
 * TUI speed, measured as a person feels it: the binary runs in a pseudo-terminal and its output is parsed by a
 * headless xterm.js, exactly as in the end-to-end tests.
 *
 *   node dist/bench/tui.js --db /tmp/arb-bench/1m.db [--runs 5] [--keys 120] [--cols 120] [--rows 40] [--chain]
 *                          [--during-check]
 *
 * - first frame: from spawn to the first complete screen (both panes' borders, a session row, the status bar)
 * - key latency: from writing a key to the pty until the output it causes has been parsed and stays quiet
 *   (8 ms); keys that change nothing on screen are not counted
 * - memory: VmRSS (and the peak, VmHWM) of the process from /proc after the key presses
 * - chain: the time until the first full chain check (in a background thread) is done; keys are timed after it,
 *   since its progress repaints are output that no key caused (--chain prints it)
 * The shard is only read (no key that writes is pressed), so a shared benchmark shard can be used as is.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openTerminal, spawnTui } from './pty.js';
import { percentile } from './stats.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    runs: { type: 'string', default: '5' },
    keys: { type: 'string', default: '120' },
    cols: { type: 'string', default: '120' },
    rows: { type: 'string', default: '40' },
    chain: { type: 'boolean', default: false },
    'during-check': { type: 'boolean', default: false },
  },
  strict: true,
});
if (!values.db || !existsSync(values.db)) {
  process.stderr.write(
    'usage: node dist/bench/tui.js --db SHARD [--runs N] [--keys N] [--cols C] [--rows R] [--chain]\n',
  );
  process.exit(2);
}
const DB = values.db;
const RUNS = Number(values.runs);
const KEYS = Number(values.keys);
const COLS = Number(values.cols);
const ROWS = Number(values.rows);

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
};

/**
 * A walk a person might do: move over sessions, open them, walk turns, page, jump, scroll, collapse. Every key
 * changes the screen (a key that changes nothing cannot be timed, and waiting for it would only time the next
 * once-a-second repaint of the status bar's "checked Ns ago").
 */
const WALK = [
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

interface Run {
  /** In-app time per key press, from the key event to the screen written (ARBORIST_TUI_TRACE). */
  app: number[];
  firstFrame: number;
  /** Key written to the last byte of its repaint received. */
  keys: number[];
  /** ... and parsed by the emulator. */
  parsed: number[];
  slow: [string, number][];
  rss: number;
  hwm: number;
  chain?: number;
}

function memKb(pid: number, field: string): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

async function once(withChain: boolean): Promise<Run> {
  const term = openTerminal(COLS, ROWS);
  let lastOut = 0;
  let pending = 0;
  const dir = mkdtempSync(join(tmpdir(), 'arborist-tui-bench-'));
  const tracePath = join(dir, 'trace');
  const t0 = performance.now();
  const p = spawnTui(DB, COLS, ROWS, { ARBORIST_HOME: dir, ARBORIST_TUI_TRACE: tracePath });
  let chainAt: number | undefined;
  let lastRaw = 0;
  let notify: (() => void) | null = null;
  const line = (y: number) => term.buffer.active.getLine(y)?.translateToString(true) ?? '';
  p.onData((d) => {
    lastRaw = performance.now();
    pending++;
    term.write(d, () => {
      pending--;
      lastOut = performance.now();
      if (chainAt === undefined && /chain (✓|BROKEN)/.test(line(ROWS - 1))) chainAt = lastOut - t0;
      notify?.();
    });
  });
  term.onData((d) => p.write(d));
  /** Resolves true at the next parsed output, false after `ms` without any (event-driven: no busy waiting). */
  const nextOutput = (ms: number) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        notify = null;
        resolve(false);
      }, ms);
      notify = () => {
        clearTimeout(timer);
        notify = null;
        resolve(true);
      };
    });
  const wait = async (pred: () => boolean, ms: number) => {
    const end = performance.now() + ms;
    while (!pred()) {
      if (performance.now() > end)
        throw new Error(`timeout; screen:\n${[...Array(ROWS).keys()].map(line).join('\n')}`);
      await nextOutput(50);
    }
  };
  const full = () =>
    line(0).startsWith('┌ sessions') &&
    line(0).endsWith('┐') &&
    line(1).startsWith('│▸') &&
    line(ROWS - 2).startsWith('└') &&
    line(ROWS - 1).includes('chain');
  await wait(() => pending === 0 && full(), 20000);
  const firstFrame = performance.now() - t0;
  // Keys are timed once the first chain check is over: its progress repaints are output no key caused (with
  // --during-check they are timed at once, progress repaints included: an upper bound).
  if (!values['during-check']) await wait(() => chainAt !== undefined, 600_000);
  while (await nextOutput(50)) {}
  const keys: number[] = [];
  const parsed: number[] = [];
  const slow: [string, number][] = [];
  for (let i = 0; i < KEYS; i++) {
    const k = WALK[i % WALK.length];
    const start = performance.now();
    const got = nextOutput(150);
    p.write(SEQ[k] ?? k);
    if (!(await got)) continue; // nothing changed on screen
    // The repaint is finished once 8 ms pass without more output.
    while (await nextOutput(8)) {}
    keys.push(lastRaw - start);
    parsed.push(lastOut - start);
    if (lastRaw - start > 16) slow.push([k, Math.round(lastRaw - start)]);
  }
  const rss = memKb(p.pid, 'VmRSS');
  const hwm = memKb(p.pid, 'VmHWM');
  if (withChain) await wait(() => chainAt !== undefined, 600_000);
  const chain = withChain ? chainAt : undefined;
  p.write('q');
  await new Promise<void>((r) => p.onExit(() => r()));
  let app: number[] = [];
  try {
    app = readFileSync(tracePath, 'utf8')
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => Number(l.split(' ')[3]));
  } catch {
    // an older build without tracing
  }
  if (process.env.KEEP_TRACE) process.stderr.write(`trace kept in ${tracePath}\n`);
  else rmSync(dir, { recursive: true, force: true });
  return { app, firstFrame, keys, parsed, slow, rss, hwm, chain };
}

const runs: Run[] = [];
for (let i = 0; i < RUNS; i++) {
  const r = await once(values.chain === true && i === 0);
  runs.push(r);
  process.stderr.write(
    `run ${i + 1}: first frame ${r.firstFrame.toFixed(0)} ms, keys p50 ${percentile(r.keys, 50).toFixed(1)} ms p95 ${percentile(r.keys, 95).toFixed(1)} ms (${r.keys.length}), RSS ${(r.rss / 1024).toFixed(0)} MB (peak ${(r.hwm / 1024).toFixed(0)} MB)${r.chain ? `, chain checked after ${(r.chain / 1000).toFixed(1)} s` : ''}${r.slow.length ? `; slow keys: ${r.slow.map(([k, ms]) => `${k} ${ms}`).join(', ')}` : ''}\n`,
  );
}
const ff = runs.map((r) => r.firstFrame);
const ks = runs.flatMap((r) => r.keys);
const app = runs.flatMap((r) => r.app);
const parsed = runs.flatMap((r) => r.parsed);
const rss = runs.map((r) => r.rss / 1024);
const hwm = runs.map((r) => r.hwm / 1024);
const f1 = (n: number) => n.toFixed(1);
process.stdout.write(
  [
    `tui bench: ${DB}, ${COLS}x${ROWS}, ${RUNS} runs, ${ks.length} key presses`,
    `first full screen: p50 ${f1(percentile(ff, 50))} ms, min ${f1(Math.min(...ff))} ms, max ${f1(Math.max(...ff))} ms   (target p50 <= 300 ms)`,
    `key to repaint:    p50 ${f1(percentile(ks, 50))} ms, p95 ${f1(percentile(ks, 95))} ms, max ${f1(Math.max(...ks))} ms   (target p95 <= 16 ms)`,
    `  and parsed:      p50 ${f1(percentile(parsed, 50))} ms, p95 ${f1(percentile(parsed, 95))} ms   (the same, once the emulator has parsed it)`,
    ...(app.length > 0
      ? [
          `  in the app:      p50 ${f1(percentile(app, 50))} ms, p95 ${f1(percentile(app, 95))} ms, max ${f1(Math.max(...app))} ms   (key event to screen written)`,
        ]
      : []),
    `memory:            RSS p50 ${f1(percentile(rss, 50))} MB, peak (VmHWM) max ${f1(Math.max(...hwm))} MB   (target <= 200 MB)`,
    ...(runs[0].chain ? [`first full chain check done after ${f1(runs[0].chain / 1000)} s`] : []),
    '',
  ].join('\n'),
);
