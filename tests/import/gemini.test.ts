import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { geminiReader as reader } from '../../src/import/gemini/index.js';
import { headSessionId } from '../../src/import/gemini/inputs.js';
import { geminiDefaultPaths } from '../../src/import/gemini/paths.js';
import type { ParsedSource, ParsedTurn } from '../../src/import/model.js';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

/**
 * The Gemini CLI reader on the real chat files in tests/import/fixtures/gemini (SOURCES.md says where each came
 * from) and on the hand-written `shop` project for the shapes no public file shows (rewind, checkpoint, subagent,
 * tool results and nudges written as user messages, logs.json).
 */

const HOME = join(import.meta.dirname, 'fixtures', 'gemini', 'gemini-home');
const TMP = join(HOME, 'tmp');
const DISCORD = join(TMP, '9da8b3dfb8655182ac1f0e66601c367e34f8d18447a29759eeba4d7e45dc60ea', 'chats');
const VCT = join(TMP, 'ab14fe397f91d5f283525b3178d2314aef552f761131c42172a21b7bf735e73d', 'chats');
const JSONL = join(DISCORD, 'session-2026-04-23T12-52-0ab84937.jsonl');
const OLD_JSON = join(VCT, 'session-2025-10-11T11-58-d6f69999.json');
const NEW_JSON = join(VCT, 'session-2026-03-27T10-19-8a20078e.json');
const SHOP = join(TMP, 'shop');
const SHOP_CHAT = join(SHOP, 'chats', 'session-2026-08-01T09-00-5e551011.jsonl');
const SHOP_SID = '5e551011-2c3d-4e5f-8a9b-0c1d2e3f4a5b';
const AGENT = 'a9e0c4d2-7b6a-4f1e-9c3d-2b1a0f9e8d7c';

function one(file: string): ParsedSource {
  const all = [...reader.read(file)];
  expect(all).toHaveLength(1);
  return all[0];
}

/** `message <- parent message` of each turn, ids without their session part. */
function shape(turns: ParsedTurn[]): string[] {
  const tail = (s: string | null) => (s === null ? 'null' : s.slice(s.indexOf('/') + 1));
  return turns.map((t) => `${tail(t.sourceId)} <- ${tail(t.parentSourceId)}`);
}

describe('Gemini CLI: the JSONL generation (a real chat, VibeCodingTracker)', () => {
  const src = one(JSONL);
  const sid = '0ab84937-9fe7-4284-986a-33c832af0b6a';

  it('two prompts; a nudge of the CLI and the messages before the first prompt are no question', () => {
    expect(src.problems).toEqual([]);
    // line 4: what the user typed (`displayContent` "/init"), not the prompt the command expanded to;
    // line 18 ("System: Please continue.") is the CLI's, line 2 an info notice before any prompt.
    expect(src.turns.map((t) => t.question)).toEqual([
      '/init',
      '幫我做一個小修改 請幫我將上面確保執行時要透過 uv run 來執行 避免環境有問題',
    ]);
    expect(shape(src.turns)).toEqual([
      '8828dd6a-d778-464f-8160-eb2e1604a122 <- null',
      '231038fa-bbfb-4b43-9a30-b8b7fcf54895 <- 8828dd6a-d778-464f-8160-eb2e1604a122',
    ]);
    expect(src.turns.map((t) => [t.line, t.createdAt, t.sourceSession])).toEqual([
      [4, '2026-04-23T12:53:05.283Z', sid],
      [22, '2026-04-23T12:54:16.106Z', sid],
    ]);
  });

  it('answers: text, one line a tool call with its result, the last version of each message, no thoughts', () => {
    const [init, edit] = src.turns.map((t) => t.answer);
    expect(init).toContain('→ read_file: README.md\n\n  <div align="center" markdown="1">');
    expect(init).toContain('→ read_file: pyproject.toml');
    // the reply after the CLI's "System: Please continue." stays in the turn it continues
    expect(init).toContain('我已經完成了 `GEMINI.md` 的撰寫');
    expect(init).not.toContain("I'm now focused on generating the `GEMINI.md` file");
    // message 52e62e67 was written twice (without, then with its 5 calls): its calls are shown once
    expect(init.split('→ update_topic').length - 1).toBe(2);
    expect(edit).toContain('→ replace: GEMINI.md');
    expect(edit.endsWith('[info] Request cancelled.')).toBe(true);
    expect(src.turns.every((t) => t.complete)).toBe(true);
  });

  it('raw: every line of the file, once, in order; the project folder from projects.json (its SHA-256)', () => {
    const lines = readFileSync(JSONL, 'utf8').split('\n').slice(0, -1);
    expect(src.turns.flatMap((t) => t.raw)).toEqual(lines);
    expect(src.turns[0].raw.slice(0, 3)).toEqual(lines.slice(0, 3)); // header and the info before the prompt
    expect(src.turns.map((t) => t.cwd)).toEqual(['/home/wei/repo/discordbot', '/home/wei/repo/discordbot']);
    expect(src.sessions).toEqual([
      { sourceSession: sid, createdAt: '2026-04-23T12:52:52.759Z', cwd: '/home/wei/repo/discordbot' },
    ]);
  });
});

describe('Gemini CLI: the JSON generation (real chats, VibeCodingTracker)', () => {
  it('v0.8 (content as text): a tool result the CLI wrote as a user message is part of the answer', () => {
    const src = one(OLD_JSON);
    expect(src.problems).toEqual([]);
    expect(src.turns).toHaveLength(1);
    const [t] = src.turns;
    expect(t.question.startsWith('專案經過了多輪跌代 可能會產生')).toBe(true);
    expect(t.answer).toContain('  --- /home/wei/repo/VibeCodingTracker/src/cli.rs ---');
    expect(t.answer).not.toContain('[Function Response:');
    expect(t.answer).toContain('太好了！所有測試都通過了。');
    expect(t.line).toBe(8); // where the prompt's "id" is in the pretty-printed file
    expect(t.cwd).toBe('/home/wei/repo/VibeCodingTracker');
    // raw: the document without its messages, then each message, as JSON text
    const doc = JSON.parse(readFileSync(OLD_JSON, 'utf8'));
    const { messages, ...meta } = doc;
    expect(t.raw).toEqual([JSON.stringify(meta), ...messages.map((m: unknown) => JSON.stringify(m))]);
  });

  it('v0.35 (content as parts, tool calls with results)', () => {
    const src = one(NEW_JSON);
    expect(src.problems).toEqual([]);
    const [t] = src.turns;
    expect(t.question.startsWith('請幫我依照專案實際狀況更新 README.md')).toBe(true);
    const calls = t.answer.split('\n').filter((l) => l.startsWith('→ '));
    expect(calls).toEqual([
      '→ read_file: README.md',
      '→ read_file: README.zh-CN.md',
      '→ read_file: README.zh-TW.md',
      '→ write_file: README.md',
      '→ write_file: README.zh-CN.md',
      '→ write_file: README.zh-TW.md',
      '→ write_file: CONTRIBUTING.md',
    ]);
    expect(t.answer).toContain(
      '  Successfully created and wrote to new file: /home/wei/repo/VibeCodingTracker/CONTRIBUTING.md',
    );
    expect(src.sessions[0]).toMatchObject({ sourceSession: '8a20078e-2d5e-4f81-a640-9b879bbb7e6d' });
  });
});

describe('Gemini CLI: shapes no public file shows (the hand-written shop project)', () => {
  const src = one(SHOP_CHAT);
  const byQ = new Map(src.turns.map((t) => [t.question, t]));

  it('a rewind keeps both branches; a subagent hangs under the turn whose call started it', () => {
    expect(src.problems).toEqual([]);
    expect(shape(src.turns)).toEqual([
      'u1 <- null',
      'u2 <- u1', // rewound: still there, beside what followed
      'u3 <- u1',
      'u5 <- u3', // after the checkpoint ($set messages) of /compress
      'a1 <- u3', // the subagent's task, under the turn of the call with its agentId
    ]);
    const sub = byQ.get('Find which services listen on IPv6')!;
    expect(sub).toMatchObject({
      sourceId: `${AGENT}/a1`,
      sourceSession: SHOP_SID,
      note: 'subagent codebase_investigator',
      parentSourceId: `${SHOP_SID}/u3`,
    });
    expect(sub.answer).toContain('→ run_shell_command: ss -ltnp6');
  });

  it('injected context, tool results, the CLI nudge and a compaction summary are no questions', () => {
    expect(src.turns.map((t) => t.question)).toEqual([
      'List the open ports',
      'Which process holds 5432?',
      'Only the IPv6 ones?',
      'Thanks!',
      'Find which services listen on IPv6',
    ]);
    const first = byQ.get('List the open ports')!;
    // the result is in the call's record and again as a user message: shown once
    expect(first.answer.split('LISTEN 0.0.0.0:22').length - 1).toBe(1);
    const ipv6 = byQ.get('Only the IPv6 ones?')!;
    expect(ipv6.answer).toContain('None: every listener is IPv4.'); // the reply to "Please continue."
    // the checkpoint's copy of a message (its tool output masked) does not replace what the message line said
    expect(ipv6.answer).toContain('  No service listens on IPv6.');
    expect(ipv6.answer).not.toContain('tool_output_masked');
    expect(src.turns.some((t) => t.answer.includes('Got it. Thanks for the additional context!'))).toBe(
      false,
    );
    expect(src.turns.some((t) => t.question.includes('session_context'))).toBe(false);
  });

  it('title from the summary, project folder from .project_root, raw of the subagent from its own file', () => {
    expect(src.sessions).toEqual([
      {
        sourceSession: SHOP_SID,
        createdAt: '2026-08-01T09:00:00.000Z',
        title: 'Open ports on the shop server',
        cwd: '/home/ana/shop',
      },
    ]);
    expect(src.turns.every((t) => t.cwd === '/home/ana/shop')).toBe(true);
    const sub = byQ.get('Find which services listen on IPv6')!;
    const subFile = join(SHOP, 'chats', SHOP_SID, `${AGENT}.jsonl`);
    expect(sub.raw).toEqual(readFileSync(subFile, 'utf8').split('\n').slice(0, -1));
  });

  it('a subagent chat given by name is read alone, into the session of its folder', () => {
    const alone = one(join(SHOP, 'chats', SHOP_SID, `${AGENT}.jsonl`));
    expect(alone.turns.map((t) => [t.sourceId, t.sourceSession, t.parentSourceId, t.note])).toEqual([
      [`${AGENT}/a1`, SHOP_SID, null, 'subagent'],
    ]);
  });
});

describe('Gemini CLI: logs.json, read when named', () => {
  it('prompt-only turns for the sessions that have no chat file; the others are left to their chat', () => {
    const all = [...reader.read(join(SHOP, 'logs.json'))];
    expect(all).toHaveLength(1);
    const [src] = all;
    expect(src.problems).toEqual([]);
    const sid = '0b1d2c3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e';
    expect(
      src.turns.map((t) => [t.sourceId, t.parentSourceId, t.question, t.answer, t.note, t.line]),
    ).toEqual([
      [`${sid}/log:0`, null, 'What does the nginx config do?', '', 'prompt only (logs.json)', 2],
      [`${sid}/log:1`, `${sid}/log:0`, '/stats', '', 'prompt only (logs.json)', 9],
      [`${sid}/log:2`, `${sid}/log:1`, 'And the TLS part?', '', 'prompt only (logs.json)', 30],
    ]);
    expect(src.sessions).toEqual([
      { sourceSession: sid, createdAt: '2026-06-30T08:00:00.000Z', cwd: '/home/ana/shop' },
    ]);
  });
});

describe('Gemini CLI: where chats are and in which order', () => {
  it('~/.gemini/tmp, or under GEMINI_CLI_HOME', () => {
    expect(geminiDefaultPaths({ HOME: '/home/ana' })).toEqual(['/home/ana/.gemini/tmp']);
    expect(geminiDefaultPaths({ HOME: '/home/ana', GEMINI_CLI_HOME: '/srv/g' })).toEqual([
      '/srv/g/.gemini/tmp',
    ]);
  });

  it('every main chat, oldest first; not the subagent chats (read with their session), not logs.json', () => {
    expect(reader.discover(HOME)).toEqual([OLD_JSON, NEW_JSON, JSONL, SHOP_CHAT]);
    expect(reader.discover(SHOP_CHAT)).toEqual([SHOP_CHAT]);
  });

  it('a .json the CLI migrated to .jsonl on resume: the .json first, and the copy adds nothing', () => {
    const chats = join(tempDir('arb-gemini-mig-'), 'tmp', 'p', 'chats');
    mkdirSync(chats, { recursive: true });
    const json = join(chats, 'session-2026-03-27T10-19-8a20078e.json');
    cpSync(NEW_JSON, json);
    // What ChatRecordingService.initialize writes when it resumes a .json chat (gemini-cli v0.39+).
    const doc = JSON.parse(readFileSync(NEW_JSON, 'utf8'));
    const meta = {
      sessionId: doc.sessionId,
      projectHash: doc.projectHash,
      startTime: doc.startTime,
      lastUpdated: doc.lastUpdated,
      kind: doc.kind,
    };
    const lines = [meta, ...doc.messages, { $set: { sessionId: doc.sessionId } }].map((o) =>
      JSON.stringify(o),
    );
    writeFileSync(`${json}l`, `${lines.join('\n')}\n`);
    expect(reader.discover(join(chats, '..', '..'))).toEqual([json, `${json}l`]);
    const db = join(tempDir('arb-gemini-mig-db-'), 's.db');
    const r = cli(['import', 'gemini', join(chats, '..', '..'), '--db', db, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ files: 2, sessions: 1, turns_added: 1, turns_skipped: 1, problems: [] });
  });
});

describe('Gemini CLI: bad input never throws', () => {
  function write(name: string, text: string | Buffer): string {
    const f = join(tempDir('arb-gemini-bad-'), name);
    writeFileSync(f, text);
    return f;
  }

  it('binary data, another JSON document, a JSON chat cut in the middle: one problem each, no turn', () => {
    const bin = one(write('session-x.json', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2])));
    expect(bin.problems.map((p) => [p.line, p.reason])).toEqual([[0, 'binary data, not a JSONL transcript']]);
    const other = one(write('session-y.json', '{\n  "name": "pkg",\n  "version": "1.0.0"\n}\n'));
    expect(other.problems.map((p) => p.reason)).toEqual([
      'not a Gemini CLI chat file (no sessionId and messages)',
    ]);
    // the CLI itself loads a document with a sessionId and messages (no projectHash: another tool wrote it)
    const bare = one(
      write(
        'session-v.json',
        '{\n  "sessionId": "s9",\n  "messages": [{"id": "m1", "timestamp": "2026-01-01T00:00:00Z", "type": "user", "content": "hi"}]\n}',
      ),
    );
    expect(bare.problems).toEqual([]);
    expect(bare.turns.map((t) => [t.sourceId, t.question])).toEqual([['s9/m1', 'hi']]);
    const text = readFileSync(NEW_JSON, 'utf8');
    const cut = one(write('session-z.json', text.slice(0, text.length / 2)));
    expect(cut.turns).toEqual([]);
    expect(cut.problems.map((p) => p.reason)).toEqual([
      'the JSON document ends early (still being written?); not read',
    ]);
  });

  it('a rewind to a message not there, a bad time, invalid UTF-8: each a problem on its line; the rest is read', () => {
    const head = JSON.stringify({ sessionId: 's1', projectHash: 'h', startTime: '2026-01-01T00:00:00.000Z' });
    const rec = (o: object) => Buffer.from(`${JSON.stringify(o)}\n`);
    const f = write(
      'session-w.jsonl',
      Buffer.concat([
        Buffer.from(`${head}\n`),
        rec({ id: 'u1', timestamp: '2026-01-01T00:00:01.000Z', type: 'user', content: 'one' }),
        rec({ id: 'g1', timestamp: '2026-01-01T00:00:02.000Z', type: 'gemini', content: 'One.' }),
        rec({ $rewindTo: 'nope' }),
        Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]),
        rec({ id: 'u2', timestamp: 'yesterday', type: 'user', content: 'two' }),
        rec({ id: 'g2', timestamp: '2026-01-01T00:00:04.000Z', type: 'gemini', content: 'Two.' }),
      ]),
    );
    const src = one(f);
    expect(src.problems.map((p) => [p.line, p.reason])).toEqual([
      [4, 'rewind to message nope, which is not in the conversation; the CLI starts over from nothing'],
      [5, 'invalid UTF-8; line skipped'],
      [6, "missing or bad timestamp; the previous message's time is used"],
    ]);
    // after a rewind to nothing the conversation starts over: the next prompt is a root
    expect(shape(src.turns)).toEqual(['u1 <- null', 'u2 <- null']);
    expect(src.turns[1].createdAt).toBe('2026-01-01T00:00:02.000Z');
  });
});

describe('Gemini CLI: through the binary', () => {
  it('imports every chat once, adds nothing the second time; export --format source gives a JSONL chat back', () => {
    const dir = tempDir('arb-gemini-cli-');
    const db = join(dir, 's.db');
    const r = cli(['import', 'gemini', TMP, '--db', db, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ files: 4, sessions: 4, turns_added: 9, problems: [] });
    const again = cli(['import', 'gemini', TMP, '--db', db, '--json']).json();
    expect(again).toMatchObject({ turns_added: 0, turns_skipped: 9, problems: [] });

    const sessions: { sid: string; created_at: string }[] = cli(['list', '--db', db, '--json']).json();
    const sidAt = (at: string) => sessions.find((s) => s.created_at === at)!.sid;
    const back = join(dir, 'back.jsonl');
    const x = cli([
      'export',
      sidAt('2026-04-23T12:52:52.759Z'),
      '--format',
      'source',
      '--out',
      back,
      '--db',
      db,
    ]);
    expect(x.code, x.stderr).toBe(0);
    expect(readFileSync(back, 'utf8')).toBe(readFileSync(JSONL, 'utf8'));

    // A JSON-generation chat comes back as the JSONL generation (header line, a line a message), which the CLI
    // loads too (loadConversationRecord); read again, it gives the same turns.
    const legacy = join(dir, 'chats', 'session-2025-10-11T11-58-d6f69999.jsonl');
    mkdirSync(join(dir, 'chats'));
    const y = cli([
      'export',
      sidAt('2025-10-11T11:58:27.603Z'),
      '--format',
      'source',
      '--out',
      legacy,
      '--db',
      db,
    ]);
    expect(y.code, y.stderr).toBe(0);
    const strip = (ts: ParsedTurn[]) => ts.map(({ raw: _r, line: _l, cwd: _c, ...rest }) => rest);
    expect(strip(one(legacy).turns)).toEqual(strip(one(OLD_JSON).turns));
  });
});

describe('importing again (docs/import.md, "Files that did not change")', () => {
  it('passes over every chat of the real home that did not change, JSONL and the JSON generation alike', () => {
    const home = join(tempDir('arb-gemini-again-'), '.gemini');
    cpSync(HOME, home, { recursive: true });
    const db = join(home, '..', 'sessions.db');
    const run = () => {
      const r = cli(['import', 'gemini', join(home, 'tmp'), '--db', db, '--json']);
      expect(r.code, r.stderr).toBe(0);
      return r.json() as {
        files: number;
        files_unchanged: number;
        turns_added: number;
        turns_skipped: number;
      };
    };
    const first = run();
    const again = run();
    expect(first.files_unchanged).toBe(0);
    // Four chats: two JSONL (one with a subagent chat beside it), two of the JSON generation.
    expect(first.files).toBe(4);
    expect(again).toMatchObject({ files: 4, files_unchanged: 4, turns_added: 0 });
    expect(again.turns_skipped).toBe(first.turns_added);
  });

  it('takes the session id from the head of either generation, and nothing it cannot be sure of', () => {
    expect(headSessionId('{"sessionId":"0ab8-9f","projectHash":"x","kind":"main"}\n{"id":"m1"}\n')).toBe(
      '0ab8-9f',
    );
    expect(
      headSessionId('{\n  "sessionId": "8a20078e-2d5e",\n  "projectHash": "ab14",\n  "messages": ['),
    ).toBe('8a20078e-2d5e');
    // Not first, escaped, or no metadata line: undefined, and the chat is read every time.
    expect(headSessionId('{\n  "messages": [],\n  "sessionId": "late"')).toBeUndefined();
    expect(headSessionId('{\n  "sessionId": "a\\u0062",')).toBeUndefined();
    expect(headSessionId('{"id":"m1","type":"user"}\n')).toBeUndefined();
    expect(headSessionId('')).toBeUndefined();
  });
});
