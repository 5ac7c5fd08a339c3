import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { claudeReader } from '../../src/import/claude/index.js';
import { fingerprintOf } from '../../src/import/fingerprint.js';
import { unchangedSinceImport } from '../../src/import/run.js';
import { Shard } from '../../src/store/index.js';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

/**
 * Importing again passes over the files that did not change (docs/import.md, "Files that did not change"), and
 * reads every file that did, or that still holds something to import. Real fixtures, the real binary.
 */

const FIXTURES = join(import.meta.dirname, 'fixtures', 'claude');
/** A real Gemini CLI subagent chat (tests/import/fixtures/gemini/SOURCES.md). */
const GEMINI_SUBAGENT = join(
  import.meta.dirname,
  'fixtures/gemini/gemini-home/tmp/shop/chats/5e551011-2c3d-4e5f-8a9b-0c1d2e3f4a5b/a9e0c4d2-7b6a-4f1e-9c3d-2b1a0f9e8d7c.jsonl',
);
const SESSION = 'aaaa0000-0000-4000-8000-000000000001';
const AGENTS = 'eeee0000-0000-4000-8000-000000000005';

interface Home {
  dir: string;
  db: string;
  /** A clean transcript of 2 turns. */
  file: string;
  /** A session with subagent files under <session>/subagents. */
  agents: string;
}

function home(): Home {
  const dir = tempDir('arb-reimport-');
  const projects = join(dir, 'projects');
  cpSync(join(FIXTURES, 'resume', `${SESSION}.jsonl`), join(projects, 'p', `${SESSION}.jsonl`));
  cpSync(join(FIXTURES, 'newagents'), join(projects, 'q'), { recursive: true });
  return {
    dir,
    db: join(dir, 'sessions.db'),
    file: join(projects, 'p', `${SESSION}.jsonl`),
    agents: join(projects, 'q', `${AGENTS}/subagents/agent-x3.jsonl`),
  };
}

function importJson(h: Home, ...more: string[]) {
  const r = cli(['import', 'claude', join(h.dir, 'projects'), '--db', h.db, '--json', ...more]);
  expect(r.stderr).not.toMatch(/this is a bug/);
  return { code: r.code, ...r.json() };
}

let at = 0;
/** A prompt and its answer in Claude Code's shape, continuing `parent`; returns the answer's uuid. */
function appendTurn(file: string, parent: string, question: string, sessionId = SESSION): string {
  const n = ++at;
  const base = { isSidechain: false, userType: 'external', cwd: '/work/fx', sessionId, version: '2.1.0' };
  const p = {
    ...base,
    parentUuid: parent,
    type: 'user',
    uuid: `new-p${n}`,
    timestamp: `2026-02-02T09:0${n}:00.000Z`,
    message: { role: 'user', content: question },
  };
  const a = {
    ...base,
    parentUuid: `new-p${n}`,
    type: 'assistant',
    uuid: `new-a${n}`,
    timestamp: `2026-02-02T09:0${n}:05.000Z`,
    message: {
      id: `m_new-a${n}`,
      type: 'message',
      role: 'assistant',
      model: 'x',
      content: [{ type: 'text', text: `answer ${n}` }],
      stop_reason: 'end_turn',
    },
  };
  appendFileSync(file, `${JSON.stringify(p)}\n${JSON.stringify(a)}\n`);
  return `new-a${n}`;
}

function questions(db: string): string[] {
  const r = cli(['find', 'answer', '--db', db, '--json']);
  return r.code === 0 ? r.json().map((h: { question: string }) => h.question) : [];
}

function turnCount(db: string): number {
  return cli(['list', '--db', db, '--json'])
    .json()
    .reduce((a: number, s: { n_nodes: number }) => a + s.n_nodes, 0);
}

function shardOf(db: string, fn: (d: Database.Database) => void): void {
  const d = new Database(db);
  try {
    fn(d);
  } finally {
    d.close();
  }
}

describe('importing again', () => {
  it('passes over the files that did not change, with the same summary as reading them all', () => {
    const h = home();
    const first = importJson(h);
    expect(first).toMatchObject({ code: 0, files: 2, files_unchanged: 0, problems: [] });
    const again = importJson(h);
    expect(again).toMatchObject({ code: 0, files: 2, files_unchanged: 2, turns_added: 0, problems: [] });
    const full = importJson(h, '--full');
    expect(full).toMatchObject({ files_unchanged: 0, turns_added: 0 });
    // Passed over or read, the same turns are there and counted the same.
    expect(again.turns_skipped).toBe(full.turns_skipped);
    expect(again.turns_skipped).toBe(first.turns_added);
    // --full recorded the fingerprints again: the next import passes over both.
    expect(importJson(h)).toMatchObject({ files_unchanged: 2 });
  });

  it('reads a file appended to, and a session whose subagent file alone changed', () => {
    const h = home();
    importJson(h);
    const n = turnCount(h.db);
    appendTurn(h.file, 'r-a2', 'Step two?');
    const r = importJson(h);
    expect(r).toMatchObject({ turns_added: 1, files_unchanged: 1, problems: [] });
    // A subagent's file is read with its session: its change alone reads the session again.
    const last = readFileSync(h.agents, 'utf8').trim().split('\n').pop()!;
    appendTurn(h.agents, JSON.parse(last).uuid, 'one more for the agent', AGENTS);
    const s = importJson(h);
    expect(s.files_unchanged).toBe(1);
    expect(s.turns_added).toBe(1);
    expect(turnCount(h.db)).toBe(n + 2);
    expect(importJson(h)).toMatchObject({ turns_added: 0, files_unchanged: 2 });
  });

  it('a file whose last line is cut is never recorded as done: its turn lands once whole', () => {
    const h = home();
    importJson(h);
    appendTurn(h.file, 'r-a2', 'Step two?');
    const whole = readFileSync(h.file);
    truncateSync(h.file, whole.length - 20);
    for (let i = 0; i < 2; i++) {
      const cut = importJson(h);
      expect(cut.turns_added).toBe(0);
      expect(cut.turns_waiting).toBe(1);
      expect(cut.files_unchanged).toBe(1); // the other file
      expect(cut.problems.map((p: { reason: string }) => p.reason)).toEqual([
        expect.stringMatching(/truncated last line/),
      ]);
    }
    writeFileSync(h.file, whole);
    expect(importJson(h)).toMatchObject({ turns_added: 1, problems: [] });
    expect(questions(h.db)).toContain('Step two?');
  });

  it('reads a file replaced by another, truncated or rotated, even with its size and mtime put back', () => {
    const h = home();
    // A question of 100 KB between the file's 16 KiB head and tail, which the fingerprint hashes.
    appendTurn(h.file, 'r-a2', `long ${'x'.repeat(100_000)} question`);
    appendTurn(h.file, `new-a${at}`, 'and a short one');
    importJson(h);
    expect(importJson(h).files_unchanged).toBe(2);
    const st = statSync(h.file, { bigint: true });
    // touch -r keeps the nanoseconds (utimes from JavaScript rounds them): what a careful rewrite would do.
    const ref = join(h.dir, 'ref');
    writeFileSync(ref, '');
    execFileSync('touch', ['-r', h.file, ref]);
    const original = readFileSync(h.file, 'utf8');
    // One byte in the middle changed, the same size, the mtime put back: the ctime still says it was written.
    const mid = original.indexOf('x'.repeat(1000)) + 50_000;
    const other = `${original.slice(0, mid)}y${original.slice(mid + 1)}`;
    expect(other.length).toBe(original.length);
    writeFileSync(h.file, other);
    execFileSync('touch', ['-r', ref, h.file]);
    const now = statSync(h.file, { bigint: true });
    expect([now.size, now.mtimeNs, now.ino]).toEqual([st.size, st.mtimeNs, st.ino]);
    expect(importJson(h).files_unchanged).toBe(1);
    // Replaced by another file (a rename over it) with the same bytes, size and mtime: another inode, read again.
    expect(importJson(h).files_unchanged).toBe(2);
    const copy = join(h.dir, 'copy.jsonl');
    cpSync(h.file, copy, { preserveTimestamps: true });
    renameSync(copy, h.file);
    expect(importJson(h)).toMatchObject({ files_unchanged: 1, turns_added: 0, problems: [] });
    // Rotated: the file emptied and written again with a new session's first turn.
    writeFileSync(h.file, '');
    expect(importJson(h)).toMatchObject({ files_unchanged: 1, turns_added: 0 });
    appendTurn(h.file, null as unknown as string, 'A new day', 'ffff0000-0000-4000-8000-000000000006');
    const r = importJson(h);
    expect(r).toMatchObject({ files_unchanged: 1, turns_added: 1, problems: [] });
    expect(questions(h.db)).toContain('A new day');
  });

  it('--no-sidechains and a full import are recorded apart: the sidechains are read when wanted', () => {
    const h = home();
    const lean = importJson(h, '--no-sidechains');
    expect(importJson(h, '--no-sidechains').files_unchanged).toBe(2);
    const all = importJson(h);
    expect(all.files_unchanged).toBe(0);
    expect(all.turns_added).toBeGreaterThan(0);
    expect(turnCount(h.db)).toBe(lean.turns_added + all.turns_added);
  });
});

describe("fingerprints changed behind arborist's back", () => {
  it('only make an import read a file again or pass it over: no turn is lost or altered', () => {
    const h = home();
    importJson(h);
    const n = turnCount(h.db);
    // Digests garbled, counts changed, rows removed, a row of the wrong types: each file is read again.
    for (const edit of [
      'UPDATE import_fingerprints SET digest = randomblob(32)',
      "UPDATE import_fingerprints SET digest = 'not bytes', turns = 'x'",
      'DELETE FROM import_fingerprints',
    ]) {
      shardOf(h.db, (d) => d.exec(edit));
      const r = importJson(h);
      expect(r, edit).toMatchObject({ code: 0, files_unchanged: 0, turns_added: 0, problems: [] });
      expect(turnCount(h.db)).toBe(n);
    }
    // A count changed: only what the summary says of the file passed over.
    shardOf(h.db, (d) => d.exec('UPDATE import_fingerprints SET turns = 1000'));
    expect(importJson(h)).toMatchObject({ files_unchanged: 2, turns_added: 0 });
    expect(turnCount(h.db)).toBe(n);
    expect(cli(['verify', '--db', h.db]).code).toBe(0);
  });

  it("a row forged to a changed file's fingerprint hides its new turns from an import until --full", () => {
    const h = home();
    importJson(h);
    appendTurn(h.file, 'r-a2', 'Step two?');
    // The forger computes what arborist would: the file has no subagents.
    const digest = fingerprintOf([h.file])!;
    shardOf(h.db, (d) =>
      d
        .prepare("UPDATE import_fingerprints SET digest = ? WHERE reader = 'claude' AND file = ?")
        .run(digest, h.file),
    );
    expect(importJson(h)).toMatchObject({ turns_added: 0, files_unchanged: 2 });
    expect(importJson(h, '--full')).toMatchObject({ turns_added: 1, files_unchanged: 0 });
    expect(questions(h.db)).toContain('Step two?');
    expect(cli(['verify', '--db', h.db]).code).toBe(0);
  });
});

describe('unchangedSinceImport (for a keeper deciding what to read)', () => {
  it('is true for a file read whole and settled, false once it changes or its record is gone', () => {
    const h = home();
    importJson(h);
    const ask = () => {
      const s = Shard.open(h.db, { readonly: true });
      try {
        return unchangedSinceImport(s, claudeReader, h.file);
      } finally {
        s.close();
      }
    };
    expect(ask()).toBe(true);
    appendTurn(h.file, 'r-a2', 'Step two?');
    expect(ask()).toBe(false);
    importJson(h);
    expect(ask()).toBe(true);
    shardOf(h.db, (d) => d.exec('DELETE FROM import_fingerprints'));
    expect(ask()).toBe(false);
  });
});

describe('importing a mixed home again', () => {
  /** A home of six agents' histories (bench/mixed-corpus.ts, as the bench makes it), one file each. */
  function mixedHome(): { home: string; db: string; file: (kind: string) => string } {
    const dir = tempDir('arb-reimport-mixed-');
    const home = join(dir, 'home');
    execFileSync(
      process.execPath,
      [join(import.meta.dirname, '../../dist/bench/mixed-corpus.js'), '--out', home, '--turns', '60'],
      { stdio: 'ignore' },
    );
    const list = (d: string): string[] =>
      readdirSync(d, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? list(join(d, e.name)) : [join(d, e.name)],
      );
    const files = list(home);
    const file = (kind: string) => {
      const f = files.find((p) => p.includes(`/.${kind}/`));
      if (f === undefined) throw new Error(`no ${kind} file`);
      return f;
    };
    return { home, db: join(dir, 'sessions.db'), file };
  }

  type Source = {
    kind: string;
    files: number;
    files_unchanged: number;
    turns_added: number;
    turns_skipped: number;
  };
  function importHome(h: { home: string; db: string }, ...more: string[]): Map<string, Source> {
    const r = cli(['import', '--db', h.db, '--json', ...more], { env: { HOME: h.home, TZ: 'UTC' } });
    expect(r.stderr).not.toMatch(/this is a bug/);
    expect(r.code).toBe(0);
    const doc = r.json() as { sources: (Source & { errors: number })[] };
    for (const s of doc.sources) expect(s.errors, s.kind).toBe(0);
    return new Map(doc.sources.map((s) => [s.kind, s]));
  }
  const unchanged = (m: Map<string, Source>) =>
    [...m.values()]
      .filter((s) => s.files_unchanged > 0)
      .map((s) => s.kind)
      .sort();

  const ALL = ['claude', 'codex', 'copilot', 'gemini', 'openclaw', 'pi'];

  it('passes over Codex, Copilot, Gemini, Pi and OpenClaw files that did not change, each counted as when read', () => {
    const h = mixedHome();
    const first = importHome(h);
    expect([...first.values()].every((s) => s.turns_added > 0 && s.files_unchanged === 0)).toBe(true);
    const again = importHome(h);
    expect(unchanged(again)).toEqual(ALL);
    const full = importHome(h, '--full');
    expect(unchanged(full)).toEqual([]);
    for (const [kind, s] of again) {
      expect(s.turns_added, kind).toBe(0);
      expect(s.turns_skipped, kind).toBe(first.get(kind)!.turns_added);
      expect(s.turns_skipped, kind).toBe(full.get(kind)!.turns_skipped);
    }
  });

  it("reads a file again when a file read with it changed: Codex's thread names, Copilot's workspace.yaml", () => {
    const h = mixedHome();
    importHome(h);
    const rollout = h.file('codex');
    const codexHome = rollout.slice(0, rollout.indexOf('/sessions/'));
    writeFileSync(join(codexHome, 'session_index.jsonl'), '{"id":"x","thread_name":"a name"}\n');
    writeFileSync(join(dirname(h.file('copilot')), 'workspace.yaml'), 'name: a title\n');
    expect(unchanged(importHome(h))).toEqual(['claude', 'gemini', 'openclaw', 'pi']);
    expect(unchanged(importHome(h))).toEqual(ALL);
  });

  it("reads a Gemini chat again when its session gains a subagent chat, or its project's folder file changes", () => {
    const h = mixedHome();
    importHome(h);
    const chat = h.file('gemini');
    const sid = JSON.parse(readFileSync(chat, 'utf8').split('\n')[0]).sessionId as string;
    const subDir = join(dirname(chat), sid.replace(/[^a-zA-Z0-9_-]/g, '_'));
    mkdirSync(subDir);
    cpSync(GEMINI_SUBAGENT, join(subDir, 'agent-1.jsonl'));
    const withAgent = importHome(h).get('gemini')!;
    expect(withAgent.files_unchanged).toBe(0);
    expect(unchanged(importHome(h))).toEqual(ALL);
    writeFileSync(join(dirname(dirname(chat)), '.project_root'), '/home/me/elsewhere\n');
    expect(unchanged(importHome(h))).not.toContain('gemini');
    expect(unchanged(importHome(h))).toEqual(ALL);
  });

  it('reads a pi fork every time: its reading depends on the parent its header names', () => {
    const h = mixedHome();
    const pi = h.file('pi');
    const lines = readFileSync(pi, 'utf8').split('\n');
    const header = JSON.parse(lines[0]);
    const fork = join(dirname(pi), 'fork.jsonl');
    writeFileSync(
      fork,
      [JSON.stringify({ ...header, id: 'fork-1', parentSession: pi }), ...lines.slice(1)].join('\n'),
    );
    importHome(h);
    const again = importHome(h).get('pi')!;
    expect(again).toMatchObject({ files: 2, files_unchanged: 1, turns_added: 0 });
  });
});
