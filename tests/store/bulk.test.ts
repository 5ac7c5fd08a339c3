import { brotliCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { hashes, SCHEMA_VERSION, type Shard } from '../../src/store/index.js';
import { type BulkTurn, dbOf } from '../../src/store/testing.js';
import { tamper } from '../support/attacker.js';
import { tempDb } from '../support/tmp.js';
import { errorOf, newShard, rootBytes, subtreeBytes } from './util.js';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (i: number) => new Date(T0 + i * 60_000).toISOString();

/** A tree of two sessions: a branch point, a chain, and b's first turn hanging under a's second (cross-session). */
function batch(): { turns: BulkTurn[]; shape: [string, number | null][] } {
  const shape: [string, number | null][] = [
    ['aaaa', null], // 0
    ['aaaa', 0], // 1
    ['aaaa', 0], // 2: a rewind, a second child of 0
    ['aaaa', 1], // 3
    ['bbbb', 1], // 4: cross-session child of 1
    ['bbbb', 4], // 5
  ];
  const turns = shape.map(([sid, parent], i) => ({
    sid,
    parent,
    content: {
      question: `question ${i}`,
      answer_text: `answer ${i}\nwith a second line`,
      created_at: at(i),
      source: 'claude',
      source_id: `uuid-${i}`,
      audit: 'imported',
    },
    records: [`{"line":${i}}`, `{"more":${i}}`],
  }));
  return { turns, shape };
}

function sessions(s: Shard) {
  s.createSession({ sid: 'aaaa', created_at: at(0) });
  s.createSession({ sid: 'bbbb', created_at: at(0), source: { source: 'claude', source_session: 'S-b' } });
}

describe('the bulk path', () => {
  it('gives every turn, subtree and root the hashes that adding the turns one by one gives', () => {
    const one = newShard();
    sessions(one);
    const { turns } = batch();
    const bates: string[] = [];
    for (const t of turns) {
      const parent = typeof t.parent === 'number' ? bates[t.parent] : undefined;
      bates.push(one.addTurn({ ...t.content, session: t.sid, parent }).bates);
    }
    const bulk = newShard();
    sessions(bulk);
    const r = bulk.addTurnsBulk(turns, { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } });
    expect(r.added.map((a) => a.bates)).toEqual(bates);
    expect(subtreeBytes(bulk)).toEqual(subtreeBytes(one));
    expect(rootBytes(bulk)).toEqual(rootBytes(one));
    const node = (s: Shard, b: string) => s.requireNode(b);
    for (const b of bates) {
      expect(node(bulk, b).node_hash).toBe(node(one, b).node_hash);
      expect(node(bulk, b).n_children).toBe(node(one, b).n_children);
      expect(node(bulk, b).depth).toBe(node(one, b).depth);
    }
    expect(bulk.verify().ok).toBe(true);
    expect(bulk.audit.check().ok).toBe(true);
    // find sees the bulk turns at once
    expect(bulk.search('question').hits.length).toBe(6);
  });

  it('hangs a second batch under turns of the first and folds their ancestors once', () => {
    const s = newShard();
    sessions(s);
    const first = s.addTurnsBulk(batch().turns, { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } });
    const under = first.added[3].bates; // aaaa-000004, a leaf at depth 2
    const before = s.getSession('aaaa')!.session_root;
    s.addTurnsBulk(
      [
        { sid: 'bbbb', parent: under, content: { question: 'later', answer_text: 'x', created_at: at(9) } },
        { sid: 'bbbb', parent: 0, content: { question: 'later 2', answer_text: 'y', created_at: at(10) } },
      ],
      { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } },
    );
    expect(s.getSession('aaaa')!.session_root).not.toBe(before);
    expect(s.requireNode(under).n_children).toBe(1);
    expect(s.requireNode('bbbb-000004').depth).toBe(4);
    expect(s.verify().ok).toBe(true);
    // and the same as recomputing it from scratch with the one-by-one path's fold
    const sub = subtreeBytes(s);
    s.write(() => s.merkle.fold(dbOf(s).prepare('SELECT id FROM nodes').pluck().all() as number[]));
    expect(subtreeBytes(s)).toEqual(sub);
  });

  it("keeps each turn's source records byte for byte", () => {
    const s = newShard();
    sessions(s);
    const r = s.addTurnsBulk(batch().turns, {
      kind: 'import.file',
      data: { source: 'test', file: 'x.jsonl', turns_added: 0, turns_skipped: 0, problems: 0 },
    });
    expect(s.sourceRecords(r.added[2].bates)!.toString()).toBe('{"line":2}\n{"more":2}\n');
    expect(s.sourceRecords('aaaa-000099')).toBeUndefined();
    expect(s.sourceOfSession('bbbb')).toMatchObject({ source: 'claude', source_session: 'S-b' });
    expect(s.sessionForSource('claude', 'S-b')).toBe('bbbb');
    expect(s.turnsBySourceId('claude', ['uuid-0', 'uuid-5', 'nope'])).toEqual(
      new Map([
        ['uuid-0', 'aaaa-000001'],
        ['uuid-5', 'bbbb-000002'],
      ]),
    );
  });

  it('refuses a batch with a duplicate source id, a late parent or an unknown session, and writes nothing', () => {
    const s = newShard();
    sessions(s);
    const head = s.audit.head().seq;
    const t = batch().turns;
    const dup = [t[0], { ...t[1], content: { ...t[1].content, source_id: 'uuid-0' } }];
    expect(() => s.addTurnsBulk(dup, { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } })).toThrow(
      /UNIQUE|already/,
    );
    expect(
      errorOf(() =>
        s.addTurnsBulk([{ ...t[0], parent: 0 }], {
          kind: 'nodes.bulk',
          data: { generator: 'test', seed: 0 },
        }),
      ).message,
    ).toMatch(/parent must come before/);
    expect(
      errorOf(() =>
        s.addTurnsBulk([{ ...t[0], sid: 'zzzz' }], {
          kind: 'nodes.bulk',
          data: { generator: 'test', seed: 0 },
        }),
      ).message,
    ).toMatch(/no session 'zzzz'/);
    expect(s.audit.head().seq).toBe(head);
    expect(dbOf(s).prepare('SELECT count(*) FROM nodes').pluck().get()).toBe(0);
  });

  it('an exact re-import checks each node hash it was given', () => {
    const s = newShard();
    sessions(s);
    const t = batch().turns[0];
    const right = hashes
      .nodeHash({
        bates: 'aaaa-000007',
        parent_bates: null,
        question: t.content.question,
        answer_text: t.content.answer_text,
        cited_titles: [],
        n_cited_sources: 0,
        audit: 'imported',
        cache_key: null,
        created_at: t.content.created_at!,
        source: 'claude',
        source_id: 'uuid-0',
      })
      .toString('hex');
    expect(
      errorOf(() =>
        s.addTurnsBulk([{ ...t, seq: 7, expectNodeHash: '00'.repeat(32) }], {
          kind: 'nodes.bulk',
          data: { generator: 'test', seed: 0 },
        }),
      ).message,
    ).toMatch(/does not hash/);
    const r = s.addTurnsBulk([{ ...t, seq: 7, expectNodeHash: right }], {
      kind: 'nodes.bulk',
      data: { generator: 'test', seed: 0 },
    });
    expect(r.added[0].bates).toBe('aaaa-000007');
    expect(s.getSession('aaaa')!.n_nodes).toBe(1);
    expect(s.verify().ok).toBe(true);
  });
});

describe('the chain binds the source records', () => {
  function imported(): string {
    const path = tempDb();
    const s = newShard(path);
    sessions(s);
    s.addTurnsBulk(batch().turns, {
      kind: 'import.file',
      data: { source: 'test', file: 'x.jsonl', turns_added: 0, turns_skipped: 0, problems: 0 },
    });
    s.close();
    return path;
  }
  const problemsAfter = (path: string) => {
    const s = newShard(path);
    const r = s.verify();
    return (r.problems ?? []).filter((p) => p.kind === 'source').map((p) => `${p.id}: ${p.detail}`);
  };

  it.each([
    [
      'a pointer moved',
      "UPDATE node_sources SET start = start + 1 WHERE bates = 'aaaa-000002'",
      /aaaa-000002: its source records differ/,
    ],
    [
      'a pointer deleted',
      "DELETE FROM node_sources WHERE bates = 'bbbb-000001'",
      /bbbb-000001: its source records .* are missing/,
    ],
    [
      'a pointer added',
      "INSERT INTO node_sources VALUES ('aaaa-000099', 1, 0, 3)",
      /aaaa-000099: has source records no event/,
    ],
    ['a chunk deleted', 'DELETE FROM source_chunks', /chunk 1: written by event \d+, it is missing/],
    [
      'a mapping changed',
      "UPDATE session_sources SET source_session = 'other'",
      /bbbb: its source mapping differs/,
    ],
    ['a mapping deleted', 'DELETE FROM session_sources', /bbbb: its source mapping .* is missing/],
  ])('%s is reported', (_name, sql, expected) => {
    const path = imported();
    tamper(path, (db) => db.exec(sql));
    expect(problemsAfter(path).join('\n')).toMatch(expected);
  });

  it('records rewritten with a matching stored digest are still caught by the digest the chain recorded', () => {
    const path = imported();
    tamper(path, (db) => {
      const raw = Buffer.from('{"line":0}\n{"more":0}\n{"forged":true}\n');
      db.prepare('UPDATE source_chunks SET body = ?, bytes = ?, sha256 = ?').run(
        brotliCompressSync(raw),
        raw.length,
        hashes.sha256(raw),
      );
    });
    expect(problemsAfter(path).join('\n')).toMatch(/chunk 1: its digest differs/);
  });

  it('records changed under the same digest are caught by hashing them', () => {
    const path = imported();
    tamper(path, (db) =>
      db.prepare('UPDATE source_chunks SET body = ?').run(brotliCompressSync(Buffer.alloc(10))),
    );
    expect(problemsAfter(path).join('\n')).toMatch(/chunk 1: its records do not hash/);
  });

  it('an intact import verifies clean', () => {
    expect(problemsAfter(imported())).toEqual([]);
  });
});

describe("the bulk path's pages", () => {
  /** The share of a table's leaf pages, in key order, that lie right after the one before: 1 is one run. */
  function inRuns(s: Shard, table: string): number {
    const pages = dbOf(s)
      .prepare("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path")
      .pluck()
      .all(table) as number[];
    let next = 0;
    for (let k = 1; k < pages.length; k++) if (pages[k] === pages[k - 1] + 1) next++;
    return pages.length < 2 ? 1 : next / (pages.length - 1);
  }

  it("lays each table's pages out in runs, so a read in key order does not jump across the file", () => {
    const s = newShard();
    s.createSession({ sid: 'aaaa', created_at: at(0) });
    const answer = 'an answer of about a kilobyte, as the generated shards hold. '.repeat(16);
    const turns: BulkTurn[] = Array.from({ length: 3000 }, (_, i) => ({
      sid: 'aaaa',
      parent: i === 0 ? null : i - 1,
      content: { question: `question ${i}`, answer_text: answer, created_at: at(i) },
    }));
    s.addTurnsBulk(turns, { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } });
    // Written turn by turn (a node, its subtree hash, its event), the three tables' pages were interleaved: 0.67 of
    // the nodes' leaves followed their predecessor, and almost none of the subtrees' and events'. Now 0.92 (the
    // nodes' own indexes still take pages between theirs), 1 and 1.
    expect(inRuns(s, 'nodes')).toBeGreaterThan(0.85);
    for (const table of ['node_subtree', 'audit_events'])
      expect(inRuns(s, table), table).toBeGreaterThan(0.95);
    expect(s.verify().ok).toBe(true);
  });
});

describe('migration 6', () => {
  it('a version 5 shard with turns gains the import tables, verifies clean, and takes an import', () => {
    const path = tempDb();
    const old = newShard(path);
    const a = old.addTurn({ question: 'before imports', answer_text: 'x', source: 'demo' });
    dbOf(old).exec(
      `DROP INDEX nodes_source; DROP TABLE session_sources; DROP TABLE node_sources; DROP TABLE source_chunks;
       DROP TABLE fts_terms; DROP TABLE questions_fts;`,
    );
    dbOf(old).exec(
      'DROP TABLE IF EXISTS schema_migrations; DROP TRIGGER node_days_insert; DROP TABLE node_days',
    ); // 0010, 0012
    dbOf(old).pragma('user_version = 5');
    old.close();
    const s = newShard(path);
    expect(dbOf(s).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(s.verify().ok).toBe(true);
    s.addTurnsBulk(
      [
        {
          sid: a.sid,
          parent: a.bates,
          content: { question: 'after', answer_text: 'y', source: 'claude', source_id: 'u1' },
          records: ['{}'],
        },
      ],
      {
        kind: 'import.file',
        data: { source: 'test', file: 'x.jsonl', turns_added: 0, turns_skipped: 0, problems: 0 },
      },
    );
    expect(s.verify().ok).toBe(true);
    expect(s.audit.check().ok).toBe(true);
  });
});
