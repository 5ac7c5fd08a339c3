import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, Shard } from '../../src/store/index.js';
import { dbOf, GUARDS, guardSql, MIGRATIONS } from '../../src/store/testing.js';
import { dropSince0010 } from '../support/older.js';
import { tempDb } from '../support/tmp.js';
import { errorOf } from './util.js';

/**
 * Each migration's SQL as it shipped: a migration is frozen once released, so editing one fails here. A new
 * migration adds its line (its name, and the first 16 hex digits of sha256 of its SQL).
 */
const SHIPPED: [string, string][] = [
  ['0001-initial', 'd04e508b4e3d5f42'],
  ['0002-entries-and-archives', '12eab6ecf2798331'],
  ['0003-subtree-side-table', 'ab47dfd16a6d19bb'],
  ['0004-walk-index', 'b88d1607047610c6'],
  ['0005-fts-pending', '54765801c4d42dfa'],
  ['0006-imported-sources', '3b459184c13f45d2'],
  ['0007-fts-without-prefixes', '59d17160d096cdb2'],
  ['0008-sessions-newest', 'daf7bd7d82388037'],
  ['0009-guards', 'e68013e4910cccd3'],
  ['0010-migration-names', 'bac2aa2a10d5c8c9'],
  ['0011-import-fingerprints', 'f391ca392035d3bf'],
  ['0012-fts-rowids-only', '3e7936cc38f3ce56'],
  ['0013-node-days-by-writers', '5ac68f02918cdb77'],
  ['0014-sync', 'c652c5ad13a1aa0a'],
];

const digest = (sql: string) => createHash('sha256').update(sql).digest('hex').slice(0, 16);

describe('migrations', () => {
  it('are named NNNN-what, in order, and frozen as they shipped', () => {
    expect(MIGRATIONS.map((m) => [m.name, digest(m.sql)])).toEqual(SHIPPED);
    expect(MIGRATIONS.map((m) => m.name.slice(0, 5))).toEqual(
      MIGRATIONS.map((_, i) => `${String(i + 1).padStart(4, '0')}-`),
    );
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
  });

  it('call no code of today: the migrations file imports only the frozen text of the events table', () => {
    const src = readFileSync(
      fileURLToPath(new URL('../../src/store/db/migrations.ts', import.meta.url)),
      'utf8',
    );
    expect(src.match(/^import .*$/gm)).toEqual(["import { AUDIT_EVENTS_TABLE } from './events-table.js';"]);
  });

  it("hold guards.ts to migration 0009's text, which SQLite keeps and the checks compare", () => {
    const m9 = MIGRATIONS.find((m) => m.name === '0009-guards')!;
    for (const g of GUARDS)
      expect(m9.sql).toContain(guardSql(g).replace('CREATE INDEX', 'CREATE INDEX IF NOT EXISTS'));
  });

  it('record every name in a new shard', () => {
    const s = Shard.open(tempDb());
    try {
      const names = dbOf(s).prepare('SELECT name FROM schema_migrations ORDER BY name').pluck().all();
      expect(names).toEqual(MIGRATIONS.map((m) => m.name));
    } finally {
      s.close();
    }
  });

  it('bring a shard from before the names (user_version 9) forward by name, with one shard.migrate event', () => {
    const path = tempDb();
    const s1 = Shard.open(path);
    const t = s1.addTurn({ question: 'kept across the upgrade?', answer_text: 'yes' });
    dropSince0010(dbOf(s1));
    dbOf(s1).pragma('user_version = 9');
    s1.close();
    const s = Shard.open(path);
    try {
      expect(dbOf(s).prepare('SELECT count(*) FROM schema_migrations').pluck().get()).toBe(MIGRATIONS.length);
      const last = s.audit.event(s.audit.head().seq)!;
      expect([last.kind, last.data]).toEqual(['shard.migrate', { from: 9, to: SCHEMA_VERSION }]);
      expect(s.getNode(t.bates)?.question).toBe('kept across the upgrade?');
      expect(s.verify().ok).toBe(true);
    } finally {
      s.close();
    }
  });

  it('refuse a shard that ran a migration this arborist does not know, in one line, changing nothing', () => {
    const path = tempDb();
    Shard.open(path).close();
    const raw = new Database(path);
    raw.prepare('INSERT INTO schema_migrations VALUES (?, ?)').run('0011-from-the-future', '2027-01-01');
    raw.close();
    const before = readFileSync(path);
    const e = errorOf(() => Shard.open(path));
    expect(e.message).toBe(
      `${path} was upgraded by a newer arborist (migration 0011-from-the-future); upgrade arborist`,
    );
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('a frozen migration SQLite refuses (the schema is not what its record says) is one damage line, nothing written', () => {
    const path = tempDb();
    const s1 = Shard.open(path);
    s1.addTurn({ question: 'kept?', answer_text: 'yes' });
    // Put back to "version 2" without the column migration 3 moves: nothing 3-11 make is in the way, but 3 fails.
    dbOf(
      s1,
    ).exec(`DROP TABLE node_subtree; DROP INDEX nodes_walk; DROP TABLE fts_pending; DROP INDEX nodes_source;
      DROP TABLE session_sources; DROP TABLE node_sources; DROP TABLE source_chunks; DROP TABLE fts_terms;
      DROP TABLE questions_fts; DROP TABLE schema_migrations; DROP TABLE import_fingerprints;
      DROP TABLE node_days; DROP TABLE sync_state; DROP TABLE sync_marks;`);
    dbOf(s1).pragma('user_version = 2');
    s1.close();
    const before = readFileSync(path);
    const e = errorOf(() => Shard.open(path));
    expect([e.kind, e.message]).toEqual([
      'damaged',
      `${path} is damaged: migration 0003-subtree-side-table failed (no such column: subtree_hash): its schema is not what its record says; it was not changed`,
    ]);
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('0012 brings a shard whose index kept positions to rowids only: vocabulary as turns, days filled, find unchanged', () => {
    const path = tempDb();
    const s1 = Shard.open(path);
    const a = s1.addTurn({
      question: 'borrow borrow checker',
      answer_text: 'the borrow checker',
      created_at: '2026-05-01T10:00:00.000Z',
    });
    s1.addTurn({
      question: 'what is हिन्दी',
      answer_text: 'a script',
      parent: a.bates,
      created_at: '2026-01-01T10:00:00.000Z',
    });
    // The shard as schema 10 made it: positions in both indexes, occurrences counted, no days.
    dbOf(s1).exec(`DROP TABLE node_days; DROP TABLE nodes_fts; DROP TABLE questions_fts;
      CREATE VIRTUAL TABLE nodes_fts USING fts5(question, answer_text, cited_titles_json, content = 'nodes',
        content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE questions_fts USING fts5(question, content = 'nodes', content_rowid = 'id',
        tokenize = 'unicode61 remove_diacritics 2');
      INSERT INTO nodes_fts (nodes_fts) VALUES ('rebuild'); INSERT INTO questions_fts (questions_fts) VALUES ('rebuild');
      UPDATE fts_terms SET n = 4 WHERE term = 'borrow';
      DELETE FROM schema_migrations WHERE name IN ('0011-import-fingerprints', '0012-fts-rowids-only', '0013-node-days-by-writers', '0014-sync');
      DROP TABLE import_fingerprints; DROP TABLE sync_state; DROP TABLE sync_marks;`);
    dbOf(s1).pragma('user_version = 10');
    s1.close();
    const s = Shard.open(path);
    try {
      const last = s.audit.event(s.audit.head().seq)!;
      expect([last.kind, last.data]).toEqual(['shard.migrate', { from: 10, to: SCHEMA_VERSION }]);
      const sql = (name: string) =>
        dbOf(s).prepare('SELECT sql FROM sqlite_schema WHERE name = ?').pluck().get(name) as string;
      expect(sql('nodes_fts')).toMatch(/detail = none/);
      expect(sql('questions_fts')).toMatch(/detail = none/);
      dbOf(s).exec("INSERT INTO nodes_fts (nodes_fts, rank) VALUES ('integrity-check', 1)");
      dbOf(s).exec("INSERT INTO questions_fts (questions_fts, rank) VALUES ('integrity-check', 1)");
      // n is the turns holding the term now
      const n = (t: string) => dbOf(s).prepare('SELECT n FROM fts_terms WHERE term = ?').pluck().get(t);
      expect([n('borrow'), n('checker'), n('script')]).toEqual([1, 1, 1]);
      expect(
        dbOf(s).prepare('SELECT day, min_id, max_id FROM node_days ORDER BY day').raw(true).all(),
      ).toEqual([
        ['2026-01-01', 2, 2],
        ['2026-05-01', 1, 1],
      ]);
      // find as before, a word the tokenizer cuts in pieces too (no phrase: the index has no positions)
      expect(s.search('borrow che').hits.map((h) => h.bates)).toEqual([a.bates]);
      expect(s.search('हिन्दी', { prefix: false }).hits).toHaveLength(1);
      expect(s.search('borrow before:2026-02-01').hits).toEqual([]);
      expect(s.search('script before:2026-02-01').hits).toHaveLength(1);
      // and the days stay kept for turns added after
      s.addTurn({ question: 'later', answer_text: 'x', created_at: '2025-12-31T00:00:00.000Z' });
      expect(s.search('later before:2026-01-01').hits).toHaveLength(1);
      expect(s.verify().ok).toBe(true);
    } finally {
      s.close();
    }
  });
});
