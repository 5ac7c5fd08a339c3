import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { aiderReader as reader } from '../../src/import/aider/index.js';
import type { ParsedSource } from '../../src/import/model.js';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

const FIX = join(import.meta.dirname, 'fixtures', 'aider');
const ZEN = join(FIX, 'zen-mcp-server', '.aider.chat.history.md');
const RESTORED = join(FIX, 'simple_test_project', 'custom_aider_history.md');
const THINKING = join(FIX, 'agent_aider_worktree', 'custom_aider_history.md');

function one(file: string): ParsedSource {
  const all = [...reader.read(file)];
  expect(all).toHaveLength(1);
  return all[0];
}

/** The header's wall-clock time as this process reads it (aider writes local time without a zone). */
function local(y: number, mo: number, d: number, h: number, mi: number, s: number, ms = 0): string {
  return new Date(y, mo - 1, d, h, mi, s, ms).toISOString();
}

function importJson(args: string[], env: NodeJS.ProcessEnv = { TZ: 'UTC' }) {
  const r = cli(['import', 'aider', ...args, '--json'], { env });
  expect(r.stderr, r.stderr).not.toMatch(/this is a bug/);
  return { code: r.code, doc: r.json() };
}

function lines(file: string): string[] {
  const all = readFileSync(file, 'utf8').split('\n');
  return all.slice(0, -1); // the file ends with a line end
}

describe('aider reader: real chat histories', () => {
  it('zen-mcp-server: sessions, commands as prompts, multi-line prompts, sessions without a prompt', () => {
    const src = one(ZEN);
    expect(src.problems).toEqual([]);
    expect(src.kind).toBe('aider');
    // Four sessions; two hold prompts (the others were quit at a question or by ^C).
    expect(src.sessions.map((s) => s.createdAt)).toEqual([
      local(2025, 10, 20, 21, 49, 22),
      local(2025, 10, 23, 17, 4, 56),
    ]);
    expect(src.sessions.every((s) => s.cwd === join(FIX, 'zen-mcp-server'))).toBe(true);
    const t = src.turns;
    expect(t.map((x) => x.line)).toEqual([17, 54, 73, 80, 103, 106, 109, 115]);
    const [s1, s2] = src.sessions.map((s) => s.sourceSession);
    expect(s1).toMatch(/^2025-10-20T21:49:22~[0-9a-f]{12}$/);
    expect(t.map((x) => x.sourceId)).toEqual([
      `${s1}/1`,
      ...Array.from({ length: 7 }, (_, i) => `${s2}/${i + 1}`),
    ]);
    expect(t.map((x) => x.parentSourceId)).toEqual([
      null,
      null, // a new session without --restore-chat-history starts afresh
      `${s2}/1`,
      `${s2}/2`,
      `${s2}/3`,
      `${s2}/4`,
      `${s2}/5`,
      `${s2}/6`,
    ]);
    // Every turn of a session has the session's time, and its index in milliseconds.
    expect(t[2].createdAt).toBe(local(2025, 10, 23, 17, 4, 56, 1));
    expect(t[0].question).toBe('/add **');
    // A multi-line prompt: each line `#### ` and two trailing spaces, given back as the lines typed.
    expect(t[1].question.split('\n')).toHaveLength(8);
    expect(t[1].question).toMatch(
      /^\/add \/home\/dragonfsky\/git\/github\/zen-mcp-server\/utils\/file_utils\.py\n {2}\/home\/dragonfsky/,
    );
    // aider's own output is one `→ aider` call, its first lines the result.
    expect(t[1].answer).toBe(
      '→ aider\n\n  Added config.py to the chat\n  Added providers/shared/model_capabilities.py to the chat\n  Added server.py to the chat\n  … 7 more lines',
    );
    expect(t[2].question).toBe('/copy-context 请你分析一下我这列的处理，我想知道我');
    expect(t.every((x) => x.cwd === join(FIX, 'zen-mcp-server'))).toBe(true);
    // The newest turn of the file may still grow: no line says a reply is over.
    expect(t.map((x) => x.complete)).toEqual([true, true, true, true, true, true, true, false]);
  });

  it('zen-mcp-server: every line goes back out, the sessions without a prompt with the next turn', () => {
    const t = one(ZEN).turns;
    expect(t.flatMap((x) => x.raw)).toEqual(lines(ZEN));
    // The first session (no prompt) and the second's header travel with the second's first prompt.
    expect(t[0].raw.slice(0, 4)).toEqual([
      '',
      '# aider chat started at 2025-10-20 21:49:17',
      '',
      '> You can skip this check with --no-gitignore  ',
    ]);
    expect(t[0].raw).toContain('# aider chat started at 2025-10-20 21:49:22');
    // The session of 2025-10-22 had no prompt: its lines are the next turn's, before its own header.
    expect(t[1].raw.findIndex((l) => l.includes('2025-10-22 09:29:12'))).toBeLessThan(
      t[1].raw.findIndex((l) => l.includes('2025-10-23 17:04:56')),
    );
  });

  it('simple_test_project: a session that restored the chat hangs under the last turn before it', () => {
    const src = one(RESTORED);
    expect(src.problems).toEqual([]);
    const t = src.turns;
    expect(t).toHaveLength(6);
    expect(new Set(src.sessions.map((s) => s.sourceSession)).size).toBe(6);
    // The same first prompt in each session (a script ran aider with --message); the sessions stay apart.
    expect(new Set(t.map((x) => x.question)).size).toBe(1);
    expect(t[0].parentSourceId).toBeNull();
    for (let i = 1; i < 6; i++) expect(t[i].parentSourceId).toBe(t[i - 1].sourceId);
    // The model's text; each SEARCH/REPLACE block one `→ edit: FILE` line (its diff is the details'), its fence and
    // file line with it; aider's own output (edits applied, commits, lint runs) a `→ aider` call with a few lines.
    expect(t[0].answer).toMatch(/^Okay, I will address the issues reported by pylint/);
    expect(t[0].answer).toContain(
      'Here are the *SEARCH/REPLACE* blocks:\n\n→ edit: show_time.py\n\n→ edit: show_time.py\n\n→ edit: tests/test_show_time.py\n\n→ edit: notes.md\n\n→ aider\n\n  Tokens: 4.4k sent, 680 received.\n  Committing show_time.py before applying edits.',
    );
    expect(t[0].answer).not.toContain('<<<<<<< SEARCH');
    expect(t[0].answer).not.toContain('```python');
    expect(t[0].answer).toMatch(
      /Please add the contents of `\.pylintrc` to the chat so I can proceed\.\n\n→ aider\n\n {2}Tokens: 5\.4k sent, 168 received\.$/,
    );
    // Blocks aider refused stay text as written: a divider of eight `=` (`The LLM did not conform to the edit
    // format`), and aider's own message quoting a block that failed, under a heading that names no file.
    expect(t[5].answer).toContain('```python\n<<<<<<< SEARCH\n    assert "Ethereum" in result.stdout');
    expect(t[5].answer).toContain(
      '## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in notes.md\n<<<<<<< SEARCH',
    );
    expect(t.flatMap((x) => x.raw)).toEqual(lines(RESTORED));
  });

  it("agent_aider_worktree: the model's reasoning is left out of the answer, as aider leaves it out", () => {
    const src = one(THINKING);
    expect(src.problems).toEqual([]);
    const [t] = src.turns;
    expect(src.turns).toHaveLength(1);
    expect(t.answer).not.toContain('thinking-content');
    expect(t.answer).not.toContain("Okay, let's tackle this problem.");
    expect(t.answer).toMatch(/^I'll add more comprehensive tests for the test suite\./);
    // The reflections (lint errors sent back to the model) are aider's output inside the same turn, no prompt.
    expect(t.answer).toContain(
      '  Tokens: 10k sent, 587 received. Cost: $0.0069 message, $0.01 session.\n  Applied edit to README.md',
    );
    expect(t.answer).toContain('I see the issue - pylint is trying to parse the README.md as Python code.');
    expect(t.raw).toEqual(lines(THINKING));
  });

  it('discover walks a folder for .aider.chat.history.md, not into node_modules or .git, not other names', () => {
    const dir = tempDir('arb-aider-walk-');
    for (const d of ['app', 'app/node_modules/pkg', 'app/.git', 'lib/deep/er'])
      mkdirSync(join(dir, d), { recursive: true });
    for (const d of ['app', 'app/node_modules/pkg', 'app/.git', 'lib/deep/er'])
      cpSync(ZEN, join(dir, d, '.aider.chat.history.md'));
    cpSync(RESTORED, join(dir, 'lib', 'custom_aider_history.md'));
    expect(reader.discover(dir).sort()).toEqual([
      join(dir, 'app', '.aider.chat.history.md'),
      join(dir, 'lib', 'deep', 'er', '.aider.chat.history.md'),
    ]);
    expect(reader.discover(RESTORED)).toEqual([RESTORED]);
    expect(reader.defaultPaths({ HOME: dir })).toEqual([]);
  });
});

describe('aider through the binary', () => {
  it('imports files and folders given, once; export --format source gives the lines of turns back', () => {
    const dir = tempDir('arb-aider-cli-');
    const proj = join(dir, 'zen');
    mkdirSync(proj);
    cpSync(ZEN, join(proj, '.aider.chat.history.md'));
    const db = join(dir, 's.db');
    const r = importJson([dir, RESTORED, '--db', db]);
    expect(r.code).toBe(0);
    expect(r.doc).toMatchObject({ files: 2, sessions: 8, turns_added: 14, problems: [] });
    expect(importJson([dir, RESTORED, '--db', db]).doc).toMatchObject({ turns_added: 0, turns_skipped: 14 });
    const sessions: { sid: string; created_at: string }[] = cli(['list', '--db', db, '--json']).json();
    const zen = sessions
      .filter((s) => s.created_at.startsWith('2025-10'))
      .sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
    const out = zen.map((s) => {
      const x = cli(['export', s.sid, '--format', 'source', '--db', db]);
      expect(x.code, x.stderr).toBe(0);
      return x.stdout;
    });
    expect(out.join('')).toBe(readFileSync(ZEN, 'utf8'));
    // The times are the header's, read in the importing machine's zone (TZ).
    const first = cli(['tree', zen[0].sid, '--db', db, '--json']).json()[0];
    expect(cli(['show', first.bates, '--db', db, '--json']).json().created_at).toBe(
      '2025-10-20T21:49:22.000Z',
    );
    const tokyo = importJson([ZEN, '--db', join(dir, 'tokyo.db')], { TZ: 'Asia/Tokyo' });
    expect(tokyo.doc.turns_added).toBe(8);
    const [t0] = cli(['list', '--db', join(dir, 'tokyo.db'), '--json']).json();
    expect(t0.created_at).toMatch(/^2025-10-20T12:49:22/);
  });

  it('without PATH: one usage line saying to give the files or folders (aider has no home to look in)', () => {
    const dir = tempDir('arb-aider-usage-');
    const r = cli(['import', 'aider', '--db', join(dir, 's.db')], { env: { HOME: dir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^arborist: usage: arborist import aider PATH\.\.\. \(.*\.aider\.chat\.history\.md.*\)\n$/,
    );
    // `import` with no kind does not look for aider histories.
    const all = cli(['import', '--db', join(dir, 's.db'), '--json'], { env: { HOME: dir } });
    expect(all.code).toBe(0);
  });
});

describe('aider reader: bad input', () => {
  function write(name: string, text: string | Buffer): string {
    const f = join(tempDir('arb-aider-bad-'), name);
    writeFileSync(f, text);
    return f;
  }

  it('a file of another format is one problem', () => {
    const jsonl = write(
      'x.jsonl',
      `${Array.from({ length: 30 }, (_, i) => JSON.stringify({ n: i })).join('\n')}\n`,
    );
    expect(one(jsonl)).toMatchObject({
      turns: [],
      problems: [{ file: jsonl, line: 0, reason: expect.stringMatching(/^no aider chat in this file/) }],
    });
    const md = write('README.md', '# Title\n\n#### A heading\n\nText.\n');
    expect(one(md).problems).toHaveLength(1);
    const png = write('a.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0]));
    expect(one(png).problems).toEqual([
      { file: png, line: 0, reason: 'binary data, not an aider chat history' },
    ]);
  });

  it('a prompt line cut at the end of the file waits; CRLF lines, invalid UTF-8 and prompts before any header', () => {
    const head = '\n# aider chat started at 2026-01-02 03:04:05\n\n> Aider v0.86.1  \n';
    const cut = write('.aider.chat.history.md', `${head}\n#### first  \n\nOne.\n\n\n#### second`);
    const c = one(cut);
    expect(c.problems).toEqual([
      { file: cut, line: 11, reason: 'truncated last line (no line end: aider may still be writing it)' },
    ]);
    expect(c.turns.map((t) => [t.question, t.complete, t.cut ?? false])).toEqual([
      ['first', true, false],
      ['second', false, true],
    ]);

    const crlf = write('.aider.chat.history.md', `${head}\n#### q  \n\nA.\n\n`.replace(/\n/g, '\r\n'));
    expect(one(crlf).turns.map((t) => [t.question, t.answer])).toEqual([['q', 'A.']]);

    const bad = write(
      '.aider.chat.history.md',
      Buffer.concat([
        Buffer.from(`#### lost  \n${head}\n#### q  \n\nA `),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('\nB.\n'),
      ]),
    );
    const b = one(bad);
    expect(b.problems).toEqual([
      {
        file: bad,
        line: 1,
        reason: 'a prompt before the first "# aider chat started at" line: its time is unknown; not imported',
      },
      { file: bad, line: 9, reason: 'invalid UTF-8; line skipped' },
    ]);
    expect(b.turns.map((t) => [t.question, t.answer])).toEqual([['q', 'B.']]);
    expect(b.turns[0].raw[0]).toBe('#### lost  '); // the lines before the first session go with the first turn
  });
});
