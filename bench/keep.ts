/**
 * What `arborist keep` costs (issue 30): CPU per idle hour over a home of 2,000 Claude Code transcripts (target < 1
 * s), its RSS (target <= 150 MB), and the time from a line appended to a transcript to its turn in the shard
 * (target <= 1 s).
 *
 *   npm run build && node dist/bench/keep.js [--files 2000] [--idle 60] [--runs 3] [--json]
 *
 * Each run: a fresh shard; the keeper (the real binary) imports the home. Then three keepers in turn over it, each
 * once it has read every file and gone quiet, each for a window of `--idle` seconds, CPU read from /proc/PID/stat:
 * one at the default intervals (the idle loop alone), one polling every 5 s, one rediscovering every 10 s. An hour
 * at the defaults (a poll every 5 min, a rediscovery every hour) is the loop's window scaled to an hour, plus 12
 * polls and 1 rediscovery at their measured cost. Beside the loop's window, the floor: a Node process that only
 * keeps a 5 s timer. Then 5 turns appended one at a time, each timed until the shard holds it, beside the floor of
 * a notification: this process's own fs.watch on the same folder, timed from the same append. Linux only (/proc).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  watch,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { benchArgs } from './args.js';
import { type Pair, Report } from './ratio.js';
import { median } from './stats.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/arborist');
const TICK_MS = 10; // CLK_TCK 100, as on every Linux this runs on (getconf CLK_TCK)
const DEFAULT_POLL_S = 300;
const DEFAULT_RESCAN_S = 3600;
const POLL_S = 5;
const RESCAN_S = 10;

const { values } = benchArgs('keep', {
  options: {
    files: { type: 'string', default: '2000' },
    idle: { type: 'string', default: '60' },
    runs: { type: 'string', default: '3' },
    json: { type: 'boolean', default: false },
  },
});
const FILES = Number(values.files);
const IDLE_S = Number(values.idle);
const RUNS = Number(values.runs);
const TURNS_PER_FILE = 3;

let clock = 0;
function turn(sid: string, id: string, parent: string | null, q: string): string {
  const ts = () => new Date(Date.UTC(2026, 0, 1) + clock++ * 1000).toISOString();
  const base = { isSidechain: false, userType: 'external', cwd: '/w', sessionId: sid, version: '2.1.0' };
  const u = {
    ...base,
    parentUuid: parent,
    type: 'user',
    uuid: `${id}-u`,
    timestamp: ts(),
    message: { role: 'user', content: q },
  };
  const a = {
    ...base,
    parentUuid: `${id}-u`,
    type: 'assistant',
    uuid: `${id}-a`,
    timestamp: ts(),
    message: {
      id: `m-${id}`,
      role: 'assistant',
      model: 'x',
      content: [{ type: 'text', text: `answer: ${q}` }],
      stop_reason: 'end_turn',
    },
  };
  return `${JSON.stringify(u)}\n${JSON.stringify(a)}\n`;
}

function sidOf(i: number): string {
  return `b0000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
}

/** 2,000 transcripts in 100 projects, each 3 finished turns, a day old. */
function makeHome(dir: string): string[] {
  const files: string[] = [];
  const old = new Date(Date.now() - 86_400_000);
  for (let i = 0; i < FILES; i++) {
    const proj = join(dir, '.claude', 'projects', `-work-project-${i % 100}`);
    mkdirSync(proj, { recursive: true });
    const sid = sidOf(i);
    let text = '';
    let parent: string | null = null;
    for (let t = 0; t < TURNS_PER_FILE; t++) {
      text += turn(sid, `${sid}-${t}`, parent, `question ${t} of session ${i}`);
      parent = `${sid}-${t}-a`;
    }
    const f = join(proj, `${sid}.jsonl`);
    writeFileSync(f, text);
    utimesSync(f, old, old);
    files.push(f);
  }
  return files;
}

function count(db: string, where = '1'): number {
  try {
    const d = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return d.prepare(`SELECT count(*) FROM nodes WHERE ${where}`).pluck().get() as number;
    } finally {
      d.close();
    }
  } catch {
    return 0;
  }
}

function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS; // utime, stime (fields 14 and 15)
}

function rssMb(pid: number): { rss: number; hwm: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(ok: () => boolean, ms: number, what: string): Promise<void> {
  const t0 = Date.now();
  while (!ok()) {
    if (Date.now() - t0 > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(5);
  }
}

interface Keeper {
  pid: number;
  stop: () => Promise<void>;
}

/** A keeper over the home (the real binary), once it has read every file. */
async function startKeeper(
  env: NodeJS.ProcessEnv,
  db: string,
  want: number,
  args: string[],
): Promise<Keeper> {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'keep', '--settle', '1s', ...args], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((res) => child.on('exit', () => res()));
  const log = join(env.ARBORIST_HOME!, 'keep.log');
  const started = () => {
    try {
      return readFileSync(log, 'utf8').includes(`keeper ${child.pid} started`);
    } catch {
      return false;
    }
  };
  await until(() => started() && count(db) === want, 600_000, 'the first import');
  // Its first import read every file: wait until it is quiet (no CPU for a second) before any window.
  let last = cpuMsOf(child.pid!);
  for (;;) {
    await sleep(1000);
    const now = cpuMsOf(child.pid!);
    if (now === last) break;
    last = now;
  }
  return {
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** CPU (ms) of `pid` over `seconds`, beside a Node process that only keeps a 5 s timer, over the same seconds. */
async function window(
  pid: number,
  seconds: number,
): Promise<{ cpu: number; floor: number; rss: number; floorRss: number }> {
  const floor = spawn(process.execPath, ['-e', 'setInterval(() => {}, 5000)'], { stdio: 'ignore' });
  await sleep(300);
  const k0 = cpuMsOf(pid);
  const f0 = cpuMsOf(floor.pid!);
  await sleep(seconds * 1000);
  const out = {
    cpu: cpuMsOf(pid) - k0,
    floor: cpuMsOf(floor.pid!) - f0,
    rss: rssMb(pid).rss,
    floorRss: rssMb(floor.pid!).rss,
  };
  floor.kill();
  return out;
}

interface RunResult {
  idleCpu: Pair; // ms of CPU per hour at the defaults: keeper, and the floor's (its window times 60)
  rss: Pair; // MB: keeper, floor
  latency: Pair[]; // ms: keeper, notification floor
  importS: number;
  hwm: number;
  loopMs: number;
  pollMs: number;
  rescanMs: number;
}

/**
 * One run, three keepers in turn over the same shard: at the default intervals (the idle loop alone: in a window
 * shorter than both intervals nothing else runs), with only its poll made frequent (every POLL_S s: the cost of one
 * poll), with only its rediscovery made frequent (every RESCAN_S s). An hour at the defaults is then: the loop's
 * window times 3600 / IDLE_S, plus 3600 / DEFAULT_POLL_S polls, plus 3600 / DEFAULT_RESCAN_S rediscoveries. The
 * number of polls or rediscoveries in a window is its length over the interval (the timers are periodic); the
 * keeper's own counters (`keep --json`) say the same, and its cpuUsage around each agrees within the window's
 * garbage collection, which the /proc figure includes.
 */
async function oneRun(home: string, files: string[], arb: string, r: number): Promise<RunResult> {
  rmSync(arb, { recursive: true, force: true });
  const db = join(arb, 'sessions.db');
  const env = { PATH: process.env.PATH, HOME: home, ARBORIST_HOME: arb };
  // Every run appends 5 turns, which the next run's first import finds too.
  const want = FILES * TURNS_PER_FILE + 5 * r;
  const t0 = performance.now();
  const idle = await startKeeper(env, db, want, []);
  const importS = (performance.now() - t0) / 1000;
  const loop = await window(idle.pid, IDLE_S);
  const hwm = rssMb(idle.pid).hwm;
  await idle.stop();

  const polling = await startKeeper(env, db, want, ['--poll', `${POLL_S}s`]);
  const polls = await window(polling.pid, IDLE_S);
  await polling.stop();

  const rescanning = await startKeeper(env, db, want, ['--rescan', `${RESCAN_S}s`]);
  const rescans = await window(rescanning.pid, IDLE_S);

  // Latency: a turn appended to a transcript, until the shard holds it; the floor is a notification of the append.
  const latency: Pair[] = [];
  for (let i = 0; i < 5; i++) {
    const f = files[(r * 7 + i * 389) % files.length];
    const sid = f.slice(f.lastIndexOf('/') + 1, -'.jsonl'.length);
    const q = `appended ${r}-${i}`;
    let notified = 0;
    const w = watch(join(f, '..'), () => {
      if (notified === 0) notified = performance.now();
    });
    const a0 = performance.now();
    appendFileSync(f, turn(sid, `${sid}-x${r}${i}`, null, q));
    await until(() => count(db, `question = '${q}'`) === 1, 30_000, q);
    const ms = performance.now() - a0;
    w.close();
    latency.push({ figure: ms, floor: Math.max(0.01, notified - a0) });
    await sleep(300);
  }
  await rescanning.stop();

  const pollMs = polls.cpu / (IDLE_S / POLL_S);
  const rescanMs = rescans.cpu / (IDLE_S / RESCAN_S);
  const perHour =
    (loop.cpu * 3600) / IDLE_S + (3600 / DEFAULT_POLL_S) * pollMs + (3600 / DEFAULT_RESCAN_S) * rescanMs;
  return {
    idleCpu: { figure: perHour, floor: Math.max(TICK_MS, (loop.floor * 3600) / IDLE_S) },
    rss: { figure: loop.rss, floor: loop.floorRss },
    latency,
    importS,
    hwm,
    loopMs: loop.cpu,
    pollMs,
    rescanMs,
  };
}

async function main(): Promise<void> {
  if (process.platform !== 'linux') throw new Error('bench/keep.ts reads /proc: Linux only');
  const dir = mkdtempSync(join(tmpdir(), 'arb-keep-bench-'));
  const report = new Report(`arborist keep: ${FILES} transcripts, ${IDLE_S} s idle a run`, values.json);
  try {
    const files = makeHome(dir);
    const results: RunResult[] = [];
    for (let r = 0; r < RUNS; r++) results.push(await oneRun(dir, files, join(dir, '.arborist'), r));
    report.fact('first import (s, median)', median(results.map((x) => x.importS)).toFixed(1));
    report.fact(
      `idle loop alone, ${IDLE_S} s (CPU ms, median)`,
      median(results.map((x) => x.loopMs)).toFixed(0),
    );
    report.fact('one poll of every file (CPU ms, median)', median(results.map((x) => x.pollMs)).toFixed(1));
    report.fact(
      'one rediscovery of every source (CPU ms, median)',
      median(results.map((x) => x.rescanMs)).toFixed(1),
    );
    report.fact('peak RSS (MB, median)', median(results.map((x) => x.hwm)).toFixed(0));
    report.add({
      name: 'CPU per idle hour, default intervals (extrapolated)',
      kind: 'time',
      unit: 'ms',
      floorIs: 'a Node process keeping a 5 s timer, over the idle loop window, per hour',
      pairs: results.map((x) => x.idleCpu),
      target: { at_most: 1000 },
    });
    report.add({
      name: 'RSS idle',
      kind: 'time',
      unit: 'MB',
      floorIs: 'RSS of that Node process',
      pairs: results.map((x) => x.rss),
      target: { at_most: 150 },
    });
    report.add({
      name: 'append -> turn in the shard',
      kind: 'time',
      unit: 'ms',
      floorIs: 'fs.watch notification of the same append, in the bench process',
      pairs: results.flatMap((x) => x.latency),
      target: { at_most: 1000 },
      note: '5 appends a run; the keeper gathers changes for 100 ms before a batch',
    });
  } finally {
    report.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
