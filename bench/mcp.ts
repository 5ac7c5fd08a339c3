/**
 * `arborist mcp` as an agent uses it (issue 31: 50 calls in a row, under 20 ms median each on the 1M shard), beside
 * the same work done in this process, measured in the same run.
 *
 *   npm run bench:mcp -- --db PATH [--runs 5] [--seed 1] [--json]
 *
 * PATH is a shard made by `npm run gen -- --nodes N --db PATH`; it is only read (the server and this process open
 * it read-only). The calls: for each of 10 queries drawn from the shard's own words (bench/find.ts's mix), find,
 * then show, path and tree of its first hit, then list: 50 calls, each awaited before the next, as an agent makes
 * them. Measured, each run:
 *   figure  the median call through the real SDK client and the real server (bin/arborist mcp, over stdio);
 *   floor   the median of the same 50 calls in this process (src/mcp/tools.ts on a read-only Shard): the engine's
 *           own cost, so figure - floor is what the protocol, the process boundary and the SDK add.
 * And start-up: spawn, initialize and the first answer (a list, which opens the shard), beside `node -e ''`, with
 * the server's V8 code cache (left by the long session of the calls, in a folder of the benchmark's) and without.
 * check (the whole audit chain) is timed once, beside chainCheck() in this process: it is seconds on a million
 * events, never one of the 50.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { find, list, path, show, tree } from '../src/mcp/tools.js';
import { Shard } from '../src/store/index.js';
import { benchArgs } from './args.js';
import { queryMix } from './find.js';
import { type Pair, Report } from './ratio.js';
import { Rng } from './rng.js';
import { vocabulary } from './sample.js';
import { median, percentile } from './stats.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/arborist');

interface Call {
  tool: 'find' | 'show' | 'path' | 'tree' | 'list';
  args: Record<string, unknown>;
}

const TOOLS = {
  find: (s: Shard, a: Record<string, unknown>) => find(s, a as never),
  show: (s: Shard, a: Record<string, unknown>) => show(s, a as never),
  path: (s: Shard, a: Record<string, unknown>) => path(s, a as never),
  tree: (s: Shard, a: Record<string, unknown>) => tree(s, a as never),
  list: (s: Shard, a: Record<string, unknown>) => list(s, a as never),
};

/** The 50 calls: per query, find, then show, path and tree of its first hit, then list. */
function callsFor(shard: Shard, queries: string[]): Call[] {
  const calls: Call[] = [];
  for (const query of queries) {
    if (calls.length >= 50) break;
    const hit = find(shard, { query }).hits[0];
    if (hit === undefined) continue;
    const sid = hit.bates.replace(/-\d+$/, '');
    calls.push(
      { tool: 'find', args: { query } },
      { tool: 'show', args: { bates: hit.bates } },
      { tool: 'path', args: { bates: hit.bates } },
      { tool: 'tree', args: { session: sid } },
      { tool: 'list', args: {} },
    );
  }
  return calls.slice(0, 50);
}

/** The server's V8 code cache (src/cli/code-cache.ts) goes to a folder of the benchmark's own. */
const CACHE_HOME = mkdtempSync(join(tmpdir(), 'arborist-bench-mcp-'));

async function connect(db: string, env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'arborist-bench', version: '0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--db', db],
      stderr: 'inherit',
      env: { XDG_CACHE_HOME: CACHE_HOME, ...env },
    }),
  );
  return client;
}

async function overStdio(client: Client, calls: Call[]): Promise<number[]> {
  const ms: number[] = [];
  for (const c of calls) {
    const t = performance.now();
    const r = await client.callTool({ name: c.tool, arguments: c.args });
    ms.push(performance.now() - t);
    if (r.isError) throw new Error(`${c.tool} ${JSON.stringify(c.args)}: ${JSON.stringify(r.content)}`);
  }
  return ms;
}

function inProcess(shard: Shard, calls: Call[]): number[] {
  return calls.map((c) => {
    const t = performance.now();
    JSON.stringify(TOOLS[c.tool](shard, c.args));
    return performance.now() - t;
  });
}

function spawnMs(args: string[]): number {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return performance.now() - t;
}

async function startMs(db: string, env: Record<string, string> = {}): Promise<number> {
  const t = performance.now();
  const client = await connect(db, env);
  await client.callTool({ name: 'list', arguments: { limit: 1 } });
  const ms = performance.now() - t;
  await client.close();
  return ms;
}

async function main(): Promise<void> {
  const { values } = benchArgs(
    'mcp',
    {
      options: {
        db: { type: 'string' },
        runs: { type: 'string', default: '5' },
        seed: { type: 'string', default: '1' },
        json: { type: 'boolean', default: false },
      },
    },
    ['db'],
  );
  if (values.db === undefined) throw new Error('usage: npm run bench:mcp -- --db PATH [--runs 5] [--json]');
  const db = values.db;
  const runs = Math.max(3, Number(values.runs));
  const report = new Report(`arborist bench mcp: ${db}`, values.json);
  const shard = Shard.open(db, { readonly: true });
  try {
    const nodes = shard.sessionSummaries().reduce((n, s) => n + s.n_nodes, 0);
    const rng = new Rng(Number(values.seed));
    const queries = queryMix(vocabulary(shard, rng, nodes), rng).filter((q) => q.length > 3);
    const calls = callsFor(shard, queries);
    report.fact(
      'shard',
      `${nodes.toLocaleString('en')} turns in ${shard.sessionCount().toLocaleString('en')} sessions`,
    );
    report.fact(
      'calls',
      `${calls.length} a run: ${calls.filter((c) => c.tool === 'find').length} x (find, show, path, tree, list)`,
    );

    const client = await connect(db);
    const perCall: Pair[] = [];
    const worst: string[] = [];
    const byTool = new Map<string, number[]>();
    const floorByTool = new Map<string, number[]>();
    try {
      await overStdio(client, calls); // warm: the page cache and the server's statements, as after an agent's first calls
      inProcess(shard, calls);
      for (let i = 0; i < runs; i++) {
        const floor = inProcess(shard, calls);
        const figure = await overStdio(client, calls);
        perCall.push({ floor: median(floor), figure: median(figure) });
        worst.push(`${percentile(figure, 95).toFixed(1)}/${Math.max(...figure).toFixed(1)}`);
        for (const [j, ms] of figure.entries()) {
          const k = calls[j].tool;
          byTool.set(k, [...(byTool.get(k) ?? []), ms]);
          floorByTool.set(k, [...(floorByTool.get(k) ?? []), floor[j]]);
        }
      }
      const t = performance.now();
      const r = await client.callTool({ name: 'check', arguments: {} });
      const checkMs = performance.now() - t;
      const t2 = performance.now();
      shard.chainCheck();
      const inProcMs = performance.now() - t2;
      report.fact(
        'check, once',
        `${checkMs.toFixed(0)} ms over stdio, chainCheck() ${inProcMs.toFixed(0)} ms in process (${r.isError ? 'error' : 'ok'})`,
      );
    } finally {
      await client.close();
    }
    // Start-up after the calls: the long session above left the code cache, as an agent's first session does.
    const start: Pair[] = [];
    const cold: Pair[] = [];
    for (let i = 0; i < runs; i++) {
      start.push({ floor: spawnMs(['-e', '']), figure: await startMs(db) });
      cold.push({ floor: spawnMs(['-e', '']), figure: await startMs(db, { ARBORIST_CODE_CACHE: 'off' }) });
    }
    report.fact('p95/slowest call over stdio, per run (ms)', worst.join('  '));
    report.fact(
      'median per tool, over stdio / in process (ms)',
      [...byTool]
        .map(([k, xs]) => `${k} ${median(xs).toFixed(1)} / ${median(floorByTool.get(k) ?? []).toFixed(1)}`)
        .join(', '),
    );
    report.add({
      name: 'one call over stdio (median of 50 in a row), 1 client, the real server',
      kind: 'time',
      unit: 'ms',
      floorIs: 'the same call in this process (src/mcp/tools.ts, read-only Shard)',
      pairs: perCall,
      target: { at_most: 20 },
    });
    report.add({
      name: 'start-up: spawn, initialize, first answer (list, opening the shard)',
      kind: 'time',
      unit: 'ms',
      floorIs: "node -e '' (a Node process that does nothing)",
      pairs: start,
    });
    report.add({
      name: 'start-up without the code cache (ARBORIST_CODE_CACHE=off: the first start of a new build)',
      kind: 'time',
      unit: 'ms',
      floorIs: "node -e '' (a Node process that does nothing)",
      pairs: cold,
    });
  } finally {
    shard.close();
    rmSync(CACHE_HOME, { recursive: true, force: true });
  }
  report.end();
}

await main();
