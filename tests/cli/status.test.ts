import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import canonicalize from 'canonicalize';
import type { IPty } from 'node-pty';
import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { rechain, tamper } from '../support/attacker.js';
import { BIN, cli } from '../support/cli.js';
import { tempDb } from '../support/tmp.js';

const pty = createRequire(import.meta.url)('node-pty') as typeof import('node-pty');

/**
 * `arborist status` through the real binary: the answer it gives, what its state file lets it skip and what it
 * never lets it skip (a damaged, missing, foreign or lying state file means a full check), the shard left
 * untouched, and what reaches a terminal or a tmux status line.
 */

const HEAD = /^\d+:[0-9a-f]{64}$/;

/** A shard with `turns` turns in one session, made through the store and closed. */
function makeShard(turns = 3, path = tempDb()): string {
  const s = Shard.open(path);
  let parent: string | undefined;
  for (let i = 0; i < turns; i++)
    parent = s.addTurn({ question: `q${i}`, answer_text: `a${i}`, parent }).bates;
  s.close();
  return path;
}

function addTurns(path: string, n: number, opts: { created_at?: string } = {}): void {
  const s = Shard.open(path);
  for (let i = 0; i < n; i++) s.addTurn({ question: `more ${i}`, answer_text: 'x', ...opts });
  s.close();
}

function status(db: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) {
  return cli(['status', '--db', db, ...args], { env });
}

function statusJson(db: string, args: string[] = []) {
  const r = status(db, [...args, '--json']);
  expect(r.stderr).toBe('');
  expect([0, 1]).toContain(r.code);
  return { code: r.code, doc: r.json() };
}

function chainHead(db: string): { head: string; events: number } {
  const r = cli(['chain-check', '--db', db, '--json']);
  expect(r.code).toBe(0);
  return r.json();
}

/** An edit of one event's stored body, no hash recomputed: the chain is broken at `seq`. */
function breakEvent(db: string, seq: number): void {
  tamper(
    db,
    (d) =>
      d
        .prepare(`UPDATE audit_events SET body = CAST(replace(CAST(body AS TEXT), '"seq":', '"seq": ') AS BLOB)
          WHERE seq = ?`)
        .run(seq),
    { rehash: false },
  );
}

const statePath = (db: string) => `${db}.status.json`;
const readState = (db: string) => JSON.parse(readFileSync(statePath(db), 'utf8'));

/** A state file written by the documented rule (docs/ssh-tmux.md): what someone forging one would write. */
function writeForgedState(db: string, body: Record<string, unknown>): void {
  const sum = createHash('sha256')
    .update(`arborist status state v1\n${canonicalize(body)}`)
    .digest('hex');
  writeFileSync(statePath(db), JSON.stringify({ ...body, sum }));
}

describe('arborist status', () => {
  it('an intact shard: exit 0, the fields scripts read, the same head and count as chain-check', () => {
    const db = makeShard(3);
    const { code, doc } = statusJson(db);
    expect(code).toBe(0);
    const chain = chainHead(db);
    expect(doc).toMatchObject({
      ok: true,
      events: chain.events,
      head: chain.head,
      first_broken_seq: null,
      turns_today: 3,
      checked: 'full',
      full_reason: 'no state file',
      state_file: { path: statePath(db), trusted: false, saved: true },
    });
    expect(doc.head).toMatch(HEAD);
    // The state file is the owner's alone, and the next call resumes from it.
    expect(statSync(statePath(db)).mode & 0o777).toBe(0o600);
    const again = statusJson(db).doc;
    expect(again).toMatchObject({
      ok: true,
      checked: 'incremental',
      full_reason: null,
      events: chain.events,
    });
    expect(again.state_file.trusted).toBe(true);

    const line = status(db);
    expect(line.code).toBe(0);
    expect(line.stdout).toBe(
      `chain intact · ${chain.events} events · head ${chain.head.split(':')[1].slice(0, 8)} · 3 turns created today\n`,
    );
    const short = status(db, ['--short']);
    expect(short.stdout).toBe(
      `⛓ intact ${chain.events} ev ${chain.head.split(':')[1].slice(0, 8)} · 3 today\n`,
    );
    expect(short.stderr).toBe('');
  });

  it('broken after tampering: BROKEN at the edited event, exit 1, in every form', () => {
    const db = makeShard(4);
    expect(statusJson(db).code).toBe(0); // a state file that vouches for the whole chain
    breakEvent(db, 3);
    const { code, doc } = statusJson(db);
    expect(code).toBe(1);
    expect(doc).toMatchObject({ ok: false, first_broken_seq: 3, checked: 'full' });
    // The chain did not grow, yet the file changed: that can be an edit, so nothing was taken on trust.
    expect(doc.full_reason).toBe('the shard was written without new events');
    expect(status(db).stdout).toMatch(/^chain BROKEN at 3: event 3 does not match its hash · /);
    const short = status(db, ['--short']);
    expect(short.code).toBe(1);
    expect(short.stdout).toBe('⛓ BROKEN at 3 · 4 today\n');
    // It stays broken on every later call, however the state file was left.
    expect(statusJson(db).doc.first_broken_seq).toBe(3);
  });

  it('the newest verified event edited in place: its stored bytes no longer hash to what was verified', () => {
    const db = makeShard(2);
    const { events } = statusJson(db).doc;
    breakEvent(db, events); // the head event the state file names, its hash column left as it was
    const { code, doc } = statusJson(db);
    expect(code).toBe(1);
    expect(doc.first_broken_seq).toBe(events);
    expect(doc.full_reason).toBe(`event ${events} is no longer the one verified`);
  });

  it('the state file deleted: a full check and the right answer, intact or broken', () => {
    const db = makeShard(3);
    statusJson(db);
    rmSync(statePath(db));
    expect(statusJson(db).doc).toMatchObject({ ok: true, checked: 'full', full_reason: 'no state file' });
    rmSync(statePath(db));
    breakEvent(db, 2);
    expect(statusJson(db).doc).toMatchObject({ ok: false, first_broken_seq: 2, checked: 'full' });
  });

  it.each([
    [
      'garbage bytes',
      () => Buffer.from([0x00, 0xff, 0x1b, 0x5b, 0x32, 0x4a]),
      'the state file is damaged (not JSON)',
    ],
    ['cut in half', (s: string) => s.slice(0, s.length >> 1), 'the state file is damaged (not JSON)'],
    ['another shape', () => '{"v":1,"verified":{"seq":1}}', 'the state file is damaged (not its format)'],
    [
      'a field edited, digest left',
      (s: string) => s.replace(/"seq":\d+/, '"seq":1'),
      'the state file is damaged (its digest differs)',
    ],
  ])('a corrupted state file (%s): a full check, the damage said', (_name, corrupt, reason) => {
    const db = makeShard(3);
    statusJson(db);
    writeFileSync(statePath(db), corrupt(readFileSync(statePath(db), 'utf8')));
    const { code, doc } = statusJson(db);
    expect(code).toBe(0);
    expect(doc).toMatchObject({ ok: true, checked: 'full', full_reason: reason });
    // ...and a good one written in its place.
    expect(statusJson(db).doc.checked).toBe('incremental');
  });

  it('a well-formed state file pointing at a wrong hash, or made for another shard: a full check, the right answer', () => {
    const db = makeShard(3);
    statusJson(db);
    const { sum: _sum, ...body } = readState(db);
    writeForgedState(db, { ...body, verified: { seq: body.verified.seq, hash: 'ab'.repeat(32) } });
    expect(statusJson(db).doc).toMatchObject({
      ok: true,
      checked: 'full',
      full_reason: `event ${body.verified.seq} is no longer the one verified`,
    });
    writeForgedState(db, { ...body, shard: { ...body.shard, ino: '1' } });
    expect(statusJson(db).doc).toMatchObject({
      checked: 'full',
      full_reason: 'the state file describes another shard file',
    });
    writeForgedState(db, { ...body, full_at: '2001-01-01T00:00:00.000Z' });
    expect(statusJson(db).doc).toMatchObject({
      checked: 'full',
      full_reason: 'the last full check is more than an hour old',
    });
  });

  it('never a false intact: the chain tampered, and a state file claiming it verified everything up to the head', () => {
    const db = makeShard(5);
    statusJson(db);
    const before = readState(db);
    breakEvent(db, 2);
    // The state file from before the edit, and one forged with a valid digest claiming the head as it now stands.
    for (const body of [before, { ...before, full_at: new Date().toISOString() }]) {
      const { sum: _sum, ...rest } = body;
      writeForgedState(db, rest);
      const { code, doc } = statusJson(db);
      expect(code, JSON.stringify(doc)).toBe(1);
      expect(doc.first_broken_seq).toBe(2);
      expect(doc.checked).toBe('full');
    }
  });

  it('new events since the last status: checked incrementally, and counted', () => {
    const db = makeShard(3);
    const first = statusJson(db).doc;
    addTurns(db, 4);
    const next = statusJson(db).doc;
    expect(next.checked).toBe('incremental');
    // Each of these turns starts a session: two events a turn.
    expect(next.events).toBe(first.events + 8);
    expect(next.head).toBe(chainHead(db).head);
    expect(next.turns_today).toBe(7);
    // A break among the new events is found by the incremental check itself.
    addTurns(db, 2);
    const head = next.events;
    breakEvent(db, head + 1);
    addTurns(db, 1);
    const broken = statusJson(db).doc;
    expect(broken).toMatchObject({ ok: false, first_broken_seq: head + 1, checked: 'incremental' });
  });

  it('--full checks every event whatever the state file says (an edit made along with new events)', () => {
    const db = makeShard(3);
    statusJson(db);
    breakEvent(db, 2);
    addTurns(db, 1);
    const r = statusJson(db, ['--full']).doc;
    expect(r).toMatchObject({
      ok: false,
      first_broken_seq: 2,
      checked: 'full',
      full_reason: 'asked for (--full)',
    });
  });

  it('turns today: by created_at in the local day, whatever zone it was written in', () => {
    const db = makeShard(2);
    const day = 86_400_000;
    addTurns(db, 1, { created_at: new Date(Date.now() - 3 * day).toISOString() }); // an import of an old turn
    addTurns(db, 1, { created_at: new Date(Date.now() + 3 * day).toISOString() });
    // Now, written with a +05:30 offset instead of Z.
    const t = new Date(Date.now() + 5.5 * 3600_000).toISOString().replace('Z', '+05:30');
    addTurns(db, 1, { created_at: t });
    for (const tz of ['UTC', 'Asia/Tokyo', 'America/Los_Angeles']) {
      rmSync(statePath(db), { force: true });
      const r = cli(['status', '--db', db, '--json'], { env: { TZ: tz } });
      expect(r.json().turns_today, tz).toBe(3);
    }
  });

  it('a read-only shard: answered, and its bytes not changed', () => {
    const db = makeShard(3);
    chmodSync(db, 0o400);
    const bytes = readFileSync(db);
    const a = statusJson(db);
    expect(a.code).toBe(0);
    const b = statusJson(db);
    expect(b.doc.checked).toBe('incremental');
    expect(readFileSync(db).equals(bytes)).toBe(true);
    expect(statSync(db).mode & 0o777).toBe(0o400);
  });

  it('a state file that cannot be written: still the answer, a full check each time, nothing said on --short', () => {
    const db = makeShard(3);
    // A folder where the state file would go: renaming over it fails as an unwritable folder does (tests run as root).
    mkdirSync(statePath(db));
    writeFileSync(join(statePath(db), 'x'), '');
    const r = statusJson(db).doc;
    expect(r).toMatchObject({ ok: true, checked: 'full', state_file: { saved: false, trusted: false } });
    expect(r.full_reason).toBe('the state file is not a file');
    const short = status(db, ['--short']);
    expect(short.code).toBe(0);
    expect(short.stderr).toBe('');
    expect(short.stdout).toMatch(/^⛓ intact \d+ ev [0-9a-f]{8} · 3 today\n$/);
  });

  it.each([
    ['not SQLite', (p: string) => writeFileSync(p, 'hello, this is not a database\n'.repeat(10)), 'unusable'],
    ['empty', (p: string) => writeFileSync(p, ''), 'DAMAGED'],
    ['missing', () => {}, 'no shard'],
    ['a folder', (p: string) => mkdirSync(p), 'unusable'],
  ])('an unusable shard (%s): one line on stderr, exit 2', (_name, make, word) => {
    const db = tempDb();
    make(db);
    const r = status(db);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(r.stderr).toMatch(/^arborist: .+\n$/);
    const short = status(db, ['--short', '--tmux']);
    expect(short.code).toBe(2);
    expect(short.stdout).toBe(`⛓ #[fg=red,bold]${word}#[default]\n`);
    const json = status(db, ['--json']);
    expect(json.code).toBe(2);
    expect(json.json().error).toBe(r.stderr.slice('arborist: '.length, -1));
    expect(existsSync(statePath(db))).toBe(false);
  });

  it('--expect-head: the chain must still hold a head kept elsewhere', () => {
    const db = makeShard(3);
    const kept = chainHead(db).head;
    expect(statusJson(db, ['--expect-head', kept]).doc).toMatchObject({
      ok: true,
      expected_head: kept,
      holds_expected_head: true,
    });
    addTurns(db, 2); // the chain grew past it: it still holds it
    expect(statusJson(db, ['--expect-head', kept]).code).toBe(0);
    // Rewritten end to end (an edit, every hash recomputed) and the state file gone: intact, but not that chain.
    tamper(
      db,
      (d) => {
        d.prepare(
          `UPDATE audit_events SET body = CAST(replace(CAST(body AS TEXT), '"seq":', '"seq": ') AS BLOB) WHERE seq = 3`,
        ).run();
        rechain(d);
      },
      { rehash: false },
    );
    rmSync(statePath(db));
    expect(statusJson(db).doc.ok).toBe(true);
    const r = statusJson(db, ['--expect-head', kept]);
    expect(r.code).toBe(1);
    expect(r.doc).toMatchObject({ ok: false, first_broken_seq: null, holds_expected_head: false });
    expect(status(db, ['--short', '--expect-head', kept]).stdout).toMatch(/^⛓ HEAD DIFFERS /);
    const bad = status(db, ['--expect-head', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('arborist: --expect-head takes SEQ:HASH (a number, a colon, 64 hex digits)\n');
  });

  it('usage: no positionals, --json alone, listed in --help', () => {
    const db = makeShard(1);
    expect(status(db, ['extra']).code).toBe(2);
    const both = status(db, ['--json', '--short']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/does not take --short or --tmux/);
    expect(cli(['--help']).stdout).toMatch(/\n {2}status {7}one line for tmux/);
    // The whole CLI's entry answers the same as the status bundle bin/arborist starts.
    const main = join(BIN, '..', '..', 'dist', 'bundle', 'main.js');
    const viaMain = spawnSync(process.execPath, [main, 'status', '--db', db, '--short'], {
      encoding: 'utf8',
    });
    expect(viaMain.status).toBe(0);
    expect(viaMain.stdout).toBe(status(db, ['--short']).stdout);
    const missing = spawnSync(process.execPath, [main, 'status', '--db', `${db}.nope`, '--short'], {
      encoding: 'utf8',
    });
    expect(missing.status).toBe(2);
    expect(missing.stdout).toBe('⛓ no shard\n');
    expect(missing.stderr).toBe(status(`${db}.nope`, ['--short']).stderr);
  });
});

/** Runs the binary in a real pseudo-terminal (where colour is on) and returns everything it wrote. */
function onTerminal(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ raw: string; code: number }> {
  return new Promise((resolve) => {
    let raw = '';
    const p: IPty = pty.spawn(process.execPath, [BIN, ...args], {
      cols: 120,
      rows: 10,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TERM: 'xterm-256color', ...env },
    });
    p.onData((d) => {
      raw += d;
    });
    p.onExit(({ exitCode }) => resolve({ raw, code: exitCode }));
  });
}

describe('arborist status on a terminal and in tmux', () => {
  it('--tmux writes tmux style codes and never an escape byte, even on a terminal; plain output is coloured there', async () => {
    const db = makeShard(2);
    const tmux = await onTerminal(['status', '--db', db, '--short', '--tmux']);
    expect(tmux.code).toBe(0);
    expect(tmux.raw).toContain('⛓ #[fg=green]intact#[default] ');
    expect(tmux.raw).not.toContain('\x1b');
    const plain = await onTerminal(['status', '--db', db]);
    expect(plain.raw).toContain('\x1b[32mchain intact\x1b[39m');
    const noColor = await onTerminal(['status', '--db', db], { NO_COLOR: '1' });
    expect(noColor.raw).toContain('chain intact');
    expect(noColor.raw).not.toContain('\x1b');
    breakEvent(db, 2);
    const broken = await onTerminal(['status', '--db', db, '--short', '--tmux']);
    expect(broken.code).toBe(1);
    expect(broken.raw).toContain('⛓ #[fg=red,bold]BROKEN at 2#[default] · 2 today');
    expect(broken.raw).not.toContain('\x1b');
  });
});
