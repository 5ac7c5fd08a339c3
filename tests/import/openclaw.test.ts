import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { ParsedSource, ParsedTurn } from '../../src/import/model.js';
import { openclawReader as reader } from '../../src/import/openclaw/index.js';
import { runImport } from '../../src/import/run.js';
import { getEntry } from '../../src/store/index.js';
import { openShard } from '../support/shard.js';
import { tempDir } from '../support/tmp.js';

const FIX = join(import.meta.dirname, 'fixtures', 'openclaw');
const S0 = '3a9c2e10-7b41-4c55-8f02-6d1e0b9a4c71';
const S1 = '0b7e5a52-3c1d-4f6e-9a8b-1c2d3e4f5a60';
const S2 = '5d1f8b33-0e2a-4b7c-9d64-2f3a1c0e8b95';
const S3 = '9e04c7d1-22b8-4a3f-b1e6-7c5d4a3b2f18';
const H = '7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2918';
const SESSIONS = join(FIX, 'home', 'agents', 'main', 'sessions');
const MAIN = join(SESSIONS, `${S1}.jsonl`);

function readAll(file: string): ParsedSource[] {
  return [...reader.read(file)];
}

function one(file: string): ParsedSource {
  const all = readAll(file);
  expect(all).toHaveLength(1);
  return all[0];
}

/** `entry <- parent entry` of each turn, ids shortened to the entry part. */
function shape(turns: ParsedTurn[]): string[] {
  const tail = (s: string | null) => (s === null ? 'null' : s.slice(s.indexOf('/') + 1));
  return turns.map((t) => `${tail(t.sourceId)} <- ${tail(t.parentSourceId)}`);
}

/** What the writer keys and shows, without the storage-specific raw lines and line numbers. */
function logical(turns: ParsedTurn[]) {
  return turns.map(({ raw: _raw, line: _line, ...rest }) => rest);
}

function zstd(data: Buffer): Buffer {
  return execFileSync('zstd', ['-q', '-c', '-3'], { input: data });
}

function sha(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

const NAV = JSON.stringify({
  version: 1,
  report: { kind: 'canonical' },
  navigation: {},
  reset: {},
  model: {},
  modelBytes: 0,
  modelWithoutCheckpointBytes: 0,
  withoutCustomDataBytes: 0,
});

const S4 = 'c1d2e3f4-0000-4aaa-8bbb-000000000004'; // a fork that copied its source's history
const S5 = 'c1d2e3f4-0000-4aaa-8bbb-000000000005'; // a fork that starts with a fresh context
const S7 = 'c1d2e3f4-0000-4aaa-8bbb-000000000007'; // hostile rows
const T0 = 1783674000000;

/**
 * An OpenClaw home with the fixture sessions folder and an agent database built with OpenClaw's schema: S1 stored
 * again as rows (one event zstd-compressed), two forks of S1, hostile rows, S0's reset archive as a zstd blob,
 * a cold archive, and session_nodes entries.
 */
function buildHome(): { home: string; db: string } {
  built ??= makeHome();
  return built;
}

let built: { home: string; db: string } | undefined;
afterAll(() => {
  if (built) rmSync(built.home, { recursive: true, force: true });
});

/** Built once for the file (the reader never writes to it: a test checks that). */
function makeHome(): { home: string; db: string } {
  const home = mkdtempSync(join(tmpdir(), 'openclaw-home-'));
  cpSync(join(FIX, 'home'), home, { recursive: true });
  const agentDir = join(home, 'agents', 'main', 'agent');
  mkdirSync(agentDir, { recursive: true });
  const path = join(agentDir, 'openclaw-agent.sqlite');
  const db = new Database(path);
  db.exec(readFileSync(join(FIX, 'agent-schema.sql'), 'utf8'));
  const node = db.prepare(
    `INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at, fork_source_session_id,
       fork_source_entry_id, label) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const win = db.prepare(
    'INSERT INTO session_windows (session_id, session_key, reason, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
  );
  const ev = db.prepare(
    'INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)',
  );
  const evz = db.prepare(
    `INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes,
       navigation_json) VALUES (?, ?, NULL, ?, ?, ?, ?)`,
  );
  const store = JSON.parse(readFileSync(join(SESSIONS, 'sessions.json'), 'utf8'));

  // S1: the file's lines as rows, line n = seq n; the toolResult of line 26 stored compressed.
  const s1 = readFileSync(MAIN, 'utf8').trimEnd().split('\n');
  node.run('agent:main:main', S1, JSON.stringify(store['agent:main:main']), T0, null, null, null);
  win.run(S1, 'agent:main:main', 'initial', T0, T0);
  s1.forEach((text, i) => {
    const seq = i + 1;
    if (seq === 26) {
      const bytes = Buffer.from(text, 'utf8');
      evz.run(S1, seq, T0 + seq, zstd(bytes), bytes.length, NAV);
    } else ev.run(S1, seq, text, T0 + seq);
  });

  // S4: a fork of S1 at the end of its first turn, made by copying the path (same entry ids), then a new prompt.
  node.run(
    'agent:main:fork-1',
    S4,
    JSON.stringify({ sessionId: S4, updatedAt: T0 }),
    T0,
    S1,
    'd4c30002',
    'Listing fork',
  );
  win.run(S4, 'agent:main:fork-1', 'fork', T0 + 1000, T0 + 1000);
  const s4 = [
    JSON.stringify({
      type: 'session',
      version: 3,
      id: S4,
      timestamp: '2026-07-10T12:00:00.000Z',
      cwd: '/home/ana/shop',
    }),
    ...s1.slice(1, 9),
    JSON.stringify({
      type: 'message',
      id: 'f0f00001',
      parentId: 'd4c30002',
      timestamp: '2026-07-10T12:00:05.000Z',
      message: {
        role: 'user',
        content: [{ type: 'text', text: 'Sort them by size' }],
        timestamp: T0 + 10805000,
      },
    }),
    JSON.stringify({
      type: 'message',
      id: 'f0f00002',
      parentId: 'f0f00001',
      timestamp: '2026-07-10T12:00:07.000Z',
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: 'checkout.ts is largest.' }],
        stopReason: 'stop',
        timestamp: T0 + 10807000,
      },
    }),
  ];
  for (const [i, text] of s4.entries()) ev.run(S4, i + 1, text, T0 + 2000 + i);

  // S5: a fork of S1 at an entry of its fifth turn that starts with a fresh context (no copied entries).
  node.run(
    'agent:main:fresh-fork',
    S5,
    JSON.stringify({ sessionId: S5, updatedAt: T0 }),
    T0,
    S1,
    'd4c30007',
    null,
  );
  win.run(S5, 'agent:main:fresh-fork', 'fork', T0 + 3000, T0 + 3000);
  const s5 = [
    JSON.stringify({
      type: 'session',
      version: 3,
      id: S5,
      timestamp: '2026-07-10T13:00:00.000Z',
      cwd: '/home/ana/shop',
    }),
    JSON.stringify({
      type: 'message',
      id: 'g0g00001',
      parentId: null,
      timestamp: '2026-07-10T13:00:01.000Z',
      message: { role: 'user', content: 'Port the tests to Deno', timestamp: T0 + 14401000 },
    }),
    JSON.stringify({
      type: 'message',
      id: 'g0g00002',
      parentId: 'g0g00001',
      timestamp: '2026-07-10T13:00:02.000Z',
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: 'Ported.' }],
        stopReason: 'stop',
        timestamp: T0 + 14402000,
      },
    }),
  ];
  for (const [i, text] of s5.entries()) ev.run(S5, i + 1, text, T0 + 4000 + i);

  // S7: hostile rows.
  node.run('agent:main:hostile', S7, 'not json', T0, null, null, null);
  win.run(S7, 'agent:main:hostile', 'initial', T0 + 5000, T0 + 5000);
  ev.run(
    S7,
    1,
    JSON.stringify({ type: 'session', version: 3, id: S7, timestamp: '2026-07-10T14:00:00.000Z', cwd: '/x' }),
    T0 + 6000,
  );
  ev.run(
    S7,
    2,
    JSON.stringify({
      type: 'message',
      id: 'k0000001',
      parentId: null,
      timestamp: '2026-07-10T14:00:01.000Z',
      message: { role: 'user', content: 'still read', timestamp: T0 + 18001000 },
    }),
    T0 + 6000,
  );
  ev.run(S7, 3, '{"type":"message","id":"k0000002",', T0 + 6000);
  const wrong = Buffer.from(
    JSON.stringify({ type: 'custom', id: 'k0000003', parentId: 'k0000001', customType: 'x' }),
  );
  evz.run(S7, 4, T0 + 6000, zstd(wrong), wrong.length - 5, NAV);
  evz.run(S7, 6, T0 + 6000, zstd(wrong), wrong.length + 5, NAV);
  evz.run(S7, 5, T0 + 6000, Buffer.from('not a zstd frame'), 40, NAV);

  // S0's reset archive, zstd-compressed, named like the file it is the canonical owner of.
  const archiveName = `${S0}.jsonl.reset.2026-07-09T18-00-00.000Z`;
  const body = readFileSync(join(SESSIONS, archiveName));
  db.prepare(
    `INSERT INTO session_transcript_archives (session_id, generation, session_key, reason, encoding, archive_blob,
       archive_sha256, archive_name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(S0, 'g1', 'agent:main:main', 'reset', 'zstd', zstd(body), sha(body), archiveName, T0 - 54000000);
  db.prepare(
    `INSERT INTO session_transcript_cold_archives (session_id, generation, archive_name, archive_sha256, event_count,
       raw_bytes, archive_bytes, last_seq, archived_at, storage) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(S5, 'c1', 'cold.jsonl.zst', 'a'.repeat(64), 3, 100, 50, 3, T0, 'file');
  db.close();
  return { home, db: path };
}

describe('openclaw reader: paths', () => {
  it('discovers per agent the archives, the transcripts, then sessions.json, then the SQLite file', () => {
    const { home, db } = buildHome();
    const names = reader.discover(home).map((f) => basename(f));
    expect(names).toEqual([
      `${S3}.jsonl.deleted.2026-07-08T07-15-30.250Z`,
      `${S0}.jsonl.reset.2026-07-09T18-00-00.000Z`,
      ...names.slice(2, 4),
      'sessions.json',
      'openclaw-agent.sqlite',
    ]);
    // The two live transcripts (order by age); the trajectory sidecar is not a transcript.
    expect(names.slice(2, 4).sort()).toEqual([`${S1}.jsonl`, `${S2}-topic-42.jsonl`].sort());
    expect(names).not.toContain(`${S1}.trajectory.jsonl`);
    // An agent folder, a sessions folder, one file, the agent/ folder: the same units, narrowed.
    expect(reader.discover(join(home, 'agents', 'main'))).toEqual(reader.discover(home));
    expect(reader.discover(join(home, 'agents', 'main', 'sessions')).map((f) => basename(f))).toEqual(
      names.slice(0, 5),
    );
    expect(reader.discover(MAIN)).toEqual([MAIN]);
    expect(reader.discover(join(home, 'agents', 'main', 'agent'))).toEqual([db]);
    expect(reader.discover(join(home, 'nowhere'))).toEqual([]);
  });

  it('honours OPENCLAW_STATE_DIR and OPENCLAW_HOME like OpenClaw does', () => {
    expect(reader.defaultPaths({ HOME: '/home/ana', OPENCLAW_STATE_DIR: '/srv/oc' })).toEqual(['/srv/oc']);
    expect(reader.defaultPaths({ HOME: '/home/ana', OPENCLAW_STATE_DIR: '~/state' })).toEqual([
      '/home/ana/state',
    ]);
    expect(reader.defaultPaths({ HOME: '/nonexistent-home', OPENCLAW_HOME: '/opt/claw' })).toEqual([
      '/opt/claw/.openclaw',
    ]);
    expect(reader.defaultPaths({ HOME: '/nonexistent-home' })).toEqual(['/nonexistent-home/.openclaw']);
    expect(reader.kind).toBe('openclaw');
  });
});

describe('openclaw reader: transcript files', () => {
  const src = one(MAIN);
  const turns = src.turns;

  it('reads one turn per user prompt and walks through non-message entries for the parent links', () => {
    expect(src.problems).toEqual([]);
    expect(src.sessions).toEqual([
      {
        sourceSession: S1,
        createdAt: '2026-07-10T09:00:00.000Z',
        title: 'Shop refactor',
        cwd: '/home/ana/shop',
      },
    ]);
    // The root is a thinking_level_change, snapshots sit between prompts and replies, a branch_summary and a
    // compaction sit between turns: none of them is a turn, all of them are walked through.
    expect(shape(turns)).toEqual([
      'b2e10001 <- null',
      'b2e10002 <- b2e10001',
      'b2e10003 <- b2e10002', // the retry of a failed reply is the next turn in a straight line
      'b2e10004 <- b2e10003', // branch A
      'b2e10005 <- b2e10003', // branch B (after the branch_summary): b2e10003 is the branch point
      'b2e10006 <- b2e10005', // after the compaction
      'b2e10007 <- b2e10006',
    ]);
    expect(
      turns.every((t) => t.sourceSession === S1 && t.sourceId === `${S1}/${t.sourceId.split('/')[1]}`),
    ).toBe(true);
    expect(turns.map((t) => t.line)).toEqual([5, 10, 12, 17, 20, 24, 29]);
    expect(turns.every((t) => t.cwd === '/home/ana/shop')).toBe(true);
  });

  it('writes questions and answers: text, tool calls from partialJson, result lines, the error shown', () => {
    expect(turns[0].question).toBe('List the files in src');
    expect(turns[0].answer).toBe(
      [
        'Let me look.',
        '→ exec: ls src',
        '  cart.ts\n  checkout.ts\n  index.ts\n  … 1 more line',
        'There are four files: cart.ts, checkout.ts, index.ts and util.ts.',
      ].join('\n\n'),
    );
    expect(turns[0].answer).not.toContain('The user wants a listing'); // thinking is not the answer
    expect(turns[1].answer).toBe(
      '[error] 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    );
    expect(turns[1].note).toBe('error');
    expect(turns[2].question).toBe(turns[1].question);
    expect(turns[2].note).toBeUndefined();
    expect(turns[2].answer).toContain('→ edit: src/checkout.ts');
    // A call with only partialJson (no arguments), and a failed result marked as such.
    expect(turns[5].answer).toContain('→ exec: node --test src');
    expect(turns[5].answer).toContain('  error: not ok 1 - cart total');
    // The compaction summary and the branch summary are never questions or answers.
    expect(turns.some((t) => t.question.includes('## Goal') || t.answer.includes('abandoned'))).toBe(false);
  });

  it('keeps each turn the exact source lines in file order, times in ISO, and marks the growing turn', () => {
    const lines = readFileSync(MAIN, 'utf8').split('\n');
    // lines 1..4 (header, settings before the first prompt) travel with the first turn, so that `export --format
    // source` gives the whole file back; then lines 5..9: prompt, snapshot, call, result, reply
    expect(turns[0].raw).toEqual(lines.slice(0, 9));
    expect(turns[4].raw).toEqual([lines[19], lines[20], lines[21], lines[22]]); // prompt, reply, label, compaction
    expect(turns[3].raw).toEqual([lines[16], lines[17]]);
    // The branch_summary (line 19) is an entry of the branch point's turn, in file order.
    expect(turns[2].raw.at(-1)).toBe(lines[18]);
    expect(turns[0].createdAt).toBe('2026-07-10T09:00:05.020Z'); // message.timestamp, epoch ms
    expect(turns.slice(0, 6).every((t) => t.complete)).toBe(true);
    expect(turns[6].complete).toBe(false); // its last reply asked for a tool and nothing came back yet
  });

  it('reads a topic transcript under its header session id', () => {
    const t = one(join(SESSIONS, `${S2}-topic-42.jsonl`));
    expect(t.problems).toEqual([]);
    expect(t.sessions.map((s) => s.sourceSession)).toEqual([S2]);
    expect(shape(t.turns)).toEqual(['0a1b0002 <- null']);
    expect(t.turns[0].question).toBe('What did we ship today?'); // a plain-string content
    expect(t.turns[0].answer).toBe('The checkout refactor and the cart tests.');
  });

  it('flags reset and deleted copies as archived, with the time from the stamp, and reads their turns', () => {
    const reset = one(join(SESSIONS, `${S0}.jsonl.reset.2026-07-09T18-00-00.000Z`));
    expect(reset.sessions[0]).toMatchObject({
      sourceSession: S0,
      archived: { reason: 'reset', at: '2026-07-09T18:00:00.000Z' },
    });
    expect(shape(reset.turns)).toEqual(['1c2d0002 <- null', '1c2d0004 <- 1c2d0002']);
    const deleted = one(join(SESSIONS, `${S3}.jsonl.deleted.2026-07-08T07-15-30.250Z`));
    expect(deleted.sessions[0].archived).toEqual({ reason: 'deleted', at: '2026-07-08T07:15:30.250Z' });
    expect(deleted.turns.map((t) => [t.question, t.answer, t.complete])).toEqual([
      ['Scratch: what is 2+2?', '4', true],
    ]);
  });
});

describe('openclaw reader: sessions.json', () => {
  it('maps each key to an entry with its checkpoints and usage family, and reports the keys it skips', () => {
    const src = one(join(SESSIONS, 'sessions.json'));
    expect(src.sessions).toEqual([]);
    expect(src.turns).toEqual([]);
    expect(src.entries).toEqual([
      {
        key: 'agent:main:main',
        sourceSession: S1, // from sessionId; the absolute sessionFile of another machine is ignored
        compactionCheckpoints: [
          {
            checkpointId: '8f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f',
            reason: 'auto-threshold',
            createdAt: '2026-07-10T09:01:00.000Z',
            summary: 'Refactor the shop code and add tests.',
            // leafId a7b60001 (a label) and entryId c8d70001 (the compaction) are entries of the turn b2e10005.
            preCompaction: { sourceSession: S1, turnSourceId: `${S1}/b2e10005` },
            postCompaction: { sourceSession: S1, turnSourceId: `${S1}/b2e10005` },
          },
        ],
        usageFamilySessions: [S0, S1],
      },
      {
        key: 'agent:main:telegram:group:-1001234567890:topic:42',
        sourceSession: S2,
        compactionCheckpoints: [],
        usageFamilySessions: [],
      },
    ]);
    expect(src.problems.map((p) => [p.line, p.reason])).toEqual([
      [44, 'session key "bad key with spaces" is not an accepted key; skipped'],
      [48, 'session key agent:main:cron:nightly has no sessionId; skipped'],
    ]);
  });

  it('reports a broken sessions.json with the line of the error', () => {
    const dir = tempDir();
    const f = join(dir, 'sessions.json');
    writeFileSync(f, '{\n  "agent:main:main": {\n    "sessionId": "x",\n  }\n}\n');
    const src = one(f);
    expect(src.entries).toEqual([]);
    expect(src.problems).toHaveLength(1);
    expect(src.problems[0].line).toBe(4);
    expect(src.problems[0].reason).toMatch(/^sessions\.json is not JSON/);
  });
});

describe('openclaw reader: hostile input', () => {
  const file = join(FIX, 'hostile', `${H}.jsonl`);

  it('reports each bad line with its number, skips it, and reads the rest', () => {
    const src = one(file);
    expect(src.problems.map((p) => [p.line, p.reason.replace(/ \(.*\)$/, '')])).toEqual([
      [4, 'not JSON'],
      [5, 'parent gone0000 not found; the turn is linked to its nearest surviving ancestor'],
      [7, 'cycle of parents through h000000b; cut there'],
      [8, 'invalid UTF-8'],
      [10, 'not a JSON object'],
      [11, 'truncated last line'],
    ]);
    expect(shape(src.turns)).toEqual([
      'h0000001 <- null',
      'h0000004 <- null', // its parent line is missing: no surviving ancestor
      'h000000a <- h000000b', // the cycle is cut at h000000b, which becomes a root
      'h000000b <- null',
      'h0000009 <- h0000001', // through the undecodable line, whose links were still readable
    ]);
    expect(src.turns.map((t) => t.question)).toEqual([
      'first',
      'orphan question',
      'cycle a',
      'cycle b',
      'after the bad line',
    ]);
    // The newest turn is still being written (the truncated last line).
    expect(src.turns.at(-1)!.complete).toBe(false);
  });

  it('cuts a 17 MB line quickly, keeping its links and its shape', () => {
    const dir = tempDir();
    const f = join(dir, `${H}.jsonl`);
    const lines = readFileSync(file).toString('latin1').split('\n').slice(0, 3);
    const big = JSON.stringify({
      type: 'message',
      id: 'big00001',
      parentId: 'h0000002',
      timestamp: '2026-07-11T10:01:00.000Z',
      message: {
        role: 'toolResult',
        toolCallId: 'c',
        toolName: 'read',
        content: [{ type: 'text', text: 'x'.repeat(17 * 1024 * 1024) }],
      },
    });
    const after = JSON.stringify({
      type: 'message',
      id: 'h0000020',
      parentId: 'big00001',
      timestamp: '2026-07-11T10:02:00.000Z',
      message: { role: 'user', content: 'after the big line', timestamp: 1783764120000 },
    });
    writeFileSync(f, `${[...lines, big, after].join('\n')}\n`);
    const started = Date.now();
    const src = one(f);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(src.problems.map((p) => [p.line, p.reason])).toEqual([
      [4, 'line of 17 MiB is over the 16 MiB limit; its text cut to fit'],
    ]);
    expect(shape(src.turns)).toEqual(['h0000001 <- null', 'h0000020 <- h0000001']);
    // the header, the prompt's lines and the oversized line, cut as every reader cuts one (src/import/long-lines.ts)
    expect(src.turns[0].raw).toHaveLength(4);
    expect(src.turns[0].raw[3]).toMatch(/… \[cut: \d+ more bytes\]"/);
  });

  it('says a file of another format is not an OpenClaw transcript', () => {
    const src = one(join(FIX, 'hostile', 'claude-session.jsonl'));
    expect(src.turns).toEqual([]);
    expect(src.problems).toEqual([
      {
        file: join(FIX, 'hostile', 'claude-session.jsonl'),
        line: 0,
        reason: 'not an OpenClaw transcript (no session header and no entries with ids)',
      },
    ]);
  });

  it('throws one line for a file that cannot be read, and for a database that is not one', () => {
    expect(() => readAll(join(FIX, 'missing.jsonl'))).toThrow(/ENOENT/);
    const dir = tempDir();
    const f = join(dir, 'openclaw-agent.sqlite');
    writeFileSync(f, 'this is not a database');
    let message = '';
    try {
      readAll(f);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^cannot open .* as SQLite: /);
    expect(message).not.toContain('\n');
  });

  it('reads a long, deep transcript in linear time', () => {
    const dir = tempDir();
    const f = join(dir, 'deep.jsonl');
    const out = [
      JSON.stringify({
        type: 'session',
        version: 3,
        id: 'deep',
        timestamp: '2026-07-01T00:00:00.000Z',
        cwd: '/',
      }),
    ];
    let parent: string | null = null;
    const n = 25_000;
    for (let i = 0; i < n; i++) {
      const u = `u${i}`;
      const a = `a${i}`;
      out.push(
        JSON.stringify({
          type: 'message',
          id: u,
          parentId: parent,
          timestamp: '2026-07-01T00:00:01.000Z',
          message: { role: 'user', content: `q${i}`, timestamp: 1782864001000 + i },
        }),
      );
      out.push(
        JSON.stringify({
          type: 'message',
          id: a,
          parentId: u,
          timestamp: '2026-07-01T00:00:01.000Z',
          message: {
            role: 'assistant',
            content: [{ type: 'text', text: `a${i}` }],
            stopReason: 'stop',
            timestamp: 1782864001000 + i,
          },
        }),
      );
      parent = a;
    }
    writeFileSync(f, `${out.join('\n')}\n`);
    const started = Date.now();
    const src = one(f);
    // Well under a second here; a quadratic walk over 50,000 entries would take minutes.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(src.turns).toHaveLength(n);
    expect(src.turns[n - 1].parentSourceId).toBe(`deep/u${n - 2}`);
    expect(src.problems).toEqual([]);
  });
});

describe('openclaw reader: the SQLite generation', () => {
  it('yields one source per session and archive, then the entries, and leaves the database as it was', () => {
    const { db } = buildHome();
    const before = sha(readFileSync(db));
    const dirBefore = readdirSync(join(db, '..')).sort();
    const all = readAll(db);
    expect(sha(readFileSync(db))).toBe(before);
    expect(readdirSync(join(db, '..')).sort()).toEqual(dirBefore);
    const sessions = all.map((s) => s.sessions.map((x) => x.sourceSession).join(','));
    expect(sessions).toEqual([S1, S4, S5, S7, S0, '', '']);
    expect(all.every((s) => s.kind === 'openclaw' && s.file === db)).toBe(true);
    expect(all[5].problems.map((p) => p.reason)).toEqual([
      '1 cold-archived transcript(s) in session_transcript_cold_archives are not read',
    ]);
  });

  it('gives a session met in both generations the same sourceIds, links, questions and answers', () => {
    const { db } = buildHome();
    const fromDb = readAll(db)[0];
    const fromFile = one(MAIN);
    expect(fromDb.problems).toEqual([]);
    expect(logical(fromDb.turns)).toEqual(logical(fromFile.turns));
    expect(fromDb.turns.map((t) => t.line)).toEqual(fromFile.turns.map((t) => t.line)); // seq = line here
    expect(fromDb.sessions[0]).toEqual(fromFile.sessions[0]);
    // raw: each row as JSON, the compressed event's blob in base64.
    const row = JSON.parse(fromDb.turns[5].raw[2]);
    expect(row).toMatchObject({ session_id: S1, seq: 26, event_json: null, navigation_json: NAV });
    expect(typeof row.event_zstd).toBe('string');
    // rows 1..4 (settings before the first prompt) travel with the first turn; row 5 is its prompt
    expect(JSON.parse(fromDb.turns[0].raw[3])).toMatchObject({
      seq: 5,
      event_json: readFileSync(MAIN, 'utf8').split('\n')[4],
    });
  });

  it('links a fork to the turn it was forked from, without importing the copied history again', () => {
    const { db } = buildHome();
    const [, copied, fresh] = readAll(db);
    // S4 copied S1's first turn (same entry ids): those turns are S1's, and the new prompt continues S1's turn.
    expect(copied.turns.map((t) => [t.sourceId, t.parentSourceId, t.question])).toEqual([
      [`${S4}/f0f00001`, `${S1}/b2e10001`, 'Sort them by size'],
    ]);
    expect(copied.sessions[0].title).toBe('Listing fork');
    // S5 started fresh: its first turn hangs under the S1 turn that holds the fork entry d4c30007.
    expect(fresh.turns.map((t) => [t.sourceId, t.parentSourceId])).toEqual([
      [`${S5}/g0g00001`, `${S1}/b2e10005`],
    ]);
    expect(copied.problems).toEqual([]);
    expect(fresh.problems).toEqual([]);
  });

  it('reports bad rows by seq and reads the rest', () => {
    const { db } = buildHome();
    const hostile = readAll(db)[3];
    const wrongLength = Buffer.byteLength(
      JSON.stringify({ type: 'custom', id: 'k0000003', parentId: 'k0000001', customType: 'x' }),
    );
    expect(hostile.turns.map((t) => t.question)).toEqual(['still read']);
    expect(hostile.problems.map((p) => [p.line, p.reason.replace(/ \(.*\)/, '')])).toEqual([
      [3, `session ${S7}: not JSON`],
      [4, `session ${S7}: compressed event: zstd data inflates past ${wrongLength - 5} bytes; skipped`],
      [5, `session ${S7}: compressed event: not valid zstd data; skipped`],
      [
        6,
        `session ${S7}: compressed event is ${wrongLength} bytes, event_utf8_bytes says ${wrongLength + 5}`,
      ],
    ]);
  });

  it('reads a zstd transcript archive as archived, exactly like its file copy', () => {
    const { db } = buildHome();
    const archive = readAll(db)[4];
    const file = one(join(SESSIONS, `${S0}.jsonl.reset.2026-07-09T18-00-00.000Z`));
    expect(archive.problems).toEqual([]);
    expect(archive.sessions).toEqual(file.sessions);
    expect(archive.sessions[0].archived).toEqual({ reason: 'reset', at: '2026-07-09T18:00:00.000Z' });
    expect(archive.turns).toEqual(file.turns);
  });

  it('maps session_nodes to entries, checkpoints resolved against the database', () => {
    const { db } = buildHome();
    const entries = readAll(db).at(-1)!;
    expect(entries.entries.map((e) => [e.key, e.sourceSession])).toEqual([
      ['agent:main:fork-1', S4],
      ['agent:main:fresh-fork', S5],
      ['agent:main:hostile', S7],
      ['agent:main:main', S1],
    ]);
    const fromStore = one(join(SESSIONS, 'sessions.json')).entries[0];
    expect(entries.entries[3]).toEqual(fromStore);
    expect(entries.problems.map((p) => [p.line, p.reason])).toEqual([
      [
        3,
        'session_nodes: entry_json of agent:main:hostile is not a JSON object; only the current session is kept',
      ],
    ]);
  });

  it('discovers and reads the whole home without throwing', () => {
    const { home } = buildHome();
    const units = reader.discover(home).flatMap((f) => readAll(f));
    const turns = units.flatMap((u) => u.turns);
    expect(turns.length).toBe(1 + 2 + 7 + 1 + (7 + 1 + 1 + 1 + 2));
    // The writer imports a session met twice once: the sourceIds of S1 and S0 come back identical.
    const ids = turns.map((t) => t.sourceId);
    expect(new Set(ids).size).toBe(1 + 2 + 7 + 1 + 1 + 1 + 1);
  });
});

describe('openclaw: both generations into one shard', () => {
  it('a session met in the files and in the database is imported once; a second import adds nothing', () => {
    const { home } = buildHome();
    const s = openShard();
    const first = runImport(s, reader, [home]);
    const fileTurns = one(MAIN).turns.length;
    const sid = s.sessionForSource('openclaw', S1)!;
    expect(s.getSession(sid)!.n_nodes).toBe(fileTurns);
    expect(first.turns_added).toBeGreaterThan(fileTurns);
    const v = s.verify();
    expect(v.problems ?? []).toEqual([]);
    expect(v.ok).toBe(true);
    expect(s.audit.check().ok).toBe(true);
    const again = runImport(s, reader, [home]);
    expect(again.turns_added).toBe(0);
    expect(again.turns_skipped).toBe(first.turns_added + first.turns_skipped);
  });
});

describe('openclaw: entries keep their usage family', () => {
  it("the session a reset archived stays in the main entry's usage family: restored, live, named", () => {
    const s = openShard();
    runImport(s, reader, [join(FIX, 'home')]);
    const current = s.sessionForSource('openclaw', S1)!;
    const before = s.sessionForSource('openclaw', S0)!; // the .reset. transcript: archived by OpenClaw
    const entry = getEntry(s, 'agent:main:main')!;
    expect(entry.sessionId).toBe(current);
    expect([...entry.usageFamilySessionIds].sort()).toEqual([before, current].sort());
    expect(s.getSession(before)).toBeDefined(); // referenced by a surviving entry: live, not archived
    expect(s.sessionForSource('openclaw', S3)).toBeDefined();
    expect(s.getSession(s.sessionForSource('openclaw', S3)!)).toBeUndefined(); // .deleted.: no entry names it
    expect(s.verify().ok).toBe(true);
    // and a second import changes nothing
    const again = runImport(s, reader, [join(FIX, 'home')]);
    expect(again).toMatchObject({ turns_added: 0, archived: 0, entries: 0 });
    expect(getEntry(s, 'agent:main:main')!.usageFamilySessionIds).toEqual(entry.usageFamilySessionIds);
  });
});
