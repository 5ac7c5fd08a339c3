/** The first screen's sessions: the newest few in the list's own order, their count, and the index they walk. */
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, Shard } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';
import { openShard } from '../support/shard.js';
import { tempDb } from '../support/tmp.js';

function manySessions(s: Shard, n: number): void {
  s.write(() => {
    for (let i = 0; i < n; i++) {
      // Two sessions share each second: the order falls back to the sid, as the whole list's does.
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, Math.floor(i / 2))).toISOString();
      s.createSession({ label: i % 3 === 0 ? null : `s${i}`, created_at: at });
    }
  });
}

describe('newestSessions and sessionCount', () => {
  it('are the first rows of sessionSummaries and its length, for every limit', () => {
    const s = openShard();
    manySessions(s, 57);
    const all = s.sessionSummaries();
    expect(all).toHaveLength(57);
    expect(s.sessionCount()).toBe(57);
    for (const limit of [0, 1, 2, 3, 30, 56, 57, 58, 1000]) {
      expect(s.newestSessions(limit)).toEqual(all.slice(0, limit));
    }
  });

  it('walk the sessions_newest index instead of sorting every session', () => {
    const s = openShard();
    manySessions(s, 5);
    const plan = (sql: string) =>
      (dbOf(s).prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[])
        .map((r) => r.detail)
        .join('; ');
    const page = plan(
      'SELECT sid, label, created_at, n_nodes FROM sessions ORDER BY created_at DESC, sid DESC LIMIT 40',
    );
    expect(page).toContain('sessions_newest');
    expect(page).not.toContain('TEMP B-TREE');
  });

  it('are there on a shard made before the index: the migration adds it', () => {
    const db = tempDb();
    const old = Shard.open(db);
    manySessions(old, 4);
    dbOf(old).exec('DROP INDEX sessions_newest');
    dbOf(old).exec(
      'DROP TABLE IF EXISTS schema_migrations; DROP TRIGGER node_days_insert; DROP TABLE node_days',
    ); // 0010, 0012
    dbOf(old).pragma('user_version = 7'); // migration 8 adds it
    old.close();
    const s = openShard(db);
    expect(dbOf(s).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const idx = dbOf(s).prepare(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'sessions_newest'",
    );
    expect(idx.get()).toEqual({ name: 'sessions_newest' });
    expect(s.newestSessions(2)).toEqual(s.sessionSummaries().slice(0, 2));
  });
});

describe('firstQuestions', () => {
  it("is each session's first question, cut by characters, and '' for a session without turns", () => {
    const s = openShard();
    const a = s.addTurn({ question: 'first of a', answer_text: 'x'.repeat(5000) });
    s.addTurn({ question: 'second of a', answer_text: 'y', parent: a.bates });
    const b = s.addTurn({ question: `é${'b'.repeat(300)}`, answer_text: 'z' });
    const empty = s.createSession({ label: 'nothing yet' });
    const got = new Map(s.firstQuestions([b.sid, a.sid, empty.sid, 'nosuchsid'], 10));
    expect(got.get(a.sid)).toBe('first of a');
    // Ten characters, not ten bytes: the accent counts once.
    expect(got.get(b.sid)).toBe(`é${'b'.repeat(9)}`);
    expect(got.get(empty.sid)).toBe('');
    expect(got.get('nosuchsid')).toBe('');
    expect(s.firstQuestions([], 10)).toEqual([]);
  });
});
