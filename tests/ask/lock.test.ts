/**
 * `arborist ask` on a shard another process holds the write lock of: it waits as every writer does (the store's
 * busy timeout, 5 s), and an answer it still cannot store is kept in a file (0600) that `arborist ask --kept`
 * stores later, so an answer a model was paid for is never lost. The real binary, a real lock from another process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ask, parseKept, storeKept, UnstoredAnswer } from '../../src/ask/index.js';
import { Shard } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';
import { cli } from '../support/cli.js';
import { tempDb } from '../support/tmp.js';
import { CAPTURE, nodeCmd, runs } from './helpers.js';

const holders: ChildProcess[] = [];
afterEach(() => {
  while (holders.length > 0) holders.pop()!.kill('SIGKILL');
});

/** Another process takes the shard's write lock (BEGIN IMMEDIATE) and commits after `ms`. */
async function holdLock(db: string, ms: number): Promise<ChildProcess> {
  const code = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, Number(process.argv[2]));`;
  const child = spawn(process.execPath, ['-e', code, db, String(ms)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    cwd: process.cwd(), // node_modules/better-sqlite3 is found from here
  });
  holders.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => {
      if (b.toString().includes('locked')) resolve();
    });
    child.on('error', reject);
    child.on('exit', (c) => reject(new Error(`the lock holder exited (${c}) before locking`)));
  });
  return child;
}

function shardWithOneTurn(): { db: string; parent: string } {
  const db = tempDb();
  const s = Shard.open(db);
  try {
    return { db, parent: s.addTurn({ question: 'what is wal?', answer_text: 'a log' }).bates };
  } finally {
    s.close();
  }
}

function turnsUnder(db: string, parent: string) {
  const s = Shard.open(db, { readonly: true });
  try {
    return dbOf(s)
      .prepare(
        'SELECT question, answer_text, audit FROM nodes WHERE parent_id = (SELECT id FROM nodes WHERE bates = ?)',
      )
      .all(parent);
  } finally {
    s.close();
  }
}

describe('ask on a shard another process holds locked', () => {
  it('the lock released within the wait: the turn is stored', async () => {
    const { db, parent } = shardWithOneTurn();
    const counter = `${db}.runs`;
    await holdLock(db, 2000);
    const r = cli([
      'ask',
      'and checkpoints?',
      '--parent',
      parent,
      '--answer-cmd',
      `${process.execPath} ${CAPTURE} - ${counter}`,
      '--db',
      db,
    ]);
    expect(r.stderr).toMatch(/^\[[a-z0-9]+-\d{6}\] fresh\n$/);
    expect(r.code).toBe(0);
    expect(turnsUnder(db, parent)).toEqual([
      { question: 'and checkpoints?', answer_text: 'answer #1 to: and checkpoints?', audit: 'fresh' },
    ]);
  }, 30_000);

  it('the lock held past the wait: exit non-zero, the answer kept in the file named on stderr; --kept stores it', async () => {
    const { db, parent } = shardWithOneTurn();
    const counter = `${db}.runs`;
    const holder = await holdLock(db, 8000);
    const r = cli([
      'ask',
      'and checkpoints?',
      '--parent',
      parent,
      '--answer-cmd',
      `${process.execPath} ${CAPTURE} - ${counter}`,
      '--db',
      db,
    ]);
    expect(r.code).not.toBe(0);
    // The answer was shown as it came; one line on stderr says why it is not stored, where it is, and what stores it.
    expect(r.stdout).toBe('answer #1 to: and checkpoints?\n');
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/locked by another process/);
    const m = /the answer is kept in (\S+\.json)/.exec(lines[0]);
    expect(m, lines[0]).not.toBeNull();
    const file = m![1];
    expect(lines[0]).toContain(`arborist ask --kept ${file}`);
    expect(dirname(file).startsWith(dirname(db))).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const kept = JSON.parse(readFileSync(file, 'utf8'));
    expect(kept).toMatchObject({
      question: 'and checkpoints?',
      parent_bates: parent,
      answer_text: 'answer #1 to: and checkpoints?',
      audit: 'fresh',
    });
    expect(turnsUnder(db, parent)).toEqual([]);

    await new Promise((resolve) => holder.on('exit', resolve));
    const stored = cli(['ask', '--kept', file, '--db', db, '--json']);
    expect(stored.stderr).toBe('');
    expect(stored.code).toBe(0);
    expect(stored.json()).toMatchObject({ parent_bates: parent, audit: 'fresh', cache_key: kept.cache_key });
    expect(turnsUnder(db, parent)).toEqual([
      { question: 'and checkpoints?', answer_text: 'answer #1 to: and checkpoints?', audit: 'fresh' },
    ]);
    expect(existsSync(file)).toBe(false);
    // The model was asked once; the same question again is answered from the cache the kept answer filled.
    expect(runs(counter)).toBe(1);
    const again = cli([
      'ask',
      'and checkpoints?',
      '--parent',
      parent,
      '--answer-cmd',
      `${process.execPath} ${CAPTURE} - ${counter}`,
      '--db',
      db,
    ]);
    expect(again.stderr).toMatch(/\] cached\n$/);
    expect(runs(counter)).toBe(1);
    expect(cli(['check', '--db', db]).code).toBe(0);
  }, 40_000);

  it('--kept refuses another shard, a file that is not a kept answer, and other ask options; nothing stored', () => {
    const { db, parent } = shardWithOneTurn();
    const other = shardWithOneTurn().db;
    const file = `${db}.kept.json`;
    writeFileSync(file, '{"question": 1}', { mode: 0o600 });
    const bad = cli(['ask', '--kept', file, '--db', db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^arborist: .*is not a kept answer/);
    expect(cli(['ask', 'q', '--kept', file, '--db', db]).code).toBe(2);
    expect(cli(['ask', '--kept', file, '--answer', 'x', '--db', db]).code).toBe(2);
    writeFileSync(
      file,
      JSON.stringify({
        v: 1,
        shard: other,
        asked_at: '2026-03-02T09:00:00.000Z',
        question: 'q',
        parent_bates: parent,
        session: null,
        fork: false,
        label: null,
        answer_text: 'a',
        cited_titles: [],
        audit: 'fresh',
        cache_key: 'ab'.repeat(32),
        cacheable: true,
        provider: 'command:["llm"]',
      }),
    );
    const wrong = cli(['ask', '--kept', file, '--db', db]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`was asked of ${other}`);
    expect(turnsUnder(db, parent)).toEqual([]);
    expect(existsSync(file)).toBe(true);
  });
});

describe('ask() under a lock (the API the browser and the REPL use)', () => {
  it('throws UnstoredAnswer naming the kept file; storeKept stores it once the lock is gone; a given answer is not kept', async () => {
    const { db, parent } = shardWithOneTurn();
    const asker = Shard.open(db, { busyTimeoutMs: 100 });
    const holder = Shard.open(db);
    try {
      dbOf(holder).exec('BEGIN IMMEDIATE');
      const err = await ask(asker, {
        question: 'and checkpoints?',
        parent,
        provider: nodeCmd("console.log('paid for')"),
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnstoredAnswer);
      const file = (err as UnstoredAnswer).file!;
      expect(parseKept(readFileSync(file, 'utf8'), file)).toMatchObject({
        answer_text: 'paid for',
        parent_bates: parent,
        audit: 'fresh',
      });
      const manual = await ask(asker, {
        question: 'given',
        parent,
        provider: { kind: 'manual', answer: 'mine' },
      }).catch((e: unknown) => e);
      expect(manual).not.toBeInstanceOf(UnstoredAnswer);
      expect((manual as Error).message).toMatch(/locked by another process/);
      dbOf(holder).exec('COMMIT');
      const { result, removed } = storeKept(asker, file, readFileSync(file, 'utf8'));
      expect(removed).toBe(true);
      expect(result).toMatchObject({ parent_bates: parent, answer_text: 'paid for', audit: 'fresh' });
      expect(asker.chainCheck().ok).toBe(true);
    } finally {
      if (dbOf(holder).inTransaction) dbOf(holder).exec('ROLLBACK');
      holder.close();
      asker.close();
    }
    expect(turnsUnder(db, parent)).toEqual([
      { question: 'and checkpoints?', answer_text: 'paid for', audit: 'fresh' },
    ]);
  });
});
