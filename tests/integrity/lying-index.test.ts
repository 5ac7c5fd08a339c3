import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { attackerNodeHash } from '../support/attacker.js';
import { tempDb } from '../support/tmp.js';

/**
 * An attacker who adds a turn with sqlite3 and hides it from the indexes: an index's b-tree swapped for a partial
 * one (`WHERE id < 6`) while sqlite_schema still says it holds every row. SQLite answers min(), max() and count()
 * from whichever index it likes, so a check that took the table's ends from an index never read the row, and said
 * the shard was intact while the browser showed the forged turn.
 */
function shardWithFiveTurns(): string {
  const path = tempDb();
  const s = Shard.open(path);
  s.createSession({ sid: 'aaaa' });
  let parent: string | undefined;
  for (let i = 0; i < 5; i++)
    parent = s.addTurn({ session: 'aaaa', parent, question: `q${i}`, answer_text: 'a' }).bates;
  s.close();
  return path;
}

function lyingIndex(db: Database.Database, name: string, columns: string): void {
  db.exec(`DROP INDEX IF EXISTS ${name}; CREATE INDEX ${name} ON nodes(${columns}) WHERE id < 6`);
  db.pragma('writable_schema = ON');
  db.prepare('UPDATE sqlite_schema SET sql = ? WHERE name = ?').run(
    `CREATE INDEX ${name} ON nodes(${columns})`,
    name,
  );
  db.pragma('writable_schema = OFF');
}

function forgeHiddenTurn(path: string, alsoHideFromCount: boolean): void {
  const db = new Database(path);
  db.unsafeMode(true);
  db.pragma('foreign_keys = OFF');
  const last = db.prepare('SELECT * FROM nodes WHERE id = 5').get() as Record<string, unknown>;
  const forged = {
    bates: 'aaaa-000006',
    parent_bates: last.bates as string,
    question: 'FORGED',
    answer_text: 'forged',
    cited_titles_json: '[]',
    n_cited_sources: 0,
    audit: last.audit as string,
    cache_key: null,
    source: null,
    source_id: null,
    created_at: last.created_at as string,
  };
  const hash = attackerNodeHash(forged);
  db.prepare(
    `INSERT INTO nodes (id, bates, sid, seq, parent_id, is_top, depth, n_children, question, answer_text,
      cited_titles_json, n_cited_sources, audit, cache_key, source, source_id, created_at, node_hash)
      VALUES (6, 'aaaa-000006', 'aaaa', 6, 5, 0, 5, 0, 'FORGED', 'forged', '[]', 0, ?, NULL, NULL, NULL, ?, ?)`,
  ).run(forged.audit, forged.created_at, hash);
  db.prepare('INSERT INTO node_subtree (id, subtree_hash) VALUES (6, ?)').run(hash);
  // The index the ends of nodes used to come from, and a small one that count(*) prefers.
  lyingIndex(db, 'nodes_walk', 'id, parent_id, sid, node_hash, n_children');
  if (alsoHideFromCount) lyingIndex(db, 'tiny', 'is_top');
  db.close();
}

/** verify's word on the shard: false when it reports a problem or refuses the shard as damaged. */
function verifies(path: string): boolean {
  const s = Shard.open(path, { readonly: true });
  try {
    return s.verify().ok;
  } catch (err) {
    expect(String(err)).toMatch(/damaged/);
    return false;
  } finally {
    s.close();
  }
}

describe('a turn hidden from the indexes', () => {
  for (const alsoHideFromCount of [false, true]) {
    it(`is read and named by verify (count from ${alsoHideFromCount ? 'a lying' : 'an honest'} index)`, () => {
      const path = shardWithFiveTurns();
      forgeHiddenTurn(path, alsoHideFromCount);
      const s = Shard.open(path, { readonly: true });
      // The browser sees the forged turn.
      expect(s.sessionOutline('aaaa').map((n) => n.question)).toContain('FORGED');
      s.close();
      expect(verifies(path)).toBe(false);
    });
  }
});

describe('a session hidden from the indexes', () => {
  it('is read and named by verify', () => {
    const path = shardWithFiveTurns();
    const db = new Database(path);
    db.unsafeMode(true);
    const root = db.prepare("SELECT session_root FROM sessions WHERE sid = 'aaaa'").pluck().get() as Buffer;
    db.prepare(
      "INSERT INTO sessions (sid, label, created_at, next_seq, n_nodes, session_root) VALUES ('zzzz', 'forged', ?, 1, 0, ?)",
    ).run(new Date().toISOString(), root);
    // An index that covers every column the checks read, its b-tree without the forged row, its statement whole.
    const cols = 'sid, label, created_at, next_seq, n_nodes, session_root';
    db.exec(`CREATE INDEX hide ON sessions(${cols}) WHERE sid <> 'zzzz'`);
    db.pragma('writable_schema = ON');
    db.prepare("UPDATE sqlite_schema SET sql = ? WHERE name = 'hide'").run(
      `CREATE INDEX hide ON sessions(${cols})`,
    );
    db.pragma('writable_schema = OFF');
    // Statistics that make the index look far narrower than the table, so that SQLite scans it for a whole read.
    db.exec('ANALYZE');
    db.prepare("DELETE FROM sqlite_stat1 WHERE tbl = 'sessions'").run();
    db.prepare("INSERT INTO sqlite_stat1 VALUES ('sessions', 'hide', '1000 1 1 1 1 1 1 sz=2')").run();
    db.prepare("INSERT INTO sqlite_stat1 VALUES ('sessions', NULL, '1000 sz=250')").run();
    db.close();
    const s = Shard.open(path, { readonly: true });
    expect(s.listSessions().map((x) => x.sid)).toContain('zzzz');
    s.close();
    expect(verifies(path)).toBe(false);
  });
});
