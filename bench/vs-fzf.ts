/**
 * find beside fzf, a reference a user knows (issue 12): the shard's questions are dumped to a temporary file, one a
 * line, newest first, and the same queries are timed, one after the other in the same run, as `fzf --filter QUERY`
 * reading that file (a new process each query, as a shell pipeline runs it) and as Shard.search as the TUI's find
 * box calls it (limit 50, last word a prefix, no snippets; over questions AND answers, typos forgiven).
 *
 *   npm run bench:fzf -- --db PATH [--runs 5] [--seed 1] [--json]
 *
 * fzf is not a floor: it does other work (fuzzy matching of the questions only, every match printed, its start-up
 * and the file read each time). Its figures are printed beside ours for a sense of scale. Without fzf on PATH this
 * prints one line saying how to install it and exits 0.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Shard } from '../src/store/index.js';
import { dbOf } from '../src/store/testing.js';
import { oneLine } from '../src/text/sanitize.js';
import { queryMix } from './find.js';
import { type Pair, Report } from './ratio.js';
import { Rng } from './rng.js';
import { vocabulary } from './sample.js';
import { median, percentile } from './stats.js';

const USAGE = 'usage: npm run bench:fzf -- --db PATH [--runs 5] [--seed 1] [--json]';

function fail(msg: string): never {
  process.stderr.write(`vs-fzf: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

/** The fzf on PATH, or null. */
export function fzfPath(): string | null {
  const r = spawnSync('sh', ['-c', 'command -v fzf'], { encoding: 'utf8' });
  const p = r.status === 0 ? r.stdout.trim() : '';
  return p === '' ? null : p;
}

function shown(q: string): string {
  const s = oneLine(q);
  return s.length > 40 ? `${s.slice(0, 39)}…` : s;
}

export function benchFzf(fzf: string, path: string, runs: number, seed: number, json: boolean): void {
  const shard = Shard.open(path, { readonly: true });
  const dir = mkdtempSync(join(tmpdir(), 'arb-vs-fzf-'));
  try {
    const report = new Report(`arborist vs fzf: ${path}`, json);
    const file = join(dir, 'questions.txt');
    const questions = dbOf(shard)
      .prepare('SELECT question FROM nodes ORDER BY id DESC')
      .pluck()
      .all() as string[];
    writeFileSync(file, `${questions.map(oneLine).join('\n')}\n`);
    const nodes = questions.length;
    const rng = new Rng(seed);
    const queries = ['th', 'shou', ...queryMix(vocabulary(shard, rng, nodes), rng)];
    const version = spawnSync(fzf, ['--version'], { encoding: 'utf8' }).stdout.trim();
    report.fact(
      'fzf',
      `${fzf} ${version}: --filter QUERY < a file of the ${nodes.toLocaleString('en-US')} questions, one process a query`,
    );
    report.fact('queries', `${queries.length} a run, ${runs} runs`);

    const runFzf = (q: string): { ms: number; matches: number } => {
      const fd = openSync(file, 'r');
      try {
        const t = performance.now();
        const r = spawnSync(fzf, ['--filter', q], { stdio: [fd, 'pipe', 'pipe'], maxBuffer: 1 << 30 });
        const ms = performance.now() - t;
        // 0: matches, 1: none; anything else is fzf failing.
        if (r.status !== 0 && r.status !== 1)
          throw new Error(`fzf --filter failed: ${r.stderr?.toString().split('\n')[0]}`);
        let matches = 0;
        for (const b of r.stdout as Buffer) if (b === 10) matches++;
        return { ms, matches };
      } finally {
        closeSync(fd);
      }
    };
    const search = (q: string) => {
      const t = performance.now();
      const r = shard.search(q, { limit: 50, snippets: 0 });
      return { ms: performance.now() - t, hits: r.hits.length };
    };
    // Warm-up: the file in the page cache, fzf's binary, the shard's pages and statements.
    for (const q of queries.slice(0, 5)) runFzf(q);
    for (const q of queries) search(q);

    const perQuery = queries.map(() => ({ fzf: [] as number[], ours: [] as number[], matches: 0, hits: 0 }));
    const p50: Pair[] = [];
    const p95: Pair[] = [];
    for (let run = 0; run < runs; run++) {
      const f: number[] = [];
      const o: number[] = [];
      for (const [i, q] of queries.entries()) {
        const a = runFzf(q);
        const b = search(q);
        f.push(a.ms);
        o.push(b.ms);
        perQuery[i].fzf.push(a.ms);
        perQuery[i].ours.push(b.ms);
        perQuery[i].matches = a.matches;
        perQuery[i].hits = b.hits;
      }
      p50.push({ figure: percentile(o, 50), floor: percentile(f, 50) });
      p95.push({ figure: percentile(o, 95), floor: percentile(f, 95) });
      process.stderr.write(`vs-fzf: run ${run + 1}/${runs}\n`);
    }
    const floorIs = (p: string) => `${p} of fzf --filter on the same queries (a reference, not a floor)`;
    const note = 'ratio < 1: Shard.search answered faster than fzf --filter';
    report.add({
      name: 'Shard.search (the TUI find box), p50 query',
      kind: 'time',
      unit: 'ms',
      floorIs: floorIs('p50'),
      pairs: p50,
      note,
    });
    report.add({
      name: 'Shard.search (the TUI find box), p95 query',
      kind: 'time',
      unit: 'ms',
      floorIs: floorIs('p95'),
      pairs: p95,
    });
    const rows = perQuery.map((r, i) => ({
      query: shown(queries[i]),
      fzf_ms: +median(r.fzf).toFixed(2),
      fzf_matches: r.matches,
      search_ms: +median(r.ours).toFixed(2),
      search_hits: r.hits,
    }));
    report.fact(
      'per query (medians of the runs)',
      `\n  ${'query'.padEnd(42)} ${'fzf ms'.padStart(8)} ${'matches'.padStart(8)} ${'ours ms'.padStart(8)} ${'hits'.padStart(5)}\n` +
        rows
          .map(
            (r) =>
              `  ${`"${r.query}"`.padEnd(42)} ${r.fzf_ms.toFixed(1).padStart(8)} ${String(r.fzf_matches).padStart(8)} ${r.search_ms.toFixed(1).padStart(8)} ${String(r.search_hits).padStart(5)}`,
          )
          .join('\n'),
    );
    report.facts['per query (medians of the runs)'] = rows;
    report.end();
  } finally {
    shard.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function main(argv: string[]): void {
  let values: { db?: string; runs: string; seed: string; json: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        db: { type: 'string' },
        runs: { type: 'string', default: '5' },
        seed: { type: 'string', default: '1' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (err) {
    fail((err as Error).message);
  }
  if (!values.db) fail('--db PATH is required');
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 5) fail(`--runs must be an integer >= 5, not '${values.runs}'`);
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) fail(`--seed must be an integer, not '${values.seed}'`);
  const fzf = fzfPath();
  if (fzf === null) {
    process.stdout.write(
      'vs-fzf: skipped, fzf is not installed (apt-get install fzf, then run this again)\n',
    );
    return;
  }
  try {
    benchFzf(fzf, values.db, runs, seed, values.json);
  } catch (err) {
    const e = err as { kind?: string; message: string };
    if (e.kind === undefined) throw err;
    fail(e.message.split('\n')[0]);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
