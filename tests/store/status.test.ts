import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  archiveSessions,
  chainStatus,
  FULL_CHECK_EVERY_MS,
  restoreArchives,
  Shard,
  setEntry,
} from '../../src/store/index.js';
import { tempDb } from '../support/tmp.js';

/**
 * chainStatus with the clock moved (the store's writes and the status alike read it): today's count carried
 * across calls and across midnight, found without reading every turn when there is no count yet, redone when
 * turns are archived or restored; and the full check redone once the last one is an hour old. The CLI tests run
 * the real binary; these need a clock the binary does not take.
 */

/** Local times on days of their own, so nothing depends on today. */
const at = (day: number, hour: number, minute = 0) => new Date(2031, 2, day, hour, minute);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

function withShard<T>(path: string, fn: (s: Shard) => T): T {
  const s = Shard.open(path);
  try {
    return fn(s);
  } finally {
    s.close();
  }
}

/** n turns in a chain, in `session` (or a new one), created at the clock's time. */
function add(path: string, n: number, session?: string, created_at?: Date): string {
  return withShard(path, (s) => {
    let sid = session;
    for (let i = 0; i < n; i++)
      sid = s.addTurn({
        question: `q${i}`,
        answer_text: 'a',
        session: sid,
        created_at: created_at?.toISOString(),
      }).sid;
    return sid!;
  });
}

describe('chainStatus over time', () => {
  it("today's turns with no count yet: found from the chain's clock, a turn before any of today's events included", () => {
    const db = tempDb();
    vi.setSystemTime(at(9, 12));
    const old = add(db, 4);
    vi.setSystemTime(at(9, 13));
    withShard(db, (s) => s.createSession({ label: 'later' })); // the last event stamped before midnight
    vi.setSystemTime(at(10, 0, 30));
    add(db, 1, old); // today, and no event but its own node.add since midnight
    vi.setSystemTime(at(10, 8));
    withShard(db, (s) => setEntry(s, 'main', old));
    add(db, 2, old);
    vi.setSystemTime(at(10, 9));
    expect(chainStatus(db, { statePath: `${db}.none/x` }).turns_today).toBe(3);
  });

  it("today's turns: carried forward, begun again after midnight, imports of old turns not counted, redone after an archive", () => {
    const db = tempDb();
    vi.setSystemTime(at(9, 12));
    add(db, 4);
    vi.setSystemTime(at(10, 9));
    const sid = add(db, 3);
    vi.setSystemTime(at(10, 9, 10));
    let r = chainStatus(db);
    expect(r).toMatchObject({ turns_today: 3, checked: 'full' });

    vi.setSystemTime(at(10, 9, 20));
    add(db, 2, sid);
    vi.setSystemTime(at(10, 9, 30));
    r = chainStatus(db);
    expect(r).toMatchObject({ turns_today: 5, checked: 'incremental' });

    // Past midnight: yesterday's turns no longer count, a turn made after midnight does.
    vi.setSystemTime(at(11, 0, 10));
    add(db, 1, sid);
    vi.setSystemTime(at(11, 0, 30));
    expect(chainStatus(db).turns_today).toBe(1);
    vi.setSystemTime(at(11, 0, 40));
    add(db, 1, sid);
    // An old turn imported today (it keeps the time it was made) is not one of today's turns.
    add(db, 1, undefined, at(1, 8));
    vi.setSystemTime(at(11, 0, 50));
    expect(chainStatus(db).turns_today).toBe(2);

    // Archiving today's session takes its turns out; restoring it brings them back.
    withShard(db, (s) => archiveSessions(s, [sid]));
    vi.setSystemTime(at(11, 0, 55));
    expect(chainStatus(db).turns_today).toBe(0);
    withShard(db, (s) => restoreArchives(s, [sid]));
    vi.setSystemTime(at(11, 0, 58));
    expect(chainStatus(db).turns_today).toBe(2);
  });

  it('a full check again once the last one is an hour old, however quiet the shard', () => {
    const db = tempDb();
    vi.setSystemTime(at(10, 9));
    add(db, 2);
    const t0 = at(10, 10).getTime();
    vi.setSystemTime(t0);
    expect(chainStatus(db).checked).toBe('full');
    vi.setSystemTime(t0 + FULL_CHECK_EVERY_MS - 1000);
    expect(chainStatus(db).checked).toBe('incremental');
    vi.setSystemTime(t0 + FULL_CHECK_EVERY_MS + 1000);
    expect(chainStatus(db)).toMatchObject({
      checked: 'full',
      full_reason: 'the last full check is more than an hour old',
    });
    vi.setSystemTime(t0 + FULL_CHECK_EVERY_MS + 2000);
    expect(chainStatus(db).checked).toBe('incremental');
  });
});
