/**
 * Times the built-in answerer from question to stored node, on a copy of a shard (the original is never written).
 *
 *   node dist/bench/ask.js --db /tmp/arb-bench/1m.db [--n 200] [--seed 1] [--json] [--keep]
 *
 * Questions are drawn from the shard itself: a few words of a random turn's question (as someone would re-ask
 * about an earlier topic), pronoun follow-ups ("who created it?") under a random turn, and a few questions about
 * nothing in the shard (the ungrounded path). Every ask has a random parent, bypasses the cache, and stores its turn.
 * Prints p50 / p95 / p99 / max in ms; the target is p95 <= 50 ms on 1,000,000 turns.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { ask } from '../src/ask/index.js';
import { retrieve } from '../src/ask/retrieve.js';
import { postingsOf, Shard } from '../src/store/index.js';
import { dbOf } from '../src/store/testing.js';
import { benchArgs } from './args.js';
import { Rng } from './rng.js';
import { percentile } from './stats.js';

const USAGE = 'usage: node dist/bench/ask.js --db PATH [--n 200] [--seed 1] [--json] [--keep]';

function fail(msg: string): never {
  process.stderr.write(`bench/ask: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

const { values } = benchArgs(
  'ask',
  {
    options: {
      db: { type: 'string' },
      n: { type: 'string', default: '200' },
      seed: { type: 'string', default: '1' },
      json: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
    },
    strict: true,
  },
  ['db'],
);
if (!values.db) fail('--db PATH is required');
const SRC = values.db;
const N = Number(values.n);
if (!Number.isInteger(N) || N < 1) fail('--n must be a positive integer');
if (!existsSync(SRC) || !statSync(SRC).isFile()) fail(`no shard at ${SRC}`);

const rng = new Rng(Number(values.seed));
const rand = () => rng.float();
const pick = <T>(xs: readonly T[]): T => rng.pick(xs);

const r2 = (x: number) => Math.round(x * 100) / 100;

const dir = mkdtempSync(join(tmpdir(), 'arborist-bench-ask-'));
const copy = join(dir, basename(SRC));
try {
  const t0 = performance.now();
  copyFileSync(SRC, copy);
  for (const ext of ['-wal']) if (existsSync(SRC + ext)) copyFileSync(SRC + ext, copy + ext);
  const copyMs = performance.now() - t0;

  const shard = Shard.open(copy);
  const maxId = (dbOf(shard).prepare('SELECT max(id) FROM nodes').pluck().get() as number | null) ?? 0;
  if (maxId === 0) fail(`${SRC} holds no turns`);
  const byId = dbOf(shard).prepare('SELECT bates, question FROM nodes WHERE id >= ? ORDER BY id LIMIT 1');
  const randomTurn = () => byId.get(1 + Math.floor(rand() * maxId)) as { bates: string; question: string };

  const FOLLOW_UPS = [
    'who created it?',
    'why is that?',
    'how do I test it?',
    'and what about its memory use?',
  ];
  const questions: { question: string; parent: string; kind: string }[] = [];
  for (let i = 0; i < 2 * (N + 10); i++) {
    const parent = randomTurn().bates;
    const x = rand();
    if (x < 0.2) questions.push({ question: pick(FOLLOW_UPS), parent, kind: 'follow-up' });
    else if (x < 0.25) {
      const nonce = () => `zq${Math.floor(rand() * 1e9).toString(36)}`;
      questions.push({ question: `how do I ${nonce()} the ${nonce()}?`, parent, kind: 'novel' });
    } else {
      const words = randomTurn().question.split(/\s+/);
      const len = 3 + Math.floor(rand() * 5);
      const start = Math.floor(rand() * Math.max(1, words.length - len));
      questions.push({
        question: words.slice(start, start + len).join(' ') || 'sqlite',
        parent,
        kind: 'topic',
      });
    }
  }

  const total: number[] = [];
  const retrieval: number[] = [];
  const audits: Record<string, number> = {};
  // The whole ask, question to stored node, on questions and parents nothing has touched yet.
  for (let i = 0; i < N + 10; i++) {
    const q = questions[i];
    const a = performance.now();
    const r = await ask(shard, { question: q.question, parent: q.parent, noCache: true });
    const b = performance.now();
    if (i < 10) continue; // warm-up: statement preparation
    total.push(b - a);
    audits[`${q.kind}:${r.audit}`] = (audits[`${q.kind}:${r.audit}`] ?? 0) + 1;
  }
  // The read side alone (path to the root + retrieval), on a second, fresh set.
  for (let i = N + 10; i < 2 * (N + 10); i++) {
    const q = questions[i];
    const a = performance.now();
    retrieve(postingsOf(shard), q.question, shard.pathTo(q.parent));
    const b = performance.now();
    if (i >= N + 20) retrieval.push(b - a);
  }
  const chain = shard.chainCheck();
  shard.close();

  total.sort((x, y) => x - y);
  retrieval.sort((x, y) => x - y);
  const summary = {
    shard: SRC,
    turns: maxId,
    asks: total.length,
    retrievals: retrieval.length,
    copy_ms: Math.round(copyMs),
    load_1m: r2(loadavg()[0]),
    ask_ms: {
      p50: r2(percentile(total, 50)),
      p95: r2(percentile(total, 95)),
      p99: r2(percentile(total, 99)),
      max: r2(total.at(-1)!),
    },
    retrieval_ms: {
      p50: r2(percentile(retrieval, 50)),
      p95: r2(percentile(retrieval, 95)),
      p99: r2(percentile(retrieval, 99)),
      max: r2(retrieval.at(-1)!),
    },
    audits,
    chain_ok: chain.ok,
  };
  if (values.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
  else {
    process.stdout.write(
      `built-in ask on ${SRC} (${maxId.toLocaleString('en')} turns), ${total.length} asks ` +
        `(copy ${summary.copy_ms} ms, load average ${summary.load_1m})\n` +
        `  question -> stored node  p50 ${summary.ask_ms.p50} ms  p95 ${summary.ask_ms.p95} ms  ` +
        `p99 ${summary.ask_ms.p99} ms  max ${summary.ask_ms.max} ms\n` +
        `  path + retrieval only    p50 ${summary.retrieval_ms.p50} ms  p95 ${summary.retrieval_ms.p95} ms\n` +
        `  audits ${JSON.stringify(audits)}  chain ${chain.ok ? 'ok' : 'BROKEN'}  ` +
        `target p95 <= 50 ms: ${summary.ask_ms.p95 <= 50 ? 'met' : 'MISSED'}\n`,
    );
  }
} finally {
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
  else process.stderr.write(`kept ${copy}\n`);
}
