import { describe, expect, it } from 'vitest';
import { maintain, planMaintenance, type Shard, setEntry } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';
import { errorOf, healthy, kinds, open, sessionsOf, snapshot } from './util.js';

const DAY = 86400e3;
const NOW = Date.parse('2026-06-01T00:00:00.000Z');
const iso = (daysAgo: number) => new Date(NOW - daysAgo * DAY).toISOString();

/** Sessions last active 300, 200, 100, 50 and 1 days ago; d200 is an entry's, d100 holds the parent of d1's turn. */
function aged(s: Shard) {
  const mk = (daysAgo: number, label: string, parent?: string) => {
    const sid = s.createSession({ label, created_at: iso(daysAgo + 1) }).sid;
    const t = s.addTurn({
      session: sid,
      parent,
      question: `${label} q`,
      answer_text: 'a',
      created_at: iso(daysAgo),
    });
    return { sid, bates: t.bates };
  };
  const d300 = mk(300, 'd300');
  const d200 = mk(200, 'd200');
  const d100 = mk(100, 'd100');
  const d50 = mk(50, 'd50');
  const d1 = mk(1, 'd1', d100.bates); // keeps d100: it holds the parent of a turn that stays live
  setEntry(s, 'main', d200.sid);
  return { d300, d200, d100, d50, d1 };
}

describe('retention (maintain)', () => {
  it('--older-than: archives old unreferenced sessions, keeps referenced ones and says why', () => {
    const s = open();
    const x = aged(s);
    const plan = planMaintenance(s, { olderThanMs: 30 * DAY, now: NOW });
    expect(plan.archive.map((a) => a.sid)).toEqual([x.d300.sid, x.d50.sid]);
    // the reason in words, not two raw ISO times ("last activity 2025-08-05T00:00:00.000Z is older than ...")
    expect(plan.archive.map((a) => a.why)).toEqual([
      ['no activity for 300 days, more than the 30 days of --older-than'],
      ['no activity for 50 days, more than the 30 days of --older-than'],
    ]);
    expect(planMaintenance(s, { olderThanMs: 90e3, now: NOW }).archive[0].why).toEqual([
      'no activity for 300 days, more than the 1 minute of --older-than',
    ]);
    expect(plan.kept.map((k) => [k.sid, k.reasons[0].kind])).toEqual([
      [x.d200.sid, 'entry'],
      [x.d100.sid, 'parent'],
    ]);
    expect(plan.live.sessions).toBe(5);
    expect(plan.estimated_bytes).toBe(plan.archive.reduce((n, a) => n + a.bytes, 0));
    expect(plan.after).toEqual({ sessions: 3, bytes: plan.live.bytes - plan.estimated_bytes });
  });

  it('--max-sessions and --max-bytes take the oldest unreferenced sessions first', () => {
    const s = open();
    const x = aged(s);
    expect(planMaintenance(s, { maxSessions: 4, now: NOW }).archive.map((a) => a.sid)).toEqual([x.d300.sid]);
    // 3 sessions: d300 goes; d200 (entry) and d100 (parent) cannot; d50 is next.
    const three = planMaintenance(s, { maxSessions: 3, now: NOW });
    expect(three.archive.map((a) => a.sid)).toEqual([x.d300.sid, x.d50.sid]);
    expect(three.kept.map((k) => k.sid)).toEqual([x.d200.sid, x.d100.sid]);
    const all = planMaintenance(s, { now: NOW });
    const oneLess = planMaintenance(s, { maxBytes: all.live.bytes - 1, now: NOW });
    expect(oneLess.archive.map((a) => a.sid)).toEqual([x.d300.sid]);
    expect(planMaintenance(s, { maxBytes: all.live.bytes, now: NOW }).archive).toEqual([]);
    expect(all.archive).toEqual([]);
    expect(errorOf(() => planMaintenance(s, { maxSessions: -1 })).kind).toBe('input');
  });

  it('without apply writes nothing; with apply archives, one event each, and reports the bytes freed', () => {
    const s = open();
    const x = aged(s);
    const before = snapshot(s);
    const head = s.audit.head().seq;
    const version = s.dataVersion();
    const preview = maintain(s, { olderThanMs: 30 * DAY, now: NOW });
    expect(preview.applied).toBe(false);
    expect(preview.freed_bytes).toBeNull();
    expect(snapshot(s)).toEqual(before);
    expect(s.audit.head().seq).toBe(head);
    expect(s.dataVersion()).toBe(version);
    expect(dbOf(s).inTransaction).toBe(false);

    const r = maintain(s, { olderThanMs: 30 * DAY, now: NOW, apply: true });
    expect(r.applied).toBe(true);
    expect(r.archived.map((a) => [a.sid, a.reason])).toEqual([
      [x.d300.sid, 'retention'],
      [x.d50.sid, 'retention'],
    ]);
    expect(typeof r.freed_bytes).toBe('number');
    expect(kinds(s, head)).toEqual(['session.archive', 'session.archive']);
    expect(sessionsOf(s)).toEqual([x.d200.sid, x.d100.sid, x.d1.sid].sort());
    healthy(s);
    // Nothing left to do.
    expect(maintain(s, { olderThanMs: 30 * DAY, now: NOW, apply: true }).archived).toEqual([]);
  });
});
