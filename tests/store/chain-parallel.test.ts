import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type * as Store from '../../src/store/index.js';
import { tempDb } from '../support/tmp.js';

/**
 * AuditLog.check hands the later half of a long chain (150,000+ events) to a worker thread. The worker runs from
 * the compiled build (dist/, made by `npm test`'s pretest), so this test drives the compiled store.
 */
const dist = new URL('../../dist/src/store/index.js', import.meta.url);

describe.skipIf(!existsSync(dist))('chain-check on a long chain (two threads)', () => {
  it('gives the same verdicts as the one-thread check: intact, and the exact first break in either half', async () => {
    const { Shard } = (await import(dist.href)) as typeof Store;
    const s = Shard.open(tempDb());
    try {
      const N = 160_000;
      s.write(() => {
        for (let i = 0; i < N; i++) s.audit.append('bench.event', { i }, '2026-01-01T00:00:00.000Z');
      });
      const head = s.chainHead();
      const ok = s.chainCheck();
      expect(ok).toMatchObject({ ok: true, events: N + 1, head, first_broken_seq: null });
      let progressed = 0;
      s.chainCheck({ onProgress: (n) => (progressed = n) });
      expect(progressed).toBe(N + 1);

      const flip = (seq: number) => {
        const b = Buffer.from(
          s.db.prepare('SELECT body FROM audit_events WHERE seq = ?').pluck().get(seq) as Buffer,
        );
        b[5] ^= 1;
        s.db.prepare('UPDATE audit_events SET body = ? WHERE seq = ?').run(b, seq);
      };
      flip(150_000); // in the helper's half
      expect(s.chainCheck()).toMatchObject({
        ok: false,
        first_broken_seq: 150_000,
        reason: 'event 150000 does not match its hash',
        verified: { seq: 149_999 },
      });
      s.db.prepare('DELETE FROM audit_events WHERE seq = 20000').run(); // in the first half
      expect(s.chainCheck()).toMatchObject({
        ok: false,
        first_broken_seq: 20_000,
        reason: 'event 20000 is missing',
      });
    } finally {
      s.close();
    }
  }, 60_000);
});
