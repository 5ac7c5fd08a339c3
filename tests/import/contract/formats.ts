import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { SourceKind } from '../../../src/import/index.js';

/**
 * The formats the shared reader contract (contract.test.ts) runs on: one entry a source, each able to write a small
 * history in its tool's own shape. The shapes follow the real files in tests/import/fixtures (each entry names the
 * fixture it mirrors): a writer here is a generator of test input, not a second source of format facts.
 */

export interface ContractTurn {
  question: string;
  answer: string;
}

export interface ContractFormat {
  kind: SourceKind;
  /** The real fixture whose shape `write` follows. */
  mirrors: string;
  /**
   * Writes one session holding these turns, in order, laid out as the tool lays it out below `dir`, and returns
   * what to give `arborist import KIND` and the files written.
   */
  write(dir: string, turns: readonly ContractTurn[]): { path: string; file: string };
  /**
   * Line formats: appends one more turn whose last line is cut before its end (a tool still writing it), and
   * returns a function that writes the rest. Absent for a whole-file format (then that clause does not apply).
   */
  appendCut?(file: string, turn: ContractTurn): () => void;
  /** Line formats: breaks one line of the file in the middle of the history; returns its 1-based number. */
  breakLine?(file: string): number;
  /** `export --format source` gives the file back byte for byte (every record of the file belongs to a turn). */
  sourceRoundTrip: boolean;
}

const lines = (file: string) => readFileSync(file, 'utf8').split('\n');

/** Replaces line `n` (1-based) with a line that is not JSON. */
function breakJsonLine(file: string, n: number): number {
  const all = lines(file);
  all[n - 1] = `${all[n - 1].slice(0, 20)} <- cut here`;
  writeFileSync(file, all.join('\n'));
  return n;
}

/** Appends records, the last one cut in the middle; the returned function appends the rest of it and its newline. */
function appendCutRecords(file: string, records: string[]): () => void {
  const last = records[records.length - 1];
  const half = Math.floor(last.length / 2);
  appendFileSync(
    file,
    `${records
      .slice(0, -1)
      .map((r) => `${r}\n`)
      .join('')}${last.slice(0, half)}`,
  );
  return () => appendFileSync(file, `${last.slice(half)}\n`);
}

let clock = Date.parse('2026-03-01T09:00:00.000Z');
function tick(): string {
  clock += 1000;
  return new Date(clock).toISOString();
}

function claudeRecords(session: string, turns: readonly ContractTurn[], from: number): string[] {
  const out: string[] = [];
  let parent: string | null = from === 0 ? null : `${session}-a${from - 1}`;
  turns.forEach((t, k) => {
    const i = from + k;
    const base = {
      isSidechain: false,
      userType: 'external',
      cwd: '/home/ana/shop',
      sessionId: session,
      version: '1.0.0',
    };
    out.push(
      JSON.stringify({
        type: 'user',
        timestamp: tick(),
        parentUuid: parent,
        ...base,
        uuid: `${session}-u${i}`,
        message: { role: 'user', content: t.question },
      }),
    );
    out.push(
      JSON.stringify({
        type: 'assistant',
        timestamp: tick(),
        parentUuid: `${session}-u${i}`,
        ...base,
        uuid: `${session}-a${i}`,
        message: {
          id: `msg_${i}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'text', text: t.answer }],
          stop_reason: 'end_turn',
        },
      }),
    );
    parent = `${session}-a${i}`;
  });
  return out;
}

function openclawRecords(turns: readonly ContractTurn[], from: number, parent0: string | null): string[] {
  const out: string[] = [];
  let parent = parent0;
  turns.forEach((t, k) => {
    const i = from + k;
    out.push(
      JSON.stringify({
        type: 'message',
        id: `u${i}`,
        parentId: parent,
        timestamp: tick(),
        message: { role: 'user', content: t.question, timestamp: clock },
      }),
    );
    out.push(
      JSON.stringify({
        type: 'message',
        id: `a${i}`,
        parentId: `u${i}`,
        timestamp: tick(),
        message: {
          role: 'assistant',
          content: [{ type: 'text', text: t.answer }],
          provider: 'anthropic',
          model: 'claude-sonnet-4-5',
          stopReason: 'stop',
          timestamp: clock,
        },
      }),
    );
    parent = `a${i}`;
  });
  return out;
}

/** OpenCode's own tables, taken from the database OpenCode 1.18.33 wrote (the fixture): the schema is its, not ours. */
const OPENCODE_FIXTURE = 'tests/import/fixtures/opencode/db-1.18.33/opencode.db';

function opencodeSchema(): string[] {
  const db = new Database(OPENCODE_FIXTURE, { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare(
        "SELECT sql FROM sqlite_master WHERE tbl_name IN ('project', 'session', 'message', 'part') AND sql IS NOT NULL",
      )
      .pluck()
      .all() as string[];
  } finally {
    db.close();
  }
}

/** One OpenCode session in opencode.db: a user message and its text part, a finished assistant reply, per turn. */
function writeOpencodeDb(file: string, turns: readonly ContractTurn[]): void {
  const db = new Database(file);
  try {
    for (const sql of opencodeSchema()) db.exec(sql);
    const sid = 'ses_4f2a1c9e3ffeQ1mA7bK2cD3eF4';
    const cwd = '/home/ana/shop';
    const t0 = Date.parse(tick());
    db.prepare(
      `INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES ('p1', ?, 'git', ?, ?, '[]')`,
    ).run(cwd, t0, t0);
    db.prepare(
      `INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
        VALUES (?, 'p1', 'calm-river', ?, 'Open ports', '1.18.33', ?, ?)`,
    ).run(sid, cwd, t0, t0);
    const message = db.prepare(
      'INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)',
    );
    const part = db.prepare(
      'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)',
    );
    turns.forEach((t, i) => {
      const u = `msg_0${i}a00000001user${i}`;
      const a = `msg_0${i}b00000001asst${i}`;
      const asked = Date.parse(tick());
      const done = Date.parse(tick());
      const model = { providerID: 'anthropic', modelID: 'claude-sonnet-4-5' };
      message.run(
        u,
        sid,
        asked,
        asked,
        JSON.stringify({
          role: 'user',
          time: { created: asked },
          agent: 'build',
          model,
          summary: { diffs: [] },
        }),
      );
      part.run(
        `prt_0${i}a00000001p1`,
        u,
        sid,
        asked,
        asked,
        JSON.stringify({ type: 'text', text: t.question }),
      );
      message.run(
        a,
        sid,
        asked + 1,
        done,
        JSON.stringify({
          parentID: u,
          role: 'assistant',
          mode: 'build',
          agent: 'build',
          path: { cwd, root: cwd },
          cost: 0,
          tokens: { total: 0, input: 0, output: 0, reasoning: 0, cache: { write: 0, read: 0 } },
          modelID: model.modelID,
          providerID: model.providerID,
          time: { created: asked + 1, completed: done },
          finish: 'stop',
        }),
      );
      part.run(`prt_0${i}b00000001p1`, a, sid, asked + 1, asked + 1, JSON.stringify({ type: 'step-start' }));
      part.run(
        `prt_0${i}b00000001p2`,
        a,
        sid,
        asked + 1,
        done,
        JSON.stringify({ type: 'text', text: t.answer, time: { start: asked + 1, end: done } }),
      );
      part.run(
        `prt_0${i}b00000001p3`,
        a,
        sid,
        done,
        done,
        JSON.stringify({
          reason: 'stop',
          type: 'step-finish',
          tokens: { total: 0, input: 0, output: 0, reasoning: 0, cache: { write: 0, read: 0 } },
          cost: 0,
        }),
      );
    });
  } finally {
    db.close();
  }
}

const counted = (file: string) => lines(file).filter((l) => l !== '').length;

export const FORMATS: ContractFormat[] = [
  {
    kind: 'claude',
    mirrors: 'tests/import/fixtures/corpus/claude-code/session_b.jsonl',
    write(dir, turns) {
      const folder = join(dir, 'projects', '-home-ana-shop');
      mkdirSync(folder, { recursive: true });
      const file = join(folder, 'c0ffee00-1111-4222-8333-444455556666.jsonl');
      writeFileSync(file, `${claudeRecords('c0ffee00-1111-4222-8333-444455556666', turns, 0).join('\n')}\n`);
      return { path: join(dir, 'projects'), file };
    },
    appendCut(file, turn) {
      const n = counted(file) / 2;
      return appendCutRecords(file, claudeRecords('c0ffee00-1111-4222-8333-444455556666', [turn], n));
    },
    breakLine: (file) => breakJsonLine(file, 4), // the second answer's line
    sourceRoundTrip: true,
  },
  {
    kind: 'openclaw',
    mirrors:
      'tests/import/fixtures/openclaw/home/agents/main/sessions/5d1f8b33-0e2a-4b7c-9d64-2f3a1c0e8b95-topic-42.jsonl',
    write(dir, turns) {
      const folder = join(dir, 'agents', 'main', 'sessions');
      mkdirSync(folder, { recursive: true });
      const file = join(folder, '7c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5.jsonl');
      const header = JSON.stringify({
        type: 'session',
        version: 3,
        id: '7c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5',
        timestamp: tick(),
        cwd: '/home/ana/shop',
      });
      writeFileSync(file, `${[header, ...openclawRecords(turns, 0, null)].join('\n')}\n`);
      return { path: dir, file };
    },
    appendCut(file, turn) {
      const n = (counted(file) - 1) / 2;
      return appendCutRecords(file, openclawRecords([turn], n, `a${n - 1}`));
    },
    breakLine: (file) => breakJsonLine(file, 5), // the second answer's line
    sourceRoundTrip: true,
  },
  {
    // A database, not lines: no cut last line, no broken line; rows are kept as JSON records, not the file's bytes.
    kind: 'opencode',
    mirrors: OPENCODE_FIXTURE,
    write(dir, turns) {
      const data = join(dir, '.local', 'share', 'opencode');
      mkdirSync(data, { recursive: true });
      const file = join(data, 'opencode.db');
      writeOpencodeDb(file, turns);
      return { path: data, file };
    },
    sourceRoundTrip: false,
  },
];
