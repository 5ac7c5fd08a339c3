import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { tempDb } from '../support/tmp.js';
import { connect, type Json, ok } from './support.js';

/**
 * list's pages while the shard grows: a keeper writes the agent's own session as the agent pages through the
 * sessions. A next page went on after a count of sessions, so each session made meanwhile (newest, at the head)
 * pushed one already given onto the next page again; it now goes on after the last session given.
 */
describe('arborist mcp: list while sessions are added', () => {
  it('a next page goes on after the last session given, whatever was added at the head meanwhile', async () => {
    const db = tempDb();
    const s = Shard.open(db);
    for (const [i, sid] of ['s111', 's222', 's333', 's444', 's555'].entries())
      s.createSession({ sid, created_at: `2026-11-0${i + 1}T10:00:00.000Z` });
    s.close();
    const c = await connect(db);
    const first = await ok(c, 'list', { limit: 2 });
    expect(first.sessions.map((x: Json) => x.sid)).toEqual(['s555', 's444']);
    // another writer (a keeper, another agent) makes two newer sessions between the pages
    const w = Shard.open(db);
    w.createSession({ sid: 'n111', created_at: '2026-12-01T10:00:00.000Z' });
    w.createSession({ sid: 'n222', created_at: '2026-12-02T10:00:00.000Z' });
    w.close();
    const second = await ok(c, 'list', { limit: 2, cursor: first.next_cursor });
    expect(second.sessions.map((x: Json) => x.sid)).toEqual(['s333', 's222']);
    expect(second.from).toBe(2);
    const third = await ok(c, 'list', { limit: 2, cursor: second.next_cursor });
    expect(third.sessions.map((x: Json) => x.sid)).toEqual(['s111']);
    expect(third.next_cursor).toBeUndefined();
    expect(third.sessions_total).toBe(7);
    // a session older than the ones given, imported meanwhile, comes in its place in the order
    const v = Shard.open(db);
    v.createSession({ sid: 'old0', created_at: '2026-10-01T10:00:00.000Z' });
    v.close();
    const after = await ok(c, 'list', { limit: 2, cursor: second.next_cursor });
    expect(after.sessions.map((x: Json) => x.sid)).toEqual(['s111', 'old0']);
  });

  it('a next page may be of another size: the cursor holds the place, not the page size', async () => {
    const db = tempDb();
    const s = Shard.open(db);
    for (let i = 1; i <= 9; i++) s.addTurn({ question: `needle ${i}`, answer_text: 'a' });
    s.close();
    const c = await connect(db);
    const first = await ok(c, 'find', { query: 'needle', limit: 2 });
    const more = await ok(c, 'find', { query: 'needle', limit: 5, cursor: first.next_cursor });
    expect(more.hits).toHaveLength(5);
    const seen = [...first.hits, ...more.hits].map((h: Json) => h.bates);
    expect(new Set(seen).size).toBe(7);
    const rest = await ok(c, 'list', { limit: 100, cursor: (await ok(c, 'list', { limit: 3 })).next_cursor });
    expect(rest.sessions).toHaveLength(6);
  });
});
