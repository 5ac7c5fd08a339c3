import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { ParsedSource, ParsedTurn } from '../../src/import/model.js';
import { opencodeReader } from '../../src/import/opencode/index.js';
import { dataDir, opencodeDefaultPaths } from '../../src/import/opencode/paths.js';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

// Written by OpenCode itself (tests/import/fixtures/opencode/SOURCES.md): the same seven prompts, a subagent and
// a fork, once by 1.1.65 (storage/ JSON files) and once by 1.18.33 (opencode.db).
const FIXTURES = new URL('./fixtures/opencode/', import.meta.url).pathname;
const STORAGE_HOME = join(FIXTURES, 'storage-1.1.65');
const DB_HOME = join(FIXTURES, 'db-1.18.33');
const PROJECT = '89682cb850f8f4a4fdc896d569934f032eee9fba';
const S_MAIN = 'ses_db2f85d91ffeY172fwsj0IK2F8';
const S_CHILD = 'ses_db2f839f2ffeMLSEVV85WVvmYU';
const S_FORK = 'ses_db2f81672ffeb7TLmV5bZco3GA';
const D_MAIN = 'ses_db2f8015bffe9nF2eDmwG4EmbA';
const D_CHILD = 'ses_db2f760f8ffe2ICwrgCH6G2wzb';
const D_FORK = 'ses_db2f6a083ffeculRRCFsyvhZa5';

function readAll(path: string): ParsedSource[] {
  return opencodeReader.discover(path, []).flatMap((f) => [...opencodeReader.read(f)]);
}

function bySession(sources: ParsedSource[]): Map<string, ParsedTurn[]> {
  const m = new Map<string, ParsedTurn[]>();
  for (const s of sources)
    for (const t of s.turns) m.set(t.sourceSession, [...(m.get(t.sourceSession) ?? []), t]);
  return m;
}

/** A copy of a fixture home to change or to watch (the fixtures themselves are never touched). */
function copyOf(home: string): string {
  const dir = join(tempDir('oc-'), 'opencode');
  cpSync(home, dir, { recursive: true });
  return dir;
}

/** Every file below a folder with its bytes and mtime. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(p, `${statSync(p).mtimeMs}:${readFileSync(p).toString('base64')}`);
    }
  };
  walk(dir);
  return out;
}

const MAIN_QUESTIONS = [
  'Please list the files in this project',
  'And what does notes.txt hold? Answer briefly.',
  'Now delegate: count the lines with a helper',
  'Please create todo.txt with one line',
  'Read missing.txt for me',
  'Summarise the attached file',
];

describe('OpenCode storage/ (1.1.65, files OpenCode wrote)', () => {
  const sources = readAll(STORAGE_HOME);
  const turns = bySession(sources);

  it('finds the session files under storage/session/<project>/, oldest first, and reads each with no problem', () => {
    expect(opencodeReader.discover(STORAGE_HOME, []).map((f) => basename(f, '.json'))).toEqual([
      S_MAIN,
      S_CHILD,
      S_FORK,
    ]);
    expect(sources.flatMap((s) => s.problems)).toEqual([]);
    expect(sources.map((s) => s.sessions[0]?.title)).toEqual([
      'Listing the project files',
      'Count lines (@general subagent)',
      'Listing the project files (fork #1)',
    ]);
  });

  it('a turn per prompt: the typed text (as `opencode run` wrote it), never the synthetic file text', () => {
    const main = turns.get(S_MAIN)!;
    // 1.1.65's `opencode run` ends the prompt with a newline; the question keeps it.
    expect(main.map((t) => t.question)).toEqual(MAIN_QUESTIONS.map((q) => `${q}\n`));
    expect(main[5].question).not.toContain('Called the Read tool');
    expect(main.map((t) => t.sourceId)[0]).toBe('msg_24d07a280001PgkmVdo7aQO9oP');
    expect(main[0].createdAt).toBe('2026-12-06T20:24:35.712Z');
    expect(main[0].cwd).toBe('/work/scratch-reader-opencode/gen/home-old/shop');
    expect(main.every((t) => t.complete)).toBe(true);
    expect(main.map((t) => t.parentSourceId)).toEqual([null, ...main.slice(0, -1).map((t) => t.sourceId)]);
  });

  it('answers: text, one line a tool call with its output, errors marked, reasoning left out', () => {
    const main = turns.get(S_MAIN)!;
    expect(main[0].answer).toBe(
      '→ bash: ls\n\n  notes.txt\n  opencode.json\n\nThe folder holds notes.txt and opencode.json.',
    );
    expect(main[0].answer).not.toContain('ls will do'); // the reasoning part
    expect(main[3].answer).toContain('→ write: todo.txt\n\n  Wrote file successfully.');
    expect(main[4].answer).toContain('→ read: missing.txt\n\n  error: Error: File not found:');
    expect(main[2].answer).toMatch(/^→ task: Count lines\n/);
  });

  it('the subagent session hangs under the turn whose task call started it', () => {
    const [child] = turns.get(S_CHILD)!;
    expect(child.question).toBe('Count the lines of notes.txt and answer with the number.');
    expect(child.parentSourceId).toBe(turns.get(S_MAIN)![2].sourceId);
    expect(child.note).toBe('subagent general');
  });

  it('a fork keeps only its own turn, under the original turn it was copied after; the copies ride in its raw', () => {
    const fork = turns.get(S_FORK)!;
    expect(fork.map((t) => t.question)).toEqual(['A question asked in a fork of the session\n']);
    expect(fork[0].parentSourceId).toBe(turns.get(S_MAIN)![5].sourceId);
    const files = fork[0].raw.map((r) => JSON.parse(r).file as string);
    expect(files[0]).toBe(`session/${PROJECT}/${S_FORK}.json`);
    expect(files.filter((f) => f.startsWith(`message/${S_FORK}/`))).toHaveLength(
      readdirSync(join(STORAGE_HOME, 'storage', 'message', S_FORK)).length,
    );
  });

  it('raw: each record file once, as {file, text} with the exact text OpenCode wrote', () => {
    const main = turns.get(S_MAIN)!;
    const records = main.flatMap((t) => t.raw).map((r) => JSON.parse(r) as { file: string; text: string });
    for (const r of records) expect(r.text).toBe(readFileSync(join(STORAGE_HOME, 'storage', r.file), 'utf8'));
    const expected = [
      `session/${PROJECT}/${S_MAIN}.json`,
      ...readdirSync(join(STORAGE_HOME, 'storage', 'message', S_MAIN)).flatMap((m) => [
        `message/${S_MAIN}/${m}`,
        ...readdirSync(join(STORAGE_HOME, 'storage', 'part', basename(m, '.json')))
          .sort()
          .map((p) => `part/${basename(m, '.json')}/${p}`),
      ]),
    ];
    expect(records.map((r) => r.file)).toEqual(expected);
  });
});

describe('OpenCode opencode.db (1.18.33, the database OpenCode wrote)', () => {
  const sources = readAll(DB_HOME);
  const turns = bySession(sources);

  it('one source per session, oldest first, with the same turns as the storage generation', () => {
    expect(opencodeReader.discover(DB_HOME, [])).toEqual([join(DB_HOME, 'opencode.db')]);
    expect(sources.flatMap((s) => s.problems)).toEqual([]);
    expect(sources.map((s) => s.sessions[0].sourceSession)).toEqual([D_MAIN, D_CHILD, D_FORK]);
    const main = turns.get(D_MAIN)!;
    expect(main.map((t) => t.question)).toEqual(MAIN_QUESTIONS);
    expect(main[0].answer).toBe(
      '→ bash: ls\n\n  notes.txt\n  opencode.json\n\nThe folder holds notes.txt and opencode.json.',
    );
    expect(main[4].answer).toContain('→ read: missing.txt\n\n  error: File not found:');
    expect(turns.get(D_CHILD)![0].parentSourceId).toBe(main[2].sourceId);
    const fork = turns.get(D_FORK)!;
    expect(fork.map((t) => t.question)).toEqual(['A question asked in a fork of the session']);
    expect(fork[0].parentSourceId).toBe(main[5].sourceId);
    expect(sources[0].sessions[0]).toMatchObject({
      title: 'Listing the project files',
      cwd: '/work/scratch-reader-opencode/gen/home-new/shop',
    });
  });

  it('raw: the rows as {"table","row"}, the session row first', () => {
    const [first] = turns.get(D_MAIN)!;
    const rows = first.raw.map((r) => JSON.parse(r) as { table: string; row: Record<string, unknown> });
    expect(rows[0]).toMatchObject({
      table: 'session',
      row: { id: D_MAIN, title: 'Listing the project files' },
    });
    expect(rows[1]).toMatchObject({ table: 'message', row: { id: first.sourceId, session_id: D_MAIN } });
    expect(rows.map((r) => r.table)).toEqual([
      'session',
      'message',
      'part',
      'message',
      'part',
      'part',
      'part',
      'part',
      'message',
      'part',
      'part',
      'part',
    ]);
    expect(Object.keys(rows[1].row)).not.toContain('__arb_rowid');
  });
});

/** The storage folder copied into a database the way OpenCode's own migration does it (json-migration.ts). */
function migrate(home: string): void {
  const fixture = new Database(join(DB_HOME, 'opencode.db'), { readonly: true });
  const schema = fixture
    .prepare(
      "SELECT sql FROM sqlite_master WHERE tbl_name IN ('project','session','message','part') AND sql IS NOT NULL",
    )
    .pluck()
    .all() as string[];
  fixture.close();
  const db = new Database(join(home, 'opencode.db'));
  for (const sql of schema) db.exec(sql);
  const storage = join(home, 'storage');
  const json = (f: string) => JSON.parse(readFileSync(f, 'utf8'));
  const list = (d: string) => readdirSync(d).sort();
  for (const p of list(join(storage, 'project'))) {
    const d = json(join(storage, 'project', p));
    db.prepare(
      "INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES (?, ?, ?, ?, ?, '[]')",
    ).run(basename(p, '.json'), d.worktree, d.vcs, d.time.created, d.time.updated);
  }
  for (const proj of list(join(storage, 'session')))
    for (const f of list(join(storage, 'session', proj))) {
      const d = json(join(storage, 'session', proj, f));
      const sid = basename(f, '.json');
      db.prepare(
        'INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(
        sid,
        proj,
        d.parentID ?? null,
        d.slug,
        d.directory,
        d.title,
        d.version,
        d.time.created,
        d.time.updated,
      );
      for (const mf of list(join(storage, 'message', sid))) {
        const { id: _i, sessionID: _s, ...m } = json(join(storage, 'message', sid, mf));
        const mid = basename(mf, '.json');
        db.prepare(
          'INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)',
        ).run(mid, sid, m.time.created, m.time.created, JSON.stringify(m));
        for (const pf of list(join(storage, 'part', mid))) {
          const { id: _p, messageID: _m, sessionID: _t, ...p } = json(join(storage, 'part', mid, pf));
          db.prepare(
            'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)',
          ).run(basename(pf, '.json'), mid, sid, m.time.created, m.time.created, JSON.stringify(p));
        }
      }
    }
  db.close();
}

describe('OpenCode through the binary', () => {
  it('imports a data folder, adds nothing the second time, and never writes to it', () => {
    const home = copyOf(STORAGE_HOME);
    const before = snapshot(home);
    const db = join(tempDir('oc-shard-'), 'sessions.db');
    const first = cli(['import', 'opencode', home, '--db', db, '--json']).json();
    expect(first).toMatchObject({ files: 3, sessions: 3, turns_added: 8, problems: [] });
    const again = cli(['import', 'opencode', home, '--db', db, '--json']).json();
    expect(again).toMatchObject({ turns_added: 0, turns_skipped: 8, problems: [] });
    expect(snapshot(home)).toEqual(before);
    const sessions: { sid: string; n_nodes: number }[] = cli(['list', '--db', db, '--json']).json();
    expect(sessions.map((s) => s.n_nodes)).toEqual([6, 1, 1]);
  });

  it('after the upgrade (storage/ and the database OpenCode made of it, side by side) each prompt is imported once', () => {
    const home = copyOf(STORAGE_HOME);
    migrate(home);
    const db = join(tempDir('oc-shard-'), 'sessions.db');
    const r = cli(['import', 'opencode', home, '--db', db, '--json']).json();
    expect(r).toMatchObject({ files: 4, turns_added: 8, turns_skipped: 8, problems: [] });
  });

  it('the database generation, and export --format source gives back its rows', () => {
    const home = copyOf(DB_HOME);
    const before = snapshot(home);
    const db = join(tempDir('oc-shard-'), 'sessions.db');
    const first = cli(['import', 'opencode', join(home, 'opencode.db'), '--db', db, '--json']).json();
    expect(first).toMatchObject({ files: 1, sessions: 3, turns_added: 8, problems: [] });
    expect(snapshot(home)).toEqual(before);
    const sessions: { sid: string; created_at: string }[] = cli(['list', '--db', db, '--json']).json();
    const child = sessions.find((s) => s.created_at === '2026-12-06T20:25:40.359Z')!;
    const out = join(tempDir('oc-out-'), 'child.jsonl');
    const r = cli(['export', child.sid, '--format', 'source', '--out', out, '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    const tables = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).table);
    expect(tables).toEqual(['session', 'message', 'part', 'message', 'part', 'part', 'part']);
  });
});

describe('OpenCode bad input', () => {
  it('a broken message file or part file is one problem `file:0`, and the rest is imported', () => {
    const home = copyOf(STORAGE_HOME);
    const msgDir = join(home, 'storage', 'message', S_MAIN);
    const second = join(msgDir, readdirSync(msgDir).sort()[3]); // the second prompt
    writeFileSync(second, '{"id": "msg_x", "role": "us');
    const partDir = join(home, 'storage', 'part');
    const aPart = join(partDir, basename(readdirSync(msgDir).sort()[0], '.json'));
    const pf = join(aPart, readdirSync(aPart)[0]);
    writeFileSync(pf, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
    const sources = readAll(home);
    const problems = sources.flatMap((s) => s.problems);
    expect(problems).toEqual([
      { file: pf, line: 0, reason: 'invalid UTF-8; file skipped' },
      { file: second, line: 0, reason: 'not JSON: skipped' },
    ]);
    // The first prompt lost its only text part and the second its message: their replies ride on the turn before
    // (or the first turn); every other prompt is still a turn.
    expect(
      bySession(sources)
        .get(S_MAIN)!
        .map((t) => t.question.trim()),
    ).toEqual(MAIN_QUESTIONS.filter((q) => !q.startsWith('And what') && !q.startsWith('Please list')));
  });

  it('another file given by name is one problem; so is an empty or foreign database', () => {
    const dir = tempDir('oc-bad-');
    const cases: [string, string | Buffer, RegExp][] = [
      ['notes.json', '{"hello": "world"}', /not an OpenCode session file/],
      ['logs.jsonl', '{"a":1}\n{"a":2}\n', /not an OpenCode session file \(not JSON/],
      ['opencode.db', '', /not an OpenCode database/],
      ['image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]), /invalid UTF-8|not JSON/],
    ];
    for (const [name, body, reason] of cases) {
      const f = join(dir, name);
      writeFileSync(f, body);
      const out = [...opencodeReader.read(f)];
      expect(out.flatMap((s) => s.turns)).toEqual([]);
      expect(out.flatMap((s) => s.problems)).toEqual([
        { file: f, line: 0, reason: expect.stringMatching(reason) },
      ]);
    }
    const other = join(dir, 'other.db');
    new Database(other).exec('CREATE TABLE t (x); INSERT INTO t VALUES (1);');
    expect([...opencodeReader.read(other)].flatMap((s) => s.problems)).toEqual([
      { file: other, line: 0, reason: 'not an OpenCode database' },
    ]);
  });

  it('a session file out of its storage folder, and a child whose parent is gone, say so', () => {
    const dir = tempDir('oc-lone-');
    const lone = join(dir, `${S_MAIN}.json`);
    cpSync(join(STORAGE_HOME, 'storage', 'session', PROJECT, `${S_MAIN}.json`), lone);
    expect([...opencodeReader.read(lone)].flatMap((s) => s.problems)[0].reason).toMatch(
      /outside storage\/session/,
    );
    const home = copyOf(STORAGE_HOME);
    rmSync(join(home, 'storage', 'session', PROJECT, `${S_MAIN}.json`));
    const child = [...opencodeReader.read(join(home, 'storage', 'session', PROJECT, `${S_CHILD}.json`))][0];
    expect(child.turns[0].parentSourceId).toBeNull();
    expect(child.problems).toEqual([
      {
        file: expect.stringContaining(S_CHILD),
        line: 0,
        reason: `parent session ${S_MAIN} not found: imported as a root`,
      },
    ]);
  });

  it('a reply still being written leaves the newest turn unfinished', () => {
    const home = copyOf(DB_HOME);
    const file = join(home, 'opencode.db');
    const db = new Database(file);
    const last = db
      .prepare(`SELECT id, data FROM message WHERE session_id = ? ORDER BY id DESC LIMIT 1`)
      .get(D_MAIN) as { id: string; data: string };
    const data = JSON.parse(last.data);
    delete data.time.completed;
    db.prepare('UPDATE message SET data = ? WHERE id = ?').run(JSON.stringify(data), last.id);
    db.close();
    const main = bySession([...opencodeReader.read(file)]).get(D_MAIN)!;
    expect(main.map((t) => t.complete)).toEqual([true, true, true, true, true, false]);
  });
});

const BUILT = new URL('../../dist/src/import/index.js', import.meta.url).pathname;

/** The built reader over a data folder in a child process, killed if it hangs (a FIFO would block an open). */
function readInChild(path: string): string[] {
  const script = `
    const { readerFor } = await import(${JSON.stringify(BUILT)});
    const r = readerFor('opencode', { sidechains: true });
    const out = [];
    for (const f of r.discover(${JSON.stringify(path)}, []))
      for (const u of r.read(f)) out.push(...u.problems.map((p) => p.file.split('/').pop() + ': ' + p.reason));
    process.stdout.write(JSON.stringify(out));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 20_000,
    killSignal: 'SIGKILL',
  });
  expect(r.status, `${r.signal ?? ''} ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
}

describe('OpenCode files that are not files', () => {
  it('a FIFO as a part file, as the database or as its -wal is one problem, never a hang', () => {
    const home = copyOf(STORAGE_HOME);
    const partDir = join(home, 'storage', 'part', readdirSync(join(home, 'storage', 'part')).sort()[0]);
    const part = join(partDir, readdirSync(partDir)[0]);
    rmSync(part);
    expect(spawnSync('mkfifo', [part]).status).toBe(0);
    expect(readInChild(home)).toEqual([`${basename(part)}: not a regular file (a FIFO); not read`]);

    const dbHome = copyOf(DB_HOME);
    expect(spawnSync('mkfifo', [join(dbHome, 'opencode.db-wal')]).status).toBe(0);
    expect(readInChild(dbHome)).toEqual([
      'opencode.db: its -wal file: not a regular file (a FIFO); not read',
    ]);
    rmSync(join(dbHome, 'opencode.db'));
    rmSync(join(dbHome, 'opencode.db-wal'));
    expect(spawnSync('mkfifo', [join(dbHome, 'opencode.db')]).status).toBe(0);
    expect(readInChild(dbHome)).toEqual(['opencode.db: not a regular file (a FIFO); not read']);
  });

  it('a database row that is not a message is one problem at its rowid', () => {
    const home = copyOf(DB_HOME);
    const file = join(home, 'opencode.db');
    const db = new Database(file);
    const row = db
      .prepare('SELECT rowid AS r, id FROM message WHERE session_id = ? ORDER BY id LIMIT 1 OFFSET 3')
      .get(D_MAIN) as { r: number; id: string };
    db.prepare("UPDATE message SET data = 'not json' WHERE id = ?").run(row.id);
    db.close();
    const sources = [...opencodeReader.read(file)];
    expect(sources.flatMap((s) => s.problems)).toEqual([
      { file, line: row.r, reason: `message ${row.id}: data is not a message: skipped` },
    ]);
    expect(
      bySession(sources)
        .get(D_MAIN)!
        .map((t) => t.question),
    ).toEqual(MAIN_QUESTIONS.filter((q) => !q.startsWith('And what')));
  });
});

describe('OpenCode paths', () => {
  it('the data folder is $XDG_DATA_HOME/opencode, else ~/.local/share/opencode; OPENCODE_DB elsewhere is added', () => {
    expect(dataDir({ HOME: '/home/ana' })).toBe('/home/ana/.local/share/opencode');
    expect(dataDir({ HOME: '/home/ana', XDG_DATA_HOME: '' })).toBe('/home/ana/.local/share/opencode');
    expect(dataDir({ HOME: '/home/ana', XDG_DATA_HOME: '/data' })).toBe('/data/opencode');
    expect(opencodeDefaultPaths({ HOME: '/h', OPENCODE_DB: '/tmp/oc.db' })).toEqual([
      '/h/.local/share/opencode',
      '/tmp/oc.db',
    ]);
    expect(opencodeDefaultPaths({ HOME: '/h', OPENCODE_DB: 'mine.db' })).toEqual([
      '/h/.local/share/opencode',
    ]);
  });

  it('a folder holding the data folder, channel databases, never the -wal or -shm', () => {
    const root = tempDir('oc-home-');
    const data = join(root, 'opencode');
    mkdirSync(data);
    for (const n of ['opencode.db', 'opencode.db-wal', 'opencode.db-shm', 'opencode-dev.db', 'auth.json'])
      writeFileSync(join(data, n), '');
    expect(opencodeReader.discover(root, []).map((f) => basename(f))).toEqual([
      'opencode-dev.db',
      'opencode.db',
    ]);
    expect(dirname(opencodeReader.discover(root, [])[0])).toBe(data);
  });
});
