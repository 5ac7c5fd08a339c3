import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  cpSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { copilotReader as reader } from '../../src/import/copilot/index.js';
import { copilotDefaultPaths } from '../../src/import/copilot/paths.js';
import type { ParsedSource } from '../../src/import/model.js';
import { BIN, cli } from '../support/cli.js';
import { openShard } from '../support/shard.js';
import { tempDir } from '../support/tmp.js';

/**
 * The GitHub Copilot CLI reader on the real files in tests/import/fixtures/copilot (SOURCES.md says where each
 * comes from): an event log of Copilot CLI 1.0.34 and two first-generation `history-session-state` documents.
 * Resumed, forked and migrated sessions are made from the real log the way the CLI makes them (docs/import.md).
 */

const FIX = fileURLToPath(new URL('./fixtures/copilot/', import.meta.url));
const EVENTS = join(FIX, 'events-1.0.34.jsonl');
const LEGACY_A = join(FIX, 'legacy/conversation-28787d5.json');
const LEGACY_B = join(FIX, 'legacy/conversation-bcec23f.json');
const SID = '96ef38f0-9d09-45c3-8124-6448c36090ed';
const PROMPT = '2f5a46e3-6615-4d11-8e8f-dd88cf1326b1'; // line 7's user.message
const LAST = 'c7d56427-bb90-4e60-bc9e-ff405ab8bc65'; // the last event of the log (session.shutdown's parent)

function one(file: string): ParsedSource {
  const all = [...reader.read(file)];
  expect(all).toHaveLength(1);
  return all[0];
}

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');

/** A Copilot home with the real log at `session-state/<id>/events.jsonl`; more files are added by the tests. */
function home(): { dir: string; db: string; events: string } {
  const dir = tempDir('arb-copilot-');
  const folder = join(dir, '.copilot', 'session-state', SID);
  mkdirSync(folder, { recursive: true });
  const events = join(folder, 'events.jsonl');
  cpSync(EVENTS, events);
  return { dir: join(dir, '.copilot'), db: join(dir, 'sessions.db'), events };
}

/** One event line as the CLI writes it: `{type, data, id, timestamp, parentId}`. */
function event(
  type: string,
  data: Record<string, unknown>,
  id: string,
  timestamp: string,
  parentId: string | null,
) {
  return JSON.stringify({ type, data, id, timestamp, parentId });
}

const uuid = (n: number) => `aaaaaaaa-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** A prompt and a short reply appended after `parent`, as a resumed session adds them. */
function exchange(n: number, parent: string, question: string, answer: string, at: string): string[] {
  return [
    event('user.message', { content: question, attachments: [] }, uuid(n), at, parent),
    event('assistant.turn_start', { turnId: '0' }, uuid(n + 1), at, uuid(n)),
    event(
      'assistant.message',
      { messageId: `m${n}`, content: answer, toolRequests: [] },
      uuid(n + 2),
      at,
      uuid(n + 1),
    ),
    event('assistant.turn_end', { turnId: '0' }, uuid(n + 3), at, uuid(n + 2)),
  ];
}

function importJson(path: string, db: string) {
  const r = cli(['import', 'copilot', path, '--db', db, '--json']);
  expect(r.stderr).not.toMatch(/this is a bug/);
  return { code: r.code, doc: r.json() };
}

const tree = (db: string, sid: string) =>
  cli(['tree', sid, '--db', db, '--json']).json() as {
    bates: string;
    parent_bates: string | null;
    question: string;
  }[];
const sessions = (db: string) =>
  cli(['list', '--db', db, '--json']).json() as { sid: string; n_nodes: number }[];

describe('the events generation (session-state/<id>/events.jsonl), on a real log of Copilot CLI 1.0.34', () => {
  it('one prompt is one turn: the question as typed, tool calls one line each, results, the final reply', () => {
    const s = one(EVENTS);
    expect(s.problems).toEqual([]);
    expect(s.sessions).toEqual([
      { sourceSession: SID, createdAt: '2026-04-23T17:08:08.893Z', cwd: '/home/wei/repo/VibeCodingTracker' },
    ]);
    // Line 48 is autopilot's "keep going" message (empty content): not a question, the same turn goes on.
    expect(s.turns).toHaveLength(1);
    const [t] = s.turns;
    expect(t).toMatchObject({
      sourceId: PROMPT,
      parentSourceId: null,
      sourceSession: SID,
      createdAt: '2026-04-23T17:11:16.238Z',
      line: 7,
      complete: true,
      cwd: '/home/wei/repo/VibeCodingTracker',
    });
    expect(t.question).toMatch(/^請不要修改任何代碼 我希望你幫我調查一下/);
    expect(t.question).not.toContain('<current_datetime>'); // transformedContent is what the model got
    const a = t.answer;
    expect(a).toContain('→ report_intent: {"intent":"Investigating Rust doc tools"}');
    expect(a).toContain('→ view: /home/wei/repo/VibeCodingTracker/Cargo.toml');
    expect(a).toContain('→ bash: ls /home/wei/repo/VibeCodingTracker/.github/workflows/');
    expect(a).toContain('  1. [package]'); // a result's first lines
    expect(a).toContain('以下是我的調查結果');
    expect(a).toContain('→ task_complete:');
    // a call requested by the assistant and started by the runtime is one line, not two
    expect(a.match(/→ view: \/home\/wei\/repo\/VibeCodingTracker\/Cargo\.toml/g)).toHaveLength(1);
    expect(a).not.toContain('You are the GitHub Copilot CLI'); // the system prompt is no answer
    expect(a).not.toContain('You have not yet marked the task as complete');
    // Every line of the file is a record of the turn, in order: the ones before the prompt travel with it.
    expect(t.raw).toEqual(lines(EVENTS));
  });

  it('parallel calls: each result sits under its own call (matched by toolCallId), not under the last call made', () => {
    // Line 9 asks for four calls at once; their results (lines 14-17) come after all four have started.
    const a = one(EVENTS).turns[0].answer;
    expect(a).toContain(
      '→ report_intent: {"intent":"Investigating Rust doc tools"}\n\n  Intent logged\n\n→ view:',
    );
    expect(a).toContain('→ view: /home/wei/repo/VibeCodingTracker\n\n  .claude\n');
    expect(a).toContain('→ view: /home/wei/repo/VibeCodingTracker/Cargo.toml\n\n  1. [package]\n');
    // An MCP tool's result given as an OpenAI output_text part in JSON: the text it holds, not the JSON around it.
    expect(a).toMatch(
      /→ web_search: best Rust documentation[^\n]*\n\n {2}If you’re looking for Rust documentation/,
    );
    expect(a).not.toContain('{"type":"output_text"');
    expect(a).toContain(
      '→ bash: ls /home/wei/repo/VibeCodingTracker/.github/workflows/\n\n  auto_labeler.yml',
    );
  });

  it('imports through the binary with the title from workspace.yaml; again adds nothing; export gives the file back', () => {
    const h = home();
    writeFileSync(
      join(h.events, '..', 'workspace.yaml'),
      `id: ${SID}\ncwd: /home/wei/repo/VibeCodingTracker\nsummary_count: 0\nname: Rust doc tools survey\n`,
    );
    const first = importJson(h.dir, h.db);
    expect(first.code).toBe(0);
    expect(first.doc).toMatchObject({ files: 1, sessions: 1, turns_added: 1, problems: [] });
    const [s] = sessions(h.db);
    const shard = openShard(h.db);
    expect(shard.sourceOfSession(s.sid)).toMatchObject({ source: 'copilot', source_session: SID });
    expect(JSON.stringify(shard.sourceOfSession(s.sid))).toContain('Rust doc tools survey');
    shard.close();
    expect(importJson(h.dir, h.db).doc).toMatchObject({ turns_added: 0, turns_skipped: 1, problems: [] });
    const out = join(h.dir, '..', 'back.jsonl');
    const r = cli(['export', s.sid, '--format', 'source', '--out', out, '--db', h.db]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(EVENTS, 'utf8'));
  });

  it('a resumed session appends to the same log: the new prompt is a turn under the first', () => {
    const h = home();
    importJson(h.dir, h.db);
    const resume = event(
      'session.resume',
      { resumeTime: '2026-04-24T08:00:00.000Z', eventCount: 55, context: { cwd: '/home/wei/repo/other' } },
      uuid(1),
      '2026-04-24T08:00:00.000Z',
      LAST,
    );
    appendFileSync(
      h.events,
      `${[resume, ...exchange(2, uuid(1), 'And mdBook?', 'Also fine.', '2026-04-24T08:00:01.000Z')].join('\n')}\n`,
    );
    const s = one(h.events);
    expect(s.turns.map((t) => [t.sourceId, t.parentSourceId, t.cwd])).toEqual([
      [PROMPT, null, '/home/wei/repo/VibeCodingTracker'],
      [uuid(2), PROMPT, '/home/wei/repo/other'],
    ]);
    expect(s.turns[1].answer).toBe('Also fine.');
    expect(importJson(h.dir, h.db).doc).toMatchObject({ turns_added: 1, turns_skipped: 1, problems: [] });
    const [only] = sessions(h.db);
    const t = tree(h.db, only.sid);
    expect(t.map((x) => x.question.slice(0, 11))).toEqual(['請不要修改任何代碼 我', 'And mdBook?']);
    expect(t[1].parent_bates).toBe(t[0].bates);
  });

  it('a fork (/fork) copies the events with their ids into a new session: its new prompt hangs under the original turn', () => {
    const h = home();
    // forkSession: the events cloned, session.start given the new id and time, a session.info of kind fork added
    const FORK = 'bbbbbbbb-1111-4222-8333-444444444444';
    const src = lines(EVENTS).map((l) => JSON.parse(l));
    src[0].data = {
      ...src[0].data,
      sessionId: FORK,
      startTime: '2026-04-25T09:00:00.000Z',
      alreadyInUse: false,
    };
    src[0].timestamp = '2026-04-25T09:00:00.000Z';
    const info = event(
      'session.info',
      { infoType: 'fork', message: `Forked from ${SID} as ${FORK}.` },
      uuid(10),
      '2026-04-25T09:00:00.001Z',
      LAST,
    );
    const folder = join(h.dir, 'session-state', FORK);
    mkdirSync(folder);
    writeFileSync(
      join(folder, 'events.jsonl'),
      `${[...src.map((o) => JSON.stringify(o)), info, ...exchange(11, uuid(10), 'Now as a branch?', 'Sure.', '2026-04-25T09:00:02.000Z')].join('\n')}\n`,
    );
    // the source session comes first: its log starts earlier
    expect(reader.discover(h.dir)).toEqual([h.events, join(folder, 'events.jsonl')]);
    const r = importJson(h.dir, h.db);
    expect(r.doc).toMatchObject({ files: 2, sessions: 2, turns_added: 2, turns_skipped: 1, problems: [] });
    const all = sessions(h.db);
    const forked = all.find((s) => s.n_nodes === 1 && tree(h.db, s.sid)[0].question === 'Now as a branch?')!;
    const original = all.find((s) => s !== forked)!;
    expect(tree(h.db, forked.sid)[0].parent_bates).toBe(tree(h.db, original.sid)[0].bates);
  });

  it('which user messages are prompts: the CLI shows typed text, commands and schedules, hides injections', () => {
    const dir = tempDir('arb-copilot-kinds-');
    const f = join(dir, 'events.jsonl');
    const t = (s: number) => `2026-05-01T10:00:${String(s).padStart(2, '0')}.000Z`;
    const recs = [
      event(
        'session.start',
        {
          sessionId: 'kinds',
          version: 1,
          producer: 'copilot-agent',
          copilotVersion: '1.0.63',
          startTime: t(0),
          context: { cwd: '/w' },
        },
        uuid(1),
        t(0),
        null,
      ),
      event('user.message', { content: 'typed' }, uuid(2), t(1), uuid(1)),
      event('user.message', { content: 'skill body', source: 'skill-pdf' }, uuid(3), t(2), uuid(2)),
      event('user.message', { content: '/review now', source: 'command-review' }, uuid(4), t(3), uuid(3)),
      event('user.message', { content: 'go on', isAutopilotContinuation: true }, uuid(5), t(4), uuid(4)),
      event('user.message', { content: 'from an agent', source: 'agent-x' }, uuid(6), t(5), uuid(5)),
      event(
        'user.message',
        { content: 'sub-agent prompt', parentToolCallId: 'call_1' },
        uuid(7),
        t(6),
        uuid(6),
      ),
      event(
        'assistant.message',
        { messageId: 's', content: 'sub-agent text', parentToolCallId: 'call_1' },
        uuid(8),
        t(7),
        uuid(7),
      ),
      event('user.message', { content: 'nightly', source: 'schedule-1' }, uuid(9), t(8), uuid(8)),
      event(
        'tool.execution_start',
        { toolCallId: 'c9', toolName: 'bash', arguments: { command: 'false' } },
        uuid(10),
        t(9),
        uuid(9),
      ),
      event(
        'tool.execution_complete',
        { toolCallId: 'c9', success: false, error: { message: 'exit 1' } },
        uuid(11),
        t(10),
        uuid(10),
      ),
      event('session.error', { errorType: 'query', message: 'rate limited' }, uuid(12), t(11), uuid(11)),
      event('user.message', { content: 'stop that' }, uuid(13), t(12), uuid(12)),
      event('abort', { reason: 'user_initiated' }, uuid(14), t(13), uuid(13)),
    ];
    writeFileSync(f, `${recs.join('\n')}\n`);
    const s = one(f);
    expect(s.problems).toEqual([]);
    expect(s.turns.map((x) => [x.question, x.parentSourceId, x.note])).toEqual([
      ['typed', null, undefined],
      ['/review now', uuid(2), undefined],
      ['nightly', uuid(4), 'error'],
      ['stop that', uuid(9), 'aborted'],
    ]);
    expect(s.turns[2].answer).toBe('→ bash: false\n\n  error: exit 1\n\n[error] rate limited');
    expect(s.turns[1].answer).toBe(''); // the sub-agent's text is summed up by its call, not repeated
    expect(s.turns[3].complete).toBe(true);
  });

  it('the newest turn is unfinished while tool calls are under way; a cut last line makes it wait', () => {
    const dir = tempDir('arb-copilot-open-');
    const f = join(dir, 'events.jsonl');
    const at = '2026-05-01T10:00:00.000Z';
    const start = event(
      'session.start',
      { sessionId: 'open', version: 1, producer: 'copilot-agent', copilotVersion: '1.0.63', startTime: at },
      uuid(1),
      at,
      null,
    );
    const ask = event('user.message', { content: 'run it' }, uuid(2), at, uuid(1));
    const call = event(
      'assistant.message',
      {
        messageId: 'm',
        content: '',
        toolRequests: [{ toolCallId: 'c', name: 'bash', arguments: { command: 'make' } }],
      },
      uuid(3),
      at,
      uuid(2),
    );
    writeFileSync(f, `${[start, ask, call].join('\n')}\n`);
    expect(one(f).turns[0]).toMatchObject({ complete: false, answer: '→ bash: make' });
    writeFileSync(f, `${[start, ask, call].join('\n')}\n${call.slice(0, 40)}`);
    const cut = one(f);
    expect(cut.turns[0]).toMatchObject({ complete: false, cut: true });
    expect(cut.problems).toEqual([
      { file: f, line: 4, reason: expect.stringMatching(/^truncated last line/) },
    ]);
  });
});

describe('the first generation (history-session-state/session_<id>_<ms>.json)', () => {
  it('reads the timeline: the user entry is the question, copilot text and tool calls the answer', () => {
    const s = one(LEGACY_A);
    expect(s.problems).toEqual([]);
    expect(s.sessions).toEqual([
      { sourceSession: '06141331-92e8-4e9e-8bbb-9b7a729eb01a', createdAt: '2025-10-11T11:40:20.882Z' },
    ]);
    expect(s.turns).toHaveLength(1);
    const [t] = s.turns;
    expect(t).toMatchObject({
      sourceId: 'c8945c26-186e-41de-b57a-a24d0540b533',
      parentSourceId: null,
      complete: true,
      line: 3,
    });
    // the timeline keeps what was typed; chatMessages' copy has the injected <reminder> blocks
    expect(t.question).toMatch(/^專案經過了多輪跌代/);
    expect(t.question).not.toContain('<reminder>');
    expect(t.answer).toMatch(/^I'll help you optimize memory usage/);
    expect(t.answer).toContain(
      '→ bash: cd /home/wei/repo/VibeCodingTracker && find src -name "*.rs" | head -20',
    );
    // raw: each timeline entry as JSON text, the two info entries before the prompt first
    const doc = JSON.parse(readFileSync(LEGACY_A, 'utf8'));
    expect(t.raw).toEqual(doc.timeline.map((e: unknown) => JSON.stringify(e)));
  });

  it('the second document, through the binary, twice', () => {
    const dir = tempDir('arb-copilot-legacy-');
    const hs = join(dir, '.copilot', 'history-session-state');
    mkdirSync(hs, { recursive: true });
    const file = join(hs, 'session_0b2a81da-02cf-4cbb-ae14-07c597b84f4e_1760187292206.json');
    cpSync(LEGACY_B, file);
    const db = join(dir, 'sessions.db');
    const r = importJson(join(dir, '.copilot'), db);
    expect(r.doc).toMatchObject({ files: 1, sessions: 1, turns_added: 1, problems: [] });
    expect(r.code).toBe(0);
    const [s] = sessions(db);
    expect(tree(db, s.sid)[0].question).toMatch(/^## 任務：將專案描述中的 "Vibe Coding Tracker"/);
    expect(importJson(join(dir, '.copilot'), db).doc).toMatchObject({ turns_added: 0, turns_skipped: 1 });
  });

  it('a legacy session resumed by a newer CLI (session.import_legacy) is the same turns: the new prompt hangs under them', () => {
    const dir = tempDir('arb-copilot-migrated-');
    const root = join(dir, '.copilot');
    const legacy = JSON.parse(readFileSync(LEGACY_B, 'utf8'));
    const id = legacy.sessionId as string;
    const hs = join(root, 'history-session-state');
    mkdirSync(hs, { recursive: true });
    cpSync(LEGACY_B, join(hs, `session_${id}_${Date.parse(legacy.startTime)}.json`));
    // loadLegacySession: session.start with the legacy id and start, then session.import_legacy carrying it whole
    const folder = join(root, 'session-state', id);
    mkdirSync(folder, { recursive: true });
    const at = '2026-01-20T08:00:00.000Z';
    const recs = [
      event(
        'session.start',
        {
          sessionId: id,
          version: 1,
          producer: 'copilot-agent',
          copilotVersion: '0.0.400',
          startTime: legacy.startTime,
        },
        uuid(1),
        at,
        null,
      ),
      event(
        'session.import_legacy',
        { legacySession: legacy, importTime: at, sourceFile: `session_${id}_1.json` },
        uuid(2),
        at,
        uuid(1),
      ),
      ...exchange(3, uuid(2), 'One more thing', 'Done.', '2026-01-20T08:00:05.000Z'),
    ];
    writeFileSync(join(folder, 'events.jsonl'), `${recs.join('\n')}\n`);
    const prompt = '188363eb-0b45-4216-97a3-14aca5dac60d';
    const migrated = one(join(folder, 'events.jsonl'));
    expect(migrated.turns.map((t) => [t.sourceId, t.parentSourceId, t.line])).toEqual([
      [prompt, null, 2],
      [uuid(3), prompt, 3],
    ]);
    expect(migrated.turns[0].answer).toBe(
      one(join(hs, `session_${id}_${Date.parse(legacy.startTime)}.json`)).turns[0].answer,
    );
    // the legacy document is older: read first; the log's copy of its turn is then already there
    const db = join(dir, 'sessions.db');
    const r = importJson(root, db);
    expect(r.doc).toMatchObject({ files: 2, sessions: 1, turns_added: 2, turns_skipped: 1, problems: [] });
    const [s] = sessions(db);
    const t = tree(db, s.sid);
    expect(t.map((x) => x.question.slice(0, 6))).toEqual(['## 任務：', 'One mo']);
    expect(t[1].parent_bates).toBe(t[0].bates);
  });
});

describe('where the sessions are, and bad input', () => {
  it('defaultPaths: COPILOT_HOME, else ~/.copilot; and $XDG_STATE_HOME/.copilot that versions before 1.0 used', () => {
    expect(copilotDefaultPaths({ HOME: '/h' })).toEqual(['/h/.copilot']);
    expect(copilotDefaultPaths({ HOME: '/h', COPILOT_HOME: '/c' })).toEqual(['/c']);
    expect(copilotDefaultPaths({ HOME: '/h', XDG_STATE_HOME: '/s' })).toEqual(['/h/.copilot', '/s/.copilot']);
    expect(copilotDefaultPaths({ HOME: '/h', COPILOT_HOME: ' ' })).toEqual(['/h/.copilot']);
  });

  it('discover: a home, its session-state (folders and early flat logs), history-session-state, a session folder', () => {
    const h = home();
    const ss = join(h.dir, 'session-state');
    const flat = join(ss, 'cccccccc-0000-4000-8000-000000000001.jsonl');
    const at = '2025-10-20T10:00:00.000Z';
    writeFileSync(
      flat,
      `${event('session.start', { sessionId: 'cccccccc-0000-4000-8000-000000000001', version: 1, producer: 'copilot-agent', copilotVersion: '0.0.343', startTime: at }, uuid(1), at, null)}\n`,
    );
    mkdirSync(join(ss, 'empty-session')); // a session folder with no log yet: nothing to import
    const hs = join(h.dir, 'history-session-state');
    mkdirSync(hs);
    const legacy = join(hs, 'session_06141331-92e8-4e9e-8bbb-9b7a729eb01a_1760182820882.json');
    cpSync(LEGACY_A, legacy);
    writeFileSync(join(h.dir, 'config.json'), '{}'); // not a session
    const problems: never[] = [];
    // oldest first: the legacy session (2025-10-11), the flat log (2025-10-20), the 1.0.34 log (2026-04-23)
    expect(reader.discover(h.dir, problems)).toEqual([legacy, flat, h.events]);
    expect(reader.discover(ss)).toEqual([flat, h.events]);
    expect(reader.discover(hs)).toEqual([legacy]);
    expect(reader.discover(join(ss, SID))).toEqual([h.events]);
    expect(reader.discover(h.events)).toEqual([h.events]);
    expect(problems).toEqual([]);
    // 1.0 moves the XDG state folder into ~/.copilot and leaves links behind: they are not followed
    const xdg = join(h.dir, '..', 'state', '.copilot');
    mkdirSync(xdg, { recursive: true });
    symlinkSync(ss, join(xdg, 'session-state'));
    symlinkSync(hs, join(xdg, 'history-session-state'));
    expect(reader.discover(xdg)).toEqual([]);
  });

  it('the title: name, else summary; quoted values; none when workspace.yaml holds none', () => {
    const h = home();
    const ws = join(h.events, '..', 'workspace.yaml');
    const title = () => one(h.events).sessions[0].title;
    expect(title()).toBeUndefined();
    writeFileSync(ws, `id: ${SID}\nsummary: Old summary\n`);
    expect(title()).toBe('Old summary');
    writeFileSync(ws, `id: ${SID}\nname: "Fix \\"quotes\\": 100%"\nsummary: Old summary\n`);
    expect(title()).toBe('Fix "quotes": 100%');
    writeFileSync(ws, `id: ${SID}\nname: 'it''s named'\n`);
    expect(title()).toBe("it's named");
  });

  it('another format, binary data, a broken document: one problem each, nothing imported', () => {
    const dir = tempDir('arb-copilot-bad-');
    const other = join(dir, 'metrics.jsonl');
    writeFileSync(
      other,
      Array.from({ length: 20 }, (_, i) => `${JSON.stringify({ metric: 'cpu', n: i })}\n`).join(''),
    );
    expect(one(other).problems).toEqual([
      { file: other, line: 0, reason: 'no Copilot CLI events among 20 JSON lines (another format?)' },
    ]);
    const bin = join(dir, 'events.jsonl');
    writeFileSync(bin, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    expect(one(bin).problems).toEqual([{ file: bin, line: 0, reason: expect.stringMatching(/binary/) }]);
    const half = join(dir, 'session_x_1.json');
    writeFileSync(half, readFileSync(LEGACY_B, 'utf8').slice(0, 500));
    expect(one(half)).toMatchObject({
      turns: [],
      problems: [{ file: half, line: 0, reason: expect.stringMatching(/^not valid JSON/) }],
    });
    const notOurs = join(dir, 'package.json');
    writeFileSync(notOurs, '{"name":"x"}');
    expect(one(notOurs).problems).toEqual([
      { file: notOurs, line: 0, reason: expect.stringMatching(/no timeline/) },
    ]);
    const latin1 = join(dir, 'session_y_1.json');
    writeFileSync(latin1, Buffer.from([0x7b, 0xe9, 0x7d]));
    expect(one(latin1).problems).toEqual([
      { file: latin1, line: 0, reason: expect.stringMatching(/not UTF-8/) },
    ]);
  });

  it('a line of invalid UTF-8 in a log is one problem; the turn is kept', () => {
    const h = home();
    const all = readFileSync(EVENTS);
    const at = all.indexOf(10, all.indexOf(10) + 1); // after line 2
    writeFileSync(
      h.events,
      Buffer.concat([all.subarray(0, at + 1), Buffer.from([0xff, 0xfe, 0x0a]), all.subarray(at + 1)]),
    );
    const s = one(h.events);
    expect(s.problems).toEqual([{ file: h.events, line: 3, reason: 'invalid UTF-8; line skipped' }]);
    expect(s.turns).toHaveLength(1);
  });

  it('a session folder that cannot be read is a problem, the rest is imported', () => {
    const dir = tempDir('arb-copilot-locked-');
    chmodSync(dir, 0o777);
    const root = join(dir, '.copilot');
    const ok = join(root, 'session-state', SID);
    const locked = join(root, 'session-state', 'dddddddd-0000-4000-8000-000000000001');
    for (const d of [ok, locked]) mkdirSync(d, { recursive: true, mode: 0o777 });
    chmodSync(join(root, 'session-state'), 0o777);
    chmodSync(root, 0o777);
    cpSync(EVENTS, join(ok, 'events.jsonl'));
    cpSync(EVENTS, join(locked, 'events.jsonl'));
    chmodSync(join(ok, 'events.jsonl'), 0o644);
    chmodSync(locked, 0o000);
    const db = join(dir, 'sessions.db');
    // chmod 000 means nothing to root: the binary then runs as nobody, as tests/import/unreadable.test.ts does
    const args = [BIN, 'import', 'copilot', root, '--db', db, '--json'];
    const root0 = process.getuid?.() === 0;
    const r = root0
      ? spawnSync(
          'setpriv',
          ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...args],
          { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir } },
        )
      : spawnSync(process.execPath, args, { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir } });
    const doc = JSON.parse(r.stdout);
    expect(r.status).toBe(1);
    expect(doc.turns_added).toBe(1);
    expect(doc.problems).toEqual([{ file: locked, line: 0, reason: expect.stringMatching(/EACCES/) }]);
  });
});
