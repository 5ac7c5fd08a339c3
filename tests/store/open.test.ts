import {
  chmodSync,
  existsSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { type ArboristError, SCHEMA_VERSION, Shard } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';
import { tempDb, tempDir } from '../support/tmp.js';
import { errorOf, newShard } from './util.js';

/** Everything observable about a folder: names, modes, sizes, mtimes, bytes. */
function snapshot(dir: string): string {
  return readdirSync(dir)
    .sort()
    .map((name) => {
      const p = join(dir, name);
      const st = lstatSync(p);
      const bytes = st.isFile() ? readFileSync(p).toString('base64') : '';
      return `${name} ${st.mode.toString(8)} ${st.size} ${st.mtimeMs} ${bytes}`;
    })
    .join('\n');
}

/** Opening `path` fails with one line, kind 'shard', and leaves its folder exactly as it was. */
function expectRefused(path: string, dir: string, reason: RegExp): ArboristError {
  // Back-date everything so an accidental write would show up in the mtime even within the same millisecond.
  for (const name of readdirSync(dir))
    lutimesSync(join(dir, name), new Date(1_000_000_000_000), new Date(1_000_000_000_000));
  const before = snapshot(dir);
  const e = errorOf(() => Shard.open(path));
  // 'damaged' since issue 10: a file that was a shard and no longer is one is damage (the checks exit 1 on it).
  expect(['shard', 'damaged']).toContain(e.kind);
  expect(e.message).toMatch(reason);
  expect(e.message).not.toContain('\n');
  expect(e.message.length).toBeLessThan(300);
  expect(snapshot(dir)).toBe(before);
  return e;
}

describe('opening a shard', () => {
  it('creates a new shard with file mode 0600 in a new folder with mode 0700', () => {
    const root = tempDir();
    const path = join(root, 'a', 'b', 'sessions.db');
    const s = newShard(path);
    s.addTurn({ question: 'q', answer_text: 'a' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, 'a', 'b')).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, 'a')).mode & 0o777).toBe(0o700);
    // WAL side files inherit the shard's mode
    expect(existsSync(`${path}-wal`)).toBe(true);
    expect(statSync(`${path}-wal`).mode & 0o777).toBe(0o600);
    expect(dbOf(s).pragma('journal_mode', { simple: true })).toBe('wal');
    expect(dbOf(s).pragma('foreign_keys', { simple: true })).toBe(1);
    expect(dbOf(s).pragma('busy_timeout', { simple: true })).toBeGreaterThan(0);
    expect(dbOf(s).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
  });

  it('leaves an existing folder mode alone', () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    newShard(join(dir, 'sessions.db'));
    expect(statSync(dir).mode & 0o777).toBe(0o755);
  });

  it('reopens a shard with its contents and chain, without re-initialising', () => {
    const path = tempDb();
    const s = Shard.open(path);
    const t = s.addTurn({ question: 'persisted', answer_text: 'yes', label: 'keep' });
    const head = s.chainHead();
    s.close();
    const s2 = newShard(path);
    expect(s2.requireNode(t.bates).question).toBe('persisted');
    expect(s2.resolveSession('keep').sid).toBe(t.sid);
    expect(s2.chainHead()).toBe(head);
    expect(s2.search('persisted').hits.map((h) => h.bates)).toEqual([t.bates]);
  });

  // Issue 10: a shard is created whole under another name and linked into place, so a 0-byte or schema-less file
  // where a shard was expected is damage (a truncated shard read as a fresh one once called itself verified).
  it('refuses an empty (0-byte) file as damage and leaves it as it is', () => {
    const path = tempDb();
    writeFileSync(path, '', { mode: 0o600 });
    for (const readonly of [false, true]) {
      const e = errorOf(() => Shard.open(path, { readonly }));
      expect(e.kind).toBe('damaged');
      expect(e.message).toMatch(/empty \(0 bytes\)/);
    }
    expect(readFileSync(path).length).toBe(0);
    expect(readdirSync(dirname(path))).toEqual(['sessions.db']);
  });

  it('refuses an SQLite file with no tables as damage', () => {
    const path = tempDb();
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.close();
    const e = errorOf(() => Shard.open(path));
    expect(e.kind).toBe('damaged');
    expect(e.message).toMatch(/no tables/);
  });

  it('a new shard is never visible half made: no stray file is left beside it', () => {
    const path = tempDb();
    newShard(path).close();
    expect(readdirSync(dirname(path)).filter((f) => !f.startsWith('sessions.db'))).toEqual([]);
  });

  it('refuses a directory', () => {
    const dir = tempDir();
    const path = join(dir, 'sessions.db');
    mkdirSync(path);
    writeFileSync(join(path, 'inside'), 'x');
    expectRefused(path, dir, /is a directory/);
    expect(readdirSync(path)).toEqual(['inside']);
  });

  it('refuses a file that is not SQLite', () => {
    const dir = tempDir();
    const path = join(dir, 'sessions.db');
    writeFileSync(path, 'these are my notes, not a database\n'.repeat(100), { mode: 0o600 });
    expectRefused(path, dir, /not an SQLite database/);
  });

  it('refuses a short non-SQLite file', () => {
    const dir = tempDir();
    const path = join(dir, 'sessions.db');
    writeFileSync(path, 'SQLite', { mode: 0o600 });
    expectRefused(path, dir, /not an SQLite database/);
  });

  it('refuses a read-only file (by its mode bits, even as root)', () => {
    const dir = tempDir();
    const path = join(dir, 'sessions.db');
    const s = Shard.open(path);
    s.addTurn({ question: 'q', answer_text: 'a' });
    s.close();
    chmodSync(path, 0o444);
    expectRefused(path, dir, /read-only/);
    expect(statSync(path).mode & 0o777).toBe(0o444);
  });

  it('refuses a shard written by a newer schema', () => {
    const dir = tempDir();
    const path = join(dir, 'sessions.db');
    const s = Shard.open(path);
    s.addTurn({ question: 'q', answer_text: 'a' });
    s.close();
    const raw = new Database(path);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    const e = expectRefused(path, dir, /newer/);
    expect(e.message).toContain(String(SCHEMA_VERSION + 1));
    // still refused read-only
    expect(errorOf(() => Shard.open(path, { readonly: true })).kind).toBe('shard');
  });

  it('refuses a corrupt file that starts with the SQLite magic', () => {
    const dir = tempDir();
    const garbage: Buffer[] = [
      Buffer.from('garbage that is not a b-tree page at all'),
      Buffer.alloc(8192, 0),
      Buffer.alloc(8192, 0xff),
      Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 131 + 7) & 0xff)),
    ];
    garbage.forEach((g, i) => {
      const path = join(dir, `corrupt${i}.db`);
      writeFileSync(path, Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), g]), { mode: 0o600 });
      expectRefused(path, dir, /corrupt|not an SQLite|newer/);
    });
  });

  it('refuses a truncated shard', () => {
    const dir = tempDir();
    const good = join(dir, 'good.db');
    const s = Shard.open(good);
    for (let i = 0; i < 200; i++)
      s.addTurn({ question: `question ${i} ${'lorem ipsum '.repeat(20)}`, answer_text: 'x'.repeat(400) });
    s.close();
    const bytes = readFileSync(good);
    expect(bytes.length).toBeGreaterThan(40_000);
    for (const size of [100, 4096, 8192, 20_000]) {
      const path = join(dir, `trunc${size}.db`);
      writeFileSync(path, bytes.subarray(0, size), { mode: 0o600 });
      expectRefused(path, dir, /corrupt|not an SQLite|no tables/);
    }
  });

  it("refuses another program's SQLite database instead of adding tables to it", () => {
    const dir = tempDir();
    const path = join(dir, 'places.sqlite');
    const raw = new Database(path);
    raw.exec(
      "CREATE TABLE bookmarks (id INTEGER PRIMARY KEY, url TEXT); INSERT INTO bookmarks (url) VALUES ('https://x');",
    );
    raw.close();
    expectRefused(path, dir, /not an arborist shard/);
    // even one whose tables collide with ours
    const path2 = join(dir, 'other.db');
    const raw2 = new Database(path2);
    raw2.exec('CREATE TABLE sessions (x)');
    raw2.close();
    expectRefused(path2, dir, /not an arborist shard/);
    expect(errorOf(() => Shard.open(path, { readonly: true })).kind).toBe('shard');
  });

  it('refuses a path it cannot create with one line, not a stack trace', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'afile'), 'x');
    symlinkSync(join(dir, 'nowhere', 'x.db'), join(dir, 'dangling.db'));
    for (const path of [
      join(dir, 'afile', 'sessions.db'),
      join(dir, 'afile', 'sub', 'sessions.db'),
      join(dir, 'dangling.db'),
    ]) {
      const before = snapshot(dir);
      const e = errorOf(() => Shard.open(path));
      expect(e.kind, path).toBe('shard');
      expect(e.message, path).toContain(path);
      expect(e.message).not.toContain('\n');
      expect(snapshot(dir)).toBe(before);
    }
  });

  it('read-only mode neither creates a missing shard nor writes', () => {
    const dir = tempDir();
    const path = join(dir, 'missing.db');
    const e = errorOf(() => Shard.open(path, { readonly: true }));
    expect(e.kind).toBe('shard');
    expect(existsSync(path)).toBe(false);

    const s = Shard.open(path);
    s.addTurn({ question: 'q', answer_text: 'a' });
    s.close();
    const ro = newShard(path, { readonly: true });
    expect(ro.listSessions()).toHaveLength(1);
    expect(ro.chainCheck().ok).toBe(true);
    expect(errorOf(() => ro.addTurn({ question: 'no', answer_text: '' })).kind).toBe('shard');
    expect(errorOf(() => ro.createSession()).kind).toBe('shard');
  });
});

describe('write-path settings', () => {
  it('keeps checkpoints out of commits: autocheckpoint off, the WAL truncated after a checkpoint', () => {
    const s = Shard.open(tempDb());
    expect(dbOf(s).pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    expect(dbOf(s).pragma('journal_size_limit', { simple: true })).toBe(16 * 1024 * 1024);
    // idle() on a quiet shard is harmless, and turns added after it are found and verified.
    s.addTurn({ question: 'before idle', answer_text: 'a' });
    s.idle();
    s.addTurn({ question: 'after idle', answer_text: 'b' });
    expect(s.search('idle').hits.length).toBe(2);
    expect(s.verify().ok).toBe(true);
    s.close();
  });
});

describe('durability', () => {
  it('synchronous is NORMAL by default, FULL with durable or ARBORIST_SYNC=full', () => {
    const path = tempDb();
    expect(dbOf(newShard(path)).pragma('synchronous', { simple: true })).toBe(1);
    expect(dbOf(newShard(path, { durable: true })).pragma('synchronous', { simple: true })).toBe(2);
    process.env.ARBORIST_SYNC = 'full';
    try {
      expect(dbOf(newShard(path)).pragma('synchronous', { simple: true })).toBe(2);
    } finally {
      delete process.env.ARBORIST_SYNC;
    }
  });
});
