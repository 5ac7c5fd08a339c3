import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';
import { start } from '../tui/helpers.js';

const SID = 'f0110000-aaaa-4bbb-8ccc-ddddeeeeffff';
const T0 = Date.parse('2026-07-10T09:00:00.000Z');
let n = 0;

function entry(id: string, parentId: string | null, role: string, text: string, extra: object = {}): string {
  const t = T0 + ++n * 1000;
  return JSON.stringify({
    type: 'message',
    id,
    parentId,
    timestamp: new Date(t).toISOString(),
    message: { role, content: [{ type: 'text', text }], timestamp: t, ...extra },
  });
}

/** An OpenClaw transcript with one finished turn. */
function transcript(dir: string): string {
  const file = join(dir, `${SID}.jsonl`);
  const header = JSON.stringify({
    type: 'session',
    version: 3,
    id: SID,
    timestamp: new Date(T0).toISOString(),
    cwd: '/tmp',
  });
  writeFileSync(
    file,
    `${[header, entry('u0000001', null, 'user', 'first question'), entry('a0000001', 'u0000001', 'assistant', 'first answer', { stopReason: 'stop' })].join('\n')}\n`,
  );
  return file;
}

function turns(db: string): string[] {
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

async function until(what: () => boolean, ms: number): Promise<number> {
  const t0 = Date.now();
  while (!what()) {
    if (Date.now() - t0 > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - t0;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function follow(file: string, db: string): { child: ChildProcess; out: () => string } {
  const child = spawn(process.execPath, [BIN, 'import', 'openclaw', file, '--follow', '--db', db], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, out: () => out };
}

describe('import --follow', () => {
  it('an appended turn is in the shard within a second; a partial last line waits for its newline', async () => {
    const dir = tempDir('arb-follow-');
    const file = transcript(dir);
    const db = join(dir, 'sessions.db');
    const f = follow(file, db);
    await until(() => turns(db).length === 1, 5000);

    appendFileSync(
      file,
      `${entry('u0000002', 'a0000001', 'user', 'second question')}\n${entry('a0000002', 'u0000002', 'assistant', 'second answer', { stopReason: 'stop' })}\n`,
    );
    const took = await until(() => turns(db).includes('second question'), 1000);
    console.log(`follow: appended turn in the shard after ${took} ms`);

    // Half a line: nothing happens; its newline arrives: it is read.
    const third = `${entry('u0000003', 'a0000002', 'user', 'third question')}\n${entry('a0000003', 'u0000003', 'assistant', 'third answer', { stopReason: 'stop' })}`;
    appendFileSync(file, third.slice(0, third.length - 20));
    await new Promise((r) => setTimeout(r, 800));
    expect(turns(db)).toEqual(['first question', 'second question']);
    appendFileSync(file, `${third.slice(third.length - 20)}\n`);
    await until(() => turns(db).includes('third question'), 1000);

    f.child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => f.child.on('exit', r));
    expect(code).toBe(0);
    expect(f.out()).toMatch(/imported \d+ turns/);
    expect(f.out()).not.toMatch(/truncated|not JSON/i);
  });

  it('a TUI open on the shard shows the followed turns within a second', async () => {
    const dir = tempDir('arb-follow-');
    const file = transcript(dir);
    const db = join(dir, 'sessions.db');
    const f = follow(file, db);
    await until(() => turns(db).length === 1, 5000);
    const t = await start({ db, cols: 100, rows: 30 });
    await t.waitFor('first question');
    t.press('right'); // open the session: its turns are listed
    await t.waitFor('000001 first question');
    appendFileSync(
      file,
      `${entry('u0000004', 'a0000001', 'user', 'a question from the agent')}\n${entry('a0000004', 'u0000004', 'assistant', 'ok', { stopReason: 'stop' })}\n`,
    );
    const t0 = Date.now();
    await t.waitFor('000002 a question from the agent', 1500);
    console.log(`follow: turn on the TUI's screen after ${Date.now() - t0} ms`);
    f.child.kill('SIGINT');
    await t.quit();
  });
});
