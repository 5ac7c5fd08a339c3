import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { hashes } from '../../src/store/index.js';
import {
  dbOf,
  firstGuarded,
  guardSql,
  integerList,
  NODES_ODD,
  SUBTREES_ODD,
  sqlCanonicalContent,
} from '../../src/store/testing.js';
import { newShard } from './util.js';

/**
 * verify builds each node's canonical content in SQLite (json_object) and only falls back to JavaScript canon()
 * for rows it cannot vouch for. These tests pin the assumption that makes that exact: for every value the store
 * writes, SQLite's bytes are canon()'s bytes.
 */
describe('verify: canonical content built by SQLite', () => {
  it('json_quote escapes every BMP character (and pairs) exactly as JSON.stringify does', () => {
    const db = new Database(':memory:');
    const q = db.prepare('SELECT json_quote(?)').pluck();
    for (let cp = 0; cp <= 0xffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const s = `a${String.fromCharCode(cp)}"\\`;
      expect(q.get(s), `U+${cp.toString(16)}`).toBe(JSON.stringify(s));
    }
    for (const s of ['😀𝄞', '\u0000', '', '\u2028\u2029\u007f\u0080\u009b'])
      expect(q.get(s)).toBe(JSON.stringify(s));
    db.close();
  });

  it('is byte-identical to canon() for hostile text, titles, nulls and cross-session parents', () => {
    const s = newShard();
    const nasty = [
      '\u0000\u0001\u001f"\\/',
      'tab\there\nnew\r\n',
      '😀 𝄞 中文 \u202e rtl \ufeff',
      'x\u2028\u2029',
      'é e\u0301',
    ];
    const a = s.createSession({ label: 'a' }).sid;
    const b = s.createSession({ label: 'b' }).sid;
    let parent: string | undefined;
    for (const [i, t] of nasty.entries()) {
      parent = s.addTurn({
        question: `q ${t}`,
        answer_text: `answer ${t} ${i}`,
        cited_titles: i % 2 ? [t, `"${t}"`] : [],
        cache_key: i % 2 ? null : `k${i}`,
        source: i === 3 ? t : null,
        source_id: i === 3 ? 'x' : null,
        session: i === 4 ? b : a,
        parent,
      }).bates;
    }
    const ids = dbOf(s).prepare('SELECT id FROM nodes ORDER BY id').pluck().all() as number[];
    for (const id of ids) {
      const node = s.nodeById(id)!;
      const expected = Buffer.concat([
        Buffer.from([0]),
        Buffer.from(hashes.nodeContentJsonSlow(node), 'utf8'),
      ]);
      expect(sqlCanonicalContent(dbOf(s), id)?.toString('hex'), node.bates).toBe(expected.toString('hex'));
    }
    expect(s.verify().ok).toBe(true);
  });

  it('leaves odd types to the exact path: no crash, and the same verdicts', () => {
    const s = newShard();
    const t1 = s.addTurn({ question: 'one', answer_text: 'a', cited_titles: ['x'] });
    const t2 = s.addTurn({ question: 'two', answer_text: 'b', parent: t1.bates });
    const t3 = s.addTurn({ question: 'three', answer_text: 'c', parent: t2.bates });
    const id = (b: string) =>
      dbOf(s).prepare('SELECT id FROM nodes WHERE bates = ?').pluck().get(b) as number;
    // Same values, other spelling: json() minifies the titles exactly as canon() writes them, so not an edit.
    dbOf(s).prepare(`UPDATE nodes SET cited_titles_json = '[ "x" ]' WHERE bates = ?`).run(t1.bates);
    expect(sqlCanonicalContent(dbOf(s), id(t1.bates))?.subarray(1).toString()).toBe(
      hashes.nodeContentJsonSlow(s.requireNode(t1.bates)),
    );
    expect(s.verify().ok).toBe(true);
    // Types the store never writes (a REAL count, a text field stored as a blob): SQLite leaves them to the
    // exact path, which reports the edits rather than crashing.
    dbOf(s).prepare('UPDATE nodes SET n_cited_sources = 1.5 WHERE bates = ?').run(t1.bates);
    dbOf(s).prepare('UPDATE nodes SET question = CAST(question AS BLOB) WHERE bates = ?').run(t3.bates);
    expect(sqlCanonicalContent(dbOf(s), id(t1.bates))).toBeNull();
    expect(sqlCanonicalContent(dbOf(s), id(t3.bates))).toBeNull();
    const v = s.verify();
    expect(v.edited).toEqual([t1.bates, t3.bates]);
    expect(v.mismatches).toEqual([t1.bates, t2.bates, t3.bates]);
  });
});

describe('verify: the node guards (guards.ts)', () => {
  /** 2,500 turns (three of verify's 1,000-node pages), in chains of 50. */
  function threePages() {
    const s = newShard();
    s.createSession({ sid: 'gggg' });
    const turns = Array.from({ length: 2500 }, (_, i) => ({
      sid: 'gggg',
      parent: i % 50 === 0 ? null : i - 1,
      content: { question: `q ${i}`, answer_text: `a ${i}\n"quoted"`, cited_titles: [`t${i}`] },
    }));
    const bates = s
      .addTurnsBulk(turns, { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } })
      .added.map((a) => a.bates);
    return { s, bates };
  }
  const verdict = (s: ReturnType<typeof newShard>) => {
    const v = s.verify();
    return {
      ok: v.ok,
      edited: v.edited,
      mismatches: v.mismatches,
      problems: v.problems?.map((p) => p.detail),
    };
  };

  it('are created exactly as verify trusts them, and are empty on a healthy shard', () => {
    const { s } = threePages();
    for (const g of [NODES_ODD, SUBTREES_ODD]) {
      expect(dbOf(s).prepare('SELECT sql FROM sqlite_schema WHERE name = ?').pluck().get(g.name)).toBe(
        guardSql(g),
      );
      expect(firstGuarded(dbOf(s), g)).toBeNull();
    }
    expect(s.verify().ok).toBe(true);
  });

  it('give the same verdicts on odd rows whether they are trusted, lie or are missing', () => {
    const { s, bates } = threePages();
    const at = (k: number) => bates[k];
    // On the second page: types the store never writes, a malformed Bates id, a short subtree hash.
    dbOf(s).prepare('UPDATE nodes SET n_cited_sources = 1.5 WHERE bates = ?').run(at(1200));
    dbOf(s).prepare('UPDATE nodes SET question = CAST(question AS BLOB) WHERE bates = ?').run(at(1300));
    dbOf(s).prepare(`UPDATE nodes SET cited_titles_json = '{"a":1}' WHERE bates = ?`).run(at(1400));
    // A subtree hash stored as text (the guard's), and one cut short (which verify asks of every row).
    const sub = dbOf(s).prepare(
      'UPDATE node_subtree SET subtree_hash = ? WHERE id = (SELECT id FROM nodes WHERE bates = ?)',
    );
    sub.run('x'.repeat(32), at(1500));
    sub.run(Buffer.alloc(31), at(1600));
    const id = (k: number) => dbOf(s).prepare('SELECT id FROM nodes WHERE bates = ?').pluck().get(at(k));
    expect(firstGuarded(dbOf(s), NODES_ODD)).toBe(id(1200));
    expect(firstGuarded(dbOf(s), SUBTREES_ODD)).toBe(id(1500));
    const trusted = verdict(s);
    expect(trusted.ok).toBe(false);
    expect(trusted.edited).toEqual([at(1200), at(1300), at(1400)]);
    expect(trusted.mismatches).toEqual(expect.arrayContaining([at(1500), at(1600)]));
    // Guards that lie (empty by definition) are not trusted; missing ones neither: the same verdicts.
    for (const g of [NODES_ODD, SUBTREES_ODD]) {
      dbOf(s).exec(`DROP INDEX ${g.name}`);
      dbOf(s).exec(`CREATE INDEX ${g.name} ON ${g.table}(${g.key}) WHERE 0`);
    }
    expect(firstGuarded(dbOf(s), NODES_ODD)).toBeUndefined();
    expect(verdict(s)).toEqual(trusted);
    for (const g of [NODES_ODD, SUBTREES_ODD]) dbOf(s).exec(`DROP INDEX ${g.name}`);
    expect(verdict(s)).toEqual(trusted);
  });
});

describe('verify against a guard emptied behind its unchanged definition, and ids below 1', () => {
  /** What `PRAGMA writable_schema` in the sqlite3 shell allows: a guard that holds nothing, its text as made. */
  function emptyGuard(s: ReturnType<typeof newShard>, g: typeof NODES_ODD): void {
    dbOf(s).exec(`DROP INDEX ${g.name}`);
    dbOf(s).exec(`CREATE INDEX ${g.name} ON ${g.table}(${g.key}) WHERE 0`);
    dbOf(s).unsafeMode(true);
    dbOf(s).pragma('writable_schema = ON');
    dbOf(s).prepare('UPDATE sqlite_schema SET sql = ? WHERE name = ?').run(guardSql(g), g.name);
    dbOf(s).pragma('writable_schema = OFF');
    dbOf(s).unsafeMode(false);
  }

  it('still sees structure columns of another type (a text parent id, an empty child count)', () => {
    const s = newShard();
    const t1 = s.addTurn({ question: 'root', answer_text: 'a1' });
    const t2 = s.addTurn({ question: 'mid', answer_text: 'a2', parent: t1.bates });
    const t3 = s.addTurn({ question: 'leaf', answer_text: 'a3', parent: t2.bates });
    const t4 = s.addTurn({ question: 'leaf 2', answer_text: 'a4', parent: t1.bates });
    const id = (b: string) =>
      dbOf(s).prepare('SELECT id FROM nodes WHERE bates = ?').pluck().get(b) as number;
    const [id2, id3] = [id(t2.bates), id(t3.bates)];
    dbOf(s).pragma('foreign_keys = OFF');
    emptyGuard(s, NODES_ODD);
    emptyGuard(s, SUBTREES_ODD);
    s.close();
    const again = newShard(s.path);
    try {
      expect(firstGuarded(dbOf(again), NODES_ODD)).toBeNull(); // trusted, and holding nothing
      dbOf(again).pragma('foreign_keys = OFF');
      dbOf(again)
        .prepare('UPDATE nodes SET parent_id = ? WHERE id = ?')
        .run(`0x${id2.toString(16)}`, id3);
      dbOf(again).prepare(`UPDATE nodes SET n_children = '' WHERE bates = ?`).run(t4.bates);
      const v = again.verify();
      expect(v.ok).toBe(false);
      expect(v.problems?.map((p) => p.id)).toEqual(expect.arrayContaining([t3.bates, t4.bates]));
    } finally {
      again.close();
    }
  });

  it('reads a page whose sid list does not split into one part a row (a sid holding the comma) exactly', () => {
    const s = newShard();
    const turns = [s.addTurn({ question: 'root', answer_text: 'a' })];
    for (let i = 0; i < 5; i++)
      turns.push(s.addTurn({ question: `q${i}`, answer_text: 'a', parent: turns[turns.length - 1].bates }));
    const b = turns[2].bates;
    const sid = b.slice(0, b.indexOf('-'));
    dbOf(s).pragma('foreign_keys = OFF');
    dbOf(s).prepare(`UPDATE nodes SET sid = sid || ',x' WHERE bates = ?`).run(b);
    // The guard emptied after the edit, so that it does not hold the row: the guarded page reads it.
    emptyGuard(s, NODES_ODD);
    s.close();
    const again = newShard(s.path);
    try {
      expect(firstGuarded(dbOf(again), NODES_ODD)).toBeNull();
      const details = again
        .verify()
        .problems?.filter((p) => p.id === b)
        .map((p) => p.detail);
      // The exact path's word for it (a list cut at the comma would shift every later sid instead).
      expect(details).toContain(`its Bates id does not match its session (${sid},x) and turn number (3)`);
    } finally {
      again.close();
    }
  });

  it('names a turn made its own parent the same way on the fast path as on the exact one', () => {
    const s = newShard();
    const t1 = s.addTurn({ question: 'root', answer_text: 'a1' });
    const t2 = s.addTurn({ question: 'leaf', answer_text: 'a2', parent: t1.bates });
    dbOf(s).pragma('foreign_keys = OFF');
    // A top turn: its content (no parent) still hashes as stored, so the fast path reads it.
    dbOf(s).prepare('UPDATE nodes SET parent_id = id WHERE bates = ?').run(t1.bates);
    const words = (v: ReturnType<typeof s.verify>) => ({
      turn: v.problems?.filter((p) => p.id === t1.bates).map((p) => p.detail),
      mismatches: v.mismatches,
    });
    const fast = words(s.verify());
    expect(fast.turn).toContain('it is its own ancestor: a parent cycle');
    // The same page with a row only the exact path reads (a REAL count of sources): the same words for the turn.
    dbOf(s).prepare('UPDATE nodes SET n_cited_sources = 0.5 WHERE bates = ?').run(t2.bates);
    const exact = words(s.verify());
    expect(exact.turn).toEqual(fast.turn);
    expect(fast.mismatches).toEqual([]); // its own child on the fast path would have folded into a mismatch
  });

  it('reads a turn whose internal id was set to 0 or below, and names it', () => {
    const s = newShard();
    const t1 = s.addTurn({ question: 'root', answer_text: 'a1' });
    const t2 = s.addTurn({ question: 'leaf', answer_text: 'a2', parent: t1.bates });
    expect(s.verify().ok).toBe(true);
    const row = dbOf(s).prepare('SELECT * FROM nodes WHERE bates = ?').get(t2.bates) as Record<
      string,
      unknown
    >;
    dbOf(s).pragma('foreign_keys = OFF');
    dbOf(s)
      .prepare(
        `INSERT INTO nodes (id, bates, sid, seq, parent_id, is_top, depth, n_children, question, answer_text,
          cited_titles_json, n_cited_sources, audit, cache_key, source, source_id, created_at, node_hash)
         VALUES (-7, @bates, @sid, 999, @parent_id, 0, 1, 0, 'FORGED', 'FORGED', '[]', 0, @audit, NULL, NULL, NULL,
          @created_at, @node_hash)`,
      )
      .run({ ...row, bates: `${row.sid}-000999` });
    dbOf(s)
      .prepare('INSERT INTO node_subtree SELECT -7, subtree_hash FROM node_subtree WHERE id = ?')
      .run(row.id);
    const v = s.verify();
    expect(v.ok).toBe(false);
    expect(v.nodes).toBe(3);
    expect(v.edited).toContain(`${row.sid}-000999`);
  });
});

describe("verify: a page's lists of integers", () => {
  it('reads exactly what Number() of each part gives, and refuses anything else', () => {
    const read = (s: string, n: number) => {
      const out = new Float64Array(n + 2).fill(Number.NaN);
      return integerList(s, out, 1, n) ? [...out.subarray(1, 1 + n)] : null;
    };
    const lists = ['0', '1,2,3', '-5,0,42', '123456789012345,7', '9,8,7,6,5,4,3,2,1,0'];
    for (const s of lists) expect(read(s, s.split(',').length)).toEqual(s.split(',').map(Number));
    // the wrong count, an empty part, a sign alone, a space, a fraction, more than 15 digits, a trailing comma
    for (const [s, n] of [
      ['1,2', 3],
      ['1,2,3', 2],
      ['1,,3', 3],
      ['-', 1],
      ['1, 2', 2],
      ['1.5', 1],
      ['1234567890123456', 1],
      ['1,2,', 2],
      ['', 1],
    ] as const)
      expect(read(s, n), s).toBeNull();
  });
});
