import { chmodSync, copyFileSync, cpSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CRASH_HOOK_ENV } from '../../src/store/index.js';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

const FIX = fileURLToPath(new URL('./fixtures/', import.meta.url));
const OC_HOME = join(FIX, 'openclaw/home');

/** A fresh copy of the OpenClaw fixture home (tests may append to it) and a shard path beside it. */
function setup(): { dir: string; home: string; db: string } {
  const dir = tempDir('arb-import-cli-');
  const home = join(dir, 'openclaw');
  cpSync(OC_HOME, home, { recursive: true });
  return { dir, home, db: join(dir, 'sessions.db') };
}

function clean(db: string): void {
  const v = cli(['verify', '--db', db, '--json']);
  expect(v.code, v.stdout + v.stderr).toBe(0);
  expect(v.json().ok).toBe(true);
  expect(cli(['chain-check', '--db', db]).code).toBe(0);
}

describe('arborist import (the real binary)', () => {
  it('imports, reports each skipped record as file:line, exits 1 for them; a second run adds nothing', () => {
    const { home, db } = setup();
    const r = cli(['import', 'openclaw', home, '--db', db, '--json']);
    expect(r.code).toBe(1); // sessions.json has two keys it must skip
    const s = r.json();
    expect(s).toMatchObject({
      files: 5,
      sessions: 4,
      turns_added: 11,
      turns_skipped: 0,
      archived: 2,
      restored: 1, // the reset's session: the main entry's usage family names it
      entries: 2,
      errors: 2,
    });
    expect(
      s.problems.map((p: { file: string; line: number }) => `${p.file.split('/').pop()}:${p.line}`),
    ).toEqual(['sessions.json:44', 'sessions.json:48']);
    clean(db);
    const again = cli(['import', 'openclaw', home, '--db', db, '--json']).json();
    expect(again).toMatchObject({ turns_added: 0, turns_skipped: 11, sessions: 0, archived: 0, entries: 0 });
    clean(db);
    // the deleted copy is findable in the archive tier, never live; the reset's stays live in its usage family
    const f = cli(['find', '--archived', 'deploy', '--db', db, '--json']);
    expect(f.code).toBe(0);
    expect(cli(['list', '--db', db, '--json']).json().length).toBe(3);
    expect(
      cli(['archive', 'list', '--db', db, '--json'])
        .json()
        .map((a: { reason: string }) => a.reason)
        .sort(),
    ).toEqual(['deleted']);
  });

  it('a file that grew imports only its new turns, under the right parent', () => {
    const { home, db } = setup();
    cli(['import', 'openclaw', home, '--db', db]);
    const file = join(home, 'agents/main/sessions/5d1f8b33-0e2a-4b7c-9d64-2f3a1c0e8b95-topic-42.jsonl');
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const last = JSON.parse(lines[lines.length - 1]);
    const t = Date.parse('2026-07-10T11:00:00.000Z');
    const user = {
      type: 'message',
      id: 'feed0001',
      parentId: last.id,
      timestamp: new Date(t).toISOString(),
      message: {
        role: 'user',
        content: [{ type: 'text', text: 'one more question about the ship list' }],
        timestamp: t,
      },
    };
    const reply = {
      type: 'message',
      id: 'feed0002',
      parentId: 'feed0001',
      timestamp: new Date(t + 1000).toISOString(),
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: 'here it is' }],
        stopReason: 'stop',
        timestamp: t + 1000,
      },
    };
    writeFileSync(file, `${lines.join('\n')}\n${JSON.stringify(user)}\n${JSON.stringify(reply)}\n`);
    const r = cli(['import', 'openclaw', file, '--db', db, '--json']).json();
    expect([r.turns_added, r.sessions]).toEqual([1, 0]);
    const found = cli(['find', 'ship list', '--db', db, '--json']).json();
    const bates = found.find((h: { question: string }) => h.question.startsWith('one more'))!.bates;
    const shown = cli(['show', bates, '--db', db, '--json']).json();
    expect(shown.parent_bates).not.toBeNull();
    clean(db);
  });

  it('the summary counts in words that agree with the number: 1 file, 1 new session, 1 record', () => {
    const { dir, db } = setup();
    const one = join(dir, 'session_b.jsonl');
    copyFileSync(join(FIX, 'corpus/claude-code/session_b.jsonl'), one);
    // the turns already there come right after the turns added: after "9 files" they read as files
    expect(cli(['import', 'claude', one, '--db', db]).stdout).toBe(
      'imported 2 turns, 0 already there, 1 new session, 1 file\n',
    );
    expect(cli(['import', 'claude', one, '--db', db]).stdout).toBe(
      'imported 0 turns, 2 already there, 0 new sessions, 1 file, 1 file unchanged, not read again\n',
    );
    const bad = join(dir, 'one-bad.jsonl');
    writeFileSync(bad, `${readFileSync(one, 'utf8')}[1]\n`);
    expect(cli(['import', 'claude', bad, '--db', join(dir, 'other.db')]).stderr).toMatch(
      /^1 record skipped or repaired:\n {2}\S*one-bad\.jsonl:\d+: /,
    );
  });

  it('bad paths, a read-only shard and an unknown source are one line, exit 2, and change nothing', () => {
    const { home, db } = setup();
    const missing = cli(['import', 'openclaw', '/no/such/place', '--db', db]);
    expect([missing.code, missing.stderr.trim().split('\n').length]).toEqual([2, 1]);
    expect(missing.stderr).toMatch(/no such file or folder/);
    const unknown = cli(['import', 'chatgpt', home, '--db', db]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/usage: arborist import claude|openclaw/);
    cli(['import', 'openclaw', home, '--db', db]);
    chmodSync(db, 0o400);
    const before = readFileSync(db);
    const ro = cli(['import', 'llm', join(FIX, 'llm'), '--db', db]);
    expect(ro.code).toBe(2);
    expect(ro.stderr.trim().split('\n').length).toBe(1);
    expect(readFileSync(db).equals(before)).toBe(true);
  });

  it('hostile text in a transcript never reaches the terminal raw', () => {
    const { dir, db } = setup();
    const file = join(dir, 'evil.jsonl');
    const t = Date.parse('2026-07-10T09:00:00.000Z');
    const evil = 'look \u001b]0;pwned\u0007 here \u001b[2J\u001b[31mred\u009b31m \u202etxt.exe';
    const header = {
      type: 'session',
      version: 3,
      id: 'e0e0e0e0-1111-4222-8333-444455556666',
      timestamp: new Date(t).toISOString(),
      cwd: '/tmp',
    };
    const q = {
      type: 'message',
      id: 'aa000001',
      parentId: null,
      timestamp: new Date(t).toISOString(),
      message: { role: 'user', content: [{ type: 'text', text: evil }], timestamp: t },
    };
    const a = {
      type: 'message',
      id: 'aa000002',
      parentId: 'aa000001',
      timestamp: new Date(t + 5).toISOString(),
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: evil }],
        stopReason: 'stop',
        timestamp: t + 5,
      },
    };
    writeFileSync(file, [header, q, a].map((x) => JSON.stringify(x)).join('\n') + '\n');
    const r = cli(['import', 'openclaw', file, '--db', db, '--json']);
    expect(r.json().turns_added).toBe(1);
    const sid = cli(['list', '--db', db, '--json']).json()[0].sid;
    for (const args of [
      ['show', `${sid}-000001`],
      ['tree', sid],
      ['find', 'look'],
      ['path', `${sid}-000001`],
    ]) {
      const out = cli([...args, '--db', db]);
      expect(out.code, args.join(' ')).toBe(0);
      expect(out.stdout).not.toMatch(/[\u001b\u0007\u009b\u202e]/);
    }
    // and the record itself is kept exactly as written
    clean(db);
  });

  it('a crash in the middle of an import leaves whole files or none, never half of one; the next run completes', () => {
    const { home, db } = setup();
    const crashed = cli(['import', 'openclaw', home, '--db', db], {
      env: { [CRASH_HOOK_ENV]: 'bulk-rows:3' },
    });
    expect(crashed.code).not.toBe(0);
    const h = new Database(db, { readonly: true });
    const files = h
      .prepare("SELECT count(*) FROM audit_events WHERE kind = 'import.file'")
      .pluck()
      .get() as number;
    const added = h
      .prepare("SELECT count(*) FROM audit_events WHERE kind = 'node.add'")
      .pluck()
      .get() as number;
    const sources = h.prepare('SELECT count(DISTINCT chunk_id) FROM node_sources').pluck().get() as number;
    h.close();
    // The files are committed in groups: the crash came inside the first, so none of it is there; and never a
    // turn without its file's closing event, nor a pointer without its chunk.
    expect([files, added, sources]).toEqual([0, 0, 0]);
    clean(db);
    const r = cli(['import', 'openclaw', home, '--db', db, '--json']).json();
    expect(r.turns_added).toBe(11);
    clean(db);
  });

  it('llm: reads logs.db without changing a byte of it', () => {
    const { dir, db } = setup();
    const src = join(dir, 'logs.db');
    const d = new Database(src);
    d.exec(readFileSync(join(FIX, 'llm/legacy-0.31.sql'), 'utf8'));
    d.exec(`INSERT INTO conversations VALUES ('c1', 'wal talk', 'm');
      INSERT INTO responses (id, model, prompt, system, response, conversation_id, datetime_utc)
      VALUES ('r1', 'm', 'what is WAL?', 'be brief', 'Write-ahead logging.', 'c1', '2026-01-01T10:00:00'),
             ('r2', 'm', 'and checkpoints?', NULL, 'They copy it back.', 'c1', '2026-01-01T10:01:00');`);
    d.close();
    const before = readFileSync(src);
    const mtime = statSync(src).mtimeMs;
    const r = cli(['import', 'llm', src, '--db', db, '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ turns_added: 2, sessions: 1 });
    expect(readFileSync(src).equals(before)).toBe(true);
    expect(statSync(src).mtimeMs).toBe(mtime);
    // LLM_USER_PATH is where it looks without a PATH
    const user = join(dir, 'llmhome');
    mkdirSync(user);
    copyFileSync(src, join(user, 'logs.db'));
    const dflt = cli(['import', 'llm', '--db', db, '--json'], { env: { LLM_USER_PATH: user } });
    expect(dflt.json()).toMatchObject({ turns_added: 0, turns_skipped: 2 });
    clean(db);
  });
});
