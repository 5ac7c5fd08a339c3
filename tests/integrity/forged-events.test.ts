import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rechain, rewriteEvent, tamper } from '../support/attacker.js';
import { cli } from '../support/cli.js';
import { buildFixture, copy, type Fixture } from './fixture.js';

/**
 * Event bodies the store never writes, made consistent: the chain rewritten end to end (so chain-check passes and
 * only a head kept elsewhere would tell), the state edited to agree. verify must name the event on its own.
 */
let dir: string;
let f: Fixture;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'arb-forged-events-'));
  f = buildFixture(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const createOf = (db: Database.Database, sid: string) =>
  db
    .prepare(
      "SELECT seq FROM audit_events WHERE kind = 'session.create' AND json_extract(CAST(body AS TEXT), '$.data.sid') = ?",
    )
    .pluck()
    .get(sid) as number;

// biome-ignore lint/suspicious/noExplicitAny: an event's data, edited as the attacker likes
type Data = any;
const CASES: {
  name: string;
  change: (d: Data) => void;
  state?: (db: Database.Database, sid: string) => void;
  detail: RegExp;
}[] = [
  {
    name: 'a label that is a number (the session row cleared to match what a lax replay reads)',
    change: (d) => {
      d.label = 5;
    },
    state: (db, sid) => db.prepare('UPDATE sessions SET label = NULL WHERE sid = ?').run(sid),
    detail: /label .*not text or null \(a number\)/,
  },
  {
    name: 'a label that is an object',
    change: (d) => {
      d.label = { text: 'alpha' };
    },
    state: (db, sid) => db.prepare('UPDATE sessions SET label = NULL WHERE sid = ?').run(sid),
    detail: /label .*not text or null \(an object\)/,
  },
  {
    name: 'a session_root that is not 64 hex digits (later events set the root)',
    change: (d) => {
      d.session_root = 5;
    },
    detail: /session_root .*not 64 lowercase hex digits/,
  },
  {
    name: 'a source whose fields are not text (the row holds them as text)',
    change: (d) => {
      d.source = { info_json: '{}', source: 5, source_session: 'x' };
    },
    state: (db, sid) =>
      db
        .prepare(
          "INSERT INTO session_sources (source, source_session, sid, info_json) VALUES ('5', 'x', ?, '{}')",
        )
        .run(sid),
    detail: /source .*not \{source, source_session, info_json\} as text/,
  },
  {
    name: 'a source that is not an object',
    change: (d) => {
      d.source = 'claude';
    },
    detail: /source .*not \{source, source_session, info_json\} as text/,
  },
  {
    name: 'a sid that is not a session id',
    change: (d) => {
      d.sid = 7;
    },
    detail: /names no valid session id/,
  },
];

describe('a session.create event forged consistently', () => {
  it('the rewrite alone (no change) leaves every check passing', () => {
    const path = copy(f);
    tamper(
      path,
      (db) => {
        rewriteEvent(db, createOf(db, f.alpha), () => {});
        rechain(db);
      },
      { rehash: false },
    );
    expect(cli(['verify', '--db', path]).code).toBe(0);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s is a verify problem naming the event', (_name, c) => {
    const path = copy(f);
    let seq = 0;
    tamper(
      path,
      (db) => {
        seq = createOf(db, f.alpha);
        rewriteEvent(db, seq, (e) => c.change(e.data));
        c.state?.(db, f.alpha);
        rechain(db);
      },
      { rehash: false },
    );
    expect(cli(['chain-check', '--db', path]).code).toBe(0);
    const r = cli(['verify', '--db', path, '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const problems = r.json().problems as { kind: string; id: string; detail: string }[];
    expect(problems).toContainEqual({
      kind: 'event',
      id: String(seq),
      detail: expect.stringMatching(c.detail),
    });
  });
});
