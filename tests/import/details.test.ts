/**
 * The readers' details (src/import/details.ts) on real files other projects committed (tests/import/fixtures),
 * imported by the built binary and read back from the shard's source records, as the browser does. Every turn's
 * calls must line up with the calls its stored answer shows (name by name, in order), so call i of the answer is
 * call i of the details.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type TurnDetails, turnDetails } from '../../src/import/details.js';
import { dbOf } from '../../src/store/testing.js';
import { sanitize } from '../../src/text/sanitize.js';
import { parseAnswer } from '../../src/ui/features/transcript/calls.js';
import { cli } from '../support/cli.js';
import { openShard } from '../support/shard.js';
import { tempDb } from '../support/tmp.js';

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

  it('a source with no details reader, and records no reader can follow, give what the answer keeps', () => {
    expect(turnDetails('llm', Buffer.from('{}\n'))).toBeNull();
    expect(turnDetails('claude', Buffer.from('not json\n{"type":"assistant"}\n'))).toEqual({
      thinking: [],
      calls: [],
    });
  });
});
