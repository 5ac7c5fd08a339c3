import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Shard } from '../../src/store/index.js';
import { appendUnchecked, dbOf, EVENTS_NOT_BYTES, firstGuarded, guardSql } from '../../src/store/testing.js';
import { newShard } from './util.js';

const HEAD_RE = /^\d+:[0-9a-f]{64}$/;
const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();

/** A shard with some history: 1 init + 3 sessions + 20 turns = 24 events. */
function busy(): Shard {
  const s = newShard();
  s.createSession({ sid: 'aaaa', label: 'alpha' });
  s.createSession({ sid: 'bbbb' });
  let last: string | undefined;
  for (let i = 0; i < 12; i++) {
    last = s.addTurn({ question: `a ${i}`, answer_text: 'x', session: 'aaaa', parent: last }).bates;
  }
  for (let i = 0; i < 4; i++)
    s.addTurn({ question: `fork ${i}`, answer_text: 'y', session: 'bbbb', parent: last });
  for (let i = 0; i < 4; i++) s.addTurn({ question: `new ${i}`, answer_text: 'z' }); // each creates a session
  return s;
}

function rows(s: Shard) {
  return dbOf(s)
    .prepare('SELECT seq, kind, body, prev_hash, event_hash FROM audit_events ORDER BY seq')
    .all() as {
    seq: number;
    kind: string;
    body: Buffer;
    prev_hash: Buffer;
    event_hash: Buffer;
  }[];
}

function swapRows(s: Shard, i: number, j: number): void {
  const get = dbOf(s).prepare('SELECT body, prev_hash, event_hash FROM audit_events WHERE seq = ?');
  const set = dbOf(s).prepare(
    'UPDATE audit_events SET body = ?, prev_hash = ?, event_hash = ? WHERE seq = ?',
  );
  const a = get.get(i) as { body: Buffer; prev_hash: Buffer; event_hash: Buffer };
  const b = get.get(j) as { body: Buffer; prev_hash: Buffer; event_hash: Buffer };
  set.run(b.body, b.prev_hash, b.event_hash, i);
  set.run(a.body, a.prev_hash, a.event_hash, j);
}

describe('audit chain', () => {
  it('starts with one shard.init event on a new shard', () => {
    const s = newShard();
    const c = s.chainCheck();
    expect(c).toMatchObject({ ok: true, events: 1, first_broken_seq: null, reason: null });
    expect(rows(s).map((r) => r.kind)).toEqual(['shard.init']);
    expect(rows(s)[0].prev_hash.equals(Buffer.alloc(32))).toBe(true);
  });

  it('appends exactly one event per state change and stays intact', () => {
    const s = busy();
    const c = s.chainCheck();
    expect(c.ok).toBe(true);
    expect(c.events).toBe(1 + 2 + 12 + 4 + 4 * 2);
    expect(c.first_broken_seq).toBeNull();
    expect(c.head).toMatch(HEAD_RE);
    expect(c.head).toBe(s.chainHead());
    expect(c.head.startsWith(`${c.events}:`)).toBe(true);
    expect(c.verified).toEqual({ seq: c.events, hash: c.head.split(':')[1] });

    const kinds = rows(s).map((r) => r.kind);
    expect(kinds.filter((k) => k === 'session.create')).toHaveLength(6);
    expect(kinds.filter((k) => k === 'node.add')).toHaveLength(20);
  });

  it('links every event to the previous one by H(prev_hash || body), from 32 zero bytes', () => {
    const s = busy();
    let prev: Buffer = Buffer.alloc(32);
    let seq = 0;
    for (const r of rows(s)) {
      expect(r.seq).toBe(++seq);
      expect(r.prev_hash.equals(prev)).toBe(true);
      expect(r.event_hash.equals(sha256(prev, r.body))).toBe(true);
      // The body is canonical JSON holding seq, ts, kind and the payload.
      const body = JSON.parse(r.body.toString('utf8'));
      expect(Object.keys(body)).toEqual(['data', 'kind', 'seq', 'ts']);
      expect(body.seq).toBe(r.seq);
      expect(body.kind).toBe(r.kind);
      prev = r.event_hash;
    }
    expect(s.chainHead()).toBe(`${seq}:${prev.toString('hex')}`);
  });

  it('records the Bates id, node hash and every touched session root in node.add', () => {
    const s = newShard();
    s.createSession({ sid: 'aaaa' });
    s.createSession({ sid: 'bbbb' });
    const a = s.addTurn({ question: 'a', answer_text: '', session: 'aaaa' });
    const b = s.addTurn({ question: 'b', answer_text: '', session: 'bbbb', parent: a.bates });
    const ev = s.audit.event(s.audit.head().seq)!;
    expect(ev.kind).toBe('node.add');
    expect(ev.data).toEqual({
      bates: b.bates,
      node_hash: b.node_hash,
      parent_bates: a.bates,
      session_roots: { aaaa: s.getSession('aaaa')!.session_root, bbbb: s.getSession('bbbb')!.session_root },
    });
  });

  it('detects an edited body at that event', () => {
    const s = busy();
    const r = rows(s)[9];
    const edited = Buffer.from(r.body.toString('utf8').replace('"kind":"', '"kind":"x'), 'utf8');
    expect(edited.equals(r.body)).toBe(false);
    dbOf(s).prepare('UPDATE audit_events SET body = ? WHERE seq = ?').run(edited, 10);
    const c = s.chainCheck();
    expect(c.ok).toBe(false);
    expect(c.first_broken_seq).toBe(10);
    expect(c.reason).toMatch(/10/);
    expect(c.verified.seq).toBe(9);
  });

  it('detects a single flipped byte in a body, a stored hash or a prev link', () => {
    for (const [col, seq] of [
      ['body', 3],
      ['event_hash', 7],
      ['prev_hash', 15],
    ] as const) {
      const s = busy();
      const v = dbOf(s).prepare(`SELECT ${col} FROM audit_events WHERE seq = ?`).pluck().get(seq) as Buffer;
      const w = Buffer.from(v);
      w[w.length - 1] ^= 1;
      dbOf(s).prepare(`UPDATE audit_events SET ${col} = ? WHERE seq = ?`).run(w, seq);
      const c = s.chainCheck();
      expect(c.ok, col).toBe(false);
      expect(c.first_broken_seq, col).toBe(seq);
      s.close();
    }
  });

  it('detects a deleted event in the middle', () => {
    const s = busy();
    dbOf(s).prepare('DELETE FROM audit_events WHERE seq = 12').run();
    const c = s.chainCheck();
    expect(c.ok).toBe(false);
    expect(c.first_broken_seq).toBe(12);
    expect(c.reason).toMatch(/missing/);
  });

  it('detects a deleted first event', () => {
    const s = busy();
    dbOf(s).prepare('DELETE FROM audit_events WHERE seq = 1').run();
    const c = s.chainCheck();
    expect(c.ok).toBe(false);
    expect(c.first_broken_seq).toBe(1);
  });

  it('shows a deleted last event as a different head (what --expect-head compares)', () => {
    const s = busy();
    const before = s.chainCheck();
    dbOf(s).prepare('DELETE FROM audit_events WHERE seq = ?').run(before.events);
    const after = s.chainCheck();
    expect(after.head).not.toBe(before.head);
    expect(after.events).toBe(before.events - 1);
  });

  it('detects two swapped events at the first of the two', () => {
    for (const [i, j] of [
      [5, 17],
      [8, 9],
      [1, 2],
    ]) {
      const s = busy();
      swapRows(s, i, j);
      const c = s.chainCheck();
      expect(c.ok, `${i}<->${j}`).toBe(false);
      expect(c.first_broken_seq, `${i}<->${j}`).toBe(i);
      s.close();
    }
  });

  it('detects a chain rewritten from a point on, unless its head is known elsewhere', () => {
    // An attacker who recomputes every later hash gets a consistent chain: only the head betrays it.
    const s = busy();
    const before = s.chainCheck();
    const all = rows(s);
    let prev = all[9].event_hash;
    for (const r of all.slice(10)) {
      const body = Buffer.from(r.body.toString('utf8').replace('"ts":"', '"ts":"1'), 'utf8');
      const h = sha256(prev, body);
      dbOf(s)
        .prepare('UPDATE audit_events SET body = ?, prev_hash = ?, event_hash = ? WHERE seq = ?')
        .run(body, prev, h, r.seq);
      prev = h;
    }
    const after = s.chainCheck();
    expect(after.ok).toBe(true);
    expect(after.head).not.toBe(before.head);
  });

  it('checks incrementally from a verified event, seeing only later events', () => {
    const s = busy();
    const first = s.chainCheck();
    expect(first.ok).toBe(true);
    for (let i = 0; i < 5; i++) s.addTurn({ question: `later ${i}`, answer_text: '', session: 'aaaa' });

    let seen = 0;
    const inc = s.chainCheck({ from: first.verified, onProgress: (n) => (seen = n) });
    expect(inc.ok).toBe(true);
    expect(seen).toBe(5);
    expect(inc.head).toBe(s.chainHead());
    expect(inc.verified.seq).toBe(first.verified.seq + 5);

    // Damage BEFORE the verified point is outside an incremental check (a full check still finds it).
    dbOf(s).prepare('UPDATE audit_events SET event_hash = zeroblob(32) WHERE seq = 3').run();
    expect(s.chainCheck({ from: first.verified }).ok).toBe(true);
    expect(s.chainCheck().first_broken_seq).toBe(3);
  });

  it('an incremental check still detects later tampering', () => {
    const s = busy();
    const first = s.chainCheck();
    for (let i = 0; i < 5; i++) s.addTurn({ question: `later ${i}`, answer_text: '', session: 'aaaa' });
    const target = first.verified.seq + 3;
    const body = dbOf(s).prepare('SELECT body FROM audit_events WHERE seq = ?').pluck().get(target) as Buffer;
    const edited = Buffer.from(body.toString('utf8').replace('"kind":"', '"kind":"x'), 'utf8');
    expect(edited.equals(body)).toBe(false);
    dbOf(s).prepare('UPDATE audit_events SET body = ? WHERE seq = ?').run(edited, target);
    const inc = s.chainCheck({ from: first.verified });
    expect(inc.ok).toBe(false);
    expect(inc.first_broken_seq).toBe(target);

    // A deletion right after the verified event is caught too.
    const s2 = busy();
    const f2 = s2.chainCheck();
    s2.addTurn({ question: 'x', answer_text: '', session: 'aaaa' });
    s2.addTurn({ question: 'y', answer_text: '', session: 'aaaa' });
    dbOf(s2)
      .prepare('DELETE FROM audit_events WHERE seq = ?')
      .run(f2.verified.seq + 1);
    expect(s2.chainCheck({ from: f2.verified }).first_broken_seq).toBe(f2.verified.seq + 1);
  });

  it('an incremental check from a wrong hash fails at the event it resumes from', () => {
    const s = busy();
    const first = s.chainCheck();
    s.addTurn({ question: 'x', answer_text: '', session: 'aaaa' });
    const c = s.chainCheck({ from: { seq: first.verified.seq, hash: '00'.repeat(32) } });
    expect(c.ok).toBe(false);
    expect(c.first_broken_seq).toBe(first.verified.seq);
    expect(c.verified.seq).toBe(0);
  });

  // The event an incremental check resumes from is checked again itself: an attacker who edits it leaves its stored
  // hash (or the next event's prev_hash) as it was, so the events after it still link.
  it.each([
    ['not JSON, event_hash kept', (_old: Buffer) => ({ body: Buffer.from('garbage'), rehash: false })],
    [
      'other JSON, event_hash kept',
      (_old: Buffer) => ({ body: Buffer.from('{"garbage":true}'), rehash: false }),
    ],
    [
      'other JSON, event_hash recomputed',
      (old: Buffer) => ({ body: Buffer.from(old.toString().replace('"kind":"', '"kind":"x')), rehash: true }),
    ],
  ])('the verified event rewritten (%s), then events after it: broken at that event', (_n, edit) => {
    const s = busy();
    const first = s.chainCheck();
    const v = first.verified.seq;
    const row = dbOf(s).prepare('SELECT body, prev_hash FROM audit_events WHERE seq = ?').get(v) as {
      body: Buffer;
      prev_hash: Buffer;
    };
    const e = edit(row.body);
    // Before or after the append: either way event v + 1 links to the hash v had when it was verified.
    s.addTurn({ question: 'after', answer_text: '', session: 'aaaa' });
    dbOf(s).prepare('UPDATE audit_events SET body = ? WHERE seq = ?').run(e.body, v);
    if (e.rehash)
      dbOf(s)
        .prepare('UPDATE audit_events SET event_hash = ? WHERE seq = ?')
        .run(sha256(row.prev_hash, e.body), v);
    const inc = s.chainCheck({ from: first.verified });
    expect(inc.ok).toBe(false);
    expect(inc.first_broken_seq).toBe(v);
    expect(inc.reason).toBe(`event ${v} changed after it was verified`);
    // A full check names v itself, or (v rehashed) the next event, which no longer links to it.
    expect(s.chainCheck().first_broken_seq).toBe(e.rehash ? v + 1 : v);
  });

  it('does not append when a change fails (same transaction)', () => {
    const s = busy();
    const before = s.chainHead();
    expect(() => s.addTurn({ question: 'x', answer_text: '', parent: 'aaaa-999999' })).toThrow();
    expect(() => s.createSession({ sid: 'aaaa' })).toThrow();
    expect(s.chainHead()).toBe(before);
  });
});

describe('the storage-class guard of the events (guards.ts)', () => {
  /** A chain of a few pages (the fast path checks 2,000 events a page), with one body stored as text. */
  function withTextBody(): { s: Shard; seq: number } {
    const s = newShard();
    s.write(() => {
      for (let i = 0; i < 5000; i++) appendUnchecked(s, 'bench.event', { i }, '2026-01-01T00:00:00.000Z');
    });
    const seq = 3500;
    const body = dbOf(s).prepare('SELECT body FROM audit_events WHERE seq = ?').pluck().get(seq) as Buffer;
    dbOf(s).prepare('UPDATE audit_events SET body = ? WHERE seq = ?').run(body.toString('latin1'), seq);
    return { s, seq };
  }
  const named = (seq: number) => ({
    ok: false,
    first_broken_seq: seq,
    reason: `event ${seq} is not stored as bytes`,
    verified: { seq: seq - 1 },
  });

  it('is created by the schema exactly as the check trusts it, and is empty on a healthy shard', () => {
    const s = newShard();
    try {
      expect(
        dbOf(s).prepare("SELECT sql FROM sqlite_schema WHERE name = 'audit_events_not_bytes'").pluck().get(),
      ).toBe(guardSql(EVENTS_NOT_BYTES));
      expect(firstGuarded(dbOf(s), EVENTS_NOT_BYTES)).toBeNull();
    } finally {
      s.close();
    }
  });

  it('names an event whose body is text with the same bytes, through the guard and without it', () => {
    const { s, seq } = withTextBody();
    try {
      expect(firstGuarded(dbOf(s), EVENTS_NOT_BYTES)).toBe(seq);
      expect(s.chainCheck()).toMatchObject(named(seq));
      // A guard that lies (empty by definition) is not trusted: the check asks typeof() itself.
      dbOf(s).exec('DROP INDEX audit_events_not_bytes');
      dbOf(s).exec('CREATE INDEX audit_events_not_bytes ON audit_events(seq) WHERE 0');
      expect(firstGuarded(dbOf(s), EVENTS_NOT_BYTES)).toBeUndefined();
      expect(s.chainCheck()).toMatchObject(named(seq));
      // No guard at all: the same.
      dbOf(s).exec('DROP INDEX audit_events_not_bytes');
      expect(firstGuarded(dbOf(s), EVENTS_NOT_BYTES)).toBeUndefined();
      expect(s.chainCheck()).toMatchObject(named(seq));
      // The bytes back as a blob: intact again, with or without the guard.
      const text = dbOf(s).prepare('SELECT body FROM audit_events WHERE seq = ?').pluck().get(seq) as string;
      dbOf(s).prepare('UPDATE audit_events SET body = ? WHERE seq = ?').run(Buffer.from(text, 'latin1'), seq);
      expect(s.chainCheck()).toMatchObject({ ok: true, events: 5001 });
      dbOf(s).exec(guardSql(EVENTS_NOT_BYTES));
      expect(s.chainCheck()).toMatchObject({ ok: true, events: 5001 });
    } finally {
      s.close();
    }
  });

  it('a null, short or long hash on the fast path sends the page row by row, which names it', () => {
    const s = newShard();
    try {
      s.write(() => {
        for (let i = 0; i < 5000; i++) appendUnchecked(s, 'bench.event', { i }, '2026-01-01T00:00:00.000Z');
      });
      const hash = (seq: number) =>
        dbOf(s).prepare('SELECT event_hash FROM audit_events WHERE seq = ?').pluck().get(seq) as Buffer;
      const seq = 2500;
      const good = hash(seq);
      // NOT NULL is the table's; an attacker rewrites the schema, so a null is asked of the table as it is.
      for (const bad of [good.subarray(0, 31), Buffer.concat([good, Buffer.from([0])])]) {
        dbOf(s).prepare('UPDATE audit_events SET event_hash = ? WHERE seq = ?').run(bad, seq);
        expect(s.chainCheck()).toMatchObject({ ok: false, first_broken_seq: seq });
      }
      dbOf(s).prepare('UPDATE audit_events SET event_hash = ? WHERE seq = ?').run(good, seq);
      expect(s.chainCheck()).toMatchObject({ ok: true, events: 5001 });
    } finally {
      s.close();
    }
  });
});

describe('chain-check against bytes moved between neighbouring rows', () => {
  /** Same concatenation, same body lengths: only the per-row hash lengths tell. */
  it('names an event hash cut short with the next one made long, and a body re-cut between two prev_hashes', () => {
    const s = busy();
    try {
      const get = (seq: number) =>
        dbOf(s).prepare('SELECT body, prev_hash, event_hash FROM audit_events WHERE seq = ?').get(seq) as {
          body: Buffer;
          prev_hash: Buffer;
          event_hash: Buffer;
        };
      const set = dbOf(s).prepare(
        'UPDATE audit_events SET body = ?, prev_hash = ?, event_hash = ? WHERE seq = ?',
      );
      const e2 = get(2);
      const e3 = get(3);
      const e4 = get(4);
      set.run(e2.body, e2.prev_hash, e2.event_hash.subarray(0, 31), 2);
      set.run(e3.body, e3.prev_hash, Buffer.concat([e2.event_hash.subarray(31), e3.event_hash]), 3);
      expect(s.chainCheck()).toMatchObject({ ok: false, first_broken_seq: 2 });
      set.run(e2.body, e2.prev_hash, e2.event_hash, 2);
      set.run(e3.body, e3.prev_hash, e3.event_hash, 3);
      expect(s.chainCheck().ok).toBe(true);
      // Event 3's body loses its first byte to its prev_hash and takes the next prev_hash's first byte.
      set.run(
        Buffer.concat([e3.body.subarray(1), e4.prev_hash.subarray(0, 1)]),
        Buffer.concat([e3.prev_hash, e3.body.subarray(0, 1)]),
        e3.event_hash,
        3,
      );
      set.run(e4.body, e4.prev_hash.subarray(1), e4.event_hash, 4);
      expect(s.chainCheck()).toMatchObject({
        ok: false,
        first_broken_seq: 3,
        reason: 'event 3 does not link to event 2',
      });
    } finally {
      s.close();
    }
  });
});

describe('chain-check against events renumbered behind the store', () => {
  it('finds the gap before an event numbered beyond what a double holds, without sharing out its range', () => {
    const s = busy();
    const head = s.audit.head();
    const seq = 9007199254740993n; // 2^53 + 1
    const ts = '2026-12-01T00:00:00.000Z';
    const body = Buffer.from(
      `{"data":{"sha256":"${'ab'.repeat(32)}","sid":"aaaa"},"kind":"session.archive","seq":${seq},"ts":"${ts}"}`,
    );
    dbOf(s)
      .prepare('INSERT INTO audit_events VALUES (?, ?, ?, ?, ?, ?)')
      .run(seq, ts, 'session.archive', body, head.hash, sha256(head.hash, body));
    const c = s.chainCheck();
    expect(c.ok).toBe(false);
    expect(c.first_broken_seq).toBe(head.seq + 1);
    expect(c.reason).toMatch(/missing/);
    expect(s.verify().ok).toBe(false);
  });

  it('reads a table rebuilt with seq as a plain column row by row, and sees a seq moved onto its neighbour', () => {
    const s = busy();
    dbOf(s).exec(`CREATE TABLE ae2 (seq INTEGER, ts TEXT NOT NULL, kind TEXT NOT NULL, body BLOB NOT NULL,
        prev_hash BLOB NOT NULL, event_hash BLOB NOT NULL);
      INSERT INTO ae2 SELECT * FROM audit_events ORDER BY seq;
      DROP TABLE audit_events;
      ALTER TABLE ae2 RENAME TO audit_events;`);
    expect(s.chainCheck().ok).toBe(true); // the same rows, in a table of another shape
    dbOf(s).prepare('UPDATE audit_events SET seq = 10 WHERE seq = 11').run();
    const c = s.chainCheck();
    expect(c.ok).toBe(false);
    expect(c.first_broken_seq).toBe(11);
    expect(s.verify().problems).toContainEqual({
      kind: 'event',
      id: '10',
      detail: 'its columns disagree with its body',
    });
  });
});
