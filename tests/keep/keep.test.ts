import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';
import {
  appendTurn,
  claudeTurn,
  expected,
  FILE_A,
  FILE_B,
  fakeHome,
  followingAll,
  type Home,
  logText,
  questions,
  ready,
  SID_A,
  same,
  startKeeper,
  stop,
  turnIds,
  until,
  writeTurn,
} from './helpers.js';

/** `arborist keep` through the built binary over a fake home (docs/keep.md). */

const CODEX_DAY = join('sessions', '2026', '01', '02');
const CODEX_ID = '019b7f94-51b4-7593-922e-ba12b5b73b52';

/** A Codex rollout for a new day: the fixture under another session id, in a folder made for it. */
function newCodexDay(h: Home, day: string, id: string): void {
  const src = readFileSync(join(h.codex, CODEX_DAY, `rollout-2026-01-02T18-39-45-${CODEX_ID}.jsonl`), 'utf8');
  const dir = join(h.codex, 'sessions', '2026', '12', day);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `rollout-2026-12-${day}T10-00-00-${id}.jsonl`), src.replaceAll(CODEX_ID, id));
}

describe('arborist keep', () => {
  it('keeps every source, appended turns, a new project folder and a new day folder, by notification alone', async () => {
    const h = fakeHome();
    const k = await followingAll(h); // poll and rediscovery an hour apart: only notifications find what follows
    const kinds = new Set(turnIds(h.db).map((id) => id.split('/')[0]));
    expect([...kinds].sort()).toEqual(['claude', 'codex', 'openclaw']);

    appendTurn(join(h.claude, FILE_A), SID_A, 'k1', 'r-a2', 'appended while kept');
    const ms = await until('the appended turn', () => questions(h.db).includes('appended while kept'), 5000);
    expect(ms).toBeLessThan(5000);

    // A new project: its folder first (empty), its transcript a moment later.
    const p2 = join(h.home, '.claude', 'projects', 'p2');
    mkdirSync(p2);
    await new Promise((r) => setTimeout(r, 300)); // the folder alone for a moment, as a tool makes it
    writeTurn(
      join(p2, 'cccc0000-0000-4000-8000-00000000000c.jsonl'),
      'cccc0000-0000-4000-8000-00000000000c',
      'k2',
      'in a new project',
    );
    await until('the new project', () => questions(h.db).includes('in a new project'), 5000);

    // A new day of Codex: year/month/day folders made at once, the rollout in them.
    newCodexDay(h, '07', '019c0000-0000-7000-8000-000000000007');
    await until('the new day', () => same(h.db, expected(h)), 5000);

    const code = await stop(k);
    expect(code).toBe(0);
    expect(k.out()).toMatch(
      /^kept \d+ turns? \(\d+ new sessions?\) from \d+ file readings? in \d+ batch(es)?; \d+ files? followed\n$/,
    );
    expect(existsSync(`${h.db}.keep.lock`)).toBe(false);
    expect(logText(h)).toMatch(/keeper \d+ stopped: /);
    expect(cli(['check', '--db', h.db]).code).toBe(0);
  });

  it("a turn appended to a session's subagent file is kept, though the session's own file does not change", async () => {
    // A subagent (Claude Code's Task tool, or one run in the background) writes its own transcript under
    // <session>/subagents/, read with the session's file. The keeper followed only the session's file, so turns a
    // subagent added after the session's last write waited for a restart (the import's fingerprint covers them).
    const h = fakeHome();
    const sid = 'dddd0000-0000-4000-8000-00000000000d';
    writeTurn(join(h.claude, `${sid}.jsonl`), sid, 's0', 'the session asks');
    const sub = join(h.claude, sid, 'subagents');
    mkdirSync(sub, { recursive: true });
    const agent = join(sub, 'agent-q1.jsonl');
    writeFileSync(
      agent,
      claudeTurn(sid, 'q1', null, 'the subagent starts', { isSidechain: true, agentId: 'q1' }),
    );
    // The older layout: a subagent file beside the sessions (agent-<id>.jsonl, its session named inside).
    const oldAgent = join(h.claude, 'agent-old1.jsonl');
    writeFileSync(oldAgent, claudeTurn(SID_A, 'o1', null, 'an old-layout subagent', { isSidechain: true }));
    const old = new Date(Date.now() - 86_400_000);
    for (const f of [join(h.claude, `${sid}.jsonl`), agent, oldAgent]) utimesSync(f, old, old); // quiet: read once, settled
    const k = startKeeper(h); // poll and rediscovery an hour apart: a notification must find it
    await ready(h);
    await until("the subagent's first turn", () => questions(h.db).includes('the subagent starts'));
    await new Promise((r) => setTimeout(r, 1000)); // past --settle: nothing read again on its own
    appendFileSync(
      agent,
      claudeTurn(sid, 'q2', 'q1-a', 'the subagent goes on', { isSidechain: true, agentId: 'q1' }),
    );
    await until('the appended subagent turn', () => questions(h.db).includes('the subagent goes on'), 5000);
    // In words, one turn is one turn (the log said "+1 turns").
    await until('its log line', () => /Z \+1 turn \(claude 1\)\n/.test(logText(h)));
    // A second subagent of the same session, in a file that was not there at the session's last reading.
    writeFileSync(
      join(sub, 'agent-q3.jsonl'),
      claudeTurn(sid, 'q3', null, 'a second subagent', { isSidechain: true, agentId: 'q3' }),
    );
    await until('the second subagent', () => questions(h.db).includes('a second subagent'), 5000);
    // A new session in the project folder, which holds older-layout subagent files (read with every session
    // beside them): it is still discovered.
    const sid2 = 'dddd0000-0000-4000-8000-0000000000d2';
    writeTurn(join(h.claude, `${sid2}.jsonl`), sid2, 'n0', 'a new session beside old subagents');
    await until(
      'the new session',
      () => questions(h.db).includes('a new session beside old subagents'),
      5000,
    );
    const ids = turnIds(h.db);
    expect(new Set(ids).size).toBe(ids.length);
    expect(await stop(k)).toBe(0);
  });

  it("an agent's home made after the keeper started (its first run) is followed from the next poll", async () => {
    // `~/.codex` absent at start: it was looked for only at the hourly rediscovery.
    const h = fakeHome();
    const away = join(h.home, 'codex-later');
    renameSync(h.codex, away);
    const k = await followingAll(h, ['--poll', '1s']);
    expect(turnIds(h.db).some((id) => id.startsWith('codex/'))).toBe(false);
    renameSync(away, h.codex);
    await until('its turns', () => same(h.db, expected(h)), 10_000);
    expect(turnIds(h.db).some((id) => id.startsWith('codex/'))).toBe(true);
    expect(await stop(k)).toBe(0);
  });

  it('a new session in a project folder that was empty when the keeper started is kept at once', async () => {
    // Claude Code's cleanup leaves a project's folder empty once its transcripts are gone; a folder holding no
    // history was not watched, so a new session there waited for the hourly rediscovery.
    const h = fakeHome();
    const empty = join(h.home, '.claude', 'projects', 'p-cleaned');
    mkdirSync(empty);
    const k = await followingAll(h);
    writeTurn(
      join(empty, 'dddd0000-0000-4000-8000-0000000000f1.jsonl'),
      'dddd0000-0000-4000-8000-0000000000f1',
      'e1',
      'back in an old project',
    );
    await until('the new session', () => questions(h.db).includes('back in an old project'), 5000);
    expect(await stop(k)).toBe(0);
  });

  it("a huge binary file under a transcript's name is refused from its head, not read whole", async () => {
    // A 300 MB binary file named like a transcript took the keeper's RSS to 374 MB, kept after the reading: the
    // reader read it whole before looking at its first bytes. (Linux: the peak is read from /proc.)
    if (process.platform !== 'linux') return;
    const h = fakeHome();
    const big = join(h.claude, 'dddd0000-0000-4000-8000-0000000000b2.jsonl');
    writeFileSync(big, Buffer.from([0, 1, 2, 3]));
    truncateSync(big, 300 * 1024 * 1024); // sparse: costs no disk, reads as 300 MB of NULs
    const old = new Date(Date.now() - 86_400_000);
    utimesSync(big, old, old);
    const k = startKeeper(h);
    await ready(h);
    await until('the refusal', () =>
      /dddd0000-0000-4000-8000-0000000000b2\.jsonl:0: binary data/.test(logText(h)),
    );
    const status = readFileSync(`/proc/${k.child.pid}/status`, 'utf8');
    const peakMb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]) / 1024;
    expect(peakMb).toBeLessThan(250);
    expect(await stop(k)).toBe(0);
  });

  it('a truncated, a rotated and a deleted file lose no turn the shard holds', async () => {
    const h = fakeHome();
    const k = await followingAll(h);
    const before = turnIds(h.db);

    rmSync(join(h.claude, FILE_B));
    await until('the deletion is seen', () =>
      /bbbb0000-0000-4000-8000-000000000002\.jsonl is gone; the shard keeps every turn it held/.test(
        logText(h),
      ),
    );
    expect(turnIds(h.db)).toEqual(before);

    const a = join(h.claude, FILE_A);
    truncateSync(a, 0);
    await until('the truncation is seen', () => /is shorter than when last read/.test(logText(h)));
    appendTurn(a, SID_A, 't1', null, 'after the truncation');
    await until('a turn after the truncation', () => questions(h.db).includes('after the truncation'), 5000);

    renameSync(a, `${a}.1`);
    writeTurn(a, SID_A, 't2', 'after the rotation');
    await until('a turn after the rotation', () => questions(h.db).includes('after the rotation'), 5000);

    const after = turnIds(h.db);
    for (const id of before) expect(after).toContain(id);
    expect(new Set(after).size).toBe(after.length);
    expect(await stop(k)).toBe(0);
    expect(cli(['check', '--db', h.db]).code).toBe(0);
  });

  it('the shard deleted under it: it stops and says why, instead of keeping turns in a file nobody can open', async () => {
    const h = fakeHome();
    const k = await followingAll(h);
    for (const f of [h.db, `${h.db}-wal`, `${h.db}-shm`]) rmSync(f, { force: true });
    appendTurn(join(h.claude, FILE_A), SID_A, 'd1', null, 'after the shard was deleted');
    expect(await k.exit).not.toBe(0);
    expect(k.err()).toMatch(/the shard .* was deleted or replaced while the keeper ran/);
    expect(k.err().trim().split('\n')).toHaveLength(1);
    expect(logText(h)).toMatch(/stopped: the shard .* was deleted or replaced/);
    // Started again, it makes the shard anew and keeps every turn the histories hold, the new one too.
    const k2 = startKeeper(h);
    await until(
      'everything in a new shard',
      () => questions(h.db).includes('after the shard was deleted'),
      20_000,
    );
    expect(await stop(k2)).toBe(0);
    expect(cli(['check', '--db', h.db]).code).toBe(0);
  });

  it('killed with SIGKILL inside a batch and started again: nothing lost, nothing twice, check clean', async () => {
    const h = fakeHome();
    const want = expected(h);
    // A pause after each file of a batch, so that the kill lands inside the first one.
    const k = startKeeper(h, [], { ARBORIST_KEEP_TEST_DELAY_MS: '250' });
    await until(
      'some turns, not all',
      () => {
        const n = turnIds(h.db).length;
        return n > 0 && n < want.length;
      },
      20_000,
    );
    k.child.kill('SIGKILL');
    await k.exit;
    expect(turnIds(h.db).length).toBeLessThan(want.length);
    expect(existsSync(`${h.db}.keep.lock`)).toBe(true); // left behind: the next keeper finds it stale

    const st = cli(['keep', '--status', '--json'], { env: h.env });
    expect(st.json()).toMatchObject({ running: false, stale: true, pid: k.child.pid });

    const k2 = startKeeper(h);
    await until('everything, once', () => same(h.db, want), 20_000);
    const ids = turnIds(h.db);
    expect(new Set(ids).size).toBe(ids.length);
    expect(await stop(k2)).toBe(0);
    const check = cli(['check', '--db', h.db]);
    expect(check.code, check.stdout + check.stderr).toBe(0);
  });

  it('one keeper per shard: a second says so and exits 2; status tells which one runs', async () => {
    const h = fakeHome();
    const k = startKeeper(h);
    await ready(h);
    const second = startKeeper(h);
    expect(await second.exit).toBe(2);
    expect(second.err()).toMatch(
      new RegExp(`^arborist: a keeper already runs on .*sessions\\.db \\(pid ${k.child.pid}, since \\d{4}-`),
    );
    expect(k.child.exitCode).toBeNull();

    const st = cli(['keep', '--status', '--json'], { env: h.env }).json();
    expect(st).toMatchObject({ running: true, stale: false, pid: k.child.pid });
    await until(
      'a batch is recorded',
      () => cli(['keep', '--status', '--json'], { env: h.env }).json().turns_today > 0,
    );
    const status = cli(['status', '--json'], { env: h.env });
    expect(status.json().keeper).toMatchObject({ running: true, pid: k.child.pid });
    expect(cli(['status', '--short', '--keeper'], { env: h.env }).stdout).toMatch(/ · keep ✓\n$/);
    // Two counts of today, each said for what it is: turns created today (by their dates) and turns the keeper
    // stored today (of any date). The line said "N turns today · keeper P, M turns kept today", which read as a
    // contradiction whenever an import of older sessions made M larger than N.
    expect(cli(['status', '--keeper'], { env: h.env }).stdout).toMatch(
      new RegExp(
        ` · \\d+ turns? created today · keeper ${k.child.pid}, \\d+ turns? kept today( \\(1 archived\\))?\n$`,
      ),
    );
    // times as every other command shows them, not raw ISO strings
    expect(cli(['keep', '--status'], { env: h.env }).stdout).toMatch(
      /^keeper running \(pid \d+, since \d{4}-\d\d-\d\d \d\d:\d\d (UTC|[+-]\d\d:\d\d)\) on .*\nlast import: \d{4}-\d\d-\d\d \d\d:\d\d (UTC|[+-]\d\d:\d\d) · \d+ turns? kept today\b/,
    );

    expect(await stop(k)).toBe(0);
    expect(cli(['keep', '--status', '--json'], { env: h.env }).json()).toMatchObject({
      running: false,
      stale: false,
    });
    expect(cli(['status', '--short', '--keeper'], { env: h.env }).stdout).toMatch(/ · keep ✗\n$/);
  });

  it('two keepers started at once: one keeps, the other exits 2', async () => {
    const h = fakeHome();
    mkdirSync(join(h.home, '.arborist'), { recursive: true });
    const a = startKeeper(h);
    const b = startKeeper(h);
    const first = await Promise.race([a.exit.then(() => a), b.exit.then(() => b)]);
    expect(first.child.exitCode).toBe(2);
    const other = first === a ? b : a;
    await ready(h);
    expect(other.child.exitCode).toBeNull();
    expect(JSON.parse(readFileSync(`${h.db}.keep.lock`, 'utf8')).pid).toBe(other.child.pid);
    expect(await stop(other)).toBe(0);
  });

  it('usage: the modes do not mix, and each refuses the options of the others', () => {
    const h = fakeHome();
    for (const args of [
      ['keep', '--status', '--install'],
      ['keep', '--dry-run'],
      ['keep', '--status', '--poll', '1s'],
      ['keep', '--install', '--poll', '1s'],
      ['keep', '--poll', 'soon'],
      ['keep', '--install', '--service', 'upstart'],
      ['keep', 'extra'],
    ]) {
      const r = cli(args, { env: h.env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^arborist: .+\n$/);
    }
  });

  it('a lock left by a process that is no keeper is stale: a keeper takes it over', async () => {
    const h = fakeHome();
    mkdirSync(join(h.home, '.arborist'), { recursive: true });
    // This test runner: alive, but no arborist keeper.
    writeFileSync(`${h.db}.keep.lock`, JSON.stringify({ pid: process.pid, started: 'x', shard: h.db }));
    expect(cli(['keep', '--status', '--json'], { env: h.env }).json()).toMatchObject({
      running: false,
      stale: true,
    });
    const k = startKeeper(h);
    await ready(h);
    expect(JSON.parse(readFileSync(`${h.db}.keep.lock`, 'utf8')).pid).toBe(k.child.pid);
    expect(await stop(k)).toBe(0);
  });

  it('writes the shard beside another writer (an import in another process) and loses nothing', async () => {
    const h = fakeHome();
    const other = tempDir();
    for (let i = 0; i < 30; i++)
      writeTurn(
        join(other, `eeee0000-0000-4000-8000-0000000000${String(i).padStart(2, '0')}.jsonl`),
        `eeee0000-0000-4000-8000-0000000000${String(i).padStart(2, '0')}`,
        `o${i}`,
        `other ${i}`,
      );
    const k = startKeeper(h);
    await ready(h);
    const writer = spawnSync(
      process.execPath,
      [join(import.meta.dirname, '../../bin/arborist'), 'import', 'claude', other, '--db', h.db],
      { env: h.env, encoding: 'utf8' },
    );
    for (let i = 0; i < 5; i++) appendTurn(join(h.claude, FILE_A), SID_A, `c${i}`, null, `concurrent ${i}`);
    expect(writer.status, writer.stderr).toBe(0);
    await until('both writers', () => {
      const q = questions(h.db);
      return (
        q.filter((x) => x.startsWith('other ')).length === 30 &&
        q.filter((x) => x.startsWith('concurrent ')).length === 5
      );
    });
    expect(await stop(k)).toBe(0);
    expect(cli(['check', '--db', h.db]).code).toBe(0);
  });

  it('its log is one sanitised line a batch, rotated past its bound', async () => {
    const h = fakeHome();
    const k = startKeeper(h, [], { ARBORIST_KEEP_LOG_MAX: '700' });
    await ready(h);
    // A transcript whose name carries an escape sequence and whose last line is no JSON: a problem, in the log.
    const evil = join(h.claude, 'evil\x1b[2Jname.jsonl');
    writeFileSync(evil, 'not json at all\n');
    await until('the problem is logged', () =>
      /problem \S+evilname\.jsonl:1: not valid JSON/.test(logText(h)),
    );
    expect(logText(h)).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);
    for (let i = 0; i < 8; i++) {
      appendTurn(join(h.claude, FILE_A), SID_A, `l${i}`, null, `logged ${i}`);
      await until(`turn ${i}`, () => questions(h.db).includes(`logged ${i}`), 5000);
    }
    expect(await stop(k)).toBe(0);
    const log = readFileSync(h.log, 'utf8');
    const older = readFileSync(`${h.log}.1`, 'utf8');
    expect(statSync(h.log).size).toBeLessThanOrEqual(700);
    expect(statSync(`${h.log}.1`).size).toBeLessThanOrEqual(700);
    expect(log + older).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);
    for (const line of (older + log).trimEnd().split('\n'))
      expect(line).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z /);
  });
});

describe('arborist keep on a terminal', () => {
  it('prints each log line as it is written, sanitised, and its summary on Ctrl-C', async () => {
    const pty = createRequire(import.meta.url)('node-pty') as typeof import('node-pty');
    const h = fakeHome();
    writeFileSync(join(h.claude, 'evil\x1b]0;pwned\x07\x1b[2Jname.jsonl'), 'not json at all\n');
    const term = pty.spawn(
      process.execPath,
      [BIN, 'keep', '--poll', '1h', '--rescan', '1h', '--settle', '500ms'],
      {
        cols: 200,
        rows: 50,
        env: { ...h.env, NO_COLOR: '1', TERM: 'xterm' } as Record<string, string>,
      },
    );
    let raw = '';
    term.onData((d) => (raw += d));
    const exit = new Promise<number>((resolve) => term.onExit((e) => resolve(e.exitCode)));
    try {
      await until('the first batch on the terminal', () => /\+\d+ turns \(claude/.test(raw));
      appendTurn(join(h.claude, FILE_A), SID_A, 'tty1', 'r-a2', 'seen on a terminal');
      await until('its line', () => /\+1 turn \(claude 1\)/.test(raw));
      term.write('\x03');
      expect(await exit).toBe(0);
    } finally {
      term.kill();
    }
    expect(raw).toMatch(/following claude 3 files, openclaw 5 files, codex 2 files; \d+ folders watched/);
    expect(raw).toMatch(/problem \S+evil\S*name\.jsonl:1: not valid JSON/);
    expect(raw).toMatch(/kept \d+ turns/);
    // With NO_COLOR nothing of ours is an escape: none came through from the file's name either.
    expect(raw).not.toContain('\x1b');
    expect(raw).not.toContain('\x07');
  });
});
