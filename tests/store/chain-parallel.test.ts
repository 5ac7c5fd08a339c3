import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type * as Store from '../../src/store/index.js';
import type * as Check from '../../src/store/testing.js';
import { appendUnchecked, dbOf } from '../../src/store/testing.js';
import { tempDb } from '../support/tmp.js';

/**
 * AuditLog.check hands the later half of a long chain (150,000+ events) to a worker thread. The worker runs from
 * the compiled build (dist/, made by `npm test`'s pretest), so this test drives the compiled store.
 */
const dist = new URL('../../dist/src/store/index.js', import.meta.url);
const distCheck = new URL('../../dist/src/store/testing.js', import.meta.url);

describe.skipIf(!existsSync(dist))('chain-check on a long chain (two threads)', () => {
  it('gives the same verdicts as the one-thread check: intact, and the exact first break in either half', async () => {
    const { Shard } = (await import(dist.href)) as typeof Store;
    const s = Shard.open(tempDb());
    try {
      const N = 160_000;
      s.write(() => {
        for (let i = 0; i < N; i++) appendUnchecked(s, 'bench.event', { i }, '2026-01-01T00:00:00.000Z');
      });
      const head = s.chainHead();
      const ok = s.chainCheck();
      expect(ok).toMatchObject({ ok: true, events: N + 1, head, first_broken_seq: null });
      let progressed = 0;
      s.chainCheck({ onProgress: (n) => (progressed = n) });
      expect(progressed).toBe(N + 1);

      const flip = (seq: number) => {
        const b = Buffer.from(
          dbOf(s).prepare('SELECT body FROM audit_events WHERE seq = ?').pluck().get(seq) as Buffer,
        );
        b[5] ^= 1;
        dbOf(s).prepare('UPDATE audit_events SET body = ? WHERE seq = ?').run(b, seq);
      };
      flip(150_000); // in the helper's half
      expect(s.chainCheck()).toMatchObject({
        ok: false,
        first_broken_seq: 150_000,
        reason: 'event 150000 does not match its hash',
        verified: { seq: 149_999 },
      });
      dbOf(s).prepare('DELETE FROM audit_events WHERE seq = 20000').run(); // in the first half
      expect(s.chainCheck()).toMatchObject({
        ok: false,
        first_broken_seq: 20_000,
        reason: 'event 20000 is missing',
      });
    } finally {
      s.close();
    }
  }, 60_000);

  it('names a break exactly where the chunks meet: first and last event of a chunk, a link, a body stored as text', async () => {
    const { Shard } = (await import(dist.href)) as typeof Store;
    const { chainChunks, chainCheckThreads } = (await import(distCheck.href)) as typeof Check;
    const s = Shard.open(tempDb());
    try {
      const N = 160_000;
      s.write(() => {
        for (let i = 0; i < N; i++) appendUnchecked(s, 'bench.event', { i }, '2026-01-01T00:00:00.000Z');
      });
      const head = s.audit.head().seq;
      const threads = chainCheckThreads(head);
      const chunks = chainChunks(0, head, Math.max(2, threads));
      expect(chunks.length).toBeGreaterThan(8);
      expect(chunks[0].lo).toBe(0);
      expect(chunks.at(-1)?.hi).toBe(head);
      for (let k = 1; k < chunks.length; k++) expect(chunks[k].lo).toBe(chunks[k - 1].hi);
      // A chunk in the later part (a helper's, when there is one) and its neighbours' boundary.
      const { lo, hi } = chunks[Math.floor((chunks.length * 3) / 4)];
      const row = (seq: number) =>
        dbOf(s).prepare('SELECT body, prev_hash FROM audit_events WHERE seq = ?').get(seq) as {
          body: Buffer;
          prev_hash: Buffer;
        };
      const set = (seq: number, col: 'body' | 'prev_hash', v: unknown) =>
        dbOf(s).prepare(`UPDATE audit_events SET ${col} = ? WHERE seq = ?`).run(v, seq);
      const flipped = (b: Buffer) => {
        const c = Buffer.from(b);
        c[7] ^= 1;
        return c;
      };
      const cases: {
        seq: number;
        col: 'body' | 'prev_hash';
        value: (r: { body: Buffer; prev_hash: Buffer }) => unknown;
        reason: string;
      }[] = [
        {
          seq: lo + 1,
          col: 'body',
          value: (r) => flipped(r.body),
          reason: `event ${lo + 1} does not match its hash`,
        },
        {
          seq: hi,
          col: 'body',
          value: (r) => flipped(r.body),
          reason: `event ${hi} does not match its hash`,
        },
        {
          seq: lo + 1,
          col: 'prev_hash',
          value: (r) => flipped(r.prev_hash),
          reason: `event ${lo + 1} does not link to event ${lo}`,
        },
        // The same bytes as text: the fast path never vouches for a value that is not a blob.
        {
          seq: lo + 2,
          col: 'body',
          value: (r) => r.body.toString('latin1'),
          reason: `event ${lo + 2} is not stored as bytes`,
        },
      ];
      for (const c of cases) {
        const before = row(c.seq);
        set(c.seq, c.col, c.value(before));
        expect(s.chainCheck(), c.reason).toMatchObject({
          ok: false,
          first_broken_seq: c.seq,
          reason: c.reason,
          verified: { seq: c.seq - 1 },
        });
        set(c.seq, c.col, before[c.col]);
      }
      expect(s.chainCheck()).toMatchObject({ ok: true, events: head });
    } finally {
      s.close();
    }
  }, 120_000);
  it('shares out no range for a head numbered beyond any real chain, and names the gap before it', async () => {
    const { Shard } = (await import(dist.href)) as typeof Store;
    const s = Shard.open(tempDb());
    try {
      s.createSession({ sid: 'aaaa' });
      const head = s.audit.head();
      // A consistent event appended at 2^53 + 1: the range to the head would be 2^53 events to cut into chunks.
      const seq = 9007199254740993n;
      const ts = '2026-12-01T00:00:00.000Z';
      const body = Buffer.from(`{"data":{},"kind":"x","seq":${seq},"ts":"${ts}"}`);
      const h = createHash('sha256')
        .update(Buffer.concat([head.hash, body]))
        .digest();
      dbOf(s)
        .prepare('INSERT INTO audit_events VALUES (?, ?, ?, ?, ?, ?)')
        .run(seq, ts, 'x', body, head.hash, h);
      expect(s.chainCheck()).toMatchObject({ ok: false, first_broken_seq: head.seq + 1 });
    } finally {
      s.close();
    }
  }, 60_000);
});
