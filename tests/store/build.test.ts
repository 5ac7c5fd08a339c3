import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  type BulkTurn,
  CRASH_HOOK_ENV,
  hashes,
  Shard,
  ShardBuild,
  type Shard as ShardT,
} from '../../src/store/index.js';
import { dbOf, nodeAddBody, rebuildVocabulary } from '../../src/store/testing.js';
import { errorOf, openShard } from '../support/shard.js';
import { tempDb } from '../support/tmp.js';

/**
 * A fresh bulk build (src/store/build.ts): a shard written under a temporary name without WAL, indexed once at the
 * end with the vocabulary read from the index, must be the shard the ordinary bulk path makes from the same turns
 * (hashes, roots, index, vocabulary, events but their timestamps), and a crash must never leave a shard, whole or
 * half, under the real name.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = pathToFileURL(fileURLToPath(new URL('../../dist/src/store/index.js', import.meta.url))).href;

// Texts that stress the vocabulary: scripts FTS5 folds differently, accents, and long terms on both sides of the
// 64-unit limit, in ASCII and in astral characters (two UTF-16 units each, so 40 of them are 80 units).
const TEXTS = [
  'How do I fix THE borrow-checker error E0502 in rust_2021?',
  'Café, naïve, façade, Ångström and résumé: accents are folded as the index folds them',
  'Straße ΚΑΛΗΜΕΡΑ καλημέρα Ελλάδα москва йод ёж İstanbul ǅemal',
  'हिन्दी देवनागरी, العربية مُشَكَّلة, עִבְרִית, ภาษาไทย 東京の天気は？ 한국어 텍스트',
  'emoji 🚀 rocket, flags 🇫🇷, ﬁle ligature, ① circled, ２ fullwidth, e\u0301tude',
  `a ${'x'.repeat(64)} fits, ${'y'.repeat(65)} does not, ${'é'.repeat(64)} fits`,
  `astral ${'𝐀'.repeat(32)} fits, ${'𝐁'.repeat(33)} does not, ${'𝐂'.repeat(40)} neither`,
];

const T0 = Date.parse('2026-03-01T10:00:00.000Z');

/** Three sessions' turns: chains, a rewind, a cross-session fork; texts drawn from TEXTS. */
function turns(n: number): BulkTurn[] {
  const out: BulkTurn[] = [];
  for (let i = 0; i < n; i++) {
    const sid = ['aaaa', 'bbbb', 'cccc'][i % 3];
    const prev = i >= 3 ? i - 3 : null;
    out.push({
      sid,
      parent: i === 4 ? 0 : i % 7 === 6 && prev !== null && prev >= 3 ? prev - 3 : prev,
      content: {
        question: `${TEXTS[i % TEXTS.length].slice(0, 40)} question ${i}`,
        answer_text: `${TEXTS[(i * 3) % TEXTS.length]} answer ${i} ${TEXTS[(i + 1) % TEXTS.length]}`,
        cited_titles: i % 2 === 0 ? [`The ${TEXTS[i % TEXTS.length].slice(0, 12)} Guide`] : [],
        created_at: new Date(T0 + i * 60_000).toISOString(),
        audit: 'grounded',
      },
      records: i % 5 === 0 ? [`{"line":${i}}`] : undefined,
    });
  }
  return out;
}

function fill(s: ShardT, batches: BulkTurn[][]): void {
  for (const sid of ['aaaa', 'bbbb', 'cccc'])
    s.createSession({ sid, created_at: new Date(T0).toISOString() });
  for (const b of batches) s.addTurnsBulk(b, { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } });
}

/** The ordinary path and a build, from the same batches (the second batch hangs under the first by Bates id). */
function pair(n = 60): { plain: ShardT; built: ShardT; path: string } {
  const all = turns(n);
  const first = all.slice(0, n / 2);
  const second = all.slice(n / 2).map((t) => ({
    ...t,
    parent:
      typeof t.parent === 'number'
        ? t.parent < n / 2
          ? `${all[t.parent].sid}-${String(Math.floor(t.parent / 3) + 1).padStart(6, '0')}`
          : t.parent - n / 2
        : t.parent,
  }));
  const plain = openShard();
  fill(plain, [first, second]);
  const path = tempDb();
  const b = ShardBuild.start(path);
  fill(b.shard, [first, second]);
  expect(existsSync(path)).toBe(false);
  b.finish();
  return { plain, built: openShard(path), path };
}

const rows = (s: ShardT, sql: string) => dbOf(s).prepare(sql).raw(true).all() as unknown[][];

describe('a fresh bulk build', () => {
  it('is the shard the ordinary bulk path makes: hashes, roots, FTS hits and events (timestamps aside)', () => {
    const { plain, built } = pair();
    for (const sql of [
      'SELECT bates, parent_id, depth, n_children, hex(node_hash) FROM nodes ORDER BY id',
      'SELECT id, hex(subtree_hash) FROM node_subtree ORDER BY id',
      'SELECT sid, hex(session_root), next_seq, n_nodes FROM sessions ORDER BY sid',
      "SELECT seq, kind, json_remove(body, '$.ts') FROM audit_events ORDER BY seq",
      'SELECT id, hex(sha256) FROM source_chunks ORDER BY id',
    ])
      expect(rows(built, sql), sql).toEqual(rows(plain, sql));
    for (const q of ['question', 'cafe', 'москва', 'rust*', '"answer" AND "7"', 'e0502'])
      expect(
        rows(built, `SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH '${q}' ORDER BY rowid`),
        q,
      ).toEqual(rows(plain, `SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH '${q}' ORDER BY rowid`));
    expect(built.search('ques').hits.map((h) => h.bates)).toEqual(
      plain.search('ques').hits.map((h) => h.bates),
    );
    expect(built.search('rust borrow').hits.map((h) => h.bates)).toEqual(
      plain.search('rust borrow').hits.map((h) => h.bates),
    );
    expect(built.verify().ok).toBe(true);
    expect(built.audit.check().ok).toBe(true);
    dbOf(built).exec("INSERT INTO nodes_fts (nodes_fts, rank) VALUES ('integrity-check', 1)");
    dbOf(built).exec("INSERT INTO questions_fts (questions_fts, rank) VALUES ('integrity-check', 1)");
  });

  it('takes from the index the vocabulary countTerms gives: every script, the 64-unit limit in UTF-16 units', () => {
    const { plain, built } = pair();
    const vocab = (s: ShardT) => rows(s, 'SELECT term, n FROM fts_terms ORDER BY term');
    expect(vocab(built)).toEqual(vocab(plain));
    // and a rebuild (countTerms over every turn) agrees
    dbOf(built).exec('SAVEPOINT probe');
    rebuildVocabulary(dbOf(built));
    const again = vocab(built);
    dbOf(built).exec('ROLLBACK TO probe; RELEASE probe');
    expect(vocab(built)).toEqual(again);
    const terms = new Set(vocab(built).map((r) => r[0] as string));
    expect(terms.has('x'.repeat(64))).toBe(true);
    expect(terms.has('y'.repeat(65))).toBe(false);
    expect(terms.has('e'.repeat(64))).toBe(true);
    expect(terms.has('𝐀'.repeat(32))).toBe(true);
    expect(terms.has('𝐁'.repeat(33))).toBe(false);
  });

  it('is a shard like any other once in place: WAL, no stray file, written to by the ordinary path', () => {
    const { built, path } = pair(12);
    expect(dbOf(built).pragma('journal_mode', { simple: true })).toBe('wal');
    expect(readdirSync(dirname(path)).filter((f) => f.includes('.build-'))).toEqual([]);
    const t = built.addTurn({ question: 'a later question about москва', answer_text: 'x', session: 'aaaa' });
    expect(built.search('москва').hits.map((h) => h.bates)).toContain(t.bates);
    expect(built.verify().ok).toBe(true);
  });

  it('rolls a refused batch back and goes on (the journal is in memory)', () => {
    const path = tempDb();
    const b = ShardBuild.start(path);
    fill(b.shard, [turns(9)]);
    const bad = [{ ...turns(1)[0], parent: 'aaaa-000099' }];
    expect(
      errorOf(() => b.shard.addTurnsBulk(bad, { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } }))
        .kind,
    ).toBe('not_found');
    b.finish();
    const s = openShard(path);
    expect(dbOf(s).prepare('SELECT count(*) FROM nodes').pluck().get()).toBe(9);
    expect(s.verify().ok).toBe(true);
  });

  it('refuses a path that exists, and leaves it as it was', () => {
    const path = tempDb();
    writeFileSync(path, 'not mine');
    const e = errorOf(() => ShardBuild.start(path));
    expect(e.kind).toBe('shard');
    expect(e.message).toBe(`${path} exists; a bulk build only makes a new shard`);
    expect(readdirSync(dirname(path))).toEqual(['sessions.db']);
  });

  it('aborted, leaves nothing behind', () => {
    const path = tempDb();
    const b = ShardBuild.start(path);
    fill(b.shard, [turns(6)]);
    b.abort();
    expect(readdirSync(dirname(path))).toEqual([]);
  });
});

/** A child process that builds a shard at `path` and is killed at `point` (the crash hook). */
function crashingBuild(path: string, point: string) {
  const child = `
    import { ShardBuild } from ${JSON.stringify(DIST)};
    const b = ShardBuild.start(${JSON.stringify(path)});
    for (const sid of ['aaaa']) b.shard.createSession({ sid });
    for (let k = 0; k < 3; k++)
      b.shard.addTurnsBulk(Array.from({ length: 50 }, (_, i) => ({ sid: 'aaaa', parent: i === 0 ? null : i - 1,
        content: { question: 'q ' + k + ' ' + i, answer_text: 'a ' + i, audit: 'grounded' } })),
        { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } });
    b.finish();
    process.stdout.write('finished\\n');`;
  const script = `${path}.mjs`;
  writeFileSync(script, child);
  return spawnSync(process.execPath, [script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, [CRASH_HOOK_ENV]: point },
  });
}

describe('a build killed before it is in place (run `npm run build` first)', () => {
  for (const point of ['bulk-rows:2', 'build-link']) {
    it(`at ${point}: no file under the real name, and the next build clears the stray one`, () => {
      const path = tempDb();
      const r = crashingBuild(path, point);
      expect(r.signal, r.stderr).toBe('SIGKILL');
      expect(r.stdout).toBe('');
      expect(existsSync(path)).toBe(false);
      expect(readdirSync(dirname(path)).some((f) => f.startsWith('.sessions.db.build-'))).toBe(true);
      const b = ShardBuild.start(path);
      expect(readdirSync(dirname(path)).filter((f) => f.includes('.build-'))).toEqual([
        b.tempPath.slice(dirname(path).length + 1),
      ]);
      b.finish();
      const s = Shard.open(path);
      try {
        expect(s.verify().ok).toBe(true);
      } finally {
        s.close();
      }
    });
  }
});

describe('the index written on a thread of its own (the built worker; run `npm run build` first)', () => {
  it('copies in the same FTS indexes and vocabulary as indexing in place, intact', () => {
    const all = turns(90);
    const batches = [all.slice(0, 30), all.slice(30, 60), all.slice(60)].map((b, k) =>
      b.map((t) => ({ ...t, parent: typeof t.parent === 'number' ? t.parent - 30 * k : t.parent })),
    );
    // the later batches hang under turns of the earlier ones by Bates id
    const bates = (i: number) => `${all[i].sid}-${String(Math.floor(i / 3) + 1).padStart(6, '0')}`;
    for (let k = 1; k < 3; k++)
      batches[k].forEach((t, j) => {
        const parent = all[30 * k + j].parent;
        if (typeof parent === 'number' && parent < 30 * k) t.parent = bates(parent);
      });
    const plain = openShard();
    fill(plain, batches);
    const path = tempDb();
    const input = `${path}.json`;
    writeFileSync(input, JSON.stringify(batches));
    const child = `
      import { readFileSync } from 'node:fs';
      import { ShardBuild } from ${JSON.stringify(DIST)};
      const batches = JSON.parse(readFileSync(${JSON.stringify(input)}, 'utf8'));
      const b = ShardBuild.start(${JSON.stringify(path)});
      for (const sid of ['aaaa', 'bbbb', 'cccc']) b.shard.createSession({ sid, created_at: ${JSON.stringify(new Date(T0).toISOString())} });
      for (const batch of batches) b.shard.addTurnsBulk(batch, { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } });
      process.stdout.write(JSON.stringify(b.finish()));`;
    // A file, not `node -e`: a worker started from an -e script did not run while its parent waited (fts-build.ts).
    const script = `${path}.mjs`;
    writeFileSync(script, child);
    const r = spawnSync(process.execPath, [script], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).threaded).toBe(true);
    expect(readdirSync(dirname(path)).sort()).toEqual(['sessions.db', 'sessions.db.json', 'sessions.db.mjs']);
    const built = openShard(path);
    for (const sql of [
      'SELECT bates, hex(node_hash) FROM nodes ORDER BY id',
      'SELECT sid, hex(session_root) FROM sessions ORDER BY sid',
      'SELECT term, n FROM fts_terms ORDER BY term',
    ])
      expect(rows(built, sql), sql).toEqual(rows(plain, sql));
    for (const q of ['question', 'cafe', 'москва', 'rust*', '"answer" AND "7"', 'e0502', '𝐀*'])
      for (const t of ['nodes_fts', 'questions_fts'])
        expect(
          rows(built, `SELECT rowid FROM ${t} WHERE ${t} MATCH '${q}' ORDER BY rowid`),
          `${t} ${q}`,
        ).toEqual(rows(plain, `SELECT rowid FROM ${t} WHERE ${t} MATCH '${q}' ORDER BY rowid`));
    expect(built.search('москва').hits.map((h) => h.bates)).toEqual(
      plain.search('москва').hits.map((h) => h.bates),
    );
    dbOf(built).exec("INSERT INTO nodes_fts (nodes_fts, rank) VALUES ('integrity-check', 1)");
    dbOf(built).exec("INSERT INTO questions_fts (questions_fts, rank) VALUES ('integrity-check', 1)");
    expect(built.verify().ok).toBe(true);
    // and the index goes on as any other: a later turn is found
    const t = built.addTurn({ question: 'one more about москва', answer_text: 'x', session: 'bbbb' });
    expect(built.search('москва').hits.map((h) => h.bates)).toContain(t.bates);
    dbOf(built).exec("INSERT INTO nodes_fts (nodes_fts, rank) VALUES ('integrity-check', 1)");
  });
});

describe('node.add bodies built by hand', () => {
  it('are the bytes canon() writes, with and without records, under a parent or none, and for odd text', () => {
    const cases: [number, string, Parameters<typeof nodeAddBody>[2]][] = [
      [
        1,
        '2026-03-01T10:00:00.000Z',
        { bates: 'aaaa-000001', node_hash: 'ab'.repeat(32), parent_bates: null },
      ],
      [
        987654,
        '2026-03-01T10:00:00.000Z',
        {
          bates: 'a1b2-000012',
          node_hash: '0f'.repeat(32),
          parent_bates: 'zz-000011',
          records: [3, 0, 4096],
        },
      ],
      [2, 'ts "quoted" \\ \u0000 \u2028 🚀', { bates: 'x\ny', node_hash: '', parent_bates: 'é\u0301' }],
    ];
    for (const [seq, ts, data] of cases)
      expect(nodeAddBody(seq, ts, data)).toBe(hashes.canon({ data, kind: 'node.add', seq, ts }));
    // what canon() refuses is refused the same way
    const lone = {
      bates: 'b\udc00',
      node_hash: 'h',
      parent_bates: null,
      records: [1, 2, 3] as [number, number, number],
    };
    expect(() => hashes.canon({ data: lone, kind: 'node.add', seq: 3, ts: 't' })).toThrow('Lone surrogate');
    expect(() => nodeAddBody(3, 't', lone)).toThrow('Lone surrogate');
  });
});
