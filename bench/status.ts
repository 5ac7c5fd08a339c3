/**
 * How fast `arborist status` answers with nothing new, beside the floors measured in the same run (issue 13: <= 50
 * ms per call on a 1M-event shard; Node's own start-up is most of that).
 *
 *   npm run bench:status -- --db PATH [--runs 9]
 *
 * PATH is a shard made by `npm run gen -- --nodes N --db PATH`; it is only read (status writes its state file
 * beside it). Measured, interleaved so that a change of load hits every figure alike:
 *   node floor    `node -e ''`: a Node process that does nothing;
 *   select floor  a Node process that loads better-sqlite3, opens the shard read-only and SELECTs the last event:
 *                 the least any status of this shard can do;
 *   status        the real CLI (bin/arborist status --short), the state file in place and nothing new.
 * Then, in this process (no start-up): chainStatus() with nothing new on this shard and on a small one made here,
 * and with 100 new events on the small one; so the incremental cost can be seen not to grow with the shard. And
 * the full check once: `status --full` beside `chain-check`, and a first call with no state file at all.
 * Printed through bench/ratio.ts (each figure beside its floor, run by run: status / node floor, status - select
 * floor, this shard's in-process status beside the small shard's), with the load average before and after; --json
 * gives the same as JSON.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chainStatus, Shard } from '../src/store/index.js';
import { benchArgs } from './args.js';
import type { Pair } from './ratio.js';
import { Report } from './ratio.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/arborist');
const SQLITE = join(ROOT, 'node_modules/better-sqlite3');

function timed(args: string[]): { ms: number; stdout: string; code: number } {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  const ms = performance.now() - t;
  if (r.status !== 0 && r.status !== 1) throw new Error(`${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout, code: r.status ?? -1 };
}

function inProcess(path: string): number {
  const t = performance.now();
  const r = chainStatus(path);
  const ms = performance.now() - t;
  if (r.checked !== 'incremental') throw new Error(`in-process status was ${r.checked}: ${r.full_reason}`);
  return ms;
}

export function benchStatus(DB: string, RUNS: number, json = false): void {
  const selectFloor = [
    '-e',
    `const D = require(${JSON.stringify(SQLITE)}); const db = new D(${JSON.stringify(DB)}, { readonly: true });` +
      `db.prepare('SELECT seq, event_hash FROM audit_events ORDER BY seq DESC LIMIT 1').get(); db.close();`,
  ];
  const report = new Report(`arborist bench:status: ${DB}`, json);
  const chainCheck = timed([BIN, 'chain-check', '--db', DB]);
  const first = timed([BIN, 'status', '--full', '--json', '--db', DB]);
  const full = JSON.parse(first.stdout) as { events: number; checked: string; ok: boolean };
  // The first call of all: no state file (one in a folder of its own, so the shard's is left alone).
  const fresh = mkdtempSync(join(tmpdir(), 'arborist-bench-state-'));
  let firstEver: number;
  try {
    const t = performance.now();
    chainStatus(DB, { statePath: join(fresh, 'state.json') });
    firstEver = performance.now() - t;
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
  // One call to settle the state file after the full check, then check that the calls measured are incremental.
  timed([BIN, 'status', '--db', DB]);
  const probe = JSON.parse(timed([BIN, 'status', '--json', '--db', DB]).stdout) as { checked: string };
  if (probe.checked !== 'incremental')
    throw new Error(`status did not resume from its state file: ${probe.checked}`);

  const vsNode: Pair[] = [];
  const vsSelect: Pair[] = [];
  let line = '';
  for (let i = 0; i < RUNS; i++) {
    const node = timed(['-e', '']).ms;
    const select = timed(selectFloor).ms;
    const r = timed([BIN, 'status', '--short', '--db', DB]);
    vsNode.push({ figure: r.ms, floor: node });
    vsSelect.push({ figure: r.ms, floor: select });
    line = r.stdout.trim();
  }

  // In this process: the work itself, without Node's start-up, on this shard beside a small one made here.
  const dir = mkdtempSync(join(tmpdir(), 'arborist-bench-status-'));
  const big: Pair[] = [];
  let newMs: number;
  let smallEvents: number;
  try {
    const small = join(dir, 'small.db');
    const s = Shard.open(small);
    let parent: string | undefined;
    for (let i = 0; i < 200; i++) parent = s.addTurn({ question: `q${i}`, answer_text: 'a', parent }).bates;
    s.close();
    chainStatus(small);
    chainStatus(small);
    chainStatus(DB);
    for (let i = 0; i < RUNS; i++) big.push({ floor: inProcess(small), figure: inProcess(DB) });
    smallEvents = chainStatus(small).events;
    const w = Shard.open(small);
    for (let i = 0; i < 100; i++) parent = w.addTurn({ question: `n${i}`, answer_text: 'a', parent }).bates;
    w.close();
    const t = performance.now();
    const r = chainStatus(small);
    newMs = performance.now() - t;
    if (r.checked !== 'incremental') throw new Error('status with new events was not incremental');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const f = (x: number) => x.toFixed(1);
  report.fact('shard', `${full.events.toLocaleString('en')} events, chain ${full.ok ? 'intact' : 'BROKEN'}`);
  report.fact(
    'full check',
    `status --full ${f(first.ms)} ms, chain-check ${f(chainCheck.ms)} ms (child processes, once); ` +
      `no state file at all ${f(firstEver)} ms (in process, once)`,
  );
  report.fact('status says', line);
  report.add({
    name: 'status --short, nothing new (bin/arborist, a child)',
    kind: 'time',
    unit: 'ms',
    floorIs: "node -e '' (a Node process that does nothing)",
    pairs: vsNode,
    target: { at_most: 50 },
  });
  report.add({
    name: 'status --short, nothing new, beside the least any status can do',
    kind: 'time',
    unit: 'ms',
    floorIs: 'node + better-sqlite3 + SELECT of the last event (a child)',
    pairs: vsSelect,
  });
  report.add({
    name: 'chainStatus() in process, nothing new, on this shard',
    kind: 'time',
    unit: 'ms',
    floorIs: `the same on a ${smallEvents.toLocaleString('en')}-event shard made here (ratio ~1: it does not grow with the shard)`,
    pairs: big,
  });
  report.fact('chainStatus() with 100 new events', `${f(newMs)} ms on the small shard (once)`);
  report.end();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = benchArgs(
    'status',
    {
      options: {
        db: { type: 'string' },
        runs: { type: 'string', default: '9' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
    },
    ['db'],
  );
  if (!values.db) {
    process.stderr.write(
      'usage: npm run bench:status -- --db PATH [--runs N] [--json]   (PATH from `npm run gen`)\n',
    );
    process.exit(2);
  }
  benchStatus(values.db, Math.max(5, Number(values.runs)), values.json);
}
