import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

/** `arborist import claude FILE --follow` through the real binary: what it counts, and a lock held elsewhere. */

const SID = 'dddd0000-0000-4000-8000-000000000004';
let clock = 0;

function line(
  type: 'user' | 'assistant',
  uuid: string,
  parentUuid: string | null,
  text: string,
  stop?: string,
): string {
  const message =
    type === 'user'
      ? { role: 'user', content: text }
      : { id: `m_${uuid}`, role: 'assistant', content: [{ type: 'text', text }], stop_reason: stop ?? null };
  const timestamp = new Date(Date.UTC(2026, 2, 1, 9, 0, clock++)).toISOString();
  return `${JSON.stringify({ parentUuid, isSidechain: false, cwd: '/w', sessionId: SID, type, uuid, timestamp, message })}\n`;
}

function questions(db: string): string[] {
  try {
    const d = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return d.prepare('SELECT question FROM nodes ORDER BY id').pluck().all() as string[];
    } finally {
      d.close();
    }
  } catch {
    return [];
  }
}

async function until(what: () => boolean, ms: number): Promise<void> {
  const t0 = Date.now();
  while (!what()) {
    if (Date.now() - t0 > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

function spawnTracked(args: string[]): { child: ChildProcess; out: () => string; err: () => string } {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  return { child, out: () => out, err: () => err };
}

const exited = (c: ChildProcess) =>
  new Promise<number | null>((r) => (c.exitCode !== null ? r(c.exitCode) : c.on('exit', (code) => r(code))));

describe('import claude --follow (the real binary)', () => {
  it('the summary on Ctrl-C counts distinct files, turns there before, and turns still unfinished at the end', async () => {
    const dir = tempDir('arb-follow-claude-');
    const file = join(dir, `${SID}.jsonl`);
    const db = join(dir, 'sessions.db');
    writeFileSync(
      file,
      line('user', 'p1', null, 'first question') + line('assistant', 'a1', 'p1', 'one', 'end_turn'),
    );
    expect(cli(['import', 'claude', file, '--db', db]).code).toBe(0); // turn 1 is there before the follower starts

    const f = spawnTracked([BIN, 'import', 'claude', file, '--follow', '--db', db]);
    await until(() => f.err().includes('following'), 5000);
    await sleep(600);
    // Turn 2 arrives in three writes, unfinished after the first two: the file is read again after each.
    appendFileSync(file, line('user', 'p2', 'a1', 'second question'));
    await sleep(700);
    appendFileSync(file, line('assistant', 'a2', 'p2', 'calling a tool', 'tool_use'));
    await sleep(700);
    appendFileSync(file, line('assistant', 'a2b', 'a2', 'done', 'end_turn'));
    await until(() => questions(db).includes('second question'), 3000);
    // Turn 3 is still unfinished when Ctrl-C comes (its reply has not started).
    appendFileSync(file, line('user', 'p3', 'a2b', 'third question'));
    await sleep(700);
    f.child.kill('SIGINT');
    expect(await exited(f.child)).toBe(0);
    expect(f.out()).toContain(
      'imported 1 turn, 1 already there, 0 new sessions, 1 file, 1 unfinished, waiting\n',
    );
  }, 30_000);

  it('a write lock held elsewhere past the busy timeout: the follower waits, imports after it, and keeps running', async () => {
    const dir = tempDir('arb-follow-claude-');
    const file = join(dir, `${SID}.jsonl`);
    const db = join(dir, 'sessions.db');
    writeFileSync(
      file,
      line('user', 'p1', null, 'first question') + line('assistant', 'a1', 'p1', 'one', 'end_turn'),
    );
    const f = spawnTracked([BIN, 'import', 'claude', file, '--follow', '--db', db]);
    await until(() => questions(db).length === 1, 5000);

    // Another process (a big import in another terminal) holds the write lock 6 s past the 5 s busy timeout.
    const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
    const holder = spawnTracked([
      '-e',
      `const d = new (require(${JSON.stringify(sqlite)}))(process.argv[1]); d.exec('BEGIN IMMEDIATE');
       console.log('locked'); setTimeout(() => { d.exec('COMMIT'); d.close(); console.log('released'); }, 11000);`,
      db,
    ]);
    await until(() => holder.out().includes('locked'), 5000);
    appendFileSync(
      file,
      line('user', 'p2', 'a1', 'second question') + line('assistant', 'a2', 'p2', 'two', 'end_turn'),
    );
    // Past the busy timeout, the lock still held: the follower has met the lock and is still there.
    await sleep(6500);
    expect(holder.out()).not.toContain('released');
    expect(f.child.exitCode).toBe(null);
    expect(questions(db)).toEqual(['first question']);
    await until(() => holder.out().includes('released'), 10000);
    await until(() => questions(db).includes('second question'), 5000);
    expect(f.err()).toMatch(/locked by another process; waiting/);

    // Still following.
    appendFileSync(
      file,
      line('user', 'p3', 'a2', 'third question') + line('assistant', 'a3', 'p3', 'three', 'end_turn'),
    );
    await until(() => questions(db).includes('third question'), 3000);
    f.child.kill('SIGINT');
    expect(await exited(f.child)).toBe(0);
    expect(f.out()).toContain('imported 3 turns, 0 already there, 1 new session, 1 file\n');
  }, 40_000);
});
