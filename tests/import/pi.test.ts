import { cpSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ParsedSource, ParsedTurn } from '../../src/import/model.js';
import { piReader as reader } from '../../src/import/pi/index.js';
import { lineageOf } from '../../src/import/pi/lineage.js';
import { agentDir } from '../../src/import/pi/paths.js';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

const FIX = join(import.meta.dirname, 'fixtures', 'pi');
const LARGE = join(FIX, 'pi-mono', 'large-session.jsonl');
const AGENT = join(FIX, 'agent');
const SHOP = join(AGENT, 'sessions', '--home-ana-shop--');
const LIB = join(AGENT, 'sessions', '--home-ana-lib--');
const A = '5b0c7e2a-91d4-4f6e-8a3b-2c7d9e1f4a60';
const B = 'c3e8f1d7-0a2b-4c5d-9e6f-7a8b9c0d1e2f';
const C = '0f1e2d3c-4b5a-4697-8877-665544332211';
const A_FILE = join(SHOP, `2026-02-10T09-00-00-000Z_${A}.jsonl`);
const B_FILE = join(SHOP, `2026-02-10T09-30-00-000Z_${B}.jsonl`);
const C_FILE = join(LIB, `2026-01-05T14-20-00-000Z_${C}.jsonl`);

function one(file: string): ParsedSource {
  const all = [...reader.read(file)];
  expect(all).toHaveLength(1);
  return all[0];
}

/** `entry <- parent` of each turn, with the session id shortened to its first 4 characters. */
function shape(turns: ParsedTurn[]): string[] {
  const short = (s: string | null) =>
    s === null ? 'null' : `${s.slice(0, 4)}/${s.slice(s.indexOf('/') + 1)}`;
  return turns.map((t) => `${short(t.sourceId)} <- ${short(t.parentSourceId)}`);
}

function importJson(args: string[], env?: NodeJS.ProcessEnv) {
  const r = cli(['import', 'pi', ...args, '--json'], { env });
  expect(r.stderr, r.stderr).not.toMatch(/this is a bug/);
  return { code: r.code, doc: r.json() };
}

describe('pi reader: version 1, a real session (pi-mono test fixture)', () => {
  it('reads every prompt in file order, chained, with its own time, tools and the aborted first reply', () => {
    const src = one(LARGE);
    expect(src.problems).toEqual([]);
    expect(src.kind).toBe('pi');
    const sid = 'd703a1a9-1b7b-4fb1-b512-c9738b1fe617';
    expect(src.sessions).toEqual([
      {
        sourceSession: sid,
        createdAt: '2025-11-20T23:33:50.805Z',
        cwd: '/Users/badlogic/workspaces/pi-mono',
      },
    ]);
    const t = src.turns;
    expect(t).toHaveLength(88);
    // Version 1 has no ids: each entry is named by its line and chained to the one before.
    expect(t[0]).toMatchObject({ sourceId: `${sid}/@2`, parentSourceId: null, question: '/mode', line: 2 });
    expect(t[0].answer).toBe('[error] Request was aborted');
    expect(t[0].note).toBe('aborted');
    expect(t[0].createdAt).toBe('2025-11-20T23:33:01.544Z'); // the message's epoch ms, not the header's time
    expect(t[1]).toMatchObject({ sourceId: `${sid}/@5`, parentSourceId: `${sid}/@2`, line: 5 });
    for (let i = 1; i < t.length; i++) expect(t[i].parentSourceId).toBe(t[i - 1].sourceId);
    expect(t[1].question).toMatch(/^read packages\/coding-agent\/docs\/theme\.md in full/);
    expect(t[1].answer).toContain('→ read: packages/coding-agent/docs/theme.md');
    expect(t[1].answer).toContain('  # Pi Coding Agent Themes');
    expect(t.every((x) => x.cwd === '/Users/badlogic/workspaces/pi-mono')).toBe(true);
    // The header and the settings before the first prompt travel with the first turn; every line is some turn's.
    expect(t[0].raw[0]).toMatch(/^\{"type":"session","id":"d703a1a9/);
    const lines = readFileSync(LARGE, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    expect(t.flatMap((x) => x.raw)).toEqual(lines);
  });

  it('calls made together each get their own result under them, matched by toolCallId (not all results after the last)', () => {
    const t = one(LARGE).turns[2]; // three edits in one assistant message (line 21), their results on lines 22-24
    const edits = t.answer.split('→ edit: ').slice(1);
    expect(edits).toHaveLength(3);
    // each call's part holds exactly one result, its own (452, 1610, 320 characters changed, in the calls' order)
    expect(edits.map((e) => (e.match(/Successfully replaced/g) ?? []).length)).toEqual([1, 1, 1]);
    expect(edits[0]).toContain('Changed 452 characters to 175 characters.');
    expect(edits[1]).toContain('Changed 1610 characters to 1640 characters.');
    expect(edits[2]).toContain('Changed 320 characters to 328 characters.');
  });

  it('through the binary: imported once, nothing the second time, and exported back byte for byte', () => {
    const dir = tempDir('arb-pi-large-');
    const db = join(dir, 's.db');
    const first = importJson([LARGE, '--db', db]);
    expect(first.doc).toMatchObject({ files: 1, sessions: 1, turns_added: 88, problems: [] });
    expect(first.code).toBe(0);
    expect(importJson([LARGE, '--db', db]).doc).toMatchObject({ turns_added: 0, turns_skipped: 88 });
    const [s] = cli(['list', '--db', db, '--json']).json();
    const out = join(dir, 'back.jsonl');
    const r = cli(['export', s.sid, '--format', 'source', '--out', out, '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out)).toEqual(readFileSync(LARGE));
  });
});

describe('pi reader: versions 2 and 3 (agent/sessions)', () => {
  it('finds the sessions under the agent folder, oldest first, whatever folder they are in', () => {
    expect(reader.discover(AGENT)).toEqual([C_FILE, A_FILE, B_FILE]);
    expect(reader.discover(join(AGENT, 'sessions'))).toEqual([C_FILE, A_FILE, B_FILE]);
    expect(reader.discover(SHOP)).toEqual([A_FILE, B_FILE]);
    expect(reader.discover(A_FILE)).toEqual([A_FILE]);
  });

  it('version 3: a tree of turns, the title, tools, a command run from the prompt, an error; no thinking', () => {
    const src = one(A_FILE);
    expect(src.problems).toEqual([]);
    expect(src.sessions).toEqual([
      {
        sourceSession: A,
        createdAt: '2026-02-10T09:00:00.000Z',
        cwd: '/home/ana/shop',
        title: 'CI-only test failure',
      },
    ]);
    expect(shape(src.turns)).toEqual([
      '5b0c/4c8f1a77 <- null',
      '5b0c/95c4e0a2 <- 5b0c/4c8f1a77',
      '5b0c/3d90b6f1 <- 5b0c/4c8f1a77', // a branch: a second prompt under the same answer
      '5b0c/e9c3a5d2 <- 5b0c/3d90b6f1',
    ]);
    const [t1, t2, t3, t4] = src.turns;
    expect(t1.question).toBe('Why does npm test fail on CI only?');
    expect(t1.createdAt).toBe('2026-02-10T09:00:04.305Z');
    expect(t1.answer).toBe(
      [
        'Let me look at the CI workflow.',
        '→ read: .github/workflows/ci.yml',
        '  name: ci\n  on: push\n  jobs:\n  … 6 more lines',
        'CI runs Node 18, and the tests use `Array.prototype.findLast`, which Node 18 lacks only behind a flag in older minors. Pin Node 20 or polyfill it.',
      ].join('\n\n'),
    );
    expect(t1.answer).not.toContain('another Node version'); // the thinking block
    expect(t2.answer).toContain('→ edit: .github/workflows/ci.yml');
    // `!npm test` typed at the prompt: a call and its output; the extension's custom message is neither.
    expect(t3.answer).toContain('→ bash: npm test\n\n  error: > shop@1.0.0 test');
    expect(t3.answer).not.toContain('Open todos');
    expect(src.turns.map((t) => t.question)).not.toContain('Open todos: fix cart total');
    expect(t4).toMatchObject({ answer: '[error] overloaded_error: Overloaded', note: 'error' });
    // The header and the settings before the first prompt are the first turn's; a session_info under a turn, its.
    expect(t1.raw.map((l) => JSON.parse(l).type)).toEqual([
      'session',
      'model_change',
      'thinking_level_change',
      'message',
      'message',
      'message',
      'message',
      'session_info',
    ]);
  });

  it('version 2: a hookMessage is no prompt and no answer', () => {
    const src = one(C_FILE);
    expect(src.problems).toEqual([]);
    expect(shape(src.turns)).toEqual(['0f1e/aa01b2c3 <- null']);
    expect(src.turns[0].answer).toBe(
      '→ grep: src/index.ts\n\n  src/index.ts:3:export function parse(\n  src/index.ts:9:export function format(\n\nTwo: `parse` and `format`.',
    );
  });

  it('a fork hangs under the turn it was forked from, and its copied turns are not read twice', () => {
    const src = one(B_FILE);
    expect(src.problems).toEqual([]);
    // The header names the parent's path on the machine that wrote it; the parent is found beside the fork.
    expect(shape(src.turns)).toEqual([`c3e8/1c7e4b95 <- 5b0c/4c8f1a77`]);
    expect(src.turns[0].question).toBe('Run the tests on Node 18, 20 and 22.');
    expect(src.sessions[0]).toMatchObject({ sourceSession: B, createdAt: '2026-02-10T09:30:00.000Z' });
  });

  it('a fork whose parent file is gone keeps the copied history as its own', () => {
    const dir = tempDir('arb-pi-orphan-');
    const f = join(dir, `2026-02-10T09-30-00-000Z_${B}.jsonl`);
    cpSync(B_FILE, f);
    const src = one(f);
    expect(src.problems).toEqual([]);
    expect(shape(src.turns)).toEqual(['c3e8/4c8f1a77 <- null', 'c3e8/1c7e4b95 <- c3e8/4c8f1a77']);
  });

  it('a fork of a fork: each copied prompt is the turn of the session that wrote it', () => {
    // forkFrom copies every entry of its source, here the fork B (which had copied from A).
    const dir = tempDir('arb-pi-chain-');
    const shop = join(dir, 'sessions', '--home-ana-shop--');
    mkdirSync(shop, { recursive: true });
    cpSync(A_FILE, join(shop, `2026-02-10T09-00-00-000Z_${A}.jsonl`));
    const b = join(shop, `2026-02-10T09-30-00-000Z_${B}.jsonl`);
    cpSync(B_FILE, b);
    const E = 'e0e0e0e0-1111-4222-8333-444455556666';
    const lines = readFileSync(B_FILE, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const header = JSON.stringify({
      type: 'session',
      version: 3,
      id: E,
      timestamp: '2026-02-11T08:00:00.000Z',
      cwd: '/home/ana/other',
      parentSession: b,
    });
    const own = (id: string, parentId: string, text: string) =>
      JSON.stringify({
        type: 'message',
        id,
        parentId,
        timestamp: '2026-02-11T08:00:05.000Z',
        message: { role: 'user', content: [{ type: 'text', text }], timestamp: 1786435205000 },
      });
    const other = join(dir, 'sessions', '--home-ana-other--');
    mkdirSync(other);
    const e = join(other, `2026-02-11T08-00-00-000Z_${E}.jsonl`);
    writeFileSync(
      e,
      `${[header, ...lines.slice(1), own('0e000001', '5f0a9d3c', 'And 24?'), own('0e000002', 'f63a8c14', 'Back to 18.')].join('\n')}\n`,
    );
    const src = one(e);
    expect(src.problems).toEqual([]);
    expect(shape(src.turns)).toEqual(['e0e0/0e000001 <- c3e8/1c7e4b95', 'e0e0/0e000002 <- 5b0c/4c8f1a77']);
    expect(reader.discover(dir)).toEqual([join(shop, `2026-02-10T09-00-00-000Z_${A}.jsonl`), b, e]);
  });

  it('forks of one parent read the parent once, and again when it has changed', () => {
    // Each fork used to read and parse its parent whole: 30 forks of a 50 MB session took 5.7 s and 575 MB.
    const dir = tempDir('arb-pi-forks-');
    const parent = join(dir, `2026-02-10T09-00-00-000Z_${A}.jsonl`);
    cpSync(A_FILE, parent);
    const header = { id: 'f', parentSession: parent };
    const first = lineageOf(join(dir, 'fork-1.jsonl'), header);
    expect(first?.sessionId).toBe(A);
    expect(lineageOf(join(dir, 'fork-2.jsonl'), header)).toBe(first);
    writeFileSync(parent, `${readFileSync(A_FILE, 'utf8')}\n`);
    utimesSync(parent, new Date(), new Date(Date.now() + 5000));
    const again = lineageOf(join(dir, 'fork-3.jsonl'), header);
    expect(again).not.toBe(first);
    expect(again?.sessionId).toBe(A);
  });

  it('through the binary: the fork is a child of the first session, and the default folder is found', () => {
    const dir = tempDir('arb-pi-home-');
    cpSync(AGENT, join(dir, '.pi', 'agent'), { recursive: true });
    const db = join(dir, 's.db');
    const env = { HOME: dir, XDG_CONFIG_HOME: join(dir, '.config') };
    const r = importJson(['--db', db], env);
    expect(r.code).toBe(0);
    expect(r.doc).toMatchObject({ files: 3, sessions: 3, turns_added: 6, problems: [] });
    const sessions: { sid: string }[] = cli(['list', '--db', db, '--json']).json();
    const bySource = new Map<string, { bates: string; parent_bates: string | null }>();
    for (const s of sessions)
      for (const t of cli(['tree', s.sid, '--db', db, '--json']).json()) {
        const shown = cli(['show', t.bates, '--db', db, '--json']).json();
        bySource.set(shown.source_id, shown);
      }
    expect(bySource.get(`${B}/1c7e4b95`)?.parent_bates).toBe(bySource.get(`${A}/4c8f1a77`)?.bates);
    expect(bySource.size).toBe(6);
    expect(importJson(['--db', db], env).doc).toMatchObject({ turns_added: 0, turns_skipped: 6 });
    // PI_CODING_AGENT_DIR moves the agent folder, `~` expanded as pi does.
    const moved = join(dir, 'pi-agent');
    cpSync(AGENT, moved, { recursive: true });
    const db2 = join(dir, 's2.db');
    const r2 = importJson(['--db', db2], { ...env, HOME: join(dir, 'nobody'), PI_CODING_AGENT_DIR: moved });
    expect(r2.doc).toMatchObject({ turns_added: 6, problems: [] });
  });

  it('where pi keeps its sessions: PI_CODING_AGENT_DIR (with ~) or ~/.pi/agent', () => {
    expect(agentDir({ HOME: '/home/ana' })).toBe('/home/ana/.pi/agent');
    expect(agentDir({ HOME: '/home/ana', PI_CODING_AGENT_DIR: '~/pi' })).toBe('/home/ana/pi');
    expect(agentDir({ HOME: '/home/ana', PI_CODING_AGENT_DIR: '~' })).toBe('/home/ana');
    expect(agentDir({ HOME: '/home/ana', PI_CODING_AGENT_DIR: '/srv/pi' })).toBe('/srv/pi');
    expect(agentDir({ HOME: '/home/ana', PI_CODING_AGENT_DIR: '' })).toBe('/home/ana/.pi/agent');
    expect(reader.defaultPaths({ HOME: '/home/ana' })).toEqual(['/home/ana/.pi/agent/sessions']);
  });
});

describe('pi reader: bad input', () => {
  it('a file of another format is one problem; a headerless file takes its id from the name', () => {
    const claude = one(join(import.meta.dirname, 'fixtures', 'corpus', 'claude-code', 'session_b.jsonl'));
    expect(claude.turns).toEqual([]);
    expect(claude.problems).toHaveLength(1);
    expect(claude.problems[0]).toMatchObject({
      line: 0,
      reason: expect.stringMatching(/^not a Pi transcript/),
    });

    const dir = tempDir('arb-pi-bad-');
    const f = join(dir, `2026-02-10T09-00-00-000Z_${A}.jsonl`);
    const lines = readFileSync(A_FILE, 'utf8').split('\n');
    writeFileSync(f, lines.slice(1).join('\n'));
    const src = one(f);
    expect(src.problems[0]).toEqual({
      file: f,
      line: 1,
      reason: `no session header; the session id ${A} is taken from the file name`,
    });
    expect(src.turns.map((t) => t.sourceId)).toEqual(
      ['4c8f1a77', '95c4e0a2', '3d90b6f1', 'e9c3a5d2'].map((x) => `${A}/${x}`),
    );
  });

  it('the same file read as OpenClaw and as Pi gives two sets of turns, never one in place of the other', () => {
    const dir = tempDir('arb-pi-both-');
    const db = join(dir, 's.db');
    expect(importJson([A_FILE, '--db', db]).doc.turns_added).toBe(4);
    const oc = cli(['import', 'openclaw', A_FILE, '--db', db, '--json']).json();
    expect(oc).toMatchObject({ turns_added: 4, turns_skipped: 0 });
  });
});
