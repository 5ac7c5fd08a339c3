import { describe, expect, it } from 'vitest';
import { recordSync, syncMarks, syncStates } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';
import { newShard } from '../store/util.js';

const HEAD = { commit: 'c'.repeat(40), seq: 7, hash: 'a'.repeat(64) };

describe('sync state in the shard', () => {
  it('is written only with its sync event, and verify holds the rows to what the events recorded', () => {
    const s = newShard();
    try {
      recordSync(s, {
        remote: 'origin',
        host: 'selfhost',
        pushed: HEAD,
        turns_pushed: 1,
        turns_pulled: 2,
        hosts: { otherhost: { ...HEAD, seq: 9 } },
        marks: { abcd1234: { host: 'otherhost', archived: true } },
      });
      expect(syncStates(s, 'origin').map((r) => [r.host, r.seq])).toEqual([
        ['otherhost', 9],
        ['selfhost', 7],
      ]);
      expect(syncMarks(s).get('abcd1234')).toEqual({ host: 'otherhost', archived: true });
      expect(s.verify().ok).toBe(true);

      // A host's commit moved on behind arborist's back (the next sync would skip what lies between).
      dbOf(s).prepare("UPDATE sync_state SET seq = 99 WHERE host = 'otherhost'").run();
      dbOf(s).prepare('UPDATE sync_marks SET archived = 0').run();
      dbOf(s).prepare("INSERT INTO sync_state VALUES ('origin', 'ghost', 'x', 1, 'y', 1)").run();
      const r = s.verify();
      expect(r.ok).toBe(false);
      expect(r.problems).toEqual(
        expect.arrayContaining([
          {
            kind: 'sync',
            id: 'origin/otherhost',
            detail: expect.stringMatching(/^its sync state differs from the one event \d+ recorded$/),
          },
          { kind: 'sync', id: 'origin/ghost', detail: 'a sync state no sync event recorded' },
          { kind: 'sync', id: 'abcd1234', detail: expect.stringMatching(/^its archived-there mark differs/) },
        ]),
      );
    } finally {
      s.close();
    }
  });

  it('refuses a host id that is not one', () => {
    const s = newShard();
    try {
      expect(() =>
        recordSync(s, {
          remote: 'o',
          host: '../x',
          pushed: null,
          turns_pushed: 0,
          turns_pulled: 0,
          hosts: {},
          marks: {},
        }),
      ).toThrow(/host id/);
    } finally {
      s.close();
    }
  });
});
