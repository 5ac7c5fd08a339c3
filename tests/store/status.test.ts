import { describe, expect, it } from 'vitest';
import {
  archiveSessions,
  chainStatus,
  FULL_CHECK_EVERY_MS,
  restoreArchives,
  Shard,
} from '../../src/store/index.js';
import { tempDb } from '../support/tmp.js';

/**
 * chainStatus with its clock moved: today's count carried across calls and across midnight, redone when turns are
 * archived or restored, and the full check redone once the last one is an hour old. (The CLI tests run the real
 * binary; these need a clock the binary does not take.)
 */

/** Local times on a day of its own, so the test does not depend on today. */
const at = (day: number, hour: number, minute = 0) => new Date(2031, 2, day, hour, minute);

function add(path: string, n: number, created: Date, session?: string): string {
  const s = Shard.open(path);
  let sid = session;
  for (let i = 0; i < n; i++)
    sid = s.addTurn({
      question: `q${i}`,
      answer_text: 'a',
      session: sid,
      created_at: created.toISOString(),
    }).sid;
  s.close();
  return sid!;
}

describe('chainStatus over time', () => {
  it("today's turns: counted once, carried forward, begun again after midnight, redone after an archive", () => {
    const db = tempDb();
    const old = add(db, 4, at(9, 12)); // the day before
    const sid = add(db, 3, at(10, 9));
    let r = chainStatus(db, { now: () => at(10, 9, 10) });
    expect(r.turns_today).toBe(3);
    expect(r.checked).toBe('full');

    add(db, 2, at(10, 9, 20), sid);
    r = chainStatus(db, { now: () => at(10, 9, 30) });
    expect(r).toMatchObject({ turns_today: 5, checked: 'incremental' });

    // Past midnight: yesterday's turns no longer count, a turn made after midnight does.
    add(db, 1, at(11, 0, 10), sid);
    r = chainStatus(db, { now: () => at(11, 0, 30) });
    expect(r.turns_today).toBe(1);
    add(db, 1, at(11, 1), sid);
    expect(chainStatus(db, { now: () => at(11, 2) }).turns_today).toBe(2);

    // An old turn imported today (created long ago) is not one of today's turns.
    add(db, 1, at(1, 8));
    expect(chainStatus(db, { now: () => at(11, 3) }).turns_today).toBe(2);

    // Archiving today's session takes its turns out; restoring it brings them back.
    const s = Shard.open(db);
    archiveSessions(s, [sid]);
    s.close();
    expect(chainStatus(db, { now: () => at(11, 4) }).turns_today).toBe(0);
    const s2 = Shard.open(db);
    restoreArchives(s2, [sid]);
    s2.close();
    expect(chainStatus(db, { now: () => at(11, 5) }).turns_today).toBe(2);
    expect(old).not.toBe(sid);
  });

  it('a full check again once the last one is an hour old, however quiet the shard', () => {
    const db = tempDb();
    add(db, 2, at(10, 9));
    const t0 = at(10, 10).getTime();
    expect(chainStatus(db, { now: () => new Date(t0) }).checked).toBe('full');
    expect(chainStatus(db, { now: () => new Date(t0 + FULL_CHECK_EVERY_MS - 1000) }).checked).toBe(
      'incremental',
    );
    const late = chainStatus(db, { now: () => new Date(t0 + FULL_CHECK_EVERY_MS + 1000) });
    expect(late).toMatchObject({
      checked: 'full',
      full_reason: 'the last full check is more than an hour old',
    });
    expect(chainStatus(db, { now: () => new Date(t0 + FULL_CHECK_EVERY_MS + 2000) }).checked).toBe(
      'incremental',
    );
  });
});
