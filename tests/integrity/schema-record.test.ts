import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { cli } from '../support/cli.js';
import { dropSince0010 } from '../support/older.js';
import { tempDir } from '../support/tmp.js';

/**
 * The shard's record of its own schema (PRAGMA user_version, the count older arborists read, and schema_migrations,
 * the names) changed with sqlite3. Re-running a migration the record wrongly says is due used to fail half-way with
 * SQLite's own error ("index nodes_walk already exists"), or, with only user_version lowered, to quietly "upgrade"
 * the shard and append a shard.migrate event. Each must be one clear line, nothing written, and damage to verify.
 */
function shard(): string {
  const path = join(tempDir('arb-schema-'), 'sessions.db');
  const s = Shard.open(path);
  s.addTurn({ question: 'kept whatever the record says?', answer_text: 'yes' });
  s.close();
  return path;
}

function edit(path: string, change: (db: Database.Database) => void): void {
  const db = new Database(path);
  try {
    change(db);
  } finally {
    db.close();
  }
}

const CASES: [string, (db: Database.Database) => void, RegExp][] = [
  [
    'a row of schema_migrations deleted',
    (db) => db.prepare("DELETE FROM schema_migrations WHERE name = '0004-walk-index'").run(),
    /schema record disagrees: user_version says the first 14 migrations ran, but schema_migrations lacks 0004-walk-index/,
  ],
  [
    'user_version lowered',
    (db) => db.pragma('user_version = 5'),
    /schema record disagrees: user_version says the first 5 migrations ran, but schema_migrations also names 0006-imported-sources and 8 more/,
  ],
  [
    'user_version lowered and schema_migrations dropped',
    (db) => {
      db.exec('DROP TABLE schema_migrations');
      db.pragma('user_version = 5');
    },
    /migration 0006-imported-sources is not recorded as run, but index nodes_source, which it creates, is already there/,
  ],
  [
    'schema_migrations dropped',
    (db) => db.exec('DROP TABLE schema_migrations'),
    /schema record disagrees: user_version says the first 14 migrations ran, but schema_migrations, which the 10th makes, is missing/,
  ],
  [
    'user_version cleared',
    (db) => db.pragma('user_version = 0'),
    /schema record disagrees: user_version says no migration ran, but arborist's tables are there/,
  ],
];

describe("a shard whose schema record was changed behind arborist's back", () => {
  it.each(CASES)('%s: one clear line, nothing written, damage to the checks', (_name, change, re) => {
    const path = shard();
    edit(path, change);
    const before = readFileSync(path);
    for (const args of [['list'], ['ask', 'q', '--answer', 'a'], ['export', 'x']]) {
      const r = cli([...args, '--db', path]);
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(2);
      expect(r.stdout, args[0]).toBe('');
      expect(r.stderr.trim().split('\n'), args[0]).toHaveLength(1);
      expect(r.stderr, args[0]).toMatch(re);
      expect(r.stderr, args[0]).toContain(`${path} is damaged`);
    }
    for (const args of [['verify'], ['check'], ['chain-check']]) {
      const r = cli([...args, '--db', path, '--json']);
      expect(r.code, `${args[0]}: ${r.stdout}${r.stderr}`).toBe(1);
      expect(r.json(), args[0]).toMatchObject({
        ok: false,
        damaged: true,
        reason: expect.stringMatching(re),
      });
    }
    const st = cli(['status', '--db', path, '--json']);
    expect(st.code).toBe(2);
    expect(st.json()).toMatchObject({ kind: 'damaged', error: expect.stringMatching(re) });
    // Nothing written: not the file, and no WAL holding a change for it.
    expect(readFileSync(path).equals(before)).toBe(true);
    if (existsSync(`${path}-wal`)) expect(statSync(`${path}-wal`).size).toBe(0);
  });

  it('an honest old shard (before the names were kept) still upgrades, once, with one shard.migrate event', () => {
    const path = shard();
    edit(path, (db) => {
      dropSince0010(db);
      db.pragma('user_version = 9');
    });
    expect(cli(['list', '--db', path]).code).toBe(0);
    const s = Shard.open(path, { readonly: true });
    try {
      const last = s.audit.event(s.audit.head().seq)!;
      expect([last.kind, last.data]).toEqual(['shard.migrate', { from: 9, to: 14 }]);
    } finally {
      s.close();
    }
    expect(cli(['verify', '--db', path]).code).toBe(0);
  });

  it('the checks and status open the shard read-only: they neither write it nor upgrade it', () => {
    const path = shard();
    // Turns waiting to be indexed: any writable open indexes them when it closes, a read-only one cannot.
    edit(path, (db) => db.exec('INSERT INTO fts_pending SELECT id FROM nodes'));
    const before = readFileSync(path);
    for (const args of [['verify'], ['check'], ['chain-check'], ['status']])
      expect(cli([...args, '--db', path]).code, args[0]).toBe(0);
    expect(readFileSync(path).equals(before)).toBe(true);
    // A shard due an upgrade is not upgraded by a check (it would move the head the check compares): one line.
    edit(path, (db) => {
      dropSince0010(db);
      db.pragma('user_version = 9');
    });
    const old = readFileSync(path);
    for (const args of [['verify'], ['check'], ['chain-check'], ['status']]) {
      const r = cli([...args, '--db', path]);
      expect(r.code, args[0]).toBe(2);
      expect(r.stderr, args[0]).toMatch(/needs a schema upgrade \(schema 9, this arborist's is 14\)/);
    }
    expect(readFileSync(path).equals(old)).toBe(true);
  });
});
