import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codexReader as reader } from '../../src/import/codex/index.js';
import type { ParsedSource, ParsedTurn } from '../../src/import/model.js';
import { BIN, cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

/**
 * The Codex CLI reader on real rollouts (tests/import/fixtures/codex/SOURCES.md): 0.39 (VS Code, Sep 2025),
 * 0.77 (exec, Jan 2026) and 0.125 (TUI, May 2026), plus hand-written files for the shapes no public file shows
 * (the bare first generation, a fork that copied its parent, a rollback), through the reader and the binary.
 */

const FIX = join(import.meta.dirname, 'fixtures', 'codex');
const HOME = join(FIX, 'home');
const S77 = '019b7f94-51b4-7593-922e-ba12b5b73b52';
const S125 = '019e1625-789d-76c0-80ab-3724b5ddb799';
const R77 = join(HOME, 'sessions/2026/01/02', `rollout-2026-01-02T18-39-45-${S77}.jsonl`);
const R125 = join(HOME, 'sessions/2026/05/11', `rollout-2026-05-11T11-26-55-${S125}.jsonl`);
const R39 = join(FIX, 'vibecodingtracker', 'codex.jsonl');
const HAND = join(FIX, 'hand');
const G1 = join(
  HAND,
  'sessions/2025/05/07/rollout-2025-05-07T17-24-21-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl',
);
const P = '019e4a1c-0000-7000-8000-00000000000a';
const F = '019e4a1c-0000-7000-8000-00000000000f';
const PARENT = join(HAND, 'sessions/2026/05/20', `rollout-2026-05-20T10-00-00-${P}.jsonl`);
const FORK = join(HAND, 'sessions/2026/05/20', `rollout-2026-05-20T11-00-00-${F}.jsonl`);
const T = (n: number) => `019e4a1c-1111-7000-8000-00000000000${n}`;
const ZST = join(FIX, 'archived-home/archived_sessions', `rollout-2026-01-02T18-39-45-${S77}.jsonl.zst`);

function one(file: string): ParsedSource {
  const all = [...reader.read(file)];
  expect(all).toHaveLength(1);
  return all[0];
}

/** What the writer keys and shows, without the raw lines and line numbers. */
function logical(turns: ParsedTurn[]) {
  return turns.map(({ raw: _raw, line: _line, ...rest }) => rest);
}

function fileLines(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
}

function importJson(args: string[], env?: NodeJS.ProcessEnv) {
  const r = cli(['import', 'codex', ...args, '--json'], { env });
  expect(r.stderr, r.stderr).not.toMatch(/this is a bug/);
  return { code: r.code, doc: r.json() };
}

describe('codex: the enveloped generation (0.125, TUI)', () => {
  const src = one(R125);

  it('one turn per typed prompt, keyed by its turn_id, injected AGENTS.md and developer text never a question', () => {
    expect(src.problems).toEqual([]);
    expect(src.turns.map((t) => [t.sourceId, t.parentSourceId, t.question])).toEqual([
      ['019e1625-d031-75e3-a85f-f143e43c0d84', null, 'show tools'],
      [
        '019e162b-0011-7240-abbc-f7b732e49728',
        '019e1625-d031-75e3-a85f-f143e43c0d84',
        "let's update the defailt context compart to 90 in env var",
      ],
    ]);
    expect(src.turns.every((t) => t.sourceSession === S125 && t.complete)).toBe(true);
    expect(src.turns.map((t) => t.createdAt)).toEqual([
      '2026-05-11T08:27:17.495Z',
      '2026-05-11T08:32:57.478Z',
    ]);
    expect(src.turns[0].cwd).toBe('/Users/Sample_User/repos/codemie-ai/codemie-code');
    expect(src.turns[0].line).toBe(7); // the user_message event
  });

  it('answers: text once, one line per tool call (exec_command, apply_patch, web_search), results without the exec header', () => {
    const [first, second] = src.turns.map((t) => t.answer);
    expect(first).toContain(
      "→ exec_command: sed -n '1,180p' /Users/Sample_User/.codex/plugins/cache/openai-curated/superpowers/",
    );
    expect(first).toContain('  name: using-superpowers');
    expect(first).not.toMatch(/Chunk ID:|Wall time:/);
    // a command still running when its call returned: no output yet, and the session write_stdin goes on with
    // (it read as a call with no result, its output under a write_stdin call nothing tied to it)
    expect(first).toMatch(
      /→ exec_command: sed -n [^\n]*\n\n {2}Process running with session ID 48230\n\n→ write_stdin: /,
    );
    expect(first.split('Available tool groups in this session:')).toHaveLength(2); // not repeated by agent_message
    expect(second).toContain('→ apply_patch: src/agents/plugins/__tests__/codemie-code-reasoning.test.ts');
    expect(second).toContain(
      '→ web_search: OpenCode config compact context percentage compact threshold env var OPENCODE_CONFIG_CONTENT',
    );
    expect(second).toContain('  write_stdin failed: stdin is closed for this session');
    // reasoning is never the answer (its encrypted blobs stay in raw)
    expect(first + second).not.toContain('encrypted_content');
  });

  it('raw: every line of the file, once, in order; records before a prompt open its turn', () => {
    const lines = fileLines(R125);
    expect(src.turns.flatMap((t) => t.raw)).toEqual(lines);
    expect(src.turns[0].raw).toHaveLength(19); // session_meta … task_complete
    expect(JSON.parse(src.turns[1].raw[0]).payload.type).toBe('task_started');
  });

  it('the session: id, start, cwd from session_meta', () => {
    expect(src.sessions).toEqual([
      {
        sourceSession: S125,
        createdAt: '2026-05-11T08:26:55.042Z',
        cwd: '/Users/Sample_User/repos/codemie-ai/codemie-code',
      },
    ]);
  });
});

describe('codex: older enveloped rollouts', () => {
  it('0.77 exec: no turn ids, so `<session>:<n>`; a rollout cut mid-turn leaves its turn incomplete', () => {
    const src = one(R77);
    expect(src.problems).toEqual([]);
    expect(src.turns).toHaveLength(1);
    const t = src.turns[0];
    expect(t).toMatchObject({
      sourceId: `${S77}:1`,
      parentSourceId: null,
      question: 'what is current repository about? summarize purpuse and explain goals',
      createdAt: '2026-01-02T16:39:45.350Z',
      cwd: '/Users/Nikita_Levyankov/repos/EPMCDME/codemie-ai/codemie-code',
      complete: false,
    });
    expect(t.answer.split('\n').filter((l) => l.startsWith('→ '))).toEqual([
      '→ shell: ls',
      "→ shell: rg --files -g 'AGENTS.md'",
      "→ shell: sed -n '1,160p' README.md",
    ]);
    expect(t.answer).toContain('  docs/AGENTS.md');
    expect(t.answer).not.toContain('Clarifying documentation instructions'); // agent_reasoning is not the answer
    expect(t.raw).toEqual(fileLines(R77));
  });

  it('0.39 VS Code: the IDE wrapper is taken off the prompt; the answer text is written once', () => {
    const src = one(R39);
    expect(src.problems).toEqual([]);
    expect(src.turns).toHaveLength(1);
    const t = src.turns[0];
    expect(t.question.startsWith('幫我檢查一下 go.mod 裡面 為何 go版本是 1.24?')).toBe(true);
    expect(t.question).not.toContain('My request for Codex');
    expect(t.answer.split('I’ll scan the repo for go.mod')).toHaveLength(2);
    expect(t.answer).toContain('→ update_plan: {"plan":');
    expect(t.answer).toContain('→ shell: ls -la');
    expect(t.answer).toContain('  patch rejected: empty patch');
    expect(t.answer).toContain('→ exec: await tools.apply_patch(patchText);');
    expect(src.sessions[0]).toMatchObject({
      sourceSession: '01996135-afde-7911-97f0-d863511eca56',
      cwd: '/proj/ds906659/gai/claude-code',
    });
  });
});

describe('codex: the bare first generation (hand-written after openai/codex codex-rs/core/src/rollout.rs)', () => {
  it('header, state lines and bare items: prompts are the user items, tools one line each, errors marked', () => {
    const src = one(G1);
    expect(src.problems).toEqual([]);
    const id = '5973b6c0-94b8-487b-a530-2aeb6098ae0e';
    expect(src.turns.map((t) => [t.sourceId, t.parentSourceId, t.question])).toEqual([
      [`${id}:1`, null, 'list the files'],
      [`${id}:2`, `${id}:1`, 'and the tests?'],
    ]);
    expect(src.turns[0].answer).toBe('→ shell: ls\n\n  README.md\n  src\n\nREADME.md and src.');
    expect(src.turns[1].answer).toBe(
      "→ shell: ls tests\n\n  error: ls: cannot access 'tests': No such file or directory\n\nThere is no tests folder.",
    );
    // No line has a time of its own: the header's is every turn's.
    expect(src.turns.map((t) => t.createdAt)).toEqual([
      '2025-05-07T17:24:21.123Z',
      '2025-05-07T17:24:21.123Z',
    ]);
    expect(src.turns.every((t) => t.complete)).toBe(true);
    expect(src.turns.flatMap((t) => t.raw)).toEqual(fileLines(G1));
    expect(src.sessions).toEqual([{ sourceSession: id, createdAt: '2025-05-07T17:24:21.123Z' }]);
  });
});

describe('codex: forks, rollbacks and steering (hand-written)', () => {
  it('a rollback re-parents the next prompt; a prompt sent into a running turn is its own turn', () => {
    const src = one(PARENT);
    expect(src.problems).toEqual([]);
    expect(src.turns.map((t) => [t.sourceId, t.parentSourceId])).toEqual([
      [T(1), null],
      [T(2), T(1)],
      [T(4), T(1)], // thread_rolled_back {num_turns: 1} dropped T2
      [`${T(4)}#2`, T(4)],
    ]);
    expect(src.turns[1].answer).toBe(
      '→ apply_patch: src/server.ts\n\n  Success. Updated the following files:\n  M src/server.ts\n\nDone: PORT now comes from the environment.',
    );
    expect(src.turns[2].answer).toContain(
      '→ exec_command: cat config.json\n\n  error: cat: config.json: No such file or directory',
    );
  });

  it("a fork's copied turns keep the parent's ids; its own first turn continues the parent's", () => {
    const src = one(FORK);
    expect(src.problems).toEqual([]);
    expect(src.turns.map((t) => [t.sourceId, t.parentSourceId, t.sourceSession])).toEqual([
      [T(1), null, F],
      [T(3), T(1), F],
    ]);
  });

  it('through the binary: the copy is not imported twice, in either order, and the fork hangs under the parent', () => {
    for (const order of [
      [PARENT, FORK],
      [FORK, PARENT],
    ]) {
      const dir = tempDir('arb-codex-fork-');
      const db = join(dir, 's.db');
      const a = importJson([order[0], '--db', db]).doc;
      const b = importJson([order[1], '--db', db]).doc;
      expect(a.problems).toEqual([]);
      expect(b.problems).toEqual([]);
      expect(a.turns_added + b.turns_added).toBe(5);
      expect(a.turns_skipped + b.turns_skipped).toBe(1);
      const sessions: { sid: string }[] = cli(['list', '--db', db, '--json']).json();
      expect(sessions).toHaveLength(2);
      type Node = { bates: string; parent_bates: string | null; source_id: string };
      const all: Node[] = sessions.flatMap((s) => cli(['tree', s.sid, '--db', db, '--json']).json());
      const bates = (id: string) => all.find((t) => t.source_id === id)?.bates;
      const parent = (id: string) => all.find((t) => t.source_id === id)?.parent_bates;
      expect(parent(T(3))).toBe(bates(T(1)));
      expect(parent(T(4))).toBe(bates(T(1)));
    }
  });
});

describe('codex: files, homes and discovery', () => {
  it('a zstd rollout in archived_sessions reads as the plain one; importing both adds nothing the second time', () => {
    const z = one(ZST);
    expect(z.problems).toEqual([]);
    expect(logical(z.turns)).toEqual(logical(one(R77).turns));
    const dir = tempDir('arb-codex-zst-');
    const db = join(dir, 's.db');
    expect(importJson([join(FIX, 'archived-home'), '--db', db]).doc).toMatchObject({
      turns_added: 1,
      problems: [],
    });
    const plain = importJson([R77, '--db', db]).doc;
    expect(plain).toMatchObject({ turns_added: 0, turns_skipped: 1, problems: [] });
  });

  it('discover: the home stands for sessions and archived_sessions, oldest first; other files and a .zst beside its plain file are left', () => {
    const dir = tempDir('arb-codex-home-');
    cpSync(HOME, dir, { recursive: true });
    cpSync(join(FIX, 'archived-home'), dir, { recursive: true });
    const day = join(dir, 'sessions/2026/05/11');
    const plain = join(day, `rollout-2026-05-11T11-26-55-${S125}.jsonl`);
    writeFileSync(`${plain}.zst`, execFileSync('zstd', ['-q', '-c'], { input: readFileSync(plain) }));
    writeFileSync(join(dir, 'session_index.jsonl'), '');
    writeFileSync(join(dir, 'history.jsonl'), '{"session_id":"x","ts":1,"text":"hi"}\n');
    mkdirSync(join(dir, 'log'));
    writeFileSync(join(dir, 'log', 'rollout-not-a-name.jsonl'), '');
    const rel = reader.discover(dir).map((f) => f.slice(dir.length + 1));
    expect(rel).toEqual([
      `archived_sessions/rollout-2026-01-02T18-39-45-${S77}.jsonl.zst`,
      `sessions/2026/01/02/rollout-2026-01-02T18-39-45-${S77}.jsonl`,
      `sessions/2026/05/11/rollout-2026-05-11T11-26-55-${S125}.jsonl`,
    ]);
    expect(reader.discover(join(dir, 'sessions')).map((f) => f.slice(dir.length + 1))).toEqual(rel.slice(1));
    expect(reader.discover(R77)).toEqual([R77]);
    expect(reader.discover(join(dir, 'nowhere'))).toEqual([]);
  });

  it('defaultPaths: CODEX_HOME when set and not empty, else ~/.codex', () => {
    expect(reader.defaultPaths({ CODEX_HOME: '/srv/codex', HOME: '/home/ana' })).toEqual(['/srv/codex']);
    expect(reader.defaultPaths({ CODEX_HOME: '', HOME: '/home/ana' })).toEqual(['/home/ana/.codex']);
    expect(reader.defaultPaths({ HOME: '/home/ana' })).toEqual(['/home/ana/.codex']);
  });

  it('`arborist import codex` with no path reads $CODEX_HOME; a second run adds nothing', () => {
    const dir = tempDir('arb-codex-env-');
    const home = join(dir, 'codex');
    cpSync(HOME, home, { recursive: true });
    const db = join(dir, 's.db');
    const env = { CODEX_HOME: home };
    const first = importJson(['--db', db], env);
    expect(first.code).toBe(0);
    expect(first.doc).toMatchObject({ files: 2, turns_added: 3, problems: [] });
    expect(importJson(['--db', db], env).doc).toMatchObject({ turns_added: 0, turns_skipped: 3 });
  });

  it("titles come from the home's session_index.jsonl, the newest name winning", () => {
    const dir = tempDir('arb-codex-title-');
    cpSync(HOME, dir, { recursive: true });
    writeFileSync(
      join(dir, 'session_index.jsonl'),
      [
        { id: S125, thread_name: 'context compaction', updated_at: '2026-05-11T09:00:00Z' },
        { id: 'other', thread_name: 'x', updated_at: '2026-05-11T09:00:00Z' },
        { id: S125, thread_name: 'compaction at 90%', updated_at: '2026-05-11T10:00:00Z' },
      ]
        .map((o) => JSON.stringify(o))
        .join('\n') + '\n{"id":',
    );
    const src = one(join(dir, 'sessions/2026/05/11', `rollout-2026-05-11T11-26-55-${S125}.jsonl`));
    expect(src.sessions[0].title).toBe('compaction at 90%');
    expect(
      one(join(dir, 'sessions/2026/01/02', `rollout-2026-01-02T18-39-45-${S77}.jsonl`)).sessions[0].title,
    ).toBeUndefined();
  });

  it('parallel calls: each output sits under its own call (call_id), in whatever order the outputs came', () => {
    // The first six lines of a hand rollout (its meta and first prompt), then two calls made together.
    const head = readFileSync(PARENT, 'utf8').split('\n').slice(0, 6);
    const at = (n: number) => `2026-05-20T10:00:0${n}.500Z`;
    const item = (n: number, payload: Record<string, unknown>) =>
      JSON.stringify({ timestamp: at(n), type: 'response_item', payload });
    const call = (n: number, id: string, cmd: string) =>
      item(n, {
        type: 'function_call',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd }),
        call_id: id,
      });
    const out = (n: number, id: string, text: string) =>
      item(n, {
        type: 'function_call_output',
        call_id: id,
        output: `Chunk ID: 0a1b2c\nWall time: 0.1000 seconds\nProcess exited with code 0\nOriginal token count: 9\nOutput:\n${text}\n`,
      });
    const dir = tempDir('arb-codex-parallel-');
    const f = join(dir, `rollout-2026-05-20T10-00-00-${P}.jsonl`);
    writeFileSync(
      f,
      `${[
        ...head,
        call(6, 'call_x', 'ls'),
        call(6, 'call_y', 'pwd'),
        out(7, 'call_y', '/home/ana/shop'),
        out(7, 'call_x', 'src'),
        item(8, { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] }),
        JSON.stringify({
          timestamp: at(9),
          type: 'event_msg',
          payload: { type: 'task_complete', turn_id: T(1) },
        }),
      ].join('\n')}\n`,
    );
    const [t] = one(f).turns;
    expect(t.answer).toBe('→ exec_command: ls\n\n  src\n\n→ exec_command: pwd\n\n  /home/ana/shop\n\ndone');
  });

  it('export --format source gives the real rollout back byte for byte', () => {
    const dir = tempDir('arb-codex-export-');
    const db = join(dir, 's.db');
    importJson([R125, '--db', db]);
    const [s] = cli(['list', '--db', db, '--json']).json();
    const out = join(dir, 'back.jsonl');
    const r = cli(['export', s.sid, '--format', 'source', '--out', out, '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(R125, 'utf8'));
  });
});

describe('codex: bad input', () => {
  const rollout = (dir: string, body: string | Buffer) => {
    const f = join(dir, `rollout-2026-03-01T09-00-00-${S125}.jsonl`);
    writeFileSync(f, body);
    return f;
  };

  it('binary data, a broken zstd frame and a Claude Code transcript are each one problem', () => {
    const dir = tempDir('arb-codex-bad-');
    const png = rollout(dir, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
    expect(one(png).problems).toEqual([{ file: png, line: 0, reason: 'binary data, not a Codex rollout' }]);
    const zst = join(dir, 'broken.jsonl.zst');
    writeFileSync(zst, Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), Buffer.alloc(20, 7)]));
    const z = one(zst);
    expect(z.problems).toHaveLength(1);
    expect(z.problems[0]).toMatchObject({
      line: 0,
      reason: expect.stringMatching(/^zstd-compressed rollout: .*; not read$/),
    });
    const claude = join(FIX, '..', 'corpus/claude-code/session_b.jsonl');
    expect(one(claude).problems).toEqual([
      {
        file: claude,
        line: 0,
        reason: expect.stringMatching(/^no Codex rollout lines among \d+ JSON lines/),
      },
    ]);
  });

  it('a bad line is one problem and the rest is read; a cut last line makes the newest turn wait', () => {
    const dir = tempDir('arb-codex-lines-');
    const lines = fileLines(R125);
    const broken = [...lines];
    broken[8] = `${broken[8].slice(0, 30)}`; // the first reasoning item
    broken[12] = '[1, 2]';
    const f = rollout(dir, `${broken.join('\n')}\n${lines[0].slice(0, 40)}`);
    const src = one(f);
    expect(src.problems.map((p) => [p.line, p.reason.replace(/ \(.*\)/, '')])).toEqual([
      [9, 'not valid JSON; skipped'],
      [13, 'not a JSON object; skipped'],
      [lines.length + 1, 'truncated last line; skipped'],
    ]);
    expect(src.turns.map((t) => t.question)).toEqual([
      'show tools',
      "let's update the defailt context compart to 90 in env var",
    ]);
    expect(src.turns[1]).toMatchObject({ complete: false, cut: true });
    expect(src.turns[0].complete).toBe(true);
  });

  it('invalid UTF-8 is a problem on its line; the file is still read', () => {
    const dir = tempDir('arb-codex-utf8-');
    const lines = fileLines(G1);
    const f = rollout(
      dir,
      Buffer.concat([
        Buffer.from(`${lines.slice(0, 3).join('\n')}\n`),
        Buffer.from([0xff, 0xfe, 0x0a]),
        Buffer.from(`${lines.slice(3).join('\n')}\n`),
      ]),
    );
    const src = one(f);
    expect(src.problems).toEqual([{ file: f, line: 4, reason: 'invalid UTF-8; line skipped' }]);
    expect(src.turns).toHaveLength(2);
  });

  it('a rollout with no session_meta takes its id from the file name, and says so', () => {
    const dir = tempDir('arb-codex-nometa-');
    const f = rollout(dir, `${fileLines(R125).slice(1).join('\n')}\n`);
    const src = one(f);
    expect(src.problems).toEqual([
      {
        file: f,
        line: 1,
        reason: `no session_meta line; the session id ${S125} is taken from the file name`,
      },
    ]);
    expect(src.sessions[0].sourceSession).toBe(S125);
  });

  it('a rollout with answers but no prompt is one `[no prompt]` turn; with neither, nothing', () => {
    const dir = tempDir('arb-codex-noprompt-');
    const lines = fileLines(R125).filter(
      (l) => !/"type":"(user_message|message)","(message|role)":"?(show tools|let|user)/.test(l),
    );
    const src = one(rollout(dir, `${lines.join('\n')}\n`));
    expect(src.turns.map((t) => [t.sourceId, t.question, t.parentSourceId])).toEqual([
      [`${S125}:0`, '[no prompt]', null],
    ]);
    expect(src.turns[0].answer).toContain('Available tool groups in this session:');
    const empty = one(rollout(dir, `${lines[0]}\n`));
    expect(empty).toMatchObject({ turns: [], sessions: [], problems: [] });
  });

  it('a prompt written event first, item second is still one prompt', () => {
    const dir = tempDir('arb-codex-order-');
    const lines = fileLines(R125);
    [lines[5], lines[6]] = [lines[6], lines[5]]; // the first prompt's item and event
    const src = one(rollout(dir, `${lines.join('\n')}\n`));
    expect(src.turns.map((t) => t.question)).toEqual([
      'show tools',
      "let's update the defailt context compart to 90 in env var",
    ]);
  });

  it('a sub-agent rollout marks its turns', () => {
    const dir = tempDir('arb-codex-sub-');
    const lines = fileLines(R125);
    const meta = JSON.parse(lines[0]);
    meta.payload.source = { subagent: { thread_spawn: { parent_thread_id: P, depth: 1 } } };
    meta.payload.agent_nickname = 'Euclid';
    const f = rollout(dir, `${[JSON.stringify(meta), ...lines.slice(1)].join('\n')}\n`);
    expect(one(f).turns.map((t) => t.note)).toEqual(['subagent Euclid', 'subagent Euclid']);
  });

  it('a FIFO under a rollout name is a problem and the rest is imported', () => {
    const dir = tempDir('arb-codex-fifo-');
    const day = join(dir, 'sessions/2026/01/02');
    mkdirSync(day, { recursive: true });
    cpSync(R77, join(day, `rollout-2026-01-02T18-39-45-${S77}.jsonl`));
    execFileSync('mkfifo', [join(day, `rollout-2026-01-02T19-00-00-${S125}.jsonl`)]);
    symlinkSync('/dev/zero', join(day, `rollout-2026-01-02T20-00-00-${P}.jsonl`));
    const r = importJson([dir, '--db', join(dir, 's.db')]);
    expect(r.code).toBe(1);
    expect(r.doc.turns_added).toBe(1);
    const reasons = r.doc.problems.map((p: { reason: string }) => p.reason);
    expect(reasons).toHaveLength(2);
    expect(reasons.some((x: string) => /not a regular file \(a FIFO\)/.test(x))).toBe(true);
    expect(reasons.some((x: string) => /not a regular file \(a character device\)/.test(x))).toBe(true);
  });

  it('a folder that cannot be read is a problem, never a silent gap', () => {
    const dir = tempDir('arb-codex-perm-');
    chmodSync(dir, 0o777);
    const home = join(dir, 'codex');
    cpSync(HOME, home, { recursive: true });
    execFileSync('chmod', ['-R', 'a+rwX', dir]);
    const locked = join(home, 'sessions/2026/05');
    chmodSync(locked, 0o000);
    const root = process.getuid?.() === 0;
    const [cmd, argv] = root
      ? ['setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, BIN]]
      : [process.execPath, [BIN]];
    const r = spawnSync(cmd, [...argv, 'import', 'codex', home, '--db', join(dir, 's.db'), '--json'], {
      env: { PATH: process.env.PATH, HOME: dir },
      encoding: 'utf8',
    });
    chmodSync(locked, 0o755);
    const doc = JSON.parse(r.stdout);
    expect(doc.turns_added).toBe(1);
    expect(doc.problems).toEqual([
      { file: locked, line: 0, reason: 'cannot read this folder (EACCES); its files are not imported' },
    ]);
  });
});
