import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDb } from '../support/tmp.js';
import {
  appendTurn,
  claudeTurn,
  FILE_A,
  fakeHome,
  followingAll,
  logText,
  questions,
  ready,
  SID_A,
  startKeeper,
  stop,
  until,
} from './helpers.js';

/** What `arborist keep --status` and `status --keeper` say of a running keeper (docs/keep.md, "Status"). */
describe('arborist keep --status', () => {
  it('status lists what it could not read, and the turns it kept today', async () => {
    const h = fakeHome();
    // A FIFO under a transcript's name: the reader refuses it (reading would block), the keeper goes on.
    spawnSync('mkfifo', [join(h.claude, 'ffff0000-0000-4000-8000-00000000000f.jsonl')]);
    const k = await followingAll(h);
    await until(
      'the state is saved',
      () => cli(['keep', '--status', '--json'], { env: h.env }).json().problem_count > 2,
    );
    const st = cli(['keep', '--status', '--json'], { env: h.env }).json();
    // What a one-shot import adds (the archive tier's turns included: OpenClaw's deleted sessions go there).
    const once = cli(['import', '--db', tempDb(), '--json'], { env: h.env }).json().total.turns_added;
    expect(st.turns_today).toBe(once);
    expect(st.problems).toContainEqual({
      file: join(h.claude, 'ffff0000-0000-4000-8000-00000000000f.jsonl'),
      reason: expect.stringMatching(/not a regular file \(a FIFO\)/),
    });
    const text = cli(['keep', '--status'], { env: h.env }).stdout;
    expect(text).toMatch(/\nproblems in what it read \(\d+\):\n/);
    expect(text).toContain('ffff0000-0000-4000-8000-00000000000f.jsonl: ');
    expect(await stop(k)).toBe(0);
  });

  it("turns kept today: those that went to the archive tier are said apart, so the count adds up to verify's", async () => {
    // OpenClaw's home holds a deleted session's transcript (its turn kept, in the archive tier with its session)
    // and a reset one's (archived, then brought back by the entry whose usage family names it: live).
    const h = fakeHome();
    const k = await followingAll(h);
    const once = cli(['import', '--db', tempDb(), '--json'], { env: h.env }).json().total;
    await until(
      'the state is saved',
      () => cli(['keep', '--status', '--json'], { env: h.env }).json().turns_today === once.turns_added,
    );
    const st = cli(['keep', '--status', '--json'], { env: h.env }).json();
    expect(st.turns_today_archived).toBe(1);
    // verify counts live turns: the kept ones less the archived one (it said 17 kept where verify counted 16).
    const live = Number(/verified: (\d+) turns/.exec(cli(['verify', '--db', h.db]).stdout)![1]);
    expect(live).toBe(st.turns_today - 1);
    expect(cli(['keep', '--status'], { env: h.env }).stdout).toContain(
      ` · ${st.turns_today} turns kept today (${live} live, 1 archived with its session)\n`,
    );
    expect(cli(['status', '--keeper'], { env: h.env }).stdout).toMatch(
      new RegExp(`keeper ${k.child.pid}, ${st.turns_today} turns kept today \\(1 archived\\)\n$`),
    );
    expect(await stop(k)).toBe(0);
  });

  it('status says how many turns wait for their files to be quiet, and they are kept once they are', async () => {
    // An unfinished turn (a reply without end_turn yet) waits for --settle (30 minutes by default): the log and
    // status said nothing of it meanwhile, so a user looking for a session just written saw no sign of it.
    const h = fakeHome();
    const k = await followingAll(h, ['--settle', '3s']);
    const sid = 'dddd0000-0000-4000-8000-0000000000e1';
    const user = claudeTurn(sid, 'w1', null, 'a question still being answered').split('\n')[0];
    writeFileSync(join(h.claude, `${sid}.jsonl`), `${user}\n`);
    await until(
      'status says it waits',
      () => cli(['keep', '--status', '--json'], { env: h.env }).json().turns_waiting === 1,
    );
    expect(cli(['keep', '--status'], { env: h.env }).stdout).toMatch(
      /\n1 turn waits until its file is quiet for 3s \(an unfinished turn is stored whole, never in part\)\n/,
    );
    expect(questions(h.db)).not.toContain('a question still being answered');
    await until('kept once quiet', () => questions(h.db).includes('a question still being answered'), 10_000);
    await until(
      'nothing waits',
      () => cli(['keep', '--status', '--json'], { env: h.env }).json().turns_waiting === 0,
    );
    expect(cli(['keep', '--status'], { env: h.env }).stdout).not.toMatch(/ waits? until/);
    expect(await stop(k)).toBe(0);
  });

  it('status says how many problems it does not list', async () => {
    // `keep --status` listed 10 problems under "problems in what it read (13):" and said nothing of the other 3.
    const h = fakeHome();
    const bad = Array.from({ length: 14 }, (_, i) => `not json ${i}`).join('\n');
    writeFileSync(join(h.claude, 'ffff0000-0000-4000-8000-0000000000b1.jsonl'), `${bad}\n`);
    const k = startKeeper(h);
    await ready(h);
    await until(
      'the state is saved',
      () => cli(['keep', '--status', '--json'], { env: h.env }).json().problem_count >= 14,
    );
    const st = cli(['keep', '--status', '--json'], { env: h.env }).json();
    const text = cli(['keep', '--status'], { env: h.env }).stdout;
    const listed = text.split('\n').filter((l) => l.startsWith('  /')).length;
    expect(listed).toBeLessThan(st.problem_count);
    expect(text).toContain(
      `\n  and ${st.problem_count - listed} more (\`arborist import\` lists every one)\n`,
    );
    expect(await stop(k)).toBe(0);
  });

  it('status says so while the keeper cannot write the shard, and again when it can', async () => {
    // A keeper whose writes failed (the shard locked past the busy timeout, full, read-only) said so in its log
    // only: `keep --status` and the status line went on saying all was well.
    const h = fakeHome();
    const k = await followingAll(h);
    const blocker = new Database(h.db);
    blocker.exec('BEGIN EXCLUSIVE');
    try {
      appendTurn(join(h.claude, FILE_A), SID_A, 'L1', 'r-a2', 'while the shard is locked');
      await until('the log says so', () => /cannot write the shard now/.test(logText(h)), 15_000);
      const st = cli(['keep', '--status', '--json'], { env: h.env }).json();
      expect(st.trouble).toMatch(/is locked by another process/);
      expect(cli(['keep', '--status'], { env: h.env }).stdout).toMatch(
        // the time as every other command shows one (it was the raw 2026-12-07T09:15:27.975Z)
        /\ncannot write the shard since \d{4}-\d\d-\d\d \d\d:\d\d (UTC|[+-]\d\d:\d\d) \(tried again each second\): .*is locked by another process.*\n/,
      );
    } finally {
      blocker.exec('COMMIT');
      blocker.close();
    }
    await until('the turn', () => questions(h.db).includes('while the shard is locked'), 10_000);
    await until(
      'status is well again',
      () => cli(['keep', '--status', '--json'], { env: h.env }).json().trouble === null,
    );
    expect(cli(['keep', '--status'], { env: h.env }).stdout).not.toMatch(/cannot write/);
    expect(cli(['status', '--short', '--keeper'], { env: h.env }).stdout).toMatch(/ · keep ✓\n$/);
    expect(await stop(k)).toBe(0);
  });
});
