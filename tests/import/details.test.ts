/**
 * The readers' details (src/import/details.ts) on real files other projects committed (tests/import/fixtures),
 * imported by the built binary and read back from the shard's source records, as the browser does. Every turn's
 * calls must line up with the calls its stored answer shows (name by name, in order), so call i of the answer is
 * call i of the details.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type TurnDetails, turnDetails } from '../../src/import/details.js';
import { dbOf } from '../../src/store/testing.js';
import { sanitize } from '../../src/text/sanitize.js';
import { parseAnswer } from '../../src/ui/features/transcript/calls.js';
import { cli } from '../support/cli.js';
import { openShard } from '../support/shard.js';
import { tempDb, tempDir } from '../support/tmp.js';

const FIX = fileURLToPath(new URL('./fixtures', import.meta.url));

interface Read {
  answer: string;
  details: TurnDetails | null;
}

/** Imports `path` as `kind` and reads every turn's details from its records. */
function importAndRead(kind: string, path: string): Read[] {
  const db = tempDb();
  const r = cli(['import', kind, path, '--db', db], { env: { HOME: '/nonexistent' } });
  expect(r.code === 0 || r.code === 1, r.stderr).toBe(true);
  const s = openShard(db, { readonly: true });
  const rows = dbOf(s).prepare('SELECT bates, sid, answer_text FROM nodes ORDER BY bates').all() as {
    bates: string;
    sid: string;
    answer_text: string;
  }[];
  expect(rows.length).toBeGreaterThan(0);
  return rows.map((n) => {
    const records = s.sourceRecords(n.bates);
    const source = s.sourceOfSession(n.sid)?.source ?? '';
    return { answer: n.answer_text, details: records ? turnDetails(source, records) : null };
  });
}

/** Every turn's details calls carry the names of its answer's calls, in order. */
function expectAligned(turns: Read[]): void {
  for (const t of turns) {
    expect(t.details).not.toBeNull();
    const shown = parseAnswer(sanitize(t.answer)).flatMap((p) => (p.kind === 'call' ? [p.name] : []));
    expect(t.details!.calls.map((c) => sanitize(c.name || 'tool'))).toEqual(shown);
  }
}

const all = <T>(turns: Read[], f: (d: TurnDetails) => T[]): T[] =>
  turns.flatMap((t) => (t.details ? f(t.details) : []));

describe('turn details from source records', () => {
  it("Claude Code: Edit and MultiEdit as replacements, whole inputs, results by tool_use_id (claude-code-log's corpus)", () => {
    const turns = importAndRead('claude', join(FIX, 'corpus/claude-code'));
    expectAligned(turns);
    const calls = all(turns, (d) => d.calls);
    const edit = calls.find((c) => c.name === 'Edit')!;
    expect(edit.edit).toMatchObject({ kind: 'replace', file: '/tmp/decorator_example.py' });
    expect(edit.edit?.kind === 'replace' && edit.edit.pairs[0].new).toContain('def repeat(times):');
    const multi = calls.find((c) => c.name === 'MultiEdit')!;
    expect(multi.edit).toMatchObject({ kind: 'replace', file: '/tmp/complex_example.py' });
    expect(multi.edit?.kind === 'replace' && multi.edit.pairs[0].new).toMatch(/^#!\/usr\/bin\/env python3\n/);
    // The whole input, not the one argument the answer keeps: TodoWrite's list of todos.
    const todo = calls.find((c) => c.name === 'TodoWrite')!;
    expect(Array.isArray((todo.input as { todos: unknown }).todos)).toBe(true);
    expect(calls.filter((c) => c.result).length).toBeGreaterThan(0);
  });

  it('Claude Code: a thinking block, which the answer leaves out, is read back (odd-lines.jsonl, written for these tests)', () => {
    const turns = importAndRead('claude', join(FIX, 'claude/odd-lines.jsonl'));
    expectAligned(turns);
    const t = turns.find((x) => x.answer.startsWith('answer to an empty prompt'))!;
    expect(t.answer).not.toContain('secret reasoning');
    expect(t.details!.thinking).toEqual([{ text: 'secret reasoning', redacted: false, before: 0 }]);
    expect(t.details!.calls[0]).toMatchObject({
      name: 'Bash',
      input: { command: 'sleep 100' },
      result: { text: 'partial output', error: true },
    });
  });

  it('Codex: reasoning summaries, encrypted reasoning said as redacted, apply_patch as a patch, outputs by call_id', () => {
    const turns = importAndRead('codex', join(FIX, 'codex/home'));
    expectAligned(turns);
    const thinking = all(turns, (d) => d.thinking);
    expect(thinking.some((t) => t.text.startsWith('**Clarifying documentation instructions**'))).toBe(true);
    expect(thinking.some((t) => t.redacted && t.text === '')).toBe(true);
    const patch = all(turns, (d) => d.calls).find((c) => c.name === 'apply_patch')!;
    expect(patch.edit?.kind).toBe('patch');
    expect(patch.edit?.kind === 'patch' && patch.edit.patch).toMatch(
      /^\*\*\* Begin Patch\n\*\*\* Update File: /,
    );
    expect(all(turns, (d) => d.calls).filter((c) => c.result).length).toBeGreaterThan(100);
    expectAligned(importAndRead('codex', join(FIX, 'codex/hand')));
  });

  it("Pi: thinking, edit {path, oldText, newText}, results by toolCallId; pi's author's own session too", () => {
    const turns = importAndRead('pi', join(FIX, 'pi/agent'));
    expectAligned(turns);
    expect(all(turns, (d) => d.thinking).map((t) => t.text)).toContain(
      'The CI workflow may pin another Node version.',
    );
    const edit = all(turns, (d) => d.calls).find((c) => c.name === 'edit')!;
    expect(edit.edit).toEqual({
      kind: 'replace',
      file: '.github/workflows/ci.yml',
      pairs: [{ old: 'node-version: 18', new: 'node-version: 20' }],
    });
    expect(edit.result?.text).toContain('Successfully replaced text');
    const large = importAndRead('pi', join(FIX, 'pi/pi-mono/large-session.jsonl'));
    expectAligned(large);
    expect(all(large, (d) => d.calls).filter((c) => c.edit).length).toBeGreaterThan(100);
    expect(all(large, (d) => d.thinking).length).toBeGreaterThan(0);
  });

  it('OpenClaw (pi-format): thinking and an edit', () => {
    const turns = importAndRead('openclaw', join(FIX, 'openclaw/home'));
    expectAligned(turns);
    expect(all(turns, (d) => d.thinking).map((t) => t.text)).toContain('The user wants a listing; run ls.');
    expect(all(turns, (d) => d.calls).find((c) => c.name === 'edit')?.edit).toMatchObject({
      kind: 'replace',
      file: 'src/checkout.ts',
    });
  });

  it('Gemini CLI: thoughts (subject and description), replace and write_file as edits, results', () => {
    const turns = importAndRead('gemini', join(FIX, 'gemini/gemini-home'));
    expectAligned(turns);
    expect(all(turns, (d) => d.thinking).some((t) => t.text.startsWith('Initiating File Generation\n'))).toBe(
      true,
    );
    const calls = all(turns, (d) => d.calls);
    expect(calls.find((c) => c.name === 'replace')?.edit).toMatchObject({
      kind: 'replace',
      file: 'GEMINI.md',
    });
    expect(calls.find((c) => c.name === 'write_file')?.edit?.kind).toBe('write');
    expect(calls.every((c) => c.result !== undefined)).toBe(true);
  });

  it("OpenCode, both generations: reasoning, a write as the new file, results; a fork's copied records stay out", () => {
    for (const path of ['opencode/storage-1.1.65/storage', 'opencode/db-1.18.33/opencode.db']) {
      const turns = importAndRead('opencode', join(FIX, path));
      // The fork's first turn carries the copied turns' records before its own: their calls and reasoning are not its.
      expectAligned(turns);
      expect(all(turns, (d) => d.thinking).map((t) => t.text)).toEqual([
        'The user wants a listing; ls will do.',
      ]);
      const write = all(turns, (d) => d.calls).find((c) => c.name === 'write')!;
      expect(write.edit).toEqual({ kind: 'write', file: 'todo.txt', content: 'buy milk\n' });
      expect(write.result).toEqual({ text: 'Wrote file successfully.', error: false });
    }
  });

  it('Copilot CLI event log: reasoningText as thinking, whole arguments, parallel results by toolCallId', () => {
    const turns = importAndRead('copilot', join(FIX, 'copilot/events-1.0.34.jsonl'));
    expectAligned(turns);
    const [t] = turns;
    // Four of the six messages carry reasoningText (line 9's first); the answer leaves it out.
    expect(t.details!.thinking).toHaveLength(4);
    expect(t.details!.thinking[0]).toMatchObject({ redacted: false, before: 0 });
    expect(t.details!.thinking[0].text).toMatch(
      /^The user wants me to investigate documentation generation tools/,
    );
    expect(t.answer).not.toContain('The user wants me to investigate');
    const calls = t.details!.calls;
    expect(calls.find((c) => (c.input as { command?: string }).command?.startsWith('ls '))).toEqual({
      name: 'bash',
      input: {
        command: 'ls /home/wei/repo/VibeCodingTracker/.github/workflows/',
        description: 'List existing GitHub Actions workflows',
      },
      result: {
        text: 'auto_labeler.yml       build_image.yml\t  code-quality-check.yml  pre-commit-updater.yml  semantic-pull-request.yml\nauto_review_merge.yml  build_release.yml  code_scan.yml\t\t  release_drafter.yml\t  test.yml\n<exited with exit code 0>',
        error: false,
      },
    });
    // Lines 21-26: three calls started, their results in another order; each finds its own by toolCallId.
    expect(calls.slice(4, 7).map((c) => [c.name, c.result?.text.slice(0, 12)])).toEqual([
      ['web_search', 'Here’s a ste'],
      ['view', 'analysis\ncac'],
      ['view', 'CODEOWNERS\nI'],
    ]);
    expect(calls.every((c) => c.result !== undefined)).toBe(true);
  });

  it('Copilot CLI legacy documents: str_replace_editor str_replace and create as edits, results from the log', () => {
    const turns = [
      ...importAndRead('copilot', join(FIX, 'copilot/legacy/conversation-bcec23f.json')),
      ...importAndRead('copilot', join(FIX, 'copilot/legacy/conversation-28787d5.json')),
    ];
    expectAligned(turns);
    const calls = all(turns, (d) => d.calls);
    expect(calls.filter((c) => c.edit?.kind === 'replace').length).toBe(20);
    expect(calls.find((c) => c.edit?.kind === 'replace')).toMatchObject({
      name: 'str_replace_editor',
      edit: {
        kind: 'replace',
        file: '/home/wei/repo/VibeCodingTracker/src/cli.rs',
        pairs: [
          {
            old: '/// Vibe Coding Tracker - AI coding assistant usage analyzer',
            new: '/// Vibe Code Tracker - AI coding assistant usage analyzer',
          },
        ],
      },
      result: { error: false },
    });
    const create = calls.find((c) => c.edit?.kind === 'write')!;
    expect(create.edit).toEqual({
      kind: 'write',
      file: '/home/wei/repo/VibeCodingTracker/CHANGELOG_DEMO.md',
      content: '# 專案名稱變更記錄\n\n- 2025-10-11: 將 "Vibe Coding Tracker" 簡化為 "Vibe Code Tracker"\n',
    });
    // A view's whole result: the log, all of it, where the answer keeps its first lines.
    const view = calls.find((c) => (c.input as { command?: string }).command === 'view')!;
    expect(view.result!.text.split('\n').length).toBeGreaterThan(20);
    expect(all(turns, (d) => d.thinking)).toEqual([]);
  });

  it('Copilot CLI: a legacy session resumed by a newer CLI (session.import_legacy): the turn carrying it reads its own part of the timeline', () => {
    const fileA = join(FIX, 'copilot/legacy/conversation-28787d5.json');
    const fileB = join(FIX, 'copilot/legacy/conversation-bcec23f.json');
    type Doc = { sessionId: string; startTime: string; timeline: unknown[] };
    const a = JSON.parse(readFileSync(fileA, 'utf8')) as Doc;
    const b = JSON.parse(readFileSync(fileB, 'utf8')) as Doc;
    // One legacy session of two prompts (b's, then a's): loadLegacySession writes session.start, then the document.
    const legacy = { ...b, timeline: [...b.timeline, ...a.timeline] };
    const dir = join(tempDir('arb-copilot-details-'), 'session-state', b.sessionId);
    mkdirSync(dir, { recursive: true });
    const ev = (type: string, data: unknown, n: number) =>
      JSON.stringify({ type, data, id: `aaaaaaaa-0000-4000-8000-00000000000${n}`, timestamp: b.startTime });
    const lines = [
      ev('session.start', { sessionId: b.sessionId, startTime: b.startTime }, 1),
      ev('session.import_legacy', { legacySession: legacy, importTime: b.startTime }, 2),
      ev('user.message', { content: 'One more thing' }, 3),
      ev('assistant.message', { messageId: 'm', content: 'Done.', toolRequests: [] }, 4),
    ];
    writeFileSync(join(dir, 'events.jsonl'), `${lines.join('\n')}\n`);
    const migrated = importAndRead('copilot', join(dir, 'events.jsonl'));
    expect(migrated).toHaveLength(3);
    // The first turn carries the line (and the whole timeline): its details stop at the second prompt.
    expectAligned([migrated[0], migrated[2]]);
    expect(migrated[0].details).toEqual(importAndRead('copilot', fileB)[0].details);
    expect(migrated[0].details!.calls).toHaveLength(15);
    // The second legacy turn owns no record of its own: no details, so the transcript shows its answer's lines.
    expect(migrated[1].details).toEqual({ thinking: [], calls: [] });
    expect(migrated[2].details).toEqual({ thinking: [], calls: [] });
  });

  it('Copilot CLI: edit, create and apply_patch of the event log as edits (the arguments github/copilot-sdk records)', () => {
    const ev = (type: string, data: unknown) => JSON.stringify({ type, data, id: 'e', timestamp: '' });
    // github/copilot-sdk test/snapshots/builtin_tools/should_edit_a_file_successfully.yaml, should_create_a_new_file.yaml
    const requests = [
      {
        toolCallId: 'a',
        name: 'edit',
        arguments: { path: 'edit_me.txt', old_str: 'Hello World', new_str: 'Hi Universe' },
      },
      { toolCallId: 'b', name: 'create', arguments: { path: 'new_file.txt', file_text: 'Created by test' } },
      {
        toolCallId: 'c',
        name: 'apply_patch',
        arguments: '*** Begin Patch\n*** Add File: x\n+y\n*** End Patch',
      },
      { toolCallId: 'd', name: 'edit', arguments: { path: 'gone.txt', old_str: 'drop me' } },
    ];
    const records = [
      ev('user.message', { content: 'edit it' }),
      ev('assistant.message', { content: '', toolRequests: requests }),
      ev('tool.execution_complete', {
        toolCallId: 'a',
        success: true,
        result: { content: 'File edit_me.txt updated with changes.' },
      }),
      ev('tool.execution_complete', {
        toolCallId: 'd',
        success: false,
        error: { message: 'No match found' },
      }),
    ];
    const d = turnDetails('copilot', Buffer.from(`${records.join('\n')}\n`))!;
    expect(d.calls.map((c) => c.edit)).toEqual([
      { kind: 'replace', file: 'edit_me.txt', pairs: [{ old: 'Hello World', new: 'Hi Universe' }] },
      { kind: 'write', file: 'new_file.txt', content: 'Created by test' },
      { kind: 'patch', patch: '*** Begin Patch\n*** Add File: x\n+y\n*** End Patch' },
      { kind: 'replace', file: 'gone.txt', pairs: [{ old: 'drop me', new: '' }] },
    ]);
    expect(d.calls[0].result).toEqual({ text: 'File edit_me.txt updated with changes.', error: false });
    expect(d.calls[3].result).toEqual({ text: 'No match found', error: true });
  });

  it("Copilot CLI: an assistant.reasoning event and its message's reasoningText are one block; opaque reasoning is redacted", () => {
    const ev = (type: string, data: unknown) => JSON.stringify({ type, data, id: 'e', timestamp: '' });
    const records = [
      ev('user.message', { content: 'go' }),
      ev('assistant.reasoning', { reasoningId: 'r1', content: 'Checking.' }),
      ev('assistant.message', {
        content: '',
        reasoningText: 'Checking.',
        toolRequests: [{ toolCallId: 'a', name: 'view', arguments: { path: '.' } }],
      }),
      ev('assistant.message', { content: '', reasoningText: 'Checking.', toolRequests: [] }),
      ev('assistant.message', { content: 'done', reasoningOpaque: 'AAAA' }),
      // a sub-agent's reasoning stays out, as its calls do
      JSON.stringify({ type: 'assistant.reasoning', agentId: 'x', data: { content: 'sub-agent' } }),
    ];
    const d = turnDetails('copilot', Buffer.from(`${records.join('\n')}\n`))!;
    expect(d.thinking).toEqual([
      { text: 'Checking.', redacted: false, before: 0 },
      { text: 'Checking.', redacted: false, before: 1 },
      { text: '', redacted: true, before: 1 },
    ]);
  });

  it('Copilot CLI: odd records among the real ones give the rest', () => {
    const real = readFileSync(join(FIX, 'copilot/events-1.0.34.jsonl'), 'utf8').split('\n');
    const whole = turnDetails('copilot', Buffer.from(real.join('\n')))!;
    const odd = [
      '{"type":"assistant.message","data":{"toolRequests":[null,5,"x"],"reasoningText":7}}',
      '{"type":"tool.execution_complete","data":{"toolCallId":"of-an-earlier-turn"}}',
      '{"type":"session.import_legacy","data":{"legacySession":{"timeline":"no"}}}',
      '{"type":"tool.execution_start","data":null}',
      '{"cut": ',
      '[1,2]',
    ];
    const mixed = [...real.slice(0, 10), ...odd, ...real.slice(10)].join('\n');
    expect(turnDetails('copilot', Buffer.from(mixed))).toEqual(whole);
    expect(whole.calls.length).toBeGreaterThan(10);
  });

  it("aider: SEARCH/REPLACE blocks as edits, aider's whole output, the reasoning the answer leaves out (three projects' histories)", () => {
    const A = (p: string) => join(FIX, 'aider', p);
    const restored = importAndRead('aider', A('simple_test_project/custom_aider_history.md'));
    const thinking = importAndRead('aider', A('agent_aider_worktree/custom_aider_history.md'));
    const zen = importAndRead('aider', A('zen-mcp-server/.aider.chat.history.md'));
    for (const turns of [restored, thinking, zen]) expectAligned(turns);
    // An edit: the file named on the line before its fence, the search and replace text as one pair.
    const edit = all(thinking, (d) => d.calls).find((c) => c.name === 'edit')!;
    expect(edit.input).toEqual({ path: 'tests/test_readme.py' });
    expect(edit.edit).toMatchObject({ kind: 'replace', file: 'tests/test_readme.py' });
    const pair = edit.edit?.kind === 'replace' ? edit.edit.pairs[0] : undefined;
    expect(pair?.old).toMatch(/^def test_readme_contents\(\):\n/);
    expect(pair?.new).not.toContain('=======');
    expect(pair?.new.endsWith('\n')).toBe(true);
    // aider's output whole: the lint run it fed back to the model, cut to a few lines in the answer.
    const outputs = all(restored, (d) => d.calls).filter((c) => c.name === 'aider');
    const lint = outputs.find((c) => c.result?.text.startsWith('Tokens: 4.4k sent, 680 received.'))!;
    expect(lint.result!.text).toContain('## Running: pylint notes.md');
    expect(lint.result!.text).toContain('Attempt to fix lint errors? (Y)es/(N)o [Yes]: y');
    expect(lint.result!.text).not.toMatch(/ {2}$/m); // aider's markdown line breaks are not the text
    const kept = lint.result!.text.split('\n').filter((l) => l.trim() !== '').length - 3;
    expect(restored.some((x) => x.answer.includes(`  Tokens: 4.4k sent, 680 received.\n`))).toBe(true);
    expect(restored.some((x) => x.answer.includes(`  … ${kept} more lines`))).toBe(true);
    // A block aider refused stays text: its heading names no file, so no edit has a name with spaces.
    expect(
      all(restored, (d) => d.calls).every((c) => !/\s/.test((c.input as { path?: string }).path ?? '')),
    ).toBe(true);
    // The reasoning between aider's tags, before the calls that came after it.
    const [t] = thinking;
    expect(t.details!.thinking).toHaveLength(4);
    expect(t.details!.thinking[0]).toMatchObject({ before: 0, redacted: false });
    expect(t.details!.thinking[0].text).toMatch(/^Okay, let's tackle this problem\./);
    expect(t.details!.thinking[1].before).toBe(3);
    // Turns of aider's output only (in-chat commands).
    expect(zen.every((x) => x.details!.calls.every((c) => c.name === 'aider' && c.result))).toBe(true);
  });

  it('a source with no details reader, and records no reader can follow, give what the answer keeps', () => {
    expect(turnDetails('llm', Buffer.from('{}\n'))).toBeNull();
    // aider's records are its lines: without a prompt there is no reply to read.
    expect(turnDetails('aider', Buffer.from('> Aider v0.86.1  \nno prompt here\n'))).toEqual({
      thinking: [],
      calls: [],
    });
    expect(turnDetails('claude', Buffer.from('not json\n{"type":"assistant"}\n'))).toEqual({
      thinking: [],
      calls: [],
    });
  });
});
