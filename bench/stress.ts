/**
 * The long-running reliability suites (never part of `npm test`; small versions of both run there:
 * tests/integrity/crash.test.ts and tests/integrity/concurrency.test.ts).
 *
 *   npm run stress -- [--only crash|concurrency|all] [--rounds 50] [--ops ask,delete,reset,restore,maintain]
 *                     [--writers 4] [--asks 500] [--scale 1] [--seed N] [--anchor mixed|spawn|open] [--no-hooks]
 *
 * crash        For each operation (ask, delete, reset, archive restore, maintain --apply) on a prepared shard:
 *              its typical duration is measured (median of 3 uninterrupted runs), then `--rounds` times the real
 *              CLI is started on a fresh copy and SIGKILLed after a delay uniform in [0, typical]; with
 *              `--anchor open` the delay counts from the moment it opened the shard (its -wal appears) and is
 *              uniform in [0, open-to-exit], so the kill lands inside the operation rather than in Node's start-up;
 *              `mixed` (the default) alternates the two. After each kill:
 *              PRAGMA integrity_check is ok, `arborist check` exits 0, the state is the one before or the one after
 *              (never in between), no turn is lost, an acknowledged ask (its JSON was printed) is in the shard, and
 *              the shard takes a new write. Then every crash-hook point (ARBORIST_TEST_CRASH_AFTER) of the
 *              operation, each of which must leave exactly the before (or, for `commit`, the after) state.
 * concurrency  `--writers` loops at once, each `--asks` CLI asks into one shard (one in four a cross-session turn
 *              under another writer's turn): every acknowledged turn present under its parent, chain-check and
 *              verify clean, events seq 1..N without a gap, one event per change.
 *
 * Prints a summary table and exits 1 on any failure.
 */
import { benchArgs } from './args.js';
import { concurrencySuite, crashSuite, type OpSummary } from './crash-kit.js';

const USAGE =
  'usage: npm run stress -- [--only crash|concurrency|all] [--rounds 50] [--ops ask,delete,...] [--writers 4] ' +
  '[--asks 500] [--scale 1] [--seed 1] [--no-hooks]';

function fail(msg: string): never {
  process.stderr.write(`stress: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

const { values } = benchArgs('stress', {
  options: {
    only: { type: 'string', default: 'all' },
    rounds: { type: 'string', default: '50' },
    ops: { type: 'string' },
    writers: { type: 'string', default: '4' },
    asks: { type: 'string', default: '500' },
    scale: { type: 'string', default: '1' },
    seed: { type: 'string', default: String(Date.now() % 100000) },
    'no-hooks': { type: 'boolean', default: false },
    anchor: { type: 'string', default: 'mixed' },
  },
  strict: true,
});
const int = (name: string, v: string, min: number) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) fail(`--${name} must be a whole number >= ${min}`);
  return n;
};
if (!['crash', 'concurrency', 'all'].includes(values.only)) fail(`unknown --only '${values.only}'`);
const rounds = int('rounds', values.rounds, 0);
const writers = int('writers', values.writers, 1);
const asks = int('asks', values.asks, 1);
const seed = int('seed', values.seed, 0);
const scale = Number(values.scale);
if (!(scale > 0)) fail('--scale must be a positive number');
if (!['spawn', 'open', 'mixed'].includes(values.anchor)) fail(`unknown --anchor '${values.anchor}'`);
const anchor = values.anchor as 'spawn' | 'open' | 'mixed';
const ops = values.ops?.split(',').map((s) => s.trim());

const log = (s: string) => process.stderr.write(`${s}\n`);
let failures: string[] = [];
const started = performance.now();
log(`stress: seed ${seed}`);

function table(rows: OpSummary[]): string {
  const head = [
    'operation',
    'typical ms',
    'open ms',
    'runs',
    'killed',
    'mid-op',
    'rolled back',
    'committed',
    'exited',
    'hooks',
    'failures',
  ];
  const body = rows.map((r) => [
    r.op,
    r.typicalMs.toFixed(0),
    r.openToExitMs.toFixed(0),
    String(r.runs),
    String(r.killed),
    String(r.midOperation),
    String(r.before),
    String(r.after),
    String(r.exited),
    String(r.hookPoints),
    String(r.failures.length),
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ');
  return [line(head), ...body.map(line)].join('\n');
}

if (values.only === 'crash' || values.only === 'all') {
  const t0 = performance.now();
  const res = await crashSuite({ rounds, seed, scale, only: ops, hooks: !values['no-hooks'], anchor, log });
  process.stdout.write(`\ncrash suite (${((performance.now() - t0) / 1000).toFixed(0)} s)\n${table(res)}\n`);
  process.stdout.write(
    'open ms: median time from opening the shard to the exit; killed: SIGKILL arrived before the process exited; mid-op: it died with the shard open (its -wal left behind);\n' +
      'rolled back / committed: the state found after the kill; exited: finished before the kill landed.\n',
  );
  failures = failures.concat(res.flatMap((r) => r.failures));
}

if (values.only === 'concurrency' || values.only === 'all') {
  log(`concurrency: ${writers} writers x ${asks} asks`);
  const r = await concurrencySuite({ writers, asks, seed, log });
  process.stdout.write(
    `\nconcurrency (${r.seconds.toFixed(0)} s): ${r.writers} writers x ${r.asksPerWriter} asks, ` +
      `${r.acknowledged} acknowledged (${r.crossForks} cross-session), ${r.events} events, ` +
      `${(r.acknowledged / r.seconds).toFixed(1)} asks/s, ${r.failures.length} failures\n`,
  );
  failures = failures.concat(r.failures);
}

for (const f of failures.slice(0, 50)) process.stdout.write(`FAIL ${f}\n`);
if (failures.length > 50) process.stdout.write(`... and ${failures.length - 50} more\n`);
process.stdout.write(
  `\n${failures.length === 0 ? 'ok' : `${failures.length} FAILURES`} (${((performance.now() - started) / 1000).toFixed(0)} s, seed ${seed})\n`,
);
process.exit(failures.length === 0 ? 0 : 1);
