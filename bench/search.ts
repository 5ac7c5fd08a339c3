/**
 * Find, as a user types: every prefix of each query is one keystroke, searched the way the TUI's find overlay
 * searches (limit 50, no snippets). Prints p50/p95/max per keystroke, overall and for the typo queries alone.
 *
 *   npm run build && node dist/bench/search.js --db /tmp/arb-bench/1m.db [--rounds 3]
 */
import { parseArgs } from 'node:util';
import { Shard } from '../src/store/index.js';
import { percentile } from './stats.js';

const { values } = parseArgs({
  options: { db: { type: 'string' }, rounds: { type: 'string', default: '3' } },
  strict: true,
});
if (!values.db) {
  process.stderr.write('usage: node dist/bench/search.js --db PATH [--rounds N]\n');
  process.exit(2);
}
// Opened as the TUI opens it (a schema migration, if one is due, happens once here, not in the timings).
const shard = Shard.open(values.db);

// Words that the generator's vocabulary holds (common and rare), typed whole and with one-letter slips.
const sample = shard.db
  .prepare('SELECT question FROM nodes WHERE id IN (SELECT id FROM nodes ORDER BY random() LIMIT 40)')
  .pluck()
  .all() as string[];
const words = [...new Set(sample.flatMap((q) => q.toLowerCase().match(/[a-z]{5,}/g) ?? []))].slice(0, 30);
const typo = (w: string) => w.slice(0, 2) + w.slice(3); // drop the third letter: "lifetime" -> "lietime"
const queries = [
  'the',
  'how do',
  'what is the',
  'error',
  ...words.slice(0, 12),
  ...words.slice(12, 20).map((w, i) => `${w} ${words[(i + 21) % words.length] ?? 'the'}`),
];
const typos = words.slice(20, 30).map(typo);

function typeOut(q: string, into: number[]): void {
  for (let i = 1; i <= q.length; i++) {
    const t0 = process.hrtime.bigint();
    shard.search(q.slice(0, i), { limit: 50, snippets: 0 });
    into.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
}

const rounds = Number(values.rounds);
const all: number[] = [];
const typoTimes: number[] = [];
// Warm the page cache once, as a running TUI would be.
for (const q of queries.slice(0, 4)) shard.search(q, { limit: 50, snippets: 0 });
for (let r = 0; r < rounds; r++) {
  for (const q of queries) typeOut(q, all);
  for (const q of typos) {
    const t0 = process.hrtime.bigint();
    shard.search(q, { limit: 50, snippets: 0 });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    typoTimes.push(ms);
    all.push(ms);
  }
}
const nodes = shard.db.prepare('SELECT coalesce(sum(n_nodes), 0) FROM sessions').pluck().get() as number;
const f = (x: number) => x.toFixed(2);
console.log(`search: ${nodes} turns, ${all.length} keystrokes`);
console.log(
  `search keystroke        p50 ${f(percentile(all, 50))} ms  p95 ${f(percentile(all, 95))} ms  max ${f(Math.max(...all))} ms`,
);
console.log(
  `search one-letter typo  p50 ${f(percentile(typoTimes, 50))} ms  p95 ${f(percentile(typoTimes, 95))} ms  (${typos.slice(0, 3).join(', ')} ...)`,
);
shard.close();
