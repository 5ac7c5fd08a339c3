import { describe, expect, it } from 'vitest';
import { archiveSessions, restoreArchives, type Shard } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';
import { newShard } from './util.js';

/**
 * node_days (migrations 12 and 13) bounds find's date filters; since 13 the writers keep it (store/write/days.ts)
 * instead of a trigger on nodes. Whatever wrote the turns, it must be what the turns themselves say.
 */
const DERIVED = 'SELECT substr(created_at, 1, 10), min(id), max(id) FROM nodes GROUP BY 1 ORDER BY 1';
const KEPT = 'SELECT day, min_id, max_id FROM node_days ORDER BY day';
const rows = (s: Shard, sql: string) => dbOf(s).prepare(sql).raw(true).all();

describe('node_days', () => {
  it('has no trigger on nodes to keep it: a trigger costs every insert a statement journal', () => {
    const s = newShard();
    try {
      expect(dbOf(s).prepare("SELECT name FROM sqlite_schema WHERE type = 'trigger'").pluck().all()).toEqual(
        [],
      );
    } finally {
      s.close();
    }
  });

  it('holds each day the smallest and largest turn id, written one by one, in bulk, or restored', () => {
    const s = newShard();
    try {
      // one by one, days out of order
      const a = s.addTurn({ question: 'a', answer_text: 'x', created_at: '2026-05-01T10:00:00.000Z' });
      s.addTurn({ question: 'b', answer_text: 'x', parent: a.bates, created_at: '2026-01-01T10:00:00.000Z' });
      s.addTurn({ question: 'c', answer_text: 'x', created_at: '2026-05-01T23:59:59.000Z' });
      // created_at is any text: SQLite's substr counts characters, not UTF-16 units
      s.addTurn({ question: 'd', answer_text: 'x', created_at: '😀😀😀😀😀😀😀😀😀😀😀 late' });
      s.addTurn({ question: 'f', answer_text: 'x', created_at: 'short' });
      // in bulk: several days in one batch, one of them already known, one new before all others
      s.createSession({ sid: 'bulk', created_at: '2026-02-01T00:00:00.000Z' });
      const days = [
        '2026-03-02',
        '2026-01-01',
        '2025-12-31',
        '2026-03-02',
        '2026-07-04',
        '😀😀😀😀😀😀😀😀😀😀',
      ];
      s.addTurnsBulk(
        days.map((d, i) => ({
          sid: 'bulk',
          parent: i === 0 ? null : i - 1,
          content: { question: `q${i}`, answer_text: 'y', created_at: `${d}T12:00:00.000Z` },
        })),
        { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } },
      );
      expect(rows(s, KEPT)).toEqual(rows(s, DERIVED));
      expect(rows(s, KEPT)).toHaveLength(7);
      // archived and restored: the rows come back with their ids
      const restore = s.addTurn({ question: 'r', answer_text: 'x', created_at: '2024-06-01T00:00:00.000Z' });
      archiveSessions(s, [restore.sid]);
      dbOf(s).exec("DELETE FROM node_days WHERE day = '2024-06-01'");
      restoreArchives(s, [restore.sid]);
      expect(rows(s, KEPT)).toEqual(rows(s, DERIVED));
      expect(s.search('r before:2024-06-02').hits.map((h) => h.bates)).toEqual([restore.bates]);
    } finally {
      s.close();
    }
  });
});
