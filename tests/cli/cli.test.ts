import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { BIN, cli } from '../support/cli.js';
import { tempDb, tempDir } from '../support/tmp.js';

const HEX64 = /^[0-9a-f]{64}$/;
const BATES = /^[a-z0-9]+-\d{6}$/;

function ask(db: string, q: string, extra: string[] = []) {
  const r = cli(['ask', q, '--answer', `answer to ${q}`, '--db', db, '--json', ...extra]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.json();
}

describe('arborist CLI', () => {
  it('new, ask, list, show, tree, path, branches, find: JSON shapes and exit 0', () => {
    const db = tempDb();
    const s = cli(['new', '--label', 'rust lifetimes', '--db', db, '--json']);
    expect(s.code).toBe(0);
    const { sid, label } = s.json();
    expect(label).toBe('rust lifetimes');
    expect(sid).toMatch(/^[a-z0-9]+$/);

    const a = ask(db, 'what is a lifetime', ['--session', sid]);
    expect(Object.keys(a).sort()).toEqual(
      [
        'audit',
        'bates',
        'cache_key',
        'node_hash',
        'parent_bates',
        'seq',
        'session_root',
        'sid',
        'subtree_hash',
      ].sort(),
    );
    expect(a.bates).toBe(`${sid}-000001`);
    expect(a.audit).toBe('manual');
    expect(a.cache_key).toMatch(HEX64);
    expect(a.parent_bates).toBeNull();
    expect(a.node_hash).toMatch(HEX64);
    const b = ask(db, 'and for structs', ['--parent', a.bates]);
    expect(b.sid).toBe(sid);
    expect(b.seq).toBe(2);
    const c = ask(db, 'and for enums', ['--parent', a.bates, '--cite', 'The Rust Book 10.3']);
    // Neither --session nor --parent: a new session.
    const other = ask(db, 'what is WAL in sqlite');
    expect(other.sid).not.toBe(sid);
    expect(other.seq).toBe(1);
    // Both: the node belongs to SID and hangs under a parent of another session.
    const fork = ask(db, 'does WAL matter for rust apps', ['--session', other.sid, '--parent', b.bates]);
    expect(fork.sid).toBe(other.sid);
    expect(fork.parent_bates).toBe(b.bates);

    const list = cli(['list', '--db', db, '--json']);
    expect(list.code).toBe(0);
    const sessions = list.json();
    expect(sessions).toHaveLength(2);
    for (const x of sessions) {
      expect(Object.keys(x).sort()).toEqual([
        'agent',
        'created_at',
        'host',
        'label',
        'n_nodes',
        'project',
        'session_root',
        'sid',
        'title',
      ]);
      expect(x.session_root).toMatch(HEX64);
    }
    expect(sessions.find((x: { sid: string }) => x.sid === sid).n_nodes).toBe(3);

    const show = cli(['show', c.bates, '--db', db, '--json']).json();
    expect(show.bates).toBe(c.bates);
    expect(show.cited_titles).toEqual(['The Rust Book 10.3']);
    expect(show.parent_bates).toBe(a.bates);
    for (const k of [
      'question',
      'answer_text',
      'audit',
      'created_at',
      'node_hash',
      'subtree_hash',
      'cache_key',
    ]) {
      expect(show).toHaveProperty(k);
    }

    const tree = cli(['tree', sid, '--db', db, '--json']).json();
    expect(tree.map((n: { bates: string; depth: number }) => [n.bates, n.depth])).toEqual([
      [a.bates, 0],
      [b.bates, 1],
      [c.bates, 1],
    ]);
    // Trees resolve labels too.
    expect(cli(['tree', 'rust lifetimes', '--db', db, '--json']).json()).toHaveLength(3);

    const path = cli(['path', fork.bates, '--db', db, '--json']).json();
    expect(path.map((n: { bates: string }) => n.bates)).toEqual([a.bates, b.bates, fork.bates]);

    const branches = cli(['branches', '--db', db, '--json']).json();
    expect(branches).toEqual([{ bates: a.bates, n_children: 2 }]);
    expect(cli(['branches', other.sid, '--db', db, '--json']).json()).toEqual([]);

    const found = cli(['find', 'structs', '--db', db, '--json']).json();
    expect(found[0]).toEqual(
      expect.objectContaining({ bates: b.bates, audit: 'manual', question: 'and for structs' }),
    );
    expect(Object.keys(found[0]).sort()).toEqual([
      'agent',
      'audit',
      'bates',
      'created_at',
      'project',
      'question',
      'snippet',
    ]);
    expect(found[0]).toMatchObject({ agent: 'arborist', project: null });
    expect(BATES.test(found[0].bates)).toBe(true);
  });

  it('find treats FTS5 syntax as text and honours --limit and --scope', () => {
    const db = tempDb();
    const a = ask(db, 'NEAR(x y) AND (z) "quoted" col:value');
    ask(db, 'plain words here');
    for (const q of ['"', 'AND (', 'NEAR(', 'col:', 'question:foo', '*', ')', 'a OR', '-x', '^x']) {
      const r = cli(['find', '--db', db, '--json', '--', q]);
      // `name:value` reads as a filter; one find does not know is searched as text, and said so
      expect(r.stderr, q).toBe(
        q === 'question:foo'
          ? 'arborist: question: is no filter (filters: agent: project: after: before: in:); searched it as words\n'
          : '',
      );
      expect(r.code, q).toBe(0);
      expect(Array.isArray(r.json())).toBe(true);
    }
    expect(
      cli(['find', 'NEAR(x', '--db', db, '--json'])
        .json()
        .map((h: { bates: string }) => h.bates),
    ).toEqual([a.bates]);
    for (let i = 0; i < 5; i++) ask(db, `plain again ${i}`);
    expect(cli(['find', 'plain', '--limit', '3', '--db', db, '--json']).json()).toHaveLength(3);
    expect(cli(['find', 'plain', '--scope', a.sid, '--db', db, '--json']).json()).toEqual([]);
    const bad = cli(['find', 'plain', '--limit', 'zero', '--db', db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^arborist: --limit takes a whole number/);
  });

  it('chain-check and verify: exit 0 when intact, 1 when damaged or the head differs', () => {
    const db = tempDb();
    const a = ask(db, 'first');
    ask(db, 'second', ['--parent', a.bates]);
    const ok = cli(['chain-check', '--db', db, '--json']);
    expect(ok.code).toBe(0);
    const doc = ok.json();
    expect(doc).toEqual(expect.objectContaining({ ok: true, first_broken_seq: null }));
    expect(doc.events).toBeGreaterThanOrEqual(3);
    expect(doc.head).toMatch(/^\d+:[0-9a-f]{64}$/);
    expect(cli(['chain-check', '--expect-head', doc.head, '--db', db]).code).toBe(0);
    const wrong = cli([
      'chain-check',
      '--expect-head',
      `${doc.events}:${'0'.repeat(64)}`,
      '--db',
      db,
      '--json',
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.json().ok).toBe(false);
    expect(cli(['chain-check', '--expect-head', 'nonsense', '--db', db]).code).toBe(2);

    const v = cli(['verify', '--db', db, '--json']);
    expect(v.code).toBe(0);
    expect(v.json()).toEqual(expect.objectContaining({ ok: true, nodes: 2, mismatches: [] }));

    const raw = new Database(db);
    raw.prepare('UPDATE nodes SET answer_text = ? WHERE bates = ?').run('rewritten', a.bates);
    raw.prepare("UPDATE audit_events SET body = CAST('{}' AS BLOB) WHERE seq = 2").run();
    raw.close();
    const bad = cli(['verify', '--db', db, '--json']);
    expect(bad.code).toBe(1);
    expect(bad.json().mismatches).toContain(a.bates);
    const broken = cli(['chain-check', '--db', db, '--json']);
    expect(broken.code).toBe(1);
    expect(broken.json()).toEqual(expect.objectContaining({ ok: false, first_broken_seq: 2 }));
    const human = cli(['chain-check', '--db', db]);
    expect(human.stdout).toMatch(/chain BROKEN at event 2/);
  });

  it('errors: one line on stderr, exit 2, nothing changed', () => {
    const db = tempDb();
    const a = ask(db, 'q');
    const before = readFileSync(db);
    const cases: [string[], RegExp][] = [
      [['show', 'zzzz-000009'], /no turn zzzz-000009/],
      [['show', 'not-an-id'], /'not-an-id' is not a Bates id/],
      [['path', 'zz-000001'], /no turn/],
      [['tree', 'nosuch'], /no session 'nosuch'/],
      [['ask', 'q2', '--answer', 'x', '--parent', 'nope-000001'], /no turn nope-000001/],
      [['ask', 'q2', '--answer', 'x', '--session', 'nosuch'], /no session/],
      [['ask', '   ', '--answer', 'x'], /question is empty/],
      [['bogus'], /unknown command 'bogus'/],
      [['list', '--frobnicate'], /unknown option '--frobnicate'/],
      [['show'], /usage: arborist show BATES/],
    ];
    for (const [args, re] of cases) {
      const r = cli([...args, '--db', db]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr, args.join(' ')).toMatch(re);
      expect(r.stdout, args.join(' ')).toBe('');
    }
    expect(cli(['show', a.bates, '--db', db]).code).toBe(0);
    expect(readFileSync(db).equals(before)).toBe(true);
    const j = cli(['show', 'zzzz-000009', '--db', db, '--json']);
    expect(j.json()).toEqual({ error: 'no turn zzzz-000009', kind: 'not_found' });
  });

  it('refuses unusable shards with one line and leaves them untouched', () => {
    const dir = tempDir();
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'these are my notes, not a database\n');
    const ro = join(dir, 'ro.db');
    expect(cli(['ask', 'q', '--answer', 'a', '--db', ro]).code).toBe(0);
    chmodSync(ro, 0o444);
    const roBytes = readFileSync(ro);
    const newer = join(dir, 'newer.db');
    const n = new Database(newer);
    n.pragma('user_version = 999');
    n.close();
    const cases: [string, string[], RegExp][] = [
      [dir, ['list'], /is a directory/],
      [text, ['list'], /is not an SQLite database/],
      [text, ['ask', 'q', '--answer', 'a'], /is not an SQLite database/],
      [ro, ['ask', 'q', '--answer', 'a'], /is read-only/],
      [newer, ['list'], /schema version 999, newer than this arborist/],
      [join(dir, 'missing.db'), ['list'], /no shard at/],
    ];
    for (const [path, args, re] of cases) {
      const r = cli([...args, '--db', path]);
      expect(r.code, path).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(re);
    }
    expect(readFileSync(text, 'utf8')).toBe('these are my notes, not a database\n');
    expect(readFileSync(ro).equals(roBytes)).toBe(true);
    expect(existsSync(join(dir, 'missing.db'))).toBe(false);
    // A read-only shard can still be read.
    const list = cli(['list', '--db', ro, '--json']);
    expect(list.code).toBe(0);
    expect(list.json()).toHaveLength(1);
  });

  it('says why a shard in a folder it cannot write cannot be read either (SQLite makes its -shm beside it)', () => {
    const dir = tempDir('arborist-ro-');
    const db = join(dir, 's.db');
    expect(cli(['ask', 'q', '--answer', 'a', '--db', db]).code).toBe(0);
    chmodSync(db, 0o444);
    chmodSync(dir, 0o555);
    // Root writes to any folder: the reader runs as nobody then.
    const as =
      process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
    const argv = [...as, process.execPath, BIN, 'list', '--db', db];
    const r = spawnSync(argv[0], argv.slice(1), {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: dir },
    });
    chmodSync(dir, 0o755);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /in a folder this process cannot write: SQLite makes its -shm file beside a shard/,
    );
  });

  it('finds the shard through ARBORIST_DB and ARBORIST_HOME, creating the folder 0700 and file 0600', () => {
    const home = join(tempDir(), 'home');
    const r = cli(['new', '--json'], { env: { ARBORIST_HOME: home } });
    expect(r.code).toBe(0);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, 'sessions.db')).mode & 0o777).toBe(0o600);
    const other = tempDb();
    cli(['new', '--label', 'via env'], { env: { ARBORIST_DB: other, ARBORIST_HOME: home } });
    expect(cli(['list', '--json'], { env: { ARBORIST_DB: other } }).json()[0].label).toBe('via env');
    // --db beats ARBORIST_DB.
    expect(
      cli(['list', '--json', '--db', join(home, 'sessions.db')], { env: { ARBORIST_DB: other } }).json()[0]
        .label,
    ).toBeNull();
  });

  it('human output neutralises escape sequences in stored text, and JSON stays parseable', () => {
    const db = tempDb();
    const hostile = 'evil \x1b]52;c;aGVsbG8=\x07 \x1b[2J \x9b31m \x9d0;title\x9c \u202eabc done';
    const a = ask(db, hostile);
    for (const args of [
      ['show', a.bates],
      ['tree', a.sid],
      ['find', 'evil'],
      ['path', a.bates],
    ]) {
      const r = cli([...args, '--db', db]);
      expect(r.code).toBe(0);
      expect(r.stdout).not.toMatch(/[\x1b\x9b\x9d\x9c\u202e\x07]/);
      expect(r.stdout).toContain('evil');
      expect(r.stdout).toContain('done');
    }
    const j = cli(['show', a.bates, '--db', db, '--json']);
    expect(j.stdout).not.toMatch(/[\x1b\x9b\x9d\x9c\u202e\x07]/);
    expect(j.json().question).toBe(hostile);
  });

  it('colours only on request of a terminal; NO_COLOR and pipes give plain text', () => {
    const db = tempDb();
    ask(db, 'colour me');
    const r = cli(['list', '--db', db], { env: { FORCE_COLOR: '1' } });
    expect(r.stdout).not.toMatch(/\x1b\[/);
    const n = cli(['chain-check', '--db', db], { env: { NO_COLOR: '1' } });
    expect(n.stdout).toMatch(/^chain intact: \d+ events/);
  });
});

describe('counts in human output', () => {
  it('a shard of one event says "1 event", in chain-check and status alike', () => {
    const db = tempDb();
    Shard.open(db).close(); // a new shard: its one shard.create event
    expect(cli(['chain-check', '--db', db]).stdout).toMatch(/^chain intact: 1 event, head 1:/);
    expect(cli(['status', '--db', db]).stdout).toMatch(
      /^chain intact · 1 event · head [0-9a-f]{8} · 0 turns created today$/m,
    );
    ask(db, 'one more');
    expect(cli(['chain-check', '--db', db]).stdout).toMatch(/^chain intact: 3 events, head 3:/);
    expect(cli(['status', '--db', db]).stdout).toMatch(/ · 1 turn created today$/m);
  });
});

describe('arborist ask with providers', () => {
  it('answers from history by default, streams the answer to stdout and names the turn on stderr', () => {
    const db = tempDb();
    const first = ask(db, 'how do I enable WAL mode in sqlite', ['--answer', 'PRAGMA journal_mode=WAL']);
    const r = cli(['ask', 'sqlite WAL mode', '--db', db]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`[${first.bates}]`);
    expect(r.stderr).toMatch(/^\[[a-z0-9]+-000001\] grounded\n$/);
    const nothing = cli(['ask', 'zebrafish husbandry', '--db', db, '--json']).json();
    expect(nothing.audit).toBe('ungrounded');
  });

  it('--session alone continues the session; --fork starts a new session under any turn', () => {
    const db = tempDb();
    const a = ask(db, 'first');
    const b = cli(['ask', 'second', '--answer', 'x', '--session', a.sid, '--db', db, '--json']).json();
    expect(b.parent_bates).toBe(a.bates);
    expect(b.sid).toBe(a.sid);
    const f = cli([
      'ask',
      'forked',
      '--answer',
      'y',
      '--parent',
      a.bates,
      '--fork',
      '--db',
      db,
      '--json',
    ]).json();
    expect(f.sid).not.toBe(a.sid);
    expect(f.seq).toBe(1);
    expect(f.parent_bates).toBe(a.bates);
    expect(cli(['ask', 'q', '--fork', '--db', db]).code).toBe(2);
  });

  it('runs --answer-cmd without a shell and stores its output; a failing command stores nothing', () => {
    const db = tempDb();
    const dir = tempDir();
    const script = join(dir, 'answer.mjs');
    writeFileSync(
      script,
      `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const j=JSON.parse(s);process.stdout.write('echo: '+j.question)})`,
    );
    const q = 'what does $(touch pwned) do; `id` "quoted"';
    const r = cli(['ask', q, '--answer-cmd', `${process.execPath} ${script}`, '--db', db, '--json'], {
      cwd: dir,
    });
    expect(r.stderr).toBe('');
    const doc = r.json();
    expect(doc.audit).toBe('fresh');
    expect(cli(['show', doc.bates, '--db', db, '--json']).json().answer_text).toBe(`echo: ${q}`);
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
    const head = cli(['chain-check', '--db', db, '--json']).json().head;
    const bad = cli(['ask', 'q', '--answer-cmd', `${process.execPath} -e process.exit(3)`, '--db', db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(cli(['chain-check', '--db', db, '--json']).json().head).toBe(head);
  });
});
