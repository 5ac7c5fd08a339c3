import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ask,
  BUILTIN_POLICY,
  cacheKey,
  conversationHash,
  normaliseQuestion,
  policyId,
} from '../../src/ask/index.js';
import { Shard } from '../../src/store/index.js';
import { tempDb, tempDir } from '../support/tmp.js';
import { type Corpus, capture, counts, nodeCmd, runs, seed } from './helpers.js';

let shard: Shard;
let c: Corpus;
let counter: string;

beforeEach(() => {
  shard = Shard.open(tempDb());
  c = seed(shard);
  counter = join(tempDir('arborist-cache-'), 'runs');
});
afterEach(() => shard.close());

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

describe('cache key', () => {
  it('is sha256 over the canonical JSON of {conversation_hash, provider, question}', () => {
    // Written out by hand, so the definition in docs/asking.md can be checked from any language.
    const empty = sha('[]');
    expect(conversationHash([])).toBe(empty);
    expect(cacheKey('  What is\tRUST? ', 'builtin/1', empty)).toBe(
      sha(`{"conversation_hash":"${empty}","provider":"builtin/1","question":"what is rust?"}`),
    );
    const path = shard.pathTo(c.a2);
    const conv = sha(
      `[{"bates":"${c.a1}","node_hash":"${path[0].node_hash}"},{"bates":"${c.a2}","node_hash":"${path[1].node_hash}"}]`,
    );
    expect(conversationHash(path)).toBe(conv);
  });

  it('normalises the question: NFKC, collapsed whitespace, trimmed, lowercased', () => {
    expect(normaliseQuestion('  Ｗhat\u00a0is\n\n ﬁle  I/O? ')).toBe('what is file i/o?');
    expect(normaliseQuestion('what is rust')).not.toBe(normaliseQuestion('what is rust?'));
  });

  it('names the provider policy', () => {
    expect(policyId({ kind: 'builtin' })).toBe(BUILTIN_POLICY);
    expect(policyId({ kind: 'command', argv: ['llm', '-m', 'gpt 4o'], timeoutMs: 5 })).toBe(
      'command:["llm","-m","gpt 4o"]',
    );
    expect(policyId({ kind: 'manual', answer: 'x' })).toBe('manual');
  });
});

describe('answer cache', () => {
  it('the same question in the same context is answered from the cache without running the provider', async () => {
    const p = capture('-', counter);
    const first = await ask(shard, { question: 'What is WAL mode?', parent: c.b1, provider: p });
    expect(first.audit).toBe('fresh');
    expect(runs(counter)).toBe(1);

    const chunks: string[] = [];
    const again = await ask(shard, {
      question: '  what is   wal MODE? ',
      parent: c.b1,
      provider: p,
      onChunk: (t) => chunks.push(t),
    });
    expect(runs(counter)).toBe(1);
    expect(again.audit).toBe('cached');
    expect(again.cache_key).toBe(first.cache_key);
    expect(again.answer_text).toBe(first.answer_text);
    expect(chunks.join('')).toBe(first.answer_text);
    const node = shard.requireNode(again.bates);
    expect(node.audit).toBe('cached');
    expect(node.cache_key).toBe(first.cache_key);
    expect(node.question).toBe('  what is   wal MODE? ');
    expect(shard.findByCacheKey(first.cache_key).map((n) => n.bates)).toEqual([first.bates, again.bates]);
    expect(shard.chainCheck().ok).toBe(true);
  });

  it('a fork from the same parent has the same history: a hit', async () => {
    const p = capture('-', counter);
    const first = await ask(shard, { question: 'what is wal mode?', parent: c.b1, provider: p });
    const fork = await ask(shard, { question: 'what is wal mode?', parent: c.b1, provider: p, fork: true });
    expect(fork.audit).toBe('cached');
    expect(fork.sid).not.toBe(first.sid);
    expect(runs(counter)).toBe(1);
  });

  it('a different branch is a miss', async () => {
    const p = capture('-', counter);
    const a = await ask(shard, { question: 'what is wal mode?', parent: c.b1, provider: p });
    const b = await ask(shard, { question: 'what is wal mode?', parent: c.b2, provider: p });
    const root = await ask(shard, { question: 'what is wal mode?', provider: p });
    const under = await ask(shard, { question: 'what is wal mode?', parent: a.bates, provider: p });
    expect([a.audit, b.audit, root.audit, under.audit]).toEqual(['fresh', 'fresh', 'fresh', 'fresh']);
    expect(new Set([a.cache_key, b.cache_key, root.cache_key, under.cache_key]).size).toBe(4);
    expect(runs(counter)).toBe(4);
  });

  it('a different provider is a miss', async () => {
    await ask(shard, { question: 'what is wal mode?', parent: c.b1, provider: capture('-', counter) });
    const other = await ask(shard, {
      question: 'what is wal mode?',
      parent: c.b1,
      provider: nodeCmd('console.log(42)'),
    });
    expect(other.audit).toBe('fresh');
    expect(other.answer_text).toBe('42');
  });

  it('noCache runs the provider again and refreshes the cached answer', async () => {
    const p = capture('-', counter);
    const first = await ask(shard, { question: 'what is wal mode?', parent: c.b1, provider: p });
    expect(first.answer_text).toBe('answer #1 to: what is wal mode?');
    const forced = await ask(shard, {
      question: 'what is wal mode?',
      parent: c.b1,
      provider: p,
      noCache: true,
    });
    expect(forced.audit).toBe('fresh');
    expect(forced.answer_text).toBe('answer #2 to: what is wal mode?');
    expect(forced.cache_key).toBe(first.cache_key);
    expect(runs(counter)).toBe(2);
    const later = await ask(shard, { question: 'what is wal mode?', parent: c.b1, provider: p });
    expect(later.audit).toBe('cached');
    expect(later.answer_text).toBe('answer #2 to: what is wal mode?');
    expect(runs(counter)).toBe(2);
  });

  it('manual answers are never cached, but record their cache key', async () => {
    const before = counts(shard).cache;
    const m = await ask(shard, {
      question: 'what is wal mode?',
      parent: c.b1,
      provider: { kind: 'manual', answer: 'A log.' },
    });
    expect(counts(shard).cache).toBe(before);
    expect(m.cache_key).toBe(cacheKey('what is wal mode?', 'manual', conversationHash(shard.pathTo(c.b1))));
    expect(shard.requireNode(m.bates).cache_key).toBe(m.cache_key);
    const again = await ask(shard, {
      question: 'what is wal mode?',
      parent: c.b1,
      provider: { kind: 'manual', answer: 'B' },
    });
    expect(again.audit).toBe('manual');
    expect(again.answer_text).toBe('B');
  });

  it('failed runs leave no cache entry', async () => {
    const before = counts(shard).cache;
    await expect(ask(shard, { question: 'q', provider: nodeCmd('process.exit(2)') })).rejects.toThrow(
      /exit status 2/,
    );
    expect(counts(shard).cache).toBe(before);
  });

  it('the built-in answerer caches grounded answers only', async () => {
    const g1 = await ask(shard, { question: 'sqlite checkpoint', parent: c.a1 });
    const g2 = await ask(shard, { question: 'SQLite checkpoint', parent: c.a1 });
    expect(g1.audit).toBe('grounded');
    expect(g2.audit).toBe('cached');
    expect(g2.answer_text).toBe(g1.answer_text);
    expect(shard.requireNode(g2.bates).cited_titles).toEqual(g1.cited_titles);
    expect(g2.n_cited_sources).toBe(g1.n_cited_sources);
    const u1 = await ask(shard, { question: 'sourdough starter', parent: c.a1 });
    const u2 = await ask(shard, { question: 'sourdough starter', parent: c.a1 });
    expect([u1.audit, u2.audit]).toEqual(['ungrounded', 'ungrounded']);
  });
});
