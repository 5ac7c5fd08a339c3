/**
 * Prints the store's speed on a shard, one line per metric, with the targets of issue 2.
 *
 *   npm run bench -- --db /tmp/arb-bench/1m.db [--only add,chain,verify,find] [--n 500] [--seed 1] [--json]
 *
 * add     In a COPY of the shard (the original is never written): 500 conversations of 100 turns (depths 0-99)
 *         are built in batches, then one turn is added under each leaf (depth 100: its ripple rehashes 100
 *         ancestors), each in its own transaction as a real ask is.
 *         p50 / p99 of those adds. Target p50 <= 0.5 ms, p99 <= 2 ms.
 * chain   chain-check over the whole audit chain, median of 5 runs, events/s. Target >= 1,000,000 events/s.
 * verify  verify of every node, median of 3 runs, seconds. Target <= 10 s for 1,000,000 nodes.
 * find    a mix of 1-3 word queries (common, middling and rare words, and every prefix as someone types a word)
 *         as the TUI's find overlay searches (Shard.search, last word a prefix, 50 hits, no snippets), as
 *         `arborist find` does (whole words, 20 hits with snippets) and through Shard.find (plain FTS5, prefix,
 *         20 hits with snippets); p50 / p95 over 3 rounds after a warm-up round. Target p95 <= 30 ms.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Shard } from '../src/store/index.js';
import { Rng } from './rng.js';
import { median, percentile } from './stats.js';

const USAGE =
  'usage: npm run bench -- --db PATH [--only add,chain,verify,find] [--n 500] [--seed 1] [--json]';
const ALL = ['add', 'chain', 'verify', 'find'] as const;
type Metric = (typeof ALL)[number];

function fail(msg: string): never {
  process.stderr.write(`bench: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    only: { type: 'string' },
    n: { type: 'string', default: '500' },
    depth: { type: 'string', default: '100' },
    seed: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
  },
  strict: true,
});
if (!values.db) fail('--db PATH is required');
const PATH = values.db;
if (!existsSync(PATH)) fail(`no shard at ${PATH}`);
const only = new Set<string>(values.only ? values.only.split(',').map((s) => s.trim()) : ALL);
for (const m of only) if (!(ALL as readonly string[]).includes(m)) fail(`unknown metric '${m}'`);
const N_ADD = Number(values.n);
const DEPTH = Number(values.depth);
if (!Number.isInteger(N_ADD) || N_ADD < 1) fail('--n must be a positive integer');
if (!Number.isInteger(DEPTH) || DEPTH < 1) fail('--depth must be a positive integer');
const rng = new Rng(Number(values.seed));

// ---- helpers ----------------------------------------------------------------------------------------------

function now(): bigint {
  return process.hrtime.bigint();
}
function msSince(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}
function fileSize(p: string): number {
  return existsSync(p) ? statSync(p).size : 0;
}
function fmtInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}

interface Line {
  metric: string;
  values: Record<string, number>;
  unit: string;
  target: string;
  ok: boolean | null;
  note?: string;
}
const lines: Line[] = [];
function report(line: Line): void {
  lines.push(line);
  if (values.json) return;
  const vals = Object.entries(line.values)
    .map(([k, v]) => `${k} ${v < 10 ? v.toFixed(3) : v < 1000 ? v.toFixed(1) : fmtInt(v)}`)
    .join('  ');
  const verdict = line.ok === null ? '' : line.ok ? '  ok' : '  MISSED';
  const note = line.note ? `  (${line.note})` : '';
  process.stdout.write(
    `${line.metric.padEnd(28)} ${vals} ${line.unit}   target ${line.target}${verdict}${note}\n`,
  );
}
function progress(msg: string): void {
  process.stderr.write(`bench: ${msg}\n`);
}

// ---- shard facts ------------------------------------------------------------------------------------------

const ro = Shard.open(PATH, { readonly: true });
const nodes = ro.db.prepare('SELECT count(*) FROM nodes').pluck().get() as number;
const sessions = ro.db.prepare('SELECT count(*) FROM sessions').pluck().get() as number;
const events = ro.audit.head().seq;
const bytes = fileSize(PATH) + fileSize(`${PATH}-wal`);
if (values.json) {
  // printed at the end
} else {
  process.stdout.write(
    `shard                        ${PATH}: ${fmtInt(nodes)} nodes, ${fmtInt(sessions)} sessions, ` +
      `${fmtInt(events)} events, ${mib(bytes)}\n`,
  );
}

// ---- (a) add at depth 100, in a copy --------------------------------------------------------------------

interface Sample {
  question: string;
  answer_text: string;
  cited_titles: string[];
}

/** Real texts from the shard (random rows), so the FTS work of each add is realistic. */
function sampleTexts(s: Shard, k: number): Sample[] {
  const maxId = s.db.prepare('SELECT coalesce(max(id), 0) FROM nodes').pluck().get() as number;
  const get = s.db.prepare(
    'SELECT question, answer_text, cited_titles_json FROM nodes WHERE id >= ? ORDER BY id LIMIT 1',
  );
  const out: Sample[] = [];
  for (let i = 0; i < k * 3 && out.length < k; i++) {
    const r = get.get(rng.int(1, Math.max(1, maxId))) as
      | { question: string; answer_text: string; cited_titles_json: string }
      | undefined;
    if (r)
      out.push({
        question: r.question,
        answer_text: r.answer_text,
        cited_titles: JSON.parse(r.cited_titles_json),
      });
  }
  if (out.length === 0) {
    out.push({
      question: 'what is a lifetime?',
      answer_text: 'A lifetime is a scope. '.repeat(30),
      cited_titles: [],
    });
  }
  return out;
}

function benchAdd(): void {
  const dir = mkdtempSync(join(tmpdir(), 'arb-bench-add-'));
  const copy = join(dir, 'copy.db');
  try {
    // The shard and its WAL (if any) copied together are a consistent snapshot while nobody writes; the copy is
    // then checkpointed. The original is only read.
    let t0 = now();
    copyFileSync(PATH, copy);
    if (fileSize(`${PATH}-wal`) > 0) copyFileSync(`${PATH}-wal`, `${copy}-wal`);
    const shard = Shard.open(copy);
    shard.db.pragma('wal_checkpoint(TRUNCATE)');
    progress(`add: copied the shard in ${(msSince(t0) / 1000).toFixed(1)} s`);

    const texts = sampleTexts(shard, 1000);
    let ti = 0;
    const text = () => texts[ti++ % texts.length];
    // N conversations of DEPTH turns each (depths 0 .. DEPTH-1), built in batches like an import.
    t0 = now();
    const leaves: string[] = [];
    const base = Date.parse('2026-01-01T00:00:00Z');
    let clock = 0;
    const CHAINS_PER_TX = 20;
    for (let c = 0; c < N_ADD; c += CHAINS_PER_TX) {
      shard.write(() => {
        for (let k = c; k < Math.min(N_ADD, c + CHAINS_PER_TX); k++) {
          const sid = shard.createSession({ label: `bench chain ${k}` }).sid;
          let parent: string | undefined;
          for (let d = 0; d < DEPTH; d++) {
            parent = shard.addTurn({
              ...text(),
              audit: 'grounded',
              session: sid,
              parent,
              created_at: new Date(base + clock++ * 1000).toISOString(),
            }).bates;
          }
          leaves.push(parent!);
        }
      });
    }
    shard.db.pragma('wal_checkpoint(TRUNCATE)');
    progress(
      `add: built ${fmtInt(N_ADD)} conversations of ${DEPTH} turns (${fmtInt(N_ADD * DEPTH)} turns) ` +
        `in ${(msSince(t0) / 1000).toFixed(1)} s`,
    );
    const depthOk = shard.db
      .prepare('SELECT depth FROM nodes WHERE bates = ?')
      .pluck()
      .get(leaves[0]) as number;
    if (depthOk !== DEPTH - 1) throw new Error(`unexpected leaf depth ${depthOk}`);

    // The timed adds: one turn under each leaf, each its own IMMEDIATE transaction (addTurn outside write()).
    // As in the TUI, where a person types between questions, the process's idle housekeeping (a WAL checkpoint
    // once 16 MiB wait) runs between adds, untimed: Shard.idle(). ARBORIST_BENCH_NO_IDLE=1 measures adds back
    // to back instead, with the inline checkpoint (past 64 MiB) landing inside some of them.
    const idleBetween = process.env.ARBORIST_BENCH_NO_IDLE !== '1';
    // As the TUI does (src/ui/app.ts): FTS rows are indexed in batches, at idle or 256 at a time.
    shard.deferIndexing = process.env.ARBORIST_BENCH_INDEX_NOW !== '1';
    shard.idle();
    const times: number[] = [];
    for (const leaf of leaves) {
      const t = text();
      const created_at = new Date(base + clock++ * 1000).toISOString();
      const t1 = now();
      shard.addTurn({ ...t, audit: 'grounded', parent: leaf, created_at });
      times.push(msSince(t1));
      if (idleBetween) shard.idle();
    }
    const newDepth = shard.db.prepare(
      'SELECT max(depth) FROM nodes WHERE id > (SELECT max(id) FROM nodes) - ?',
    );
    const maxDepth = newDepth.pluck().get(N_ADD) as number;
    shard.close();
    const p50 = percentile(times, 50);
    const p99 = percentile(times, 99);
    report({
      metric: `add at depth ${maxDepth}`,
      values: { p50, p90: percentile(times, 90), p99, max: Math.max(...times) },
      unit: 'ms',
      target: 'p50 <= 0.5, p99 <= 2',
      ok: p50 <= 0.5 && p99 <= 2,
      note: `${times.length} adds, each its own transaction, ${idleBetween ? 'idle housekeeping between adds' : 'back to back'}`,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- (b) chain-check, (c) verify ---------------------------------------------------------------------------

function benchChain(): void {
  const rates: number[] = [];
  let ev = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = now();
    const r = ro.chainCheck();
    const s = msSince(t0) / 1000;
    if (!r.ok) throw new Error(`chain-check failed: ${r.reason}`);
    ev = r.events;
    rates.push(r.events / s);
  }
  const m = median(rates);
  report({
    metric: 'chain-check',
    values: { median: m },
    unit: 'events/s',
    target: '>= 1,000,000',
    ok: m >= 1_000_000,
    note: `${fmtInt(ev)} events, ${(ev / m).toFixed(2)} s a run, 5 runs`,
  });
}

function benchVerify(): void {
  const secs: number[] = [];
  let n = 0;
  for (let i = 0; i < 3; i++) {
    const t0 = now();
    const r = ro.verify();
    secs.push(msSince(t0) / 1000);
    if (!r.ok) throw new Error(`verify found ${r.mismatches.length} mismatches`);
    n = r.nodes;
  }
  const m = median(secs);
  const target = Math.max(0.01, (10 * n) / 1_000_000);
  report({
    metric: 'verify',
    values: { median: m },
    unit: 's',
    target: `<= ${target < 1 ? target.toFixed(2) : target.toFixed(1)} (10 s per 1M)`,
    ok: m <= target,
    note: `${fmtInt(n)} nodes, ${fmtInt(n / m)} nodes/s, 3 runs`,
  });
}

// ---- (d) find ----------------------------------------------------------------------------------------------

/** Words of the shard with their document counts, from random turns' text and the FTS5 vocabulary. */
function vocabulary(): { common: string[]; middling: string[]; rare: string[] } {
  const texts = sampleTexts(ro, 150);
  const words = new Set<string>();
  for (const t of texts)
    for (const w of `${t.question} ${t.answer_text}`.toLowerCase().match(/\p{L}[\p{L}\p{N}]+/gu) ?? [])
      words.add(w);
  const doc = ro.db.prepare('SELECT doc FROM nodes_vocab WHERE term = ?').pluck();
  const counted = [...words].slice(0, 600).map((w) => [w, (doc.get(w) as number | undefined) ?? 0] as const);
  const common = counted.filter(([, d]) => d >= nodes * 0.05).map(([w]) => w);
  const middling = counted
    .filter(([, d]) => d < nodes * 0.05 && d >= Math.max(3, nodes * 0.0005))
    .map(([w]) => w);
  const rare = counted.filter(([, d]) => d > 0 && d < Math.max(3, nodes * 0.0005)).map(([w]) => w);
  return { common, middling, rare };
}

function queryMix(): string[] {
  const v = vocabulary();
  const pick = (xs: string[], fallback: string) => (xs.length > 0 ? rng.pick(xs) : fallback);
  const c = () => pick(v.common, 'the');
  const m = () => pick(v.middling, pick(v.common, 'the'));
  const r = () => pick(v.rare, pick(v.middling, 'the'));
  const qs: string[] = [];
  for (let i = 0; i < 10; i++) qs.push(c(), m(), r());
  for (let i = 0; i < 8; i++) qs.push(`${c()} ${c()}`, `${c()} ${m()}`, `${m()} ${r()}`);
  for (let i = 0; i < 6; i++) qs.push(`${c()} ${c()} ${c()}`, `${c()} ${m()} ${m()}`, `${m()} ${c()} ${r()}`);
  // Typing: every prefix from two letters on, alone and after one or two words already typed.
  const typed = [
    ...v.common.filter((w) => w.length >= 4).slice(0, 3),
    ...v.middling.filter((w) => w.length >= 5).slice(0, 5),
  ];
  for (const [i, w] of typed.entries()) {
    const lead = i % 3 === 0 ? '' : i % 3 === 1 ? `${c()} ` : `${c()} ${m()} `;
    for (let k = 2; k <= w.length; k++) qs.push(lead + w.slice(0, k));
  }
  for (const p of ['li', 'lif', 'life', 'the', 'wh', 'wha', 'what']) qs.push(p);
  return qs;
}

function benchFind(): void {
  const t0 = now();
  const qs = queryMix();
  progress(`find: ${qs.length} queries drawn in ${(msSince(t0) / 1000).toFixed(1)} s`);
  // The three ways the shard is searched: the TUI's find overlay (type-ahead, no snippets), `arborist find`
  // (whole words, snippets for every hit) and Shard.find (plain FTS5, type-ahead, snippets).
  const engines: [string, (q: string) => void][] = [
    ['find TUI (prefix, 50)', (q) => ro.search(q, { limit: 50, snippets: 0 })],
    ['find CLI (words, 20+snip)', (q) => ro.search(q, { limit: 20, prefix: false })],
    ['find FTS5 (prefix, 20+snip)', (q) => ro.find(q, { limit: 20 })],
  ];
  for (const [name, run] of engines) {
    for (const q of qs) run(q); // warm-up round: page cache and statements
    const times: number[] = [];
    const slow: [number, string][] = [];
    for (let round = 0; round < 3; round++) {
      for (const q of qs) {
        const t1 = now();
        run(q);
        const ms = msSince(t1);
        times.push(ms);
        if (round === 0) slow.push([ms, q]);
      }
    }
    slow.sort((a, b) => b[0] - a[0]);
    const p95 = percentile(times, 95);
    report({
      metric: name,
      values: { p50: percentile(times, 50), p95, max: Math.max(...times) },
      unit: 'ms',
      target: 'p95 <= 30',
      ok: p95 <= 30,
      note: `${qs.length} queries x 3; slowest: ${slow
        .slice(0, 3)
        .map(([ms, q]) => `"${q}" ${ms.toFixed(1)}`)
        .join(', ')}`,
    });
  }
}

// ---- main -------------------------------------------------------------------------------------------------

const order: [Metric, () => void][] = [
  ['chain', benchChain],
  ['verify', benchVerify],
  ['find', benchFind],
  ['add', benchAdd],
];
for (const [m, fn] of order) if (only.has(m)) fn();
ro.close();
if (values.json) {
  process.stdout.write(
    `${JSON.stringify({ shard: PATH, nodes, sessions, events, bytes, metrics: lines }, null, 2)}\n`,
  );
}
