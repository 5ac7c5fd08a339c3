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

const GEMINI_SESSION = '3f2a1b0c-5d6e-4f70-8a9b-0c1d2e3f4a5b';

/** Gemini CLI JSONL records: a user line and a gemini line per turn, each followed by its `$set` of lastUpdated. */
function geminiRecords(turns: readonly ContractTurn[], from: number): string[] {
  const out: string[] = [];
  turns.forEach((t, k) => {
    const i = from + k;
    const asked = tick();
    out.push(
      JSON.stringify({ id: `u${i}`, timestamp: asked, type: 'user', content: [{ text: t.question }] }),
    );
    out.push(JSON.stringify({ $set: { lastUpdated: asked } }));
    const answered = tick();
    out.push(
      JSON.stringify({
        id: `g${i}`,
        timestamp: answered,
        type: 'gemini',
        content: t.answer,
        thoughts: [],
        tokens: { input: 900, output: 40, cached: 0, thoughts: 0, tool: 0, total: 940 },
        model: 'gemini-2.5-pro',
      }),
    );
    out.push(JSON.stringify({ $set: { lastUpdated: answered } }));
  });
  return out;
}

/** A Codex rollout's turns, enveloped as the 0.125 rollout in tests/import/fixtures/codex writes them. */
function codexRecords(turns: readonly ContractTurn[], from: number): string[] {
  const out: string[] = [];
  const line = (type: string, payload: Record<string, unknown>) =>
    JSON.stringify({ timestamp: tick(), type, payload });
  turns.forEach((t, k) => {
    const turnId = `019e1625-0000-7000-8000-${(from + k + 1).toString(16).padStart(12, '0')}`;
    out.push(line('event_msg', { type: 'task_started', turn_id: turnId, model_context_window: 258400 }));
    out.push(
      line('turn_context', { turn_id: turnId, cwd: '/home/ana/shop', model: 'gpt-5.5', summary: 'auto' }),
    );
    out.push(
      line('response_item', {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: t.question }],
      }),
    );
    out.push(line('event_msg', { type: 'user_message', message: t.question, images: [], local_images: [] }));
    out.push(
      line('response_item', {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: t.answer }],
      }),
    );
    out.push(line('event_msg', { type: 'task_complete', turn_id: turnId, last_agent_message: null }));
  });
  return out;
}

const CODEX_SESSION = '019e1625-789d-76c0-80ab-3724b5ddb7aa';

/** A UUID of the shape Copilot CLI gives its events, made from a counter so that the file is the same each run. */
function eventId(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

/**
 * GitHub Copilot CLI events: each `{type, data, id, timestamp, parentId}`, the parent the event before, as in
 * tests/import/fixtures/copilot/events-1.0.34.jsonl (one prompt, one turn, one reply without tool calls).
 */
function copilotRecords(turns: readonly ContractTurn[], from: number, start: boolean): string[] {
  const out: string[] = [];
  // Turn k's events are numbered (k + 1) * 10 + 0..3; the session's start is 0.
  let parent: string | null = from === 0 ? null : eventId(from * 10 + 3);
  const ev = (n: number, type: string, data: Record<string, unknown>) => {
    out.push(JSON.stringify({ type, data, id: eventId(n), timestamp: tick(), parentId: parent }));
    parent = eventId(n);
  };
  if (start)
    ev(0, 'session.start', {
      sessionId: 'c0b1a2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d',
      version: 1,
      producer: 'copilot-agent',
      copilotVersion: '1.0.34',
      startTime: new Date(clock).toISOString(),
      context: { cwd: '/home/ana/shop' },
    });
  turns.forEach((t, k) => {
    const b = (from + k + 1) * 10;
    ev(b, 'user.message', { content: t.question, attachments: [] });
    ev(b + 1, 'assistant.turn_start', { turnId: '0' });
    ev(b + 2, 'assistant.message', { messageId: `m${from + k}`, content: t.answer, toolRequests: [] });
    ev(b + 3, 'assistant.turn_end', { turnId: '0' });
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

/** llm's logs.db at 0.31 (tests/import/fixtures/llm/legacy-0.31.sql, its migrations' tables): one conversation. */
function writeLlmDb(file: string, turns: readonly ContractTurn[]): void {
  const db = new Database(file);
  try {
    db.exec(readFileSync('tests/import/fixtures/llm/legacy-0.31.sql', 'utf8'));
    db.prepare(
      "INSERT INTO conversations (id, name, model) VALUES ('01jcontract0000000000000000', 'Open ports', 'gpt-4o-mini')",
    ).run();
    const row = db.prepare(
      `INSERT INTO responses (id, model, prompt, system, options_json, response, conversation_id, duration_ms,
         datetime_utc, input_tokens, output_tokens)
       VALUES (?, 'gpt-4o-mini', ?, NULL, '{}', ?, '01jcontract0000000000000000', 120, ?, 10, 20)`,
    );
    for (const [i, t] of turns.entries())
      row.run(`01jcontractresp00000000000${i}`, t.question, t.answer, tick().replace('Z', ''));
  } finally {
    db.close();
  }
}

const counted = (file: string) => lines(file).filter((l) => l !== '').length;

/** One aider turn as aider/io.py writes it: `user_input`, `ai_output`, then aider's own output (`tool_output`). */
function aiderTurn(t: ContractTurn): string {
  return `\n#### ${t.question}  \n\n${t.answer}\n\n> Tokens: 1.2k sent, 85 received.  \n`;
}

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
    kind: 'gemini',
    mirrors:
      'tests/import/fixtures/gemini/gemini-home/tmp/9da8b3dfb8655182ac1f0e66601c367e34f8d18447a29759eeba4d7e45dc60ea/chats/session-2026-04-23T12-52-0ab84937.jsonl',
    write(dir, turns) {
      const folder = join(dir, '.gemini', 'tmp', 'shop', 'chats');
      mkdirSync(folder, { recursive: true });
      const file = join(folder, `session-2026-03-01T09-00-${GEMINI_SESSION.slice(0, 8)}.jsonl`);
      const started = tick();
      const header = JSON.stringify({
        sessionId: GEMINI_SESSION,
        projectHash: 'b2c0e5a1d4f3a6b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5',
        startTime: started,
        lastUpdated: started,
        kind: 'main',
      });
      writeFileSync(file, `${[header, ...geminiRecords(turns, 0)].join('\n')}\n`);
      return { path: join(dir, '.gemini', 'tmp'), file };
    },
    appendCut(file, turn) {
      const n = (counted(file) - 1) / 4;
      return appendCutRecords(file, geminiRecords([turn], n));
    },
    breakLine: (file) => breakJsonLine(file, 8), // the second answer's line
    sourceRoundTrip: true,
  },
  {
    kind: 'codex',
    mirrors:
      'tests/import/fixtures/codex/home/sessions/2026/05/11/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl',
    write(dir, turns) {
      const folder = join(dir, 'sessions', '2026', '03', '01');
      mkdirSync(folder, { recursive: true });
      const file = join(folder, `rollout-2026-03-01T09-00-00-${CODEX_SESSION}.jsonl`);
      const meta = JSON.stringify({
        timestamp: tick(),
        type: 'session_meta',
        payload: {
          id: CODEX_SESSION,
          timestamp: new Date(clock).toISOString(),
          cwd: '/home/ana/shop',
          originator: 'codex-tui',
          cli_version: '0.125.0',
          source: 'cli',
          model_provider: 'openai',
        },
      });
      writeFileSync(file, `${[meta, ...codexRecords(turns, 0)].join('\n')}\n`);
      return { path: dir, file };
    },
    appendCut(file, turn) {
      const n = (counted(file) - 1) / 6;
      return appendCutRecords(file, codexRecords([turn], n));
    },
    breakLine: (file) => breakJsonLine(file, 12), // the second answer's line
    sourceRoundTrip: true,
  },
  {
    // Pi writes the format OpenClaw's transcripts use (the same records), under its own layout and name.
    kind: 'pi',
    mirrors:
      'tests/import/fixtures/pi/agent/sessions/--home-ana-shop--/2026-02-10T09-00-00-000Z_5b0c7e2a-91d4-4f6e-8a3b-2c7d9e1f4a60.jsonl',
    write(dir, turns) {
      const folder = join(dir, 'agent', 'sessions', '--home-ana-shop--');
      mkdirSync(folder, { recursive: true });
      const id = '2b4d6f80-1a3c-4e5f-8a9b-0c1d2e3f4a5b';
      const file = join(folder, `2026-03-01T09-00-00-000Z_${id}.jsonl`);
      const header = JSON.stringify({
        type: 'session',
        version: 3,
        id,
        timestamp: tick(),
        cwd: '/home/ana/shop',
      });
      writeFileSync(file, `${[header, ...openclawRecords(turns, 0, null)].join('\n')}\n`);
      return { path: join(dir, 'agent'), file };
    },
    appendCut(file, turn) {
      const n = (counted(file) - 1) / 2;
      return appendCutRecords(file, openclawRecords([turn], n, `a${n - 1}`));
    },
    breakLine: (file) => breakJsonLine(file, 5), // the second answer's line
    sourceRoundTrip: true,
  },
  {
    // Markdown, not JSON: no line can be broken in it (any text is a line of the model's reply), so there is no
    // breakLine (docs/import.md, aider).
    kind: 'aider',
    mirrors: 'tests/import/fixtures/aider/simple_test_project/custom_aider_history.md',
    write(dir, turns) {
      const folder = join(dir, 'shop');
      mkdirSync(folder, { recursive: true });
      const file = join(folder, '.aider.chat.history.md');
      const head =
        '\n# aider chat started at 2026-03-01 09:00:00\n\n> /home/ana/.local/bin/aider  \n> Aider v0.86.1  \n' +
        '> Main model: claude-sonnet-4-5 with diff edit format  \n> Git repo: .git with 12 files  \n';
      writeFileSync(file, head + turns.map(aiderTurn).join(''));
      return { path: dir, file };
    },
    appendCut(file, turn) {
      // A prompt line without its line end: aider is writing it.
      const whole = aiderTurn(turn);
      const at = whole.indexOf('  \n');
      appendFileSync(file, whole.slice(0, at));
      return () => appendFileSync(file, whole.slice(at));
    },
    sourceRoundTrip: true,
  },
  {
    kind: 'copilot',
    mirrors: 'tests/import/fixtures/copilot/events-1.0.34.jsonl',
    write(dir, turns) {
      const folder = join(dir, 'session-state', 'c0b1a2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d');
      mkdirSync(folder, { recursive: true });
      const file = join(folder, 'events.jsonl');
      writeFileSync(file, `${copilotRecords(turns, 0, true).join('\n')}\n`);
      return { path: dir, file };
    },
    appendCut(file, turn) {
      const n = (counted(file) - 1) / 4;
      return appendCutRecords(file, copilotRecords([turn], n, false));
    },
    breakLine: (file) => breakJsonLine(file, 8), // the second answer's line
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
  {
    // A database, not a line format: nothing is cut mid-line, and export gives its rows, not a file.
    kind: 'llm',
    mirrors: 'tests/import/fixtures/llm/legacy-0.31.sql',
    write(dir, turns) {
      mkdirSync(dir, { recursive: true });
      const file = join(dir, 'logs.db');
      writeLlmDb(file, turns);
      return { path: file, file };
    },
    sourceRoundTrip: false,
  },
];
