/**
 * find, as typed and as asked, beside a bare FTS5 lookup of one rare term measured in the same run, all under the
 * benchmark's own background load of one busy core (bench/busy.ts): people type while an import or a chain check
 * runs.
 *
 * as typed   a mix of queries (the common short prefixes "th", "that", "shou"; common, middling and rare words;
 *            multi-word queries) typed key by key: every prefix is one keystroke, searched as the TUI's find box
 *            searches (src/ui/runtime/find-worker.ts: Shard.search, limit 50 = FIND_LIMIT, last word a prefix,
 *            snippets only for the hits matched in their answer alone, no scope). p50 / p95 / p99 / slowest
 *            keystroke of each run.
 * CLI        `arborist find` (src/cli/commands/find.ts): whole words, 20 hits with snippets, on the finished queries.
 * Shard.find plain FTS5, prefix, 20 hits with snippets, on the finished queries.
 * floor      `SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH '"<rare>"' ORDER BY rowid DESC LIMIT 50`, one before
 *            each query, so load and cache hit both alike; each percentile of a run is paired with the median of
 *            the floor's lookups in that run.
 */
import type { Shard } from '../src/store/index.js';
import { dbOf } from '../src/store/testing.js';
import { oneLine } from '../src/text/sanitize.js';
import { startBusyCore } from './busy.js';
import type { Pair, Report } from './ratio.js';
import type { Rng } from './rng.js';
import { type Vocabulary, vocabulary } from './sample.js';
import { percentile } from './stats.js';

export interface FindBenchOptions {
  runs: number;
  rng: Rng;
  /** Turns in the shard (the word classes are relative to it). */
  nodes: number;
  /** Progress lines (stderr). */
  progress?: (msg: string) => void;
}

/** The finished queries: what is typed key by key, and what the CLI and Shard.find are asked. */
export function queryMix(v: Vocabulary, rng: Rng): string[] {
  const pick = (xs: string[], fallback: string) => (xs.length > 0 ? rng.pick(xs) : fallback);
  const c = () => pick(v.common, 'the');
  const m = () => pick(v.middling, pick(v.common, 'the'));
  const r = () => pick(v.rare, pick(v.middling, 'the'));
  // Words typed whole give every shorter prefix on the way: "t", "th", "tha", "that"; "s", ..., "shou", "should".
  const qs = ['that', 'should', 'this', 'what', 'the'];
  for (let i = 0; i < 3; i++) qs.push(c());
  for (let i = 0; i < 5; i++) qs.push(m());
  for (let i = 0; i < 4; i++) qs.push(r());
  qs.push(
    `how do I ${m()}`,
    `what is the difference between ${m()} and ${m()}`,
    `should I use ${m()}`,
    `${c()} ${m()}`,
    `${m()} ${r()}`,
    `${c()} ${c()} ${c()}`,
    `${r()} ${m()}`,
    `that ${m()}`,
  );
  return qs;
}

/**
 * Date filters far back (docs/find.md, "Filters"): the day of the turn an eighth of the way into the shard, so the
 * newest seven eighths of the matches fail `before:`. After the drawn mix, so its queries stay what they were.
 */
export function dateQueries(shard: Shard, v: Vocabulary): string[] {
  const db = dbOf(shard);
  const max = (db.prepare('SELECT max(id) FROM nodes').pluck().get() as number | null) ?? 0;
  const day = db
    .prepare('SELECT substr(created_at, 1, 10) FROM nodes WHERE id >= ? ORDER BY id LIMIT 1')
    .pluck()
    .get(Math.floor(max / 8)) as string | undefined;
  if (day === undefined) return [];
  return [`${v.common[0] ?? 'the'} before:${day}`, `before:${day} ${v.middling[0] ?? 'that'}`];
}

/** Every prefix of each query, as someone types it (spaces included: "how " is searched too). */
export function keystrokes(queries: readonly string[]): string[] {
  const out: string[] = [];
  for (const q of queries) for (let i = 1; i <= q.length; i++) out.push(q.slice(0, i));
  return out;
}

/** The rare term of the floor: the least common word of the sample that is in the index at all. */
function rareTerm(v: Vocabulary): string {
  const held = [...v.docs].filter(([, d]) => d > 0).sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1));
  return held[0]?.[0] ?? 'the';
}

function timeOne(fn: () => unknown): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

/** A query's text for the terminal: one line, no control characters, at most 60 characters. */
function shown(q: string): string {
  const s = oneLine(q);
  return s.length > 60 ? `${s.slice(0, 59)}…` : s;
}

export async function benchFind(report: Report, shard: Shard, opts: FindBenchOptions): Promise<void> {
  const progress = opts.progress ?? (() => {});
  const runs = Math.max(5, opts.runs);
  const t0 = performance.now();
  const v = vocabulary(shard, opts.rng, opts.nodes);
  const queries = [...queryMix(v, opts.rng), ...dateQueries(shard, v)];
  const keys = keystrokes(queries);
  const rare = rareTerm(v);
  progress(
    `find: ${queries.length} queries, ${keys.length} keystrokes, drawn in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  const floorSql = dbOf(shard)
    .prepare('SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? ORDER BY rowid DESC LIMIT 50')
    .pluck();
  const floorArg = `"${rare.replaceAll('"', '""')}"`;
  const floor = () => floorSql.all(floorArg);
  const tui = (q: string) => shard.search(q, { limit: 50, snippets: 0, answerSnippets: true });
  const cli = (q: string) => shard.search(q, { limit: 20, prefix: false });
  const fts = (q: string) => shard.search(q, { limit: 20 }).hits;

  report.fact(
    'find: queries',
    `${queries.length} typed key by key = ${keys.length} keystrokes a run, ${runs} runs`,
  );
  report.fact('find: floor term', `"${shown(rare)}" (in ${v.docs.get(rare) ?? 0} turns)`);
  const busy = await startBusyCore();
  try {
    report.fact('find: background load', `${busy.describe}, started before find and stopped after`);
    // Warm-up, untimed: the page cache and the statements, as a running TUI has them.
    for (const k of keys) tui(k);
    for (const q of queries) {
      cli(q);
      fts(q);
    }

    type Run = { fig: number[]; flo: number[] };
    const typed: Run[] = [];
    const slow: { ms: number; q: string }[] = [];
    const asked: Record<'cli' | 'fts', Run[]> = { cli: [], fts: [] };
    for (let run = 0; run < runs; run++) {
      const r: Run = { fig: [], flo: [] };
      for (const k of keys) {
        r.flo.push(timeOne(floor));
        const ms = timeOne(() => tui(k));
        r.fig.push(ms);
        slow.push({ ms, q: k });
      }
      typed.push(r);
      for (const [name, fn] of [
        ['cli', cli],
        ['fts', fts],
      ] as const) {
        const a: Run = { fig: [], flo: [] };
        for (const q of queries) {
          a.flo.push(timeOne(floor));
          a.fig.push(timeOne(() => fn(q)));
        }
        asked[name].push(a);
      }
      progress(`find: run ${run + 1}/${runs}: typed p95 ${percentile(r.fig, 95).toFixed(1)} ms`);
    }
    // Each percentile of a run beside the median floor lookup of that run: what one bare lookup costs on this
    // machine right now. (The floor's own tail is not used: a 0.2 ms lookup is rarely preempted, a 20 ms search
    // nearly always is, so pairing tail with tail would put the scheduler's noise in the ratio.)
    const at = (rs: Run[], p: number): Pair[] =>
      rs.map((r) => ({ figure: percentile(r.fig, p), floor: percentile(r.flo, 50) }));
    const worst = (rs: Run[]): Pair[] =>
      rs.map((r) => ({ figure: Math.max(...r.fig), floor: percentile(r.flo, 50) }));
    const floorIs = `median of a bare FTS5 lookup of "${shown(rare)}", one before each query`;
    const typedNote = `Shard.search as the TUI's find box calls it (limit 50, prefix, snippets for answer-only hits), ${keys.length} keystrokes a run, under one busy core`;
    report.add({
      name: 'find as typed, p50 keystroke',
      kind: 'time',
      unit: 'ms',
      floorIs,
      pairs: at(typed, 50),
      note: typedNote,
    });
    report.add({
      name: 'find as typed, p95 keystroke',
      kind: 'time',
      unit: 'ms',
      floorIs,
      pairs: at(typed, 95),
      target: { at_most: 30 },
    });
    report.add({
      name: 'find as typed, p99 keystroke',
      kind: 'time',
      unit: 'ms',
      floorIs,
      pairs: at(typed, 99),
      target: { at_most: 40 },
    });
    report.add({
      name: 'find as typed, slowest keystroke',
      kind: 'time',
      unit: 'ms',
      floorIs,
      pairs: worst(typed),
      target: { max_at_most: 80 },
    });
    slow.sort((a, b) => b.ms - a.ms);
    const top = slow.slice(0, 10).map((s) => ({ ms: +s.ms.toFixed(2), query: shown(s.q) }));
    report.fact(
      'find as typed: the 10 slowest keystrokes (all runs)',
      `\n${top.map((s) => `  ${s.ms.toFixed(1).padStart(7)} ms  "${s.query}"`).join('\n')}`,
    );
    report.facts['find as typed: the 10 slowest keystrokes (all runs)'] = top;
    for (const [name, runs] of [
      ['find CLI (arborist find: words, 20 hits + snippets), p95 query', asked.cli],
      ['find Shard.find (FTS5, prefix, 20 hits + snippets), p95 query', asked.fts],
    ] as const)
      report.add({
        name,
        kind: 'time',
        unit: 'ms',
        floorIs,
        pairs: at(runs, 95),
        target: { at_most: 30 },
        note: `${queries.length} finished queries a run; p50 ${percentile(
          runs.flatMap((r) => r.fig),
          50,
        ).toFixed(2)} ms`,
      });
  } finally {
    const rate = await busy.stop();
    report.fact(
      'find: background load stopped',
      `it ran at ${Math.round(rate).toLocaleString('en-US')} hashes/s`,
    );
  }
}
