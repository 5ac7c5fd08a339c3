/**
 * The store's speed on a shard, every figure beside its floor measured in the same run (bench/ratio.ts; issue 12).
 * docs/benchmarks.md says what each figure and floor is and how to read a ratio.
 *
 *   npm run bench -- --db PATH [--only add,find,tree,path,chain,verify] [--runs 5] [--n 500] [--depth 100]
 *                    [--seed 1] [--json]
 *
 * tree    a session's outline as the TUI reads it, beside a bare read of the same rows (bench/tree.ts).
 * path    the path of the deepest turns as `arborist show` / export read it, beside a bare read (bench/tree.ts).
 * find    find as typed, key by key, under one busy core, beside a bare FTS5 lookup of a rare term (bench/find.ts).
 * chain   chain-check beside the sha256 ceiling (bench/chain.ts, when present).
 * verify  verify beside its ceiling (bench/chain.ts, when present).
 * add     add at depth 100 in a COPY of the shard, beside a bare INSERT of the same bytes (bench/add.ts).
 *
 * The shard is opened read-only (add works on a copy); one with a schema upgrade due is refused: open it once with
 * arborist first.
 */
import { existsSync, statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Shard } from '../src/store/index.js';
import { dbOf } from '../src/store/testing.js';
import { benchAdd } from './add.js';
import { benchFind } from './find.js';
import { Report } from './ratio.js';
import { Rng } from './rng.js';
import { benchPath, benchTree } from './tree.js';

const USAGE =
  'usage: npm run bench -- --db PATH [--only add,find,tree,path,chain,verify] [--runs 5] [--n 500] [--depth 100] [--seed 1] [--json]';
export const METRICS = ['tree', 'path', 'find', 'chain', 'verify', 'add'] as const;
type Metric = (typeof METRICS)[number];

/** What bench/chain.ts (another module, maybe absent) exports. */
interface ChainBench {
  benchChain(report: Report, db: string, runs: number): unknown;
  benchVerify(report: Report, db: string, runs: number): unknown;
}

/** bench/chain.ts, if this build has it: imported by a computed name, so that its absence is a note, not a failure. */
async function chainModule(): Promise<ChainBench | string> {
  const name = './chain.js';
  try {
    const m = (await import(name)) as Partial<ChainBench>;
    if (typeof m.benchChain !== 'function' || typeof m.benchVerify !== 'function')
      return 'bench/chain.ts does not export benchChain and benchVerify';
    return m as ChainBench;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND') return 'bench/chain.ts is not in this build';
    throw err;
  }
}

function fail(msg: string): never {
  process.stderr.write(`bench: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

function positive(name: string, v: string | undefined, min = 1): number {
  const x = Number(v);
  if (!Number.isInteger(x) || x < min) fail(`--${name} must be an integer >= ${min}, not '${v}'`);
  return x;
}

export async function main(argv: string[]): Promise<void> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        db: { type: 'string' },
        only: { type: 'string' },
        runs: { type: 'string', default: '5' },
        n: { type: 'string', default: '500' },
        depth: { type: 'string', default: '100' },
        seed: { type: 'string', default: '1' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (err) {
    fail((err as Error).message);
  }
  const path = values.db as string | undefined;
  if (!path) fail('--db PATH is required');
  if (!existsSync(path)) fail(`no shard at ${path}`);
  const only = new Set<string>(
    values.only
      ? String(values.only)
          .split(',')
          .map((s) => s.trim())
      : METRICS,
  );
  for (const m of only) if (!(METRICS as readonly string[]).includes(m)) fail(`unknown metric '${m}'`);
  const runs = positive('runs', values.runs as string, 5);
  const n = positive('n', values.n as string);
  const depth = positive('depth', values.depth as string);
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) fail(`--seed must be an integer, not '${values.seed}'`);
  // Each metric draws from its own generator: the same --seed gives the same queries whatever --only is.
  const rng = () => new Rng(seed);
  const json = values.json === true;
  const progress = (msg: string) => process.stderr.write(`bench: ${msg}\n`);

  let ro: Shard;
  try {
    ro = Shard.open(path, { readonly: true });
  } catch (err) {
    fail((err as Error).message.split('\n')[0]);
  }
  const report = new Report(`arborist bench: ${path}`, json);
  try {
    const nodes = dbOf(ro).prepare('SELECT count(*) FROM nodes').pluck().get() as number;
    const sessions = dbOf(ro).prepare('SELECT count(*) FROM sessions').pluck().get() as number;
    const bytes = statSync(path).size + (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
    report.fact(
      'shard',
      `${nodes.toLocaleString('en-US')} turns, ${sessions.toLocaleString('en-US')} sessions, ` +
        `${ro.audit.head().seq.toLocaleString('en-US')} events, ${(bytes / 1048576).toFixed(1)} MiB`,
    );
    report.fact('runs', runs);
    const has = (m: Metric) => only.has(m);
    if (has('tree')) benchTree(report, ro, runs, rng());
    if (has('path')) benchPath(report, ro, runs);
    if (has('find')) await benchFind(report, ro, { runs, rng: rng(), nodes, progress });
    if (has('chain') || has('verify')) {
      const chain = await chainModule();
      if (typeof chain === 'string') report.fact('chain, verify', `skipped: ${chain}`);
      else {
        if (has('chain')) await chain.benchChain(report, path, runs);
        if (has('verify')) await chain.benchVerify(report, path, runs);
      }
    }
    if (has('add')) benchAdd(report, path, { n, depth, runs, rng: rng(), progress });
  } finally {
    ro.close();
  }
  report.end();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await main(process.argv.slice(2));
