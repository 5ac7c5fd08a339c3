import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { llmLogsPath, llmReader } from '../../src/import/llm/index.js';
import type { ParsedSource, ParsedTurn } from '../../src/import/model.js';
import { tempDir } from '../support/tmp.js';

// The exact CREATE TABLE statements of llm's migrations (each file says which migrations it holds).
const LEGACY_SQL = readFileSync(new URL('./fixtures/llm/legacy-0.31.sql', import.meta.url), 'utf8');
const MODERN_SQL = readFileSync(new URL('./fixtures/llm/messages-0.32.sql', import.meta.url), 'utf8');

/** A logs.db in a fresh folder: `legacy` as llm 0.31 leaves it, `modern` as 0.32 does (both generations). */
function makeDb(kind: 'legacy' | 'modern', wal = false): { path: string; db: Database.Database } {
  const path = join(tempDir('llm-'), 'logs.db');
  const db = new Database(path);
  // No fsync per statement: these files only have to be right once closed.
  db.pragma('synchronous = OFF');
  if (wal) db.pragma('journal_mode = WAL');
  db.exec(`BEGIN; ${LEGACY_SQL}; ${kind === 'modern' ? MODERN_SQL : ''}; COMMIT;`);
  return { path, db };
}

function conversation(db: Database.Database, id: string, name: string | null, model = 'gpt-4o-mini'): void {
  db.prepare('INSERT INTO conversations (id, name, model) VALUES (?, ?, ?)').run(id, name, model);
}

function response(
  db: Database.Database,
  r: {
    id: string;
    conv: string | null;
    prompt: string | null;
    response: string;
    at: string;
    system?: string;
  },
): void {
  db.prepare(
    `INSERT INTO responses (id, model, prompt, system, options_json, response, conversation_id, duration_ms,
       datetime_utc, input_tokens, output_tokens)
     VALUES (?, 'gpt-4o-mini', ?, ?, '{}', ?, ?, 120, ?, 10, 20)`,
  ).run(r.id, r.prompt, r.system ?? null, r.response, r.conv, r.at);
}

function toolCall(
  db: Database.Database,
  responseId: string,
  name: string,
  args: unknown,
  callId: string,
): void {
  db.prepare('INSERT INTO tool_calls (response_id, name, arguments, tool_call_id) VALUES (?, ?, ?, ?)').run(
    responseId,
    name,
    JSON.stringify(args),
    callId,
  );
}

function toolResult(
  db: Database.Database,
  responseId: string,
  name: string,
  output: string,
  callId: string,
): void {
  db.prepare('INSERT INTO tool_results (response_id, name, output, tool_call_id) VALUES (?, ?, ?, ?)').run(
    responseId,
    name,
    output,
    callId,
  );
}

type Part =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; name: string; args: unknown; id: string }
  | { type: 'tool_result'; name: string; output: string; id: string };

/** A message row and its parts, shaped as llm's LogStore writes them (docs/import.md (llm)). */
function message(
  db: Database.Database,
  hash: string,
  parent: string | null,
  role: string,
  parts: Part[],
): void {
  db.prepare('INSERT INTO messages (hash, parent_hash, role) VALUES (?, ?, ?)').run(hash, parent, role);
  const ins = db.prepare(
    'INSERT INTO parts (message_hash, position, type, tool_name, text, payload) VALUES (?, ?, ?, ?, ?, ?)',
  );
  parts.forEach((p, i) => {
    if (p.type === 'text') ins.run(hash, i, 'text', null, p.text, null);
    else if (p.type === 'tool_call')
      ins.run(
        hash,
        i,
        'tool_call',
        p.name,
        null,
        JSON.stringify({ name: p.name, arguments: p.args, tool_call_id: p.id }),
      );
    else
      ins.run(
        hash,
        i,
        'tool_result',
        p.name,
        null,
        JSON.stringify({ name: p.name, output: p.output, tool_call_id: p.id }),
      );
  });
}

const text = (t: string): Part[] => [{ type: 'text', text: t }];

function thread(
  db: Database.Database,
  id: string,
  name: string | null,
  tip: string | null,
  at: string,
  forkedFrom: string | null = null,
): void {
  db.prepare(
    'INSERT INTO threads (id, name, tip_message_hash, forked_from, datetime_utc) VALUES (?, ?, ?, ?, ?)',
  ).run(id, name, tip, forkedFrom, at);
}

function turn(
  db: Database.Database,
  id: string,
  threadId: string,
  parent: string,
  tip: string,
  at: string,
): void {
  db.prepare(
    `INSERT INTO turns (id, thread_id, parent_message_hash, tip_message_hash, model, datetime_utc)
     VALUES (?, ?, ?, ?, 'gpt-5.6-luna', ?)`,
  ).run(id, threadId, parent, tip, at);
}

function readAll(path: string): ParsedSource[] {
  return [...llmReader.read(path)];
}

function allTurns(sources: ParsedSource[]): ParsedTurn[] {
  return sources.flatMap((s) => s.turns);
}

function byId(sources: ParsedSource[]): Map<string, ParsedTurn> {
  return new Map(allTurns(sources).map((t) => [t.sourceId, t]));
}

function fingerprint(path: string): { bytes: Buffer; mtime: number } {
  return { bytes: readFileSync(path), mtime: statSync(path).mtimeMs };
}

describe('llm reader: paths', () => {
  it('finds logs.db where llm puts it: LLM_USER_PATH, else click.get_app_dir("io.datasette.llm")', () => {
    expect(llmLogsPath({ LLM_USER_PATH: '/data/llm', HOME: '/home/u' }, 'linux')).toBe('/data/llm/logs.db');
    expect(llmLogsPath({ LLM_USER_PATH: '', HOME: '/home/u' }, 'linux')).toBe(
      '/home/u/.config/io.datasette.llm/logs.db',
    );
    expect(llmLogsPath({ HOME: '/home/u', XDG_CONFIG_HOME: '/xdg' }, 'linux')).toBe(
      '/xdg/io.datasette.llm/logs.db',
    );
    expect(llmLogsPath({ HOME: '/Users/u' }, 'darwin')).toBe(
      '/Users/u/Library/Application Support/io.datasette.llm/logs.db',
    );
    expect(llmLogsPath({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32')).toBe(
      'C:\\Users\\u\\AppData\\Roaming\\io.datasette.llm\\logs.db',
    );
    expect(llmReader.defaultPaths({ LLM_USER_PATH: '/x' })).toEqual(['/x/logs.db']);
  });

  it('discovers a file as itself and a folder as its logs.db', () => {
    const { path, db } = makeDb('legacy');
    db.close();
    const dir = join(path, '..');
    expect(llmReader.discover(path)).toEqual([path]);
    expect(llmReader.discover(dir)).toEqual([path]);
    const empty = tempDir('llm-empty-');
    expect(llmReader.discover(empty)).toEqual([]);
    expect(llmReader.discover(join(empty, 'nope.db'))).toEqual([]);
  });
});

describe('llm reader: legacy tables', () => {
  it('reads a plain conversation as a line of turns in time order, titled by conversations.name', () => {
    const { path, db } = makeDb('legacy');
    conversation(db, '01conv', 'Pelican names');
    // Inserted out of order: the format has no links, so datetime_utc then id decides.
    response(db, {
      id: '01r3',
      conv: '01conv',
      prompt: 'And a third?',
      response: 'Pelagia.',
      at: '2025-02-16T22:36:00.000001+00:00',
    });
    response(db, {
      id: '01r1',
      conv: '01conv',
      prompt: 'Name a pelican',
      response: 'Percy.',
      at: '2025-02-16T22:34:30.374882+00:00',
    });
    response(db, {
      id: '01r2',
      conv: '01conv',
      prompt: 'Another?',
      response: 'Penelope.',
      at: '2025-02-16T22:35:00+00:00',
    });
    db.close();

    const sources = readAll(path);
    expect(sources).toHaveLength(1);
    const [s] = sources;
    expect(s.kind).toBe('llm');
    expect(s.problems).toEqual([]);
    expect(s.sessions).toEqual([
      { sourceSession: '01conv', createdAt: '2025-02-16T22:34:30.374Z', title: 'Pelican names' },
    ]);
    expect(s.turns.map((t) => [t.sourceId, t.parentSourceId, t.question, t.answer])).toEqual([
      ['response:01r1', null, 'Name a pelican', 'Percy.'],
      ['response:01r2', 'response:01r1', 'Another?', 'Penelope.'],
      ['response:01r3', 'response:01r2', 'And a third?', 'Pelagia.'],
    ]);
    const first = s.turns[0];
    expect(first.sourceSession).toBe('01conv');
    expect(first.createdAt).toBe('2025-02-16T22:34:30.374Z');
    expect(first.complete).toBe(true);
    // raw: the row itself, as {table, row} JSON; line: its rowid.
    expect(first.raw).toHaveLength(1);
    const raw = JSON.parse(first.raw[0]);
    expect(raw.table).toBe('responses');
    expect(raw.row).toMatchObject({
      id: '01r1',
      prompt: 'Name a pelican',
      response: 'Percy.',
      conversation_id: '01conv',
    });
    expect(Object.keys(raw.row).some((k) => k.startsWith('__arb_'))).toBe(false);
    expect(first.line).toBe(2);
  });

  it('folds a tool follow-up (a response with an empty prompt) into the turn it answers', () => {
    const { path, db } = makeDb('legacy');
    conversation(db, 'c1', 'weather');
    response(db, {
      id: 'r1',
      conv: 'c1',
      prompt: 'Weather in Paris?',
      response: '',
      at: '2025-06-01T10:00:00+00:00',
    });
    toolCall(db, 'r1', 'get_weather', { city: 'Paris' }, 'call_1');
    response(db, {
      id: 'r2',
      conv: 'c1',
      prompt: '',
      response: 'It is sunny, 24°C.',
      at: '2025-06-01T10:00:02+00:00',
    });
    toolResult(db, 'r2', 'get_weather', 'sunny\n24C\nwind 5km/h\nhumidity 40%', 'call_1');
    response(db, {
      id: 'r3',
      conv: 'c1',
      prompt: 'And Rome?',
      response: 'Rome: cloudy.',
      at: '2025-06-01T10:01:00+00:00',
    });
    db.close();

    const [s] = readAll(path);
    expect(s.problems).toEqual([]);
    expect(s.turns.map((t) => t.sourceId)).toEqual(['response:r1', 'response:r3']);
    const [t1, t3] = s.turns;
    expect(t1.question).toBe('Weather in Paris?');
    expect(t1.answer).toBe(
      [
        '→ get_weather: {"city":"Paris"}',
        '  sunny\n  24C\n  wind 5km/h\n  … 1 more line',
        'It is sunny, 24°C.',
      ].join('\n\n'),
    );
    expect(t1.raw.map((l) => JSON.parse(l).table)).toEqual([
      'responses',
      'tool_calls',
      'responses',
      'tool_results',
    ]);
    expect(t3.parentSourceId).toBe('response:r1');
  });

  it('marks the newest turn incomplete while its tool calls wait for results', () => {
    const { path, db } = makeDb('legacy');
    conversation(db, 'c1', null);
    response(db, {
      id: 'r1',
      conv: 'c1',
      prompt: 'list files',
      response: '',
      at: '2025-06-01T10:00:00+00:00',
    });
    toolCall(db, 'r1', 'ls', { path: '.' }, 'call_1');
    db.close();
    const [s] = readAll(path);
    expect(s.turns[0].complete).toBe(false);
    expect(s.turns[0].answer).toBe('→ ls: .');
    expect(s.sessions[0].title).toBeUndefined();
  });

  it('reports a tool follow-up with no prompt before it, and keeps it', () => {
    const { path, db } = makeDb('legacy');
    conversation(db, 'c1', 'x');
    response(db, { id: 'r1', conv: 'c1', prompt: null, response: 'done', at: '2025-06-01T10:00:00+00:00' });
    db.close();
    const [s] = readAll(path);
    expect(s.turns.map((t) => [t.sourceId, t.question, t.answer, t.note])).toEqual([
      ['response:r1', '[no prompt]', 'done', 'tool follow-up'],
    ]);
    expect(s.problems).toEqual([
      {
        file: path,
        line: 1,
        reason: 'response r1: a tool follow-up (empty prompt) with no prompt before it',
      },
    ]);
  });

  it('reports a responses row without an id (the primary key column allows NULL) and reads the others', () => {
    const { path, db } = makeDb('legacy');
    conversation(db, 'c1', 'x');
    db.prepare(
      "INSERT INTO responses (id, prompt, response, conversation_id, datetime_utc) VALUES (NULL, 'lost', 'x', 'c1', '2025-01-01T00:00:00+00:00')",
    ).run();
    response(db, { id: 'r2', conv: 'c1', prompt: 'kept', response: 'y', at: '2025-01-01T00:00:01+00:00' });
    db.close();
    const sources = readAll(path);
    expect(allTurns(sources).map((t) => [t.sourceId, t.parentSourceId])).toEqual([['response:r2', null]]);
    expect(sources.flatMap((s) => s.problems)).toEqual([
      { file: path, line: 1, reason: 'responses row without an id: skipped' },
    ]);
  });

  it('keeps the system prompt at the start of the answer where it starts to apply', () => {
    const { path, db } = makeDb('legacy');
    conversation(db, 'c1', 'sys');
    response(db, {
      id: 'r1',
      conv: 'c1',
      prompt: 'hi',
      system: 'Be brief.',
      response: 'Hi.',
      at: '2025-01-01T00:00:01+00:00',
    });
    response(db, {
      id: 'r2',
      conv: 'c1',
      prompt: 'more',
      response: 'More.',
      at: '2025-01-01T00:00:02+00:00',
    });
    response(db, {
      id: 'r3',
      conv: 'c1',
      prompt: 'again',
      system: 'Be brief.',
      response: 'Again.',
      at: '2025-01-01T00:00:03+00:00',
    });
    response(db, {
      id: 'r4',
      conv: 'c1',
      prompt: 'now verbose',
      system: 'Be verbose.',
      response: 'Sure!',
      at: '2025-01-01T00:00:04+00:00',
    });
    db.close();
    const [s] = readAll(path);
    expect(s.turns.map((t) => [t.question, t.answer])).toEqual([
      ['hi', '[system] Be brief.\n\nHi.'],
      ['more', 'More.'],
      ['again', 'Again.'],
      ['now verbose', '[system] Be verbose.\n\nSure!'],
    ]);
  });

  it('yields one source per conversation, ordered by first time (old llm timestamps without offset too)', () => {
    const { path, db } = makeDb('legacy');
    conversation(db, 'late', 'second');
    conversation(db, 'early', 'first');
    response(db, {
      id: 'b1',
      conv: 'late',
      prompt: 'late q',
      response: 'late a',
      at: '2024-03-02T09:00:00+00:00',
    });
    response(db, {
      id: 'a1',
      conv: 'early',
      prompt: 'early q',
      response: 'early a',
      at: '2023-07-12 19:33:56.123456',
    });
    response(db, {
      id: 'a2',
      conv: 'early',
      prompt: 'early q2',
      response: 'early a2',
      at: '2024-03-05T09:00:00+00:00',
    });
    db.close();
    const sources = readAll(path);
    expect(sources.map((s) => s.sessions[0].sourceSession)).toEqual(['early', 'late']);
    expect(sources[0].turns.map((t) => [t.sourceId, t.createdAt])).toEqual([
      ['response:a1', '2023-07-12T19:33:56.123Z'],
      ['response:a2', '2024-03-05T09:00:00.000Z'],
    ]);
    expect(sources[1].turns.map((t) => [t.sourceId, t.parentSourceId])).toEqual([['response:b1', null]]);
  });
});

describe('llm reader: 0.32 message store', () => {
  /** Two threads opening with the same system prompt, prompt and reply: the opening is stored once. */
  function sharedOpenings(db: Database.Database): void {
    message(db, 'b2:sys', null, 'system', text('You are terse.'));
    message(db, 'b2:u1', 'b2:sys', 'user', text('Suggest a name for a pet pelican'));
    message(db, 'b2:a1', 'b2:u1', 'assistant', text('Percy.'));
    message(db, 'b2:u2', 'b2:a1', 'user', text('Now one for a pet walrus'));
    message(db, 'b2:a2', 'b2:u2', 'assistant', text('Wallace.'));
    message(db, 'b2:u3', 'b2:a1', 'user', text('Now one for a pet seagull'));
    message(db, 'b2:a3', 'b2:u3', 'assistant', text('Steven.'));
    thread(db, 'thA', 'Suggest a name for a pet pelican', 'b2:a2', '2026-08-05 10:00:00.000000+00:00');
    thread(db, 'thB', 'Suggest a name for a pet pelican', 'b2:a3', '2026-08-05 11:00:00.000000+00:00');
    turn(db, 'tA1', 'thA', 'b2:u1', 'b2:a1', '2026-08-05T10:00:01.000000+00:00');
    turn(db, 'tA2', 'thA', 'b2:u2', 'b2:a2', '2026-08-05T10:00:05.000000+00:00');
    turn(db, 'tB1', 'thB', 'b2:u1', 'b2:a1', '2026-08-05T11:00:01.000000+00:00');
    turn(db, 'tB2', 'thB', 'b2:u3', 'b2:a3', '2026-08-05T11:00:05.000000+00:00');
  }

  it('makes a prompt shared by two threads one turn, and hangs the other thread under it', () => {
    const { path, db } = makeDb('modern');
    sharedOpenings(db);
    db.close();
    const sources = readAll(path);
    expect(sources.map((s) => [s.sessions[0].sourceSession, s.turns.map((t) => t.sourceId)])).toEqual([
      ['thA', ['b2:u1', 'b2:u2']],
      ['thB', ['b2:u3']],
    ]);
    expect(sources.flatMap((s) => s.problems)).toEqual([]);
    const t = byId(sources);
    expect(allTurns(sources)).toHaveLength(3);
    // The system prompt is its own root message: kept at the start of the turn it opens.
    expect(t.get('b2:u1')).toMatchObject({
      parentSourceId: null,
      question: 'Suggest a name for a pet pelican',
      answer: '[system] You are terse.\n\nPercy.',
      createdAt: '2026-08-05T10:00:01.000Z',
      sourceSession: 'thA',
    });
    expect(t.get('b2:u2')).toMatchObject({ parentSourceId: 'b2:u1', answer: 'Wallace.' });
    // thB's own turn: a cross-session parent (thA's turn).
    expect(t.get('b2:u3')).toMatchObject({
      parentSourceId: 'b2:u1',
      sourceSession: 'thB',
      answer: 'Steven.',
    });
    expect(sources[0].sessions[0]).toEqual({
      sourceSession: 'thA',
      createdAt: '2026-08-05T10:00:01.000Z',
      title: 'Suggest a name for a pet pelican',
    });
    // raw: system, user and reply messages with their parts, then both model calls that wrote the opening.
    expect(t.get('b2:u1')!.raw.map((l) => JSON.parse(l).table)).toEqual([
      'messages',
      'parts',
      'messages',
      'parts',
      'messages',
      'parts',
      'turns',
      'turns',
    ]);
  });

  it('gives a fork made with LogStore.fork() no session until it is prompted, then a cross-session parent', () => {
    const { path, db } = makeDb('modern');
    sharedOpenings(db);
    thread(db, 'thF', 'fork', 'b2:a1', '2026-08-06 09:00:00+00:00', 'thA');
    const before = join(path, '..', 'copy.db');
    db.exec(`VACUUM INTO '${before}'`);
    // Prompted later: a new user message under the forked-from message, logged in the fork's thread.
    message(db, 'b2:u4', 'b2:a1', 'user', text('And one for a heron'));
    message(db, 'b2:a4', 'b2:u4', 'assistant', text('Harold.'));
    db.prepare("UPDATE threads SET tip_message_hash = 'b2:a4' WHERE id = 'thF'").run();
    turn(db, 'tF1', 'thF', 'b2:u4', 'b2:a4', '2026-08-06T09:00:05+00:00');
    db.close();

    const unprompted = readAll(before);
    expect(unprompted.map((s) => s.sessions[0].sourceSession)).toEqual(['thA', 'thB']);
    expect(allTurns(unprompted)).toHaveLength(3);

    const sources = readAll(path);
    expect(sources.map((s) => s.sessions[0].sourceSession)).toEqual(['thA', 'thB', 'thF']);
    expect(sources[2].turns.map((t) => [t.sourceId, t.parentSourceId, t.sourceSession])).toEqual([
      ['b2:u4', 'b2:u1', 'thF'],
    ]);
  });

  it('summarises tool calls and results, and waits on a chain whose tool calls have no result yet', () => {
    const { path, db } = makeDb('modern');
    message(db, 'b2:u1', null, 'user', text('How big is README.md?'));
    message(db, 'b2:a1', 'b2:u1', 'assistant', [
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_call', name: 'Bash', args: { command: 'wc -c README.md' }, id: 'tc_1' },
    ]);
    message(db, 'b2:t1', 'b2:a1', 'tool', [
      { type: 'tool_result', name: 'Bash', output: '1234 README.md', id: 'tc_1' },
    ]);
    message(db, 'b2:a2', 'b2:t1', 'assistant', text('1234 bytes.'));
    message(db, 'b2:u2', 'b2:a2', 'user', text('And LICENSE?'));
    message(db, 'b2:a3', 'b2:u2', 'assistant', [
      { type: 'tool_call', name: 'Bash', args: { command: 'wc -c LICENSE' }, id: 'tc_2' },
    ]);
    thread(db, 'th', 'sizes', 'b2:a3', '2026-08-05 10:00:00+00:00');
    turn(db, 't1', 'th', 'b2:u1', 'b2:a1', '2026-08-05T10:00:01+00:00');
    turn(db, 't2', 'th', 'b2:t1', 'b2:a2', '2026-08-05T10:00:03+00:00');
    turn(db, 't3', 'th', 'b2:u2', 'b2:a3', '2026-08-05T10:00:09+00:00');
    db.close();
    const [s] = readAll(path);
    expect(s.problems).toEqual([]);
    expect(s.turns.map((t) => [t.sourceId, t.parentSourceId, t.answer, t.complete])).toEqual([
      ['b2:u1', null, 'Let me check.\n\n→ Bash: wc -c README.md\n\n  1234 README.md\n\n1234 bytes.', true],
      ['b2:u2', 'b2:u1', '→ Bash: wc -c LICENSE', false],
    ]);
    // Both model calls of the first turn are in its raw.
    expect(s.turns[0].raw.filter((l) => JSON.parse(l).table === 'turns')).toHaveLength(2);
  });

  it('keeps a re-asked prompt that got a different reply as a sibling turn, not a second copy of the prompt', () => {
    const { path, db } = makeDb('modern');
    message(db, 'b2:u1', null, 'user', text('Pick a colour'));
    message(db, 'b2:a1', 'b2:u1', 'assistant', text('Blue.'));
    message(db, 'b2:a1b', 'b2:u1', 'assistant', text('Green.'));
    thread(db, 'th1', 'c', 'b2:a1', '2026-08-05 10:00:00+00:00');
    thread(db, 'th2', 'c', 'b2:a1b', '2026-08-05 12:00:00+00:00');
    turn(db, 't1', 'th1', 'b2:u1', 'b2:a1', '2026-08-05T10:00:01+00:00');
    turn(db, 't2', 'th2', 'b2:u1', 'b2:a1b', '2026-08-05T12:00:01+00:00');
    db.close();
    const sources = readAll(path);
    expect(
      allTurns(sources).map((t) => [t.sourceId, t.parentSourceId, t.sourceSession, t.answer, t.note ?? null]),
    ).toEqual([
      ['b2:u1', null, 'th1', 'Blue.', null],
      ['b2:u1/b2:a1b', null, 'th2', 'Green.', 'another reply'],
    ]);
  });

  it('reports a cycle of parent links without hanging, and reads the rest', () => {
    const { path, db } = makeDb('modern');
    db.pragma('foreign_keys = OFF');
    message(db, 'b2:x', 'b2:y', 'user', text('loop 1'));
    message(db, 'b2:y', 'b2:x', 'assistant', text('loop 2'));
    message(db, 'b2:u1', null, 'user', text('fine'));
    message(db, 'b2:a1', 'b2:u1', 'assistant', text('ok'));
    message(db, 'b2:u2', 'b2:gone', 'user', text('orphaned'));
    message(db, 'b2:a2', 'b2:u2', 'assistant', text('still here'));
    thread(db, 'th', 't', 'b2:a1', '2026-08-05 10:00:00+00:00');
    turn(db, 't1', 'th', 'b2:u1', 'b2:a1', '2026-08-05T10:00:01+00:00');
    turn(db, 't2', 'th', 'b2:u2', 'b2:a2', '2026-08-05T10:00:02+00:00');
    turn(db, 't3', 'th', 'b2:x', 'b2:y', '2026-08-05T10:00:03+00:00');
    db.close();
    const sources = readAll(path);
    expect(allTurns(sources).map((t) => [t.sourceId, t.parentSourceId])).toEqual([
      ['b2:u1', null],
      ['b2:u2', null],
    ]);
    expect(sources.flatMap((s) => s.problems)).toEqual([
      { file: path, line: 5, reason: 'message b2:u2: parent message b2:gone is missing' },
      { file: path, line: 1, reason: 'message b2:x: its parent links form a cycle: not imported' },
    ]);
  });
});

describe('llm reader: an upgraded file (both generations)', () => {
  it('reads legacy history copied into the message store once, and legacy-only conversations as they are', () => {
    const { path, db } = makeDb('modern');
    // Logged by 0.31: conversation c1 (two prompts, one with a tool follow-up) and c2.
    conversation(db, 'c1', 'Pelicans');
    response(db, {
      id: 'r1',
      conv: 'c1',
      prompt: 'Name a pelican',
      system: 'Be terse.',
      response: '',
      at: '2025-02-16T22:34:30+00:00',
    });
    toolCall(db, 'r1', 'names', { kind: 'pelican' }, 'call_1');
    response(db, { id: 'r1b', conv: 'c1', prompt: '', response: 'Percy.', at: '2025-02-16T22:34:31+00:00' });
    toolResult(db, 'r1b', 'names', 'Percy', 'call_1');
    response(db, {
      id: 'r2',
      conv: 'c1',
      prompt: 'Another',
      response: 'Penelope.',
      at: '2025-02-16T22:35:00+00:00',
    });
    conversation(db, 'c2', 'Old only');
    response(db, {
      id: 'r9',
      conv: 'c2',
      prompt: 'untouched',
      response: 'yes',
      at: '2025-03-01T08:00:00+00:00',
    });
    // Continued with `llm -c` under 0.32: the history is stored as messages (no turns), then the new call.
    message(db, 'b2:s', null, 'system', text('Be terse.'));
    message(db, 'b2:m1', 'b2:s', 'user', text('Name a pelican'));
    message(db, 'b2:m1a', 'b2:m1', 'assistant', [
      { type: 'tool_call', name: 'names', args: { kind: 'pelican' }, id: 'call_1' },
    ]);
    message(db, 'b2:m1t', 'b2:m1a', 'tool', [
      { type: 'tool_result', name: 'names', output: 'Percy', id: 'call_1' },
    ]);
    message(db, 'b2:m1b', 'b2:m1t', 'assistant', text('Percy.'));
    message(db, 'b2:m2', 'b2:m1b', 'user', text('Another'));
    message(db, 'b2:m2a', 'b2:m2', 'assistant', text('Penelope.'));
    message(db, 'b2:m3', 'b2:m2a', 'user', text('A third'));
    message(db, 'b2:m3a', 'b2:m3', 'assistant', text('Pelagia.'));
    thread(db, 'c1', 'Pelicans', 'b2:m3a', '2026-08-05 10:00:00+00:00');
    turn(db, 't3', 'c1', 'b2:m3', 'b2:m3a', '2026-08-05T10:00:01+00:00');
    // A dual-write era row: the same model call in responses (same id as the turn) and in turns.
    message(db, 'b2:d1', null, 'user', text('dual'));
    message(db, 'b2:d1a', 'b2:d1', 'assistant', text('written twice'));
    thread(db, 'th-d', 'dual', 'b2:d1a', '2026-05-01 10:00:00+00:00');
    turn(db, 'tdual', 'th-d', 'b2:d1', 'b2:d1a', '2026-05-01T10:00:01+00:00');
    conversation(db, 'th-d', 'dual');
    response(db, {
      id: 'tdual',
      conv: 'th-d',
      prompt: 'dual',
      response: 'written twice',
      at: '2026-05-01T10:00:01+00:00',
    });
    db.close();

    const sources = readAll(path);
    expect(sources.flatMap((s) => s.problems)).toEqual([]);
    expect(sources.map((s) => [s.sessions[0].sourceSession, s.turns.map((t) => t.sourceId)])).toEqual([
      ['c1', ['b2:m1', 'b2:m2', 'b2:m3']],
      ['c2', ['response:r9']],
      ['th-d', ['b2:d1']],
    ]);
    const t = byId(sources);
    // The copies take the legacy rows' times (the messages carry none) and their rows.
    expect(t.get('b2:m1')).toMatchObject({
      parentSourceId: null,
      createdAt: '2025-02-16T22:34:30.000Z',
      answer: '[system] Be terse.\n\n→ names: {"kind":"pelican"}\n\n  Percy\n\nPercy.',
    });
    expect(
      t
        .get('b2:m1')!
        .raw.map((l) => JSON.parse(l))
        .filter((r) => r.table === 'responses')
        .map((r) => r.row.id),
    ).toEqual(['r1', 'r1b']);
    expect(t.get('b2:m2')).toMatchObject({ parentSourceId: 'b2:m1', createdAt: '2025-02-16T22:35:00.000Z' });
    expect(t.get('b2:m3')).toMatchObject({ parentSourceId: 'b2:m2', createdAt: '2026-08-05T10:00:01.000Z' });
    expect(sources[0].sessions[0]).toMatchObject({
      createdAt: '2025-02-16T22:34:30.000Z',
      title: 'Pelicans',
    });
    expect(t.get('b2:d1')!.raw.map((l) => JSON.parse(l).table)).toEqual([
      'messages',
      'parts',
      'messages',
      'parts',
      'turns',
      'responses',
    ]);
    expect([...t.keys()].filter((k) => k.startsWith('response:'))).toEqual(['response:r9']);
  });

  it('keeps legacy prompts that do not match the copied chain as legacy turns of the same session', () => {
    const { path, db } = makeDb('modern');
    conversation(db, 'c1', 'mixed');
    response(db, { id: 'r1', conv: 'c1', prompt: 'first', response: 'one', at: '2025-01-01T00:00:00+00:00' });
    response(db, {
      id: 'r2',
      conv: 'c1',
      prompt: 'second',
      response: 'two',
      at: '2025-01-01T00:01:00+00:00',
    });
    message(db, 'b2:m1', null, 'user', text('first'));
    message(db, 'b2:m1a', 'b2:m1', 'assistant', text('one'));
    message(db, 'b2:m2', 'b2:m1a', 'user', text('something else'));
    message(db, 'b2:m2a', 'b2:m2', 'assistant', text('new'));
    thread(db, 'c1', 'mixed', 'b2:m2a', '2026-08-05 10:00:00+00:00');
    turn(db, 't2', 'c1', 'b2:m2', 'b2:m2a', '2026-08-05T10:00:01+00:00');
    db.close();
    const sources = readAll(path);
    expect(sources).toHaveLength(1);
    expect(sources[0].turns.map((t) => [t.sourceId, t.parentSourceId])).toEqual([
      ['b2:m1', null],
      ['response:r2', 'b2:m1'],
      ['b2:m2', 'b2:m1'],
    ]);
  });
});

describe('llm reader: oversized text', () => {
  it('cuts an answer past the store limit of 16 MiB to fit, and says so', () => {
    const { path, db } = makeDb('legacy');
    conversation(db, 'c1', 'big');
    const big = 'x'.repeat(17 * 1024 * 1024);
    response(db, { id: 'r1', conv: 'c1', prompt: 'dump it', response: big, at: '2025-01-01T00:00:00+00:00' });
    response(db, { id: 'r2', conv: 'c1', prompt: 'thanks', response: 'ok', at: '2025-01-01T00:00:01+00:00' });
    db.close();
    const [s] = readAll(path);
    expect(s.turns.map((t) => t.sourceId)).toEqual(['response:r1', 'response:r2']);
    expect(s.turns[0].answer.length).toBeLessThanOrEqual(16 * 1024 * 1024);
    expect(s.turns[0].answer).toMatch(/… \[cut: \d+ more characters\]$/);
    expect(s.turns[1].parentSourceId).toBe('response:r1');
    expect(s.problems).toEqual([{ file: path, line: 1, reason: 'answer of 17 MiB cut to 16 MiB' }]);
  });
});

describe('llm reader: other files', () => {
  it('says a SQLite file without llm tables is not an llm logs database, and nothing else', () => {
    const path = join(tempDir('llm-'), 'other.db');
    const db = new Database(path);
    db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES (1)');
    db.close();
    expect(readAll(path)).toEqual([
      {
        kind: 'llm',
        file: path,
        sessions: [],
        turns: [],
        entries: [],
        problems: [{ file: path, line: 0, reason: 'not an llm logs database' }],
      },
    ]);
  });

  it('reports a file of garbage bytes, and a truncated database, without throwing', () => {
    const dir = tempDir('llm-');
    const garbage = join(dir, 'garbage.db');
    writeFileSync(garbage, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) % 256)));
    expect(readAll(garbage).flatMap((s) => s.problems)).toEqual([
      { file: garbage, line: 0, reason: 'not a SQLite database' },
    ]);

    const { path, db } = makeDb('legacy');
    conversation(db, 'c1', 'x');
    db.transaction(() => {
      for (let i = 0; i < 200; i++)
        response(db, {
          id: `r${i}`,
          conv: 'c1',
          prompt: `q${i}`.repeat(50),
          response: 'a'.repeat(500),
          at: '2025-01-01T00:00:00+00:00',
        });
    })();
    db.close();
    const bytes = readFileSync(path);
    const truncated = join(dir, 'truncated.db');
    writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const sources = readAll(truncated);
    expect(allTurns(sources)).toEqual([]);
    const problems = sources.flatMap((s) => s.problems);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: truncated, line: 0 });
    expect(problems[0].reason).toMatch(/^cannot read: /);
  });

  it('reports a missing file instead of throwing', () => {
    const path = join(tempDir('llm-'), 'missing.db');
    expect(readAll(path).flatMap((s) => s.problems)).toEqual([
      { file: path, line: 0, reason: 'cannot open: ENOENT' },
    ]);
  });
});

describe('llm reader: never writes', () => {
  function someHistory(db: Database.Database): void {
    conversation(db, 'c1', 'x');
    response(db, { id: 'r1', conv: 'c1', prompt: 'q1', response: 'a1', at: '2025-01-01T00:00:00+00:00' });
  }

  it('leaves a rollback-journal database byte for byte and mtime as it was, with nothing beside it', async () => {
    const { path, db } = makeDb('legacy');
    someHistory(db);
    db.close();
    const before = fingerprint(path);
    const files = readdirSync(join(path, '..'));
    await new Promise((r) => setTimeout(r, 20));
    expect(allTurns(readAll(path))).toHaveLength(1);
    const after = fingerprint(path);
    expect(after.bytes.equals(before.bytes)).toBe(true);
    expect(after.mtime).toBe(before.mtime);
    expect(readdirSync(join(path, '..'))).toEqual(files);
  });

  it('reads a WAL database with no -wal/-shm from a private copy, creating no files beside it', () => {
    const { path, db } = makeDb('modern', true);
    someHistory(db);
    db.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    const before = fingerprint(path);
    const files = readdirSync(join(path, '..'));
    expect(allTurns(readAll(path)).map((t) => t.sourceId)).toEqual(['response:r1']);
    expect(readdirSync(join(path, '..'))).toEqual(files);
    const after = fingerprint(path);
    expect(after.bytes.equals(before.bytes)).toBe(true);
    expect(after.mtime).toBe(before.mtime);
  });

  it('reads rows still in the -wal of a database llm has open, changing neither file', () => {
    const { path, db } = makeDb('modern', true);
    db.pragma('wal_autocheckpoint = 0');
    someHistory(db);
    // The writer stays open: its last commit lives only in logs.db-wal.
    response(db, { id: 'r2', conv: 'c1', prompt: 'q2', response: 'a2', at: '2025-01-01T00:01:00+00:00' });
    try {
      const main = fingerprint(path);
      const wal = fingerprint(`${path}-wal`);
      expect(wal.bytes.length).toBeGreaterThan(0);
      expect(allTurns(readAll(path)).map((t) => t.sourceId)).toEqual(['response:r1', 'response:r2']);
      const main2 = fingerprint(path);
      const wal2 = fingerprint(`${path}-wal`);
      expect(main2.bytes.equals(main.bytes)).toBe(true);
      expect(main2.mtime).toBe(main.mtime);
      expect(wal2.bytes.equals(wal.bytes)).toBe(true);
      expect(wal2.mtime).toBe(wal.mtime);
    } finally {
      db.close();
    }
  });

  it('removes its private copy when the reader is stopped early', () => {
    const { path, db } = makeDb('legacy', true);
    someHistory(db);
    conversation(db, 'c2', 'y');
    response(db, { id: 'r2', conv: 'c2', prompt: 'q2', response: 'a2', at: '2025-01-02T00:00:00+00:00' });
    db.close();
    const copies = () => readdirSync(tmpdir()).filter((n) => n.startsWith('arborist-llm-'));
    const before = copies();
    for (const s of llmReader.read(path)) {
      expect(s.turns).toHaveLength(1);
      expect(copies().length).toBe(before.length + 1);
      break;
    }
    expect(copies()).toEqual(before);
  });

  it('falls back to a copy when a WAL database has a -wal but its -shm is gone', () => {
    const { path, db } = makeDb('legacy', true);
    db.pragma('wal_autocheckpoint = 0');
    someHistory(db);
    const dir = join(path, '..');
    // Freeze a crash-like state: the database and its -wal, no -shm.
    const mainBytes = readFileSync(path);
    const walBytes = readFileSync(`${path}-wal`);
    db.close();
    const lone = join(dir, 'lone.db');
    writeFileSync(lone, mainBytes);
    writeFileSync(`${lone}-wal`, walBytes);
    const before = readdirSync(dir);
    expect(allTurns(readAll(lone)).map((t) => t.sourceId)).toEqual(['response:r1']);
    expect(readdirSync(dir)).toEqual(before);
    expect(readFileSync(`${lone}-wal`).equals(walBytes)).toBe(true);
  });
});
