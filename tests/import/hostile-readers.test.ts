import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { BIN, cli } from '../support/cli.js';
import { tempDb, tempDir } from '../support/tmp.js';

/**
 * Hostile input to the newer readers, through the built binary: each case must import what is sound, name what is
 * not in one problem line, and never fail the whole file for one record.
 */

/** A value nested deeper than V8's JSON.stringify can recurse (JSON.parse is iterative and takes it). */
const DEEP = `${'['.repeat(20000)}${']'.repeat(20000)}`;

function importJson(kind: string, path: string, db: string) {
  const r = cli(['import', kind, path, '--json', '--db', db]);
  expect(r.stderr, r.stderr).not.toMatch(/this is a bug/);
  return r.json();
}

describe('a record nested too deeply costs that record, not its file', () => {
  it('codex: a tool output object nested 20000 deep', () => {
    const dir = tempDir();
    const S = '019b7f94-51b4-7593-922e-ba12b5b73b59';
    const day = join(dir, 'sessions/2026/01/02');
    mkdirSync(day, { recursive: true });
    const ts = (s: number) => `2026-01-02T16:39:${s}.000Z`;
    const lines = [
      { timestamp: ts(45), type: 'session_meta', payload: { id: S, timestamp: ts(45), cwd: '/tmp' } },
      {
        timestamp: ts(46),
        type: 'event_msg',
        payload: { type: 'user_message', message: 'first', images: [] },
      },
      {
        timestamp: ts(47),
        type: 'response_item',
        payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok1' }] },
      },
      {
        timestamp: ts(48),
        type: 'event_msg',
        payload: { type: 'user_message', message: 'second', images: [] },
      },
      {
        timestamp: ts(49),
        type: 'response_item',
        payload: { type: 'function_call', name: 'shell', arguments: '{}', call_id: 'c1' },
      },
      {
        timestamp: ts(49),
        type: 'response_item',
        payload: { type: 'function_call_output', call_id: 'c1', output: { content: 1, x: 'DEEP' } },
      },
    ];
    const text = lines
      .map((l) => JSON.stringify(l))
      .join('\n')
      .replace('"DEEP"', DEEP);
    writeFileSync(join(day, `rollout-2026-01-02T18-39-49-${S}.jsonl`), `${text}\n`);
    const doc = importJson('codex', dir, tempDb());
    expect(doc.turns_added).toBe(2);
    expect(JSON.stringify(doc.problems)).not.toMatch(/call stack/);
  });

  it('gemini: a message of a JSON chat document nested 20000 deep', () => {
    const dir = tempDir();
    const chats = join(dir, 'tmp/proj/chats');
    mkdirSync(chats, { recursive: true });
    const at = (s: number) => `2026-03-27T10:19:${s}.000Z`;
    const messages = [
      { id: 'm1', timestamp: at(12), type: 'user', content: [{ text: 'hello' }] },
      { id: 'm2', timestamp: at(13), type: 'gemini', content: 'answer one' },
      { id: 'm3', timestamp: at(14), type: 'user', content: [{ text: 'second' }] },
      { id: 'm4', timestamp: at(15), type: 'gemini', content: 'answer two', extra: 'DEEP' },
      { id: 'm5', timestamp: at(16), type: 'user', content: [{ text: 'third' }] },
    ];
    const sid = '8a20078e-2d5e-4f81-a640-9b879bbb7e6d';
    const text = JSON.stringify({ sessionId: sid, projectHash: 'x', startTime: at(12), messages }, null, 2);
    writeFileSync(join(chats, 'session-2026-03-27T10-19-8a20078e.json'), text.replace('"DEEP"', DEEP));
    const doc = importJson('gemini', dir, tempDb());
    expect(doc.turns_added).toBeGreaterThanOrEqual(2);
    expect(doc.problems).toEqual([
      {
        file: expect.stringContaining('8a20078e.json'),
        line: expect.any(Number),
        reason: expect.stringMatching(/nest/),
      },
    ]);
  });

  it('copilot: a legacy timeline entry nested 20000 deep', () => {
    const dir = tempDir();
    const state = join(dir, 'history-session-state');
    mkdirSync(state, { recursive: true });
    const at = (s: number) => `2025-10-11T11:40:${s}.000Z`;
    const timeline = [
      { id: 't1', timestamp: at(21), type: 'user', text: 'hi' },
      { id: 't2', timestamp: at(22), type: 'copilot', text: 'yo' },
      { id: 't3', timestamp: at(23), type: 'user', text: 'again' },
      { id: 't4', timestamp: at(24), type: 'copilot', text: 'yo2', x: 'DEEP' },
    ];
    const sid = '06141331-92e8-4e9e-8bbb-9b7a729eb01a';
    const text = JSON.stringify({ sessionId: sid, startTime: at(20), chatMessages: [], timeline });
    writeFileSync(join(state, `session_${sid}_1760182820882.json`), text.replace('"DEEP"', DEEP));
    const doc = importJson('copilot', dir, tempDb());
    expect(doc.turns_added).toBe(2);
    expect(doc.problems).toEqual([
      { file: expect.stringContaining(sid), line: expect.any(Number), reason: expect.stringMatching(/nest/) },
    ]);
  });
});

/** A Zstandard frame of RLE blocks, each `size` bytes of `byte`, with the given Window_Descriptor (RFC 8878 3.1.1). */
function rleFrame(windowDescriptor: number, blocks: number, size: number, byte: number): Buffer {
  const out = Buffer.alloc(6 + blocks * 4);
  out.set([0x28, 0xb5, 0x2f, 0xfd, 0x00, windowDescriptor]);
  for (let i = 0; i < blocks; i++) {
    const last = i === blocks - 1 ? 1 : 0;
    const h = last | (1 << 1) | (size << 3); // Block_Type 1: RLE
    out.set([h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff, byte], 6 + i * 4);
  }
  return out;
}

/** Peak RSS (KiB) of the binary importing `path`, by GNU time; undefined where it is not installed. */
function importRss(kind: string, path: string, db: string): { kib: number; stderr: string } {
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', 'RSS %M', process.execPath, BIN, 'import', kind, path, '--db', db],
    {
      encoding: 'utf8',
      timeout: 60_000,
      killSignal: 'SIGKILL',
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    },
  );
  const m = /RSS (\d+)/.exec(r.stderr ?? '');
  return { kib: m ? Number(m[1]) : Number.NaN, stderr: r.stderr ?? '' };
}

const ROLLOUT = 'rollout-2026-01-02T18-39-50-019b7f94-51b4-7593-922e-ba12b5b73b61.jsonl.zst';

describe('a Zstandard rollout that would cost far more than its size', () => {
  it('a frame claiming a window of almost 2 GiB, in 2000 tiny blocks, is refused at once (it hung)', () => {
    const dir = tempDir();
    const day = join(dir, 'sessions/2026/01/02');
    mkdirSync(day, { recursive: true });
    writeFileSync(join(day, ROLLOUT), rleFrame((20 << 3) | 7, 2000, 1, 10));
    const r = cli(['import', 'codex', dir, '--json', '--db', tempDb()], { timeoutMs: 20_000 });
    expect(r.code, r.stderr).toBe(1);
    const doc = r.json();
    expect(doc.problems).toEqual([
      {
        file: expect.stringContaining(ROLLOUT),
        line: 0,
        reason: expect.stringMatching(/window of 1920 MiB/),
      },
    ]);
  });

  it.skipIf(!existsSync('/usr/bin/time'))(
    '1.1 GiB of newlines from 35 KB is refused in bounded memory',
    () => {
      const dir = tempDir();
      const day = join(dir, 'sessions/2026/01/02');
      mkdirSync(day, { recursive: true });
      writeFileSync(join(day, ROLLOUT), rleFrame(7 << 3, (1100 * 2 ** 20) / 2 ** 17, 2 ** 17, 10));
      const { kib, stderr } = importRss('codex', dir, tempDb());
      expect(stderr).toMatch(/inflates past 1073741824 bytes; not read/);
      expect(kib).toBeLessThan(300 * 1024);
    },
  );
});

describe('a history saved as UTF-16 is named so', () => {
  const at = '2026-01-05T14:20:00.000Z';
  const cases: [string, string, string][] = [
    [
      'codex',
      'sessions/2026/01/02/rollout-2026-01-02T18-39-50-019b7f94-51b4-7593-922e-ba12b5b73b61.jsonl',
      JSON.stringify({
        timestamp: at,
        type: 'session_meta',
        payload: { id: 'x', timestamp: at, cwd: '/tmp' },
      }),
    ],
    [
      'gemini',
      'tmp/p/chats/session-2026-03-27T10-19-8a20078e.json',
      '{\n  "sessionId": "x",\n  "messages": []\n}',
    ],
    [
      'copilot',
      'session-state/s1/events.jsonl',
      JSON.stringify({ type: 'session.start', data: {}, id: 'e1' }),
    ],
    ['copilot', 'history-session-state/session_x_1.json', JSON.stringify({ sessionId: 'x', timeline: [] })],
    [
      'pi',
      'sessions/--tmp--/2026-01-05T14-20-00-000Z_0f1e2d3c-4b5a-4697-8877-665544332211.jsonl',
      JSON.stringify({ type: 'session', version: 3, id: 'x', timestamp: at, cwd: '/tmp' }),
    ],
    [
      'aider',
      'p/.aider.chat.history.md',
      '\n# aider chat started at 2024-05-01 10:00:00\n\n#### hello\n\nanswer\n',
    ],
  ];
  for (const [kind, rel, text] of cases)
    it(`${kind}: ${rel.split('/').pop()}`, () => {
      const dir = tempDir();
      const file = join(dir, rel);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${text}\n`, 'utf16le')]));
      const doc = importJson(kind, dir, tempDb());
      expect(doc.problems).toEqual([{ file, line: 0, reason: 'UTF-16 text, not UTF-8; not read' }]);
    });
});

describe('a file of a great many bad lines', () => {
  it('codex: 300000 lines that are not JSON cost their lines, not the file, and are not all listed', () => {
    const dir = tempDir();
    const S = '019b7f94-51b4-7593-922e-ba12b5b73bee';
    const day = join(dir, 'sessions/2026/01/02');
    mkdirSync(day, { recursive: true });
    const at = '2026-01-02T16:39:45.349Z';
    const meta = { timestamp: at, type: 'session_meta', payload: { id: S, timestamp: at, cwd: '/tmp' } };
    const prompt = {
      timestamp: at,
      type: 'event_msg',
      payload: { type: 'user_message', message: 'hi', images: [] },
    };
    const text = `${JSON.stringify(meta)}\n${JSON.stringify(prompt)}\n${'x\n'.repeat(300_000)}`;
    writeFileSync(join(day, `rollout-2026-01-02T18-39-51-${S}.jsonl`), text);
    const doc = importJson('codex', dir, tempDb());
    expect(doc.turns_added).toBe(1);
    expect(doc.problems.length).toBeLessThanOrEqual(1001);
    expect(doc.problems.at(-1).reason).toBe('299000 more problems in this file, not listed');
  });

  it('pi: 300000 lines that are not JSON', () => {
    const dir = tempDir();
    const P = '0f1e2d3c-4b5a-4697-8877-665544332211';
    const file = join(dir, `sessions/--x--/2026-01-05T14-20-00-000Z_${P}.jsonl`);
    mkdirSync(dirname(file), { recursive: true });
    const at = '2026-01-05T14:20:00.000Z';
    const head = { type: 'session', version: 3, id: P, timestamp: at, cwd: '/tmp' };
    const q = {
      type: 'message',
      id: 'u1',
      parentId: null,
      timestamp: at,
      message: { role: 'user', content: 'q' },
    };
    writeFileSync(file, `${JSON.stringify(head)}\n${JSON.stringify(q)}\n${'x\n'.repeat(300_000)}`);
    const doc = importJson('pi', dir, tempDb());
    expect(doc.turns_added).toBe(1);
    expect(doc.problems.length).toBeLessThanOrEqual(1001);
  });
});

it('aider: 300000 lines that are not UTF-8 are counted past the first 1000', () => {
  const dir = tempDir();
  const file = join(dir, 'p/.aider.chat.history.md');
  mkdirSync(dirname(file), { recursive: true });
  const head = Buffer.from('\n# aider chat started at 2024-05-01 10:00:00\n\n#### hello\n\nanswer\n');
  writeFileSync(file, Buffer.concat([head, Buffer.from('\xff\n'.repeat(300_000), 'latin1')]));
  const doc = importJson('aider', dir, tempDb());
  expect(doc.turns_added).toBe(1);
  expect(doc.problems).toHaveLength(1001);
  expect(doc.problems.at(-1).reason).toBe('299000 more problems in this file, not listed');
});

it('pi: a prompt of 20 MB is cut to fit, as every reader cuts one, and its turn kept (the session was lost)', () => {
  const dir = tempDir();
  const P = '0f1e2d3c-4b5a-4697-8877-665544332211';
  const file = join(dir, `sessions/--x--/2026-01-05T14-20-00-000Z_${P}.jsonl`);
  mkdirSync(dirname(file), { recursive: true });
  const at = '2026-01-05T14:20:00.000Z';
  const entry = (id: string, parentId: string | null, role: string, text: string) =>
    JSON.stringify({
      type: 'message',
      id,
      parentId,
      timestamp: at,
      message: { role, content: [{ type: 'text', text }] },
    });
  const lines = [
    JSON.stringify({ type: 'session', version: 3, id: P, timestamp: at, cwd: '/tmp' }),
    entry('u1', null, 'user', 'q'.repeat(20_000_000)),
    entry('a1', 'u1', 'assistant', 'the answer'),
  ];
  writeFileSync(file, `${lines.join('\n')}\n`);
  const db = tempDb();
  const doc = importJson('pi', dir, db);
  expect(doc.turns_added).toBe(1);
  expect(doc.problems).toEqual([
    { file, line: 2, reason: 'line of 19.1 MiB is over the 16 MiB limit; its text cut to fit' },
  ]);
  expect(cli(['find', 'the answer', '--db', db]).stdout).toMatch(/ answer\n/);
});

it('opencode: a database whose session "table" is a view without end is refused at once (it hung)', () => {
  const dir = tempDir();
  const file = join(dir, 'opencode.db');
  const db = new Database(file);
  db.exec(`
    CREATE VIEW session AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)
      SELECT x AS rowid, 'ses_' || x AS id, NULL AS parent_id, 't' AS title, 0 AS time_created,
        0 AS time_updated, 'p' AS project_id, '/tmp' AS directory FROM c;
    CREATE TABLE message (id TEXT, session_id TEXT, data TEXT, time_created INTEGER);
    CREATE TABLE part (id TEXT, message_id TEXT, session_id TEXT, data TEXT, time_created INTEGER);`);
  db.close();
  const r = cli(['import', 'opencode', file, '--json', '--db', tempDb()], { timeoutMs: 20_000 });
  expect(r.code, r.stderr).toBe(1);
  expect(r.json().problems).toEqual([{ file, line: 0, reason: 'not an OpenCode database' }]);
});

it('codex: a thread name of 30 MB is cut to 1024 characters, with a problem', () => {
  const dir = tempDir();
  cpSync(join(import.meta.dirname, 'fixtures/codex/home'), dir, { recursive: true });
  const id = '019b7f94-51b4-7593-922e-ba12b5b73b52';
  const name = 'T'.repeat(30_000_000);
  writeFileSync(join(dir, 'session_index.jsonl'), `${JSON.stringify({ id, thread_name: name })}\n`);
  const db = tempDb();
  const doc = importJson('codex', dir, db);
  expect(doc.problems).toEqual([
    { file: expect.stringContaining(id), line: 0, reason: 'title of 30000000 characters cut to 1024' },
  ]);
  const titles = cli(['list', '--json', '--db', db])
    .json()
    .map((s: { title: string | null }) => s.title);
  expect(titles).toContain(`${'T'.repeat(1023)}…`);
});

it('gemini: a chat of 100000 messages and 100000 rewinds to its newest reads in linear time (it took minutes)', () => {
  const dir = tempDir();
  const file = join(dir, 'tmp/p/chats/session-2026-03-27T10-19-9a20078e.jsonl');
  mkdirSync(dirname(file), { recursive: true });
  const at = '2026-03-27T10:19:12.584Z';
  const meta = {
    sessionId: '9a20078e-2d5e-4f81-a640-9b879bbb7e6d',
    projectHash: 'x',
    startTime: at,
    kind: 'main',
  };
  const lines = [JSON.stringify(meta)];
  for (let i = 0; i < 100_000; i++)
    lines.push(JSON.stringify({ id: `m${i}`, timestamp: at, type: i % 2 ? 'gemini' : 'user', content: 'c' }));
  const x = JSON.stringify({ id: 'X', timestamp: at, type: 'gemini', content: 'x' });
  for (let i = 0; i < 100_000; i++) lines.push(x, '{"$rewindTo":"X"}');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const r = cli(['import', 'gemini', dir, '--json', '--db', tempDb()], { timeoutMs: 30_000 });
  expect(r.code, r.stderr).toBe(0);
  expect(r.json().turns_added).toBe(50_000);
});
