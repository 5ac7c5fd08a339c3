import { readFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { AUDIT_EVENTS_TABLE, ChainClaims, claimEvent, dbOf, readClaims } from '../../src/store/testing.js';
import { tempDb } from '../support/tmp.js';
import { claimsSummary, newShard } from './util.js';

/**
 * verify rebuilds the chain's claims reading a page of events as a handful of values (claims.ts, FAST_PAGE_SQL),
 * and a page it cannot carry exactly row by row. These tests hold it to the plain reading, one row at a time, on
 * the edits an attacker with sqlite3 can make to the columns it reads: same problems, same claims.
 */

/** The reference: every event one row at a time, in seq order, as readClaims read them before the fast page. */
function readClaimsByRow(db: Database.Database): ChainClaims {
  const claims = new ChainClaims();
  const rows = db.prepare('SELECT seq, kind, ts, body FROM audit_events ORDER BY seq').raw(true).all() as [
    number,
    unknown,
    unknown,
    unknown,
  ][];
  for (const [seq, kindCol, tsCol, body] of rows) {
    let ev: { data?: unknown; kind?: unknown; seq?: unknown; ts?: unknown };
    try {
      if (!Buffer.isBuffer(body)) throw new Error('not bytes');
      ev = JSON.parse(body.toString('utf8'));
      if (ev === null || typeof ev !== 'object') throw new Error('not an object');
    } catch {
      claims.problems.push({ kind: 'event', id: String(seq), detail: 'its body is not an event' });
      continue;
    }
    if (ev.seq !== seq || ev.kind !== kindCol || ev.ts !== tsCol)
      claims.problems.push({ kind: 'event', id: String(seq), detail: 'its columns disagree with its body' });
    const data = ev.data !== null && typeof ev.data === 'object' ? (ev.data as Record<string, unknown>) : {};
    claimEvent(claims, seq, String(ev.kind), String(ev.ts), data);
  }
  return claims;
}

/** 1 init + 3 sessions + 2,600 turns: two pages and a bit, so edits can sit on a page's first and last row. */
let template: Buffer | undefined;
function long(): Shard {
  if (!template) {
    const path = tempDb();
    const s = Shard.open(path);
    const sids = ['aaaa', 'bbbb', 'cccc'];
    for (const sid of sids) s.createSession({ sid });
    s.write(() => {
      // Shallow on purpose (each turn at the top of its session): a deep chain would rehash its path on every add.
      for (let i = 0; i < 2600; i++)
        s.addTurn({ question: `q ${i}`, answer_text: 'a', session: sids[i % 3] });
    });
    s.close(); // checkpoints: the file alone is the shard
    template = readFileSync(path);
  }
  const copy = tempDb();
  writeFileSync(copy, template);
  return newShard(copy);
}

describe('verify: the chain read a page at a time', () => {
  it('reads a healthy chain exactly as row by row does, and finds nothing', () => {
    const s = long();
    expect(s.audit.head().seq).toBeGreaterThan(2000 + 500);
    const fast = readClaims(dbOf(s));
    expect(fast.problems).toEqual([]);
    expect(claimsSummary(fast)).toEqual(claimsSummary(readClaimsByRow(dbOf(s))));
    expect(s.verify().ok).toBe(true);
  });

  const edits: { name: string; sql: string[]; problem?: { id: string; detail: string } }[] = [
    {
      name: 'a kind column edited (first row of the second page)',
      sql: ["UPDATE audit_events SET kind = 'node.gone' WHERE seq = 2001"],
      problem: { id: '2001', detail: 'its columns disagree with its body' },
    },
    {
      name: 'a ts column edited (last row of the first page)',
      sql: ["UPDATE audit_events SET ts = '1999-01-01T00:00:00.000Z' WHERE seq = 2000"],
      problem: { id: '2000', detail: 'its columns disagree with its body' },
    },
    {
      name: 'a kind that holds the separator the page splits on',
      sql: ["UPDATE audit_events SET kind = kind || char(31) || 'x' WHERE seq = 10"],
      problem: { id: '10', detail: 'its columns disagree with its body' },
    },
    {
      name: 'a ts that holds the separator, on the last row of a page',
      sql: ["UPDATE audit_events SET ts = 'x' || char(31) || ts WHERE seq = 2000"],
      problem: { id: '2000', detail: 'its columns disagree with its body' },
    },
    {
      name: 'a ts stored as a number, a kind as a blob',
      sql: [
        'UPDATE audit_events SET ts = 12345 WHERE seq = 11',
        'UPDATE audit_events SET kind = CAST(kind AS BLOB) WHERE seq = 12',
      ],
      problem: { id: '11', detail: 'its columns disagree with its body' },
    },
    {
      name: 'a body that is not JSON',
      sql: ["UPDATE audit_events SET body = X'7b7b7b' WHERE seq = 2500"],
      problem: { id: '2500', detail: 'its body is not an event' },
    },
    {
      name: 'a body stored as text (the same bytes)',
      sql: ['UPDATE audit_events SET body = CAST(body AS TEXT) WHERE seq = 7'],
      problem: { id: '7', detail: 'its body is not an event' },
    },
    {
      name: 'a body with a NUL and invalid UTF-8 in the last page',
      sql: ["UPDATE audit_events SET body = X'00ff' || body WHERE seq = 2599"],
      problem: { id: '2599', detail: 'its body is not an event' },
    },
    {
      name: 'events deleted across a page boundary',
      sql: ['DELETE FROM audit_events WHERE seq BETWEEN 1990 AND 2010'],
    },
    { name: 'every event renumbered below 1', sql: ['UPDATE audit_events SET seq = seq - 1000000'] },
    {
      name: 'an event copied to a seq beyond what a double holds',
      sql: [
        'INSERT INTO audit_events SELECT 9007199254740993, ts, kind, body, prev_hash, event_hash FROM audit_events WHERE seq = 2600',
      ],
    },
    {
      name: 'the table rebuilt with seq as a plain column, a seq moved onto its neighbour',
      sql: [
        `CREATE TABLE ae2 (seq INTEGER, ts TEXT NOT NULL, kind TEXT NOT NULL, body BLOB NOT NULL,
          prev_hash BLOB NOT NULL, event_hash BLOB NOT NULL)`,
        'INSERT INTO ae2 SELECT * FROM audit_events ORDER BY seq DESC',
        'DROP TABLE audit_events',
        'ALTER TABLE ae2 RENAME TO audit_events',
        'UPDATE audit_events SET seq = 10 WHERE seq = 11',
      ],
      problem: { id: '10', detail: 'its columns disagree with its body' },
    },
    {
      name: 'an event moved far past the end',
      sql: ['UPDATE audit_events SET seq = 900000 WHERE seq = 50'],
      problem: { id: '900000', detail: 'its columns disagree with its body' },
    },
  ];
  for (const e of edits) {
    it(`gives the row-by-row verdicts on ${e.name}`, () => {
      const s = long();
      for (const sql of e.sql) dbOf(s).prepare(sql).run();
      const fast = claimsSummary(readClaims(dbOf(s)));
      expect(fast).toEqual(claimsSummary(readClaimsByRow(dbOf(s))));
      if (e.problem) expect(fast.problems).toContainEqual({ kind: 'event', ...e.problem });
      // and verify, which reads the chain this way, reports the damage
      expect(s.verify().ok).toBe(false);
    });
  }
  it('reads timestamps of other lengths in place from the page, body and column alike, and names the one that differs', () => {
    const s = long();
    // The page's timestamps are one list read by position: a shorter and a longer one before an edited one.
    const rewrite = dbOf(s).prepare(
      'UPDATE audit_events SET ts = ?, body = CAST(replace(CAST(body AS TEXT), ts, ?) AS BLOB) WHERE seq = ?',
    );
    rewrite.run('2026-01-01T00:00Z', '2026-01-01T00:00Z', 1499);
    rewrite.run('2026-01-01T00:00:00.000000+01:00', '2026-01-01T00:00:00.000000+01:00', 1500);
    dbOf(s).prepare("UPDATE audit_events SET ts = '1999' || substr(ts, 5) WHERE seq = 1501").run();
    const fast = readClaims(dbOf(s));
    expect(claimsSummary(fast)).toEqual(claimsSummary(readClaimsByRow(dbOf(s))));
    expect(fast.problems).toEqual([
      { kind: 'event', id: '1501', detail: 'its columns disagree with its body' },
    ]);
    expect(fast.events).toBe(2604);
  });

  it('reads a chain kept in a UTF-16 database (where SQLite re-encodes text) as row by row does', () => {
    const s = long();
    const db = new Database(tempDb());
    try {
      db.pragma("encoding = 'UTF-16le'");
      db.exec(AUDIT_EVENTS_TABLE);
      const insert = db.prepare('INSERT INTO audit_events VALUES (?, ?, ?, ?, ?, ?)');
      const rows = dbOf(s).prepare('SELECT * FROM audit_events ORDER BY seq').raw(true).all() as unknown[][];
      db.transaction(() => {
        for (const r of rows) insert.run(...r);
      })();
      expect(claimsSummary(readClaims(db))).toEqual(claimsSummary(readClaimsByRow(db)));
      expect(readClaims(db).problems).toEqual([]);
    } finally {
      db.close();
    }
  });
});
