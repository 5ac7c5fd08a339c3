/** The origins of given sessions (a browser's visible rows): the same as the whole map's, read by sid. */
import { describe, expect, it } from 'vitest';
import { dbOf } from '../../src/store/testing.js';
import { openShard } from '../support/shard.js';

describe('sessionOriginsOf', () => {
  it("is sessionOrigins' entries for the sids asked, without sessions asked here or unknown sids", () => {
    const s = openShard();
    const a = s.createSession({
      source: { source: 'claude', source_session: 'A', info: { cwd: '/home/me/proj', title: 'Fix it' } },
    });
    const b = s.createSession({ source: { source: 'codex', source_session: 'B', info: { cwd: '/srv/x' } } });
    const here = s.createSession({ label: 'asked here' });
    const all = s.sessionOrigins();
    const got = s.sessionOriginsOf([b.sid, here.sid, a.sid, 'nosuchsid']);
    expect([...got.keys()].sort()).toEqual([a.sid, b.sid].sort());
    expect(got.get(a.sid)).toEqual(all.get(a.sid));
    expect(got.get(a.sid)).toMatchObject({
      source: 'claude',
      info: { cwd: '/home/me/proj', title: 'Fix it' },
    });
    expect(got.get(b.sid)?.source).toBe('codex');
    expect(s.sessionOriginsOf([]).size).toBe(0);
  });

  it('reads more sids than one page', () => {
    const s = openShard();
    const sids: string[] = [];
    s.write(() => {
      for (let i = 0; i < 1201; i++)
        sids.push(s.createSession({ source: { source: 'pi', source_session: `p${i}` } }).sid);
    });
    expect(s.sessionOriginsOf(sids).size).toBe(1201);
  });

  it('looks sessions up by the sid index, not a walk of every mapping', () => {
    const s = openShard();
    const plan = (
      dbOf(s)
        .prepare(
          `EXPLAIN QUERY PLAN SELECT source, source_session, sid, info_json FROM session_sources
            WHERE sid IN (SELECT value FROM json_each(?))`,
        )
        .all('["a"]') as { detail: string }[]
    )
      .map((r) => r.detail)
      .join('; ');
    expect(plan).toContain('session_sources_sid');
  });
});
