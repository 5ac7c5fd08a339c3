import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeReader, makeClaudeReader, readClaude } from '../../src/import/claude/index.js';
import type { ParsedSource, ParsedTurn } from '../../src/import/model.js';

const CORPUS = fileURLToPath(new URL('./fixtures/corpus/', import.meta.url));
const CC = join(CORPUS, 'claude-code');
const EXTRA = join(CORPUS, 'claude-code-extra');
const FIX = fileURLToPath(new URL('./fixtures/claude/', import.meta.url));
const SUBAGENTS_MAIN = join(EXTRA, 'subagents_layout', '55550000-0000-4000-8000-000000000001.jsonl');

const tmp = mkdtempSync(join(tmpdir(), 'arborist-claude-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function byId(src: ParsedSource): Map<string, ParsedTurn> {
  return new Map(src.turns.map((t) => [t.sourceId, t]));
}

/** sourceId -> parentSourceId, for asserting the whole tree at once. */
function tree(src: ParsedSource): Record<string, string | null> {
  return Object.fromEntries(src.turns.map((t) => [t.sourceId, t.parentSourceId]));
}

/** `line: reason` of each problem, for asserting which lines were reported. */
function problemLines(src: ParsedSource): number[] {
  return src.problems.map((p) => p.line);
}

/** The path of questions from the root down to a turn. */
function pathTo(src: ParsedSource, id: string): string[] {
  const m = byId(src);
  const out: string[] = [];
  for (let t = m.get(id); t; t = t.parentSourceId ? m.get(t.parentSourceId) : undefined)
    out.unshift(t.question);
  return out;
}

/** Lines of a file, 1-based, as the reader sees them (for checking raw against the source). */
function fileLines(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n');
}

const CORPUS_FILES = [
  join(CC, 'dag_compact_after_rewind.jsonl'),
  join(CC, 'edge_cases.jsonl'),
  join(CC, 'representative_messages.jsonl'),
  join(CC, 'session_b.jsonl'),
  join(CC, 'todowrite_examples.jsonl'),
  join(EXTRA, 'dag_compact_after_rewind_preserved.jsonl'),
  join(EXTRA, 'session_id_steering_order.jsonl'),
  join(EXTRA, 'sidechain_integrated.jsonl'),
  SUBAGENTS_MAIN,
];

describe('claude reader: every corpus file', () => {
  it.each(CORPUS_FILES)(
    '%s reads without throwing; every problem names a real line in one short line',
    (f) => {
      const src = readClaude(f);
      expect(src.kind).toBe('claude');
      const n = fileLines(f).length;
      for (const p of src.problems) {
        expect(p.line).toBeGreaterThanOrEqual(0);
        expect(p.line).toBeLessThanOrEqual(n);
        expect(p.reason).not.toMatch(/\n/);
        expect(p.reason.length).toBeLessThan(200);
      }
      for (const t of src.turns) {
        expect(t.question.trim()).not.toBe('');
        expect(new Date(t.createdAt).toISOString()).toBe(t.createdAt);
        expect(t.raw.length).toBeGreaterThan(0);
      }
      // parents are turns of the same file or null (none of these files continues another)
      const ids = new Set(src.turns.map((t) => t.sourceId));
      for (const t of src.turns) if (t.parentSourceId !== null) expect(ids.has(t.parentSourceId)).toBe(true);
    },
  );
});

describe('claude reader: claude-code corpus', () => {
  it('dag_compact_after_rewind: a rewind is a branch point, and the compaction continues the branch it left', () => {
    const f = join(CC, 'dag_compact_after_rewind.jsonl');
    const src = readClaude(f);
    // Prompts are the user lines with typed text: u1, b1u, b2u, b2u2, p1u. cs is isCompactSummary: not a prompt.
    // b1u and b2u both hang under a1 (u1's answer): the rewind. cb (compact_boundary, parentUuid null) has
    // logicalParentUuid b2a2 (b2u2's answer), so p1u (under cs, under cb) continues b2u2.
    expect(tree(src)).toEqual({ u1: null, b1u: 'u1', b2u: 'u1', b2u2: 'b2u', p1u: 'b2u2' });
    expect(src.problems).toEqual([]);
    const t = byId(src);
    expect(t.get('b2u2')?.answer).toBe('Kept going');
    expect(t.get('p1u')?.answer).toBe('Final answer');
    expect(pathTo(src, 'p1u')).toEqual(['Start', 'Second attempt', 'Keep going', 'After compaction']);
    // b2u2's turn is lines 7..10: its prompt, its answer, the boundary and the summary (file order, exact text)
    const lines = fileLines(f);
    expect(t.get('b2u2')?.raw).toEqual(lines.slice(6, 10));
    expect(t.get('b2u2')?.line).toBe(7);
    expect(t.get('u1')?.createdAt).toBe('2025-07-01T10:00:00.000Z');
    expect(t.get('u1')?.cwd).toBe('/tmp');
    expect(src.turns.every((x) => x.complete)).toBe(true); // the last reply, p1a, is end_turn
    expect(src.entries).toEqual([
      {
        key: 'claude:s1',
        sourceSession: 's1',
        usageFamilySessions: [],
        compactionCheckpoints: [
          {
            checkpointId: 'cb',
            reason: 'compaction',
            createdAt: '2025-07-01T10:30:00.000Z',
            summary:
              'This session is being continued from a previous conversation that ran out of context. Summary: the user asked for a plan.',
            preCompaction: { sourceSession: 's1', turnSourceId: 'b2u2' },
            postCompaction: { sourceSession: 's1', turnSourceId: 'p1u' },
          },
        ],
      },
    ]);
    expect(src.sessions).toEqual([
      { sourceSession: 's1', createdAt: '2025-07-01T10:00:00.000Z', project: 'claude-code', cwd: '/tmp' },
    ]);
  });

  it('edge_cases: every hostile line is reported by number and the rest imports', () => {
    const src = readClaude(join(CC, 'edge_cases.jsonl'));
    // An old file: every line has parentUuid null (line 17's parent assistant_003 is not in the file), so turns
    // follow file order. Prompts: edge_001, edge_003, edge_007 (a slash command), edge_011 (line 12). Not prompts:
    // edge_005 (tool_result), edge_006 (the local-command caveat), edge_008 (<local-command-stdout>).
    expect(tree(src)).toEqual({
      edge_001: null,
      edge_003: 'edge_001',
      edge_007: 'edge_003',
      edge_011: 'edge_007',
    });
    // 10: message.content misspelt "contenst"; 11: message is the string "error" (and "timesstamp");
    // 13, 15, 16: a string, a number, an array; 14: an object without type; 17: parent not in the file;
    // 18: a content block that is a bare string.
    expect(problemLines(src)).toEqual([10, 11, 13, 14, 15, 16, 17, 18]);
    const t = byId(src);
    expect(t.get('edge_007')?.question).toBe('/test-command --verbose --output /tmp/test.log');
    expect(t.get('edge_007')?.answer).toContain('  Command output here:');
    expect(t.get('edge_007')?.answer).toContain('→ MultiEdit: /tmp/complex_example.py');
    expect(t.get('edge_003')?.answer).toContain('error: Error: Tool execution failed');
    expect(t.get('edge_011')?.question).toContain('café, naïve, résumé, 中文');
    // the caveat (line 6) is kept in edge_003's raw lines, not made a question
    expect(t.get('edge_003')?.raw).toHaveLength(4);
    expect(src.sessions[0].title).toMatch(/^Tested various edge cases/);
  });

  it('representative_messages: an unlinked old file is ordered by file position, tool results join the answer', () => {
    const src = readClaude(join(CC, 'representative_messages.jsonl'));
    // Prompts: msg_001, msg_003, msg_007, msg_011; msg_005 and msg_009 carry only tool_result blocks.
    expect(tree(src)).toEqual({ msg_001: null, msg_003: 'msg_001', msg_007: 'msg_003', msg_011: 'msg_007' });
    const t = byId(src);
    expect(t.get('msg_007')?.answer).toMatch(
      /^→ Bash: python \/tmp\/decorator_example.py\n\n {2}Hello, Alice!\n {2}Hello, Alice!\n {2}Hello, Alice!\n\nPerfect!/,
    );
    // msg_011 has no reply yet: it may still be growing
    expect(t.get('msg_011')?.complete).toBe(false);
    expect(t.get('msg_011')?.answer).toBe('');
    expect(src.sessions[0].title).toMatch(/^User learned about Python decorators/);
    expect(src.problems).toEqual([]);
  });

  it('session_b: two prompts', () => {
    const src = readClaude(join(CC, 'session_b.jsonl'));
    expect(tree(src)).toEqual({ session_b_001: null, session_b_003: 'session_b_001' });
    expect(src.sessions.map((s) => s.sourceSession)).toEqual(['session_b']);
  });

  it('todowrite_examples: linked lines; a prompt under a tool result continues the same chain', () => {
    const src = readClaude(join(CC, 'todowrite_examples.jsonl'));
    // user_001 (string content) and user_004 are prompts; user_002/3/5 are tool results.
    expect(tree(src)).toEqual({ user_001: null, user_004: 'user_001' });
    const t = byId(src);
    expect(t.get('user_001')?.raw).toHaveLength(7);
    expect(t.get('user_001')?.answer.match(/→ TodoWrite/g)).toHaveLength(2);
    expect(src.sessions[0].title).toBe('Feature Implementation with Task Management');
    expect(src.problems).toEqual([]);
  });
});

describe('claude reader: claude-code-extra corpus', () => {
  it('dag_compact_after_rewind_preserved: the kept tail written under the summary goes back after its prompt', () => {
    const f = join(EXTRA, 'dag_compact_after_rewind_preserved.jsonl');
    const src = readClaude(f);
    // b2a2 (line 10) is written under cs with an earlier time than cb; cb's logicalParentUuid is b2a2: as
    // written, a cycle cb -> b2a2 -> cs -> cb. preservedMessages.uuids [b2a, b2u2, b2a2] puts b2a2 after b2u2.
    expect(tree(src)).toEqual({ u1: null, b1u: 'u1', b2u: 'u1', b2u2: 'b2u', p1u: 'b2u2' });
    expect(src.problems).toEqual([]);
    const t = byId(src);
    expect(t.get('b2u2')?.answer).toBe('Kept going');
    expect(pathTo(src, 'p1u')).toEqual(['Start', 'Second attempt', 'Keep going', 'After compaction']);
    expect(t.get('b2u2')?.raw).toEqual(fileLines(f).slice(6, 10));
    const [cp] = src.entries[0].compactionCheckpoints;
    expect(cp.preCompaction.turnSourceId).toBe('b2u2');
    expect(cp.postCompaction.turnSourceId).toBe('p1u');
    expect(src.entries[0].key).toBe('claude:s2');
  });

  it('session_id_steering_order: a queue-operation line is no error and stays in the raw lines', () => {
    const f = join(EXTRA, 'session_id_steering_order.jsonl');
    const src = readClaude(f);
    expect(tree(src)).toEqual({ u1: null, u2: 'u1' });
    expect(src.problems).toEqual([]);
    expect(byId(src).get('u1')?.raw).toEqual(fileLines(f).slice(0, 3));
    // the steering text, which claude-code-log's test data records on the `remove` line, is in the turn it steered
    expect(byId(src).get('u1')?.answer).toBe(
      'Starting the migration now.\n\n» typed while busy: actually — focus on the parser first',
    );
    expect(byId(src).get('u2')?.answer).toBe('Understood — parser first, done.');
  });

  it('a 1.0.x --continue file writes its switching line again under the new session id: kept, no problem', () => {
    // Hand-written (tests/import/fixtures/claude/continue-1.0.jsonl) after the shape of a user's real 1.0.x file: the
    // same uuid, the same message, another sessionId. No committed public file shows it.
    const f = join(FIX, 'continue-1.0.jsonl');
    const src = readClaude(f);
    expect(src.problems).toEqual([]);
    expect(src.turns.map((t) => t.question)).toEqual(['Where is the config read?', 'And who writes it?']);
    expect(src.turns.flatMap((t) => t.raw)).toEqual(fileLines(f).slice(0, -1)); // every line, in file order
  });

  it('text typed while the agent worked (2.1.x `queue-operation` `enqueue`) is in the turn it steered, once', () => {
    // Hand-written (tests/import/fixtures/claude/typed-while-busy.jsonl): the line shapes of Claude Code 2.1.x's
    // enqueue/remove/dequeue lines as public tools document them; no committed real file shows all three together.
    const src = readClaude(join(FIX, 'typed-while-busy.jsonl'));
    expect(src.problems).toEqual([]);
    expect(src.turns.map((t) => t.question)).toEqual(['Migrate the cart tests to vitest.', 'now run them']);
    expect(byId(src).get('b1')?.answer).toBe(
      [
        'Starting with cart.test.js.',
        '» typed while busy: skip the snapshot tests, they are flaky',
        'Done; the snapshot tests are left as they were.',
      ].join('\n\n'),
    );
    // dequeued, it became the next prompt: not steering; a task notification the tool queued was not typed
    expect(byId(src).get('b4')?.answer).toBe('All 12 pass.');
  });

  it('sidechain_integrated: in-file sidechain lines hang under the turn that ran the Task; --no-sidechains drops them', () => {
    const f = join(EXTRA, 'sidechain_integrated.jsonl');
    const src = readClaude(f);
    const main = '83a7cabd-3642-45d6-ba73-9b9f843b9ab1';
    // No prompt at all. Main chain 83a7cabd (its parent 8ae40e91 is not in the file) -> 97965533 -> 91c82c1c:
    // one "[no text]" turn. Sidechain: b674eedd -> 3c78114e (no agentId: placed by time, 22:53:39 is inside the
    // main turn's 22:53:34..22:55:40) and 4899826e (parent 718670f5 missing; agentId e1c84ba5 is on the
    // main tool result 97965533).
    expect(tree(src)).toEqual({
      [main]: null,
      'b674eedd-0d9d-49e7-8116-1f092cd750ed': main,
      '4899826e-499f-4f24-ae6e-f2ac31cddfd4': main,
    });
    expect(problemLines(src)).toEqual([1, 5]);
    const t = byId(src);
    expect(t.get(main)?.question).toBe('[no text]');
    expect(t.get(main)?.answer).toMatch(/^→ Task: Research data-border-color usage/);
    expect(t.get(main)?.complete).toBe(false); // 91c82c1c stopped for tool_use
    expect(t.get('4899826e-499f-4f24-ae6e-f2ac31cddfd4')?.note).toBe('subagent e1c84ba5');
    expect(t.get('b674eedd-0d9d-49e7-8116-1f092cd750ed')?.note).toBe('sidechain');

    // with a sidechain line last in the file, the newest turn is still the main chain's
    const moved = join(tmp, 'sidechain-last.jsonl');
    const ls = fileLines(f);
    writeFileSync(moved, [ls[0], ls[1], ls[5], ls[2], ls[3], ls[4]].join('\n') + '\n');
    const m = byId(readClaude(moved));
    expect(m.get(main)?.complete).toBe(false);
    expect(m.get('4899826e-499f-4f24-ae6e-f2ac31cddfd4')?.complete).toBe(true);

    const without = readClaude(f, { sidechains: false });
    expect(tree(without)).toEqual({ [main]: null });
    expect(without.turns[0].raw).toHaveLength(3); // lines 1, 2, 6: none of the sidechain lines
    expect(problemLines(without)).toEqual([1]);
  });

  it('subagents_layout: each subagent file is a branch under the turn that launched it (meta.json toolUseId)', () => {
    const src = readClaude(SUBAGENTS_MAIN);
    expect(tree(src)).toEqual({ 'sc-u1': null, 'showcol1-u1': 'sc-u1', 'showcol2-u1': 'sc-u1' });
    expect(src.problems).toEqual([]); // the .meta.json files are not transcripts
    const t = byId(src);
    const main = t.get('sc-u1')!;
    expect(main.raw).toHaveLength(11);
    expect(main.answer.match(/^→ /gm)).toHaveLength(5); // two MCP tools, ScheduleWakeup, two Agent calls
    expect(main.answer.endsWith('**jobs** runs three scheduled jobs.')).toBe(true);
    expect(t.get('showcol1-u1')?.question).toBe('Survey src/web and report its layout, with a screenshot.');
    expect(t.get('showcol1-u1')?.note).toBe('subagent showcol1');
    expect(t.get('showcol2-u1')?.answer).toMatch(/^→ Grep: src\/jobs/);
    expect(t.get('showcol2-u1')?.raw).toHaveLength(4);
    // subagent lines reuse the parent's sessionId
    expect(new Set(src.turns.map((x) => x.sourceSession))).toEqual(
      new Set(['55550000-0000-4000-8000-000000000001']),
    );
    expect(src.sessions).toHaveLength(1);
    expect(src.sessions[0].project).toBe('subagents_layout');

    const without = [...makeClaudeReader({ sidechains: false }).read(SUBAGENTS_MAIN)];
    expect(without).toHaveLength(1);
    expect(tree(without[0])).toEqual({ 'sc-u1': null });
  });
});

describe('claude reader: hostile fixtures', () => {
  it('a cycle of parents is cut once and reported; nothing hangs', () => {
    const src = readClaude(join(FIX, 'cycle.jsonl'));
    // c1 -> c3 -> c2 -> c1 is cut at c1 (line 3); "self" is its own parent (line 6).
    expect(tree(src)).toEqual({ p1: null, c1: null, self: null });
    expect(problemLines(src)).toEqual([3, 6]);
    expect(src.problems[0].reason).toMatch(/cycle/);
    expect(byId(src).get('c1')?.answer).toBe('answer in a cycle\n\nmore of the cycle');
  });

  it('a missing parent makes a root and is reported; a reply without its question becomes a "[no text]" turn', () => {
    const src = readClaude(join(FIX, 'missing-parent.jsonl'));
    expect(tree(src)).toEqual({ p1: null, p2: null, p3: 'p2', orphan: null, p4: 'orphan' });
    expect(problemLines(src)).toEqual([3, 7]);
    expect(src.problems[0].reason).toContain('gone-1');
    const t = byId(src);
    expect(t.get('orphan')?.question).toBe('[no text]');
    expect(t.get('orphan')?.answer).toBe('a reply whose question was lost');
  });

  it('a truncated last line is reported and the newest turn is incomplete', () => {
    const src = readClaude(join(FIX, 'truncated.jsonl'));
    expect(tree(src)).toEqual({ p1: null, p2: 'p1' });
    expect(src.problems).toHaveLength(1);
    expect(src.problems[0]).toMatchObject({ line: 5, reason: expect.stringMatching(/^truncated last line/) });
    const t = byId(src);
    expect(t.get('p1')?.complete).toBe(true);
    expect(t.get('p2')?.complete).toBe(false);
    expect(t.get('p2')?.answer).toBe('Let me look.\n\n→ Bash: ls');
  });

  it('a byte-order mark before the first line is tolerated and kept in raw', () => {
    const f = join(tmp, 'bom.jsonl');
    const first = fileLines(join(FIX, 'missing-parent.jsonl'))[0];
    writeFileSync(f, `\uFEFF${first}\n`);
    const src = readClaude(f);
    expect(src.problems).toEqual([]);
    expect(src.turns[0]).toMatchObject({ sourceId: 'p1', raw: [`\uFEFF${first}`] });
  });

  it('invalid UTF-8 skips that line only', () => {
    const src = readClaude(join(FIX, 'invalid-utf8.jsonl'));
    expect(src.problems).toEqual([
      { file: join(FIX, 'invalid-utf8.jsonl'), line: 3, reason: 'invalid UTF-8; line skipped' },
    ]);
    expect(tree(src)).toEqual({ p1: null, p3: 'p1' });
    expect(byId(src).get('p3')?.question).toBe('after the bad bytes: café');
  });

  it('a 10 MB message line is read whole and quickly', () => {
    const f = join(tmp, 'big-line.jsonl');
    const big = 'x'.repeat(10 * 1024 * 1024);
    const lines = [
      {
        type: 'user',
        uuid: 'p1',
        parentUuid: null,
        sessionId: 's',
        timestamp: '2026-01-01T00:00:00.000Z',
        message: { role: 'user', content: 'paste:' + big },
      },
      {
        type: 'assistant',
        uuid: 'a1',
        parentUuid: 'p1',
        sessionId: 's',
        timestamp: '2026-01-01T00:00:01.000Z',
        message: { role: 'assistant', content: [{ type: 'text', text: big }], stop_reason: 'end_turn' },
      },
    ];
    writeFileSync(f, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const src = readClaude(f);
    expect(src.problems).toEqual([]);
    expect(src.turns).toHaveLength(1);
    expect(src.turns[0].question.length).toBe(big.length + 6);
    expect(src.turns[0].answer.length).toBe(big.length);
    expect(src.turns[0].complete).toBe(true);
  });

  it('files of another format: an OpenClaw session, JSON of another shape, a PNG: one problem each, no turns', () => {
    const oc = readClaude(join(FIX, 'openclaw-session.jsonl'));
    expect(oc.turns).toEqual([]);
    expect(oc.problems).toHaveLength(1);
    expect(oc.problems[0]).toMatchObject({ line: 1, reason: expect.stringContaining('OpenClaw') });

    const other = readClaude(join(FIX, 'other-json.jsonl'));
    expect(other.turns).toEqual([]);
    expect(problemLines(other)).toEqual([0]); // one problem for the file, not one a line
    expect(other.problems[0].reason).toMatch(/another format/);

    const png = readClaude(join(FIX, 'image.jsonl'));
    expect(png.turns).toEqual([]);
    expect(png.problems).toEqual([
      { file: join(FIX, 'image.jsonl'), line: 0, reason: 'binary data, not a JSONL transcript' },
    ]);
    expect(png.sessions).toEqual([]);
  });

  it('an all-null-parent old file: each prompt continues the previous turn; images and empty prompts have text', () => {
    const src = readClaude(join(FIX, 'old-null-parents.jsonl'));
    expect(tree(src)).toEqual({ o1: null, o5: 'o1', o7: 'o5' });
    const t = byId(src);
    expect(t.get('o1')?.answer).toBe(
      'Use sorted().\n\n→ Bash: python -c "print(sorted([3,1,2]))"\n\n  [1, 2, 3]\n\nIt printed [1, 2, 3].',
    );
    expect(t.get('o5')?.question).toBe('And in reverse?\n[image]');
    expect(t.get('o7')?.question).toBe('[no text]');
    // the summary line (line 1) comes before any line with a uuid: it goes with the first turn
    expect(t.get('o1')?.raw).toEqual(fileLines(join(FIX, 'old-null-parents.jsonl')).slice(0, 5));
    expect(t.get('o1')?.createdAt).toBe('2025-03-01T09:00:00.000Z');
    expect(src.sessions[0]).toMatchObject({
      sourceSession: 'old-sess',
      title: 'Old session about lists',
      cwd: '/old',
    });
    expect(src.problems).toEqual([]);
  });

  it('duplicate uuids, bad timestamps, uuid-less user lines, meta lines, commands, thinking and titles', () => {
    const src = readClaude(join(FIX, 'odd-lines.jsonl'));
    // 3: the second a1; 5: "not a time"; 7: a user line with no uuid.
    expect(problemLines(src)).toEqual([3, 5, 7]);
    // m1 is isMeta (the caveat), out is command output: neither is a question.
    expect(tree(src)).toEqual({ p1: null, cmd: 'p1', p2: 'cmd' });
    const t = byId(src);
    expect(t.get('p1')?.answer).toBe('answer one');
    expect(t.get('cmd')?.question).toBe('/model opus');
    expect(t.get('cmd')?.createdAt).toBe('2026-01-02T10:01:00.000Z'); // m1's time, the line before
    // the enqueued text on line 8 was typed while this turn ran (it never became a prompt)
    expect(t.get('cmd')?.answer).toBe('  Set model to opus\n\n» typed while busy: queued text');
    expect(t.get('p2')?.question).toBe('[no text]');
    expect(t.get('p2')?.answer).toBe(
      'answer to an empty prompt\n\n[Request interrupted by user]\n\n→ Bash: sleep 100\n\n' +
        '  error: partial output\n\n[Request interrupted by user for tool use]',
    );
    expect(t.get('p2')?.complete).toBe(false); // its last reply stopped for tool_use
    expect(t.get('p2')?.answer).not.toContain('secret reasoning');
    // the queue-operation (line 8) goes with the turn before it; the uuid-less user line (7) is skipped
    const lines = fileLines(join(FIX, 'odd-lines.jsonl'));
    expect(t.get('cmd')?.raw).toEqual([lines[4], lines[5], lines[7]]);
    expect(src.sessions[0].title).toBe('My own title'); // custom-title outranks ai-title
  });

  it('parallel tool calls: each result sits under its own call (tool_use_id), whatever order they come in', () => {
    // Claude Code writes each tool_use of one message as a line of its own, then each tool_result as a user line.
    const at = (n: number) => `2026-01-02T10:00:0${n}.000Z`;
    const base = { sessionId: 's-par', cwd: '/w', version: '2.0.0' };
    const rows = [
      {
        type: 'user',
        uuid: 'p1',
        parentUuid: null,
        timestamp: at(0),
        message: { role: 'user', content: 'both' },
      },
      ...[
        ['a1', 'p1', 'toolu_A', 'ls'],
        ['a2', 'a1', 'toolu_B', 'pwd'],
      ].map(([uuid, parent, id, command], i) => ({
        type: 'assistant',
        uuid,
        parentUuid: parent,
        timestamp: at(i + 1),
        message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command } }] },
      })),
      ...[
        ['r1', 'a2', 'toolu_B', '/w'],
        ['r2', 'r1', 'toolu_A', 'file1'],
      ].map(([uuid, parent, id, out], i) => ({
        type: 'user',
        uuid,
        parentUuid: parent,
        timestamp: at(i + 3),
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: out }] },
      })),
      {
        type: 'assistant',
        uuid: 'a3',
        parentUuid: 'r2',
        timestamp: at(5),
        message: { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
      },
    ];
    const file = join(tmp, 'parallel.jsonl');
    writeFileSync(file, `${rows.map((r) => JSON.stringify({ ...base, ...r })).join('\n')}\n`);
    const src = readClaude(file);
    expect(src.problems).toEqual([]);
    expect(byId(src).get('p1')?.answer).toBe('→ Bash: ls\n\n  file1\n\n→ Bash: pwd\n\n  /w\n\ndone');
  });

  it('a compaction whose logical parent is gone: reported; its lines go with the next prompt', () => {
    const f = join(FIX, 'compact-lost.jsonl');
    const src = readClaude(f);
    expect(tree(src)).toEqual({ 'k-p1': null });
    expect(problemLines(src)).toEqual([1]);
    expect(byId(src).get('k-p1')?.raw).toEqual(fileLines(f).slice(0, 4));
    const [cp] = src.entries[0].compactionCheckpoints;
    expect(cp.preCompaction.turnSourceId).toBeUndefined();
    expect(cp.postCompaction.turnSourceId).toBe('k-p1');
    expect(cp.summary).toMatch(/Summary: lost\.$/);
  });

  it('an older compaction without logicalParentUuid continues the line before it (no link: file order)', () => {
    const src = readClaude(join(FIX, 'compact-old.jsonl'));
    expect(tree(src)).toEqual({ p1: null, p2: 'p1' });
    const [cp] = src.entries[0].compactionCheckpoints;
    expect(cp).toMatchObject({
      checkpointId: 'cb',
      createdAt: '2025-08-01T11:00:00.000Z',
      preCompaction: { sourceSession: 'old-compact', turnSourceId: 'p1' },
      postCompaction: { sourceSession: 'old-compact', turnSourceId: 'p2' },
    });
    expect(src.problems).toEqual([]);
    // line 1 summarises a session whose leaf is in another file: not this session's title
    expect(src.sessions[0].title).toBeUndefined();
  });

  it('a resumed session replays the earlier lines under its own sessionId; new turns hang under the replay', () => {
    const a = readClaude(join(FIX, 'resume', 'aaaa0000-0000-4000-8000-000000000001.jsonl'));
    const b = readClaude(join(FIX, 'resume', 'bbbb0000-0000-4000-8000-000000000002.jsonl'));
    expect(tree(a)).toEqual({ 'r-p1': null, 'r-p2': 'r-p1' });
    expect(tree(b)).toEqual({ 'r-p1': null, 'r-p2': 'r-p1', 'r-p3': 'r-p2' });
    expect(a.turns.every((t) => t.sourceSession === 'aaaa0000-0000-4000-8000-000000000001')).toBe(true);
    expect(b.turns.every((t) => t.sourceSession === 'bbbb0000-0000-4000-8000-000000000002')).toBe(true);
    expect(b.sessions[0].title).toBe('Refactor plan');

    // discover: equal first timestamps (the replay keeps them), so the older file goes first
    const dir = join(tmp, 'resume');
    cpSync(join(FIX, 'resume'), dir, { recursive: true });
    utimesSync(join(dir, 'bbbb0000-0000-4000-8000-000000000002.jsonl'), 1_000, 1_000);
    utimesSync(join(dir, 'aaaa0000-0000-4000-8000-000000000001.jsonl'), 2_000, 2_000);
    expect(claudeReader.discover(dir).map((p) => p.slice(dir.length + 1))).toEqual([
      'bbbb0000-0000-4000-8000-000000000002.jsonl',
      'aaaa0000-0000-4000-8000-000000000001.jsonl',
    ]);
    utimesSync(join(dir, 'bbbb0000-0000-4000-8000-000000000002.jsonl'), 3_000, 3_000);
    expect(claudeReader.discover(dir)[0]).toMatch(/aaaa0000/);
  });

  it('older subagent layout: agent-<id>.jsonl beside the session, matched by sessionId, linked by agentId', () => {
    const src = readClaude(join(FIX, 'oldagents', 'cccc0000-0000-4000-8000-000000000003.jsonl'));
    // agent-a1b2 has the session's sessionId; agent-zzzz belongs to another session and is not read.
    expect(tree(src)).toEqual({ 'o-p1': null, 'g-p1': 'o-p1' });
    expect(byId(src).get('g-p1')?.note).toBe('subagent a1b2');
    expect(src.problems).toEqual([]);
    // an agent file given on its own, without sidechains: nothing to import, and no "another format" alarm
    const alone = readClaude(join(FIX, 'oldagents', 'agent-a1b2.jsonl'), { sidechains: false });
    expect(alone.turns).toEqual([]);
    expect(alone.problems).toEqual([]);
    // agent-zzzz's session file is not in the folder: it is listed as a transcript of its own (next test)
    expect(claudeReader.discover(join(FIX, 'oldagents')).map((p) => p.slice(FIX.length))).toEqual([
      'oldagents/cccc0000-0000-4000-8000-000000000003.jsonl',
      'oldagents/agent-zzzz.jsonl',
    ]);
  });

  it('newer layout: a broken meta.json, a nested subagent, one placed by time; journal.jsonl is not read', () => {
    // the broken meta.json is written here (a broken .json in the tree would fail the formatter's check)
    const dir = join(tmp, 'newagents');
    cpSync(join(FIX, 'newagents'), dir, { recursive: true });
    const sub = join(dir, 'eeee0000-0000-4000-8000-000000000005', 'subagents');
    writeFileSync(join(sub, 'agent-x1.meta.json'), '{"agentType": "general-purpose", "descr');
    const f = join(dir, 'eeee0000-0000-4000-8000-000000000005.jsonl');
    const src = readClaude(f);
    // x1: its meta is broken, so it is found by toolUseResult.agentId "x1" on n-r1 (n-p1's turn).
    // x2: its meta's toolUseId toolu_x2 is the Agent call inside x1. x3: no meta and no reference: its first
    // line (10:05:00.5) falls in n-p2's time range (10:05:00..10:05:01).
    expect(tree(src)).toEqual({
      'n-p1': null,
      'n-p2': 'n-p1',
      'x1-p1': 'n-p1',
      'x2-p1': 'x1-p1',
      'x3-p1': 'n-p2',
    });
    expect(src.problems).toHaveLength(1);
    expect(src.problems[0]).toMatchObject({ line: 0, reason: expect.stringMatching(/meta/) });
    expect(src.problems[0].file).toMatch(/agent-x1\.meta\.json$/);
    expect(byId(src).get('x2-p1')?.note).toBe('subagent x2');
    const without = readClaude(f, { sidechains: false });
    expect(tree(without)).toEqual({ 'n-p1': null, 'n-p2': 'n-p1' });
    expect(without.problems).toEqual([]);
  });

  it('a 50,000-turn chain reads in one pass (no recursion, no quadratic walk)', () => {
    const f = join(tmp, 'long.jsonl');
    const out: string[] = [];
    let parent: string | null = null;
    for (let i = 0; i < 50_000; i++) {
      const ts = new Date(1_700_000_000_000 + i * 2000).toISOString();
      out.push(
        JSON.stringify({
          type: 'user',
          uuid: `p${i}`,
          parentUuid: parent,
          sessionId: 'L',
          timestamp: ts,
          message: { role: 'user', content: `q${i}` },
        }),
      );
      out.push(
        JSON.stringify({
          type: 'assistant',
          uuid: `a${i}`,
          parentUuid: `p${i}`,
          sessionId: 'L',
          timestamp: ts,
          message: { role: 'assistant', content: [{ type: 'text', text: `a${i}` }], stop_reason: 'end_turn' },
        }),
      );
      parent = `a${i}`;
    }
    writeFileSync(f, out.join('\n') + '\n');
    const src = readClaude(f);
    expect(src.turns).toHaveLength(50_000);
    expect(src.problems).toEqual([]);
    expect(src.turns[49_999]).toMatchObject({
      sourceId: 'p49999',
      parentSourceId: 'p49998',
      answer: 'a49999',
    });
  });
});

describe('claude reader: paths', () => {
  it('defaultPaths honours CLAUDE_CONFIG_DIR, else ~/.claude/projects', () => {
    expect(claudeReader.defaultPaths({ CLAUDE_CONFIG_DIR: '/cfg/claude' })).toEqual(['/cfg/claude/projects']);
    expect(claudeReader.defaultPaths({ HOME: '/home/u' })).toEqual([
      '/home/u/.claude/projects',
      '/home/u/.config/claude/projects',
    ]);
    expect(claudeReader.kind).toBe('claude');
  });

  it('discover: a file is itself; a folder is its session files oldest first, without subagent files', () => {
    expect(claudeReader.discover(join(CC, 'session_b.jsonl'))).toEqual([join(CC, 'session_b.jsonl')]);
    expect(claudeReader.discover(join(tmp, 'does-not-exist'))).toEqual([]);
    // first timestamps: dag_preserved 2025-07-01, sidechain 2025-11-19, subagents 2026-06-15, steering 2026-07-11
    expect(claudeReader.discover(EXTRA).map((p) => p.slice(EXTRA.length + 1))).toEqual([
      'dag_compact_after_rewind_preserved.jsonl',
      'sidechain_integrated.jsonl',
      'subagents_layout/55550000-0000-4000-8000-000000000001.jsonl',
      'session_id_steering_order.jsonl',
    ]);
    // representative and todowrite both start 2025-06-14T10:00:00Z (then by file time and name)
    const cc = claudeReader.discover(CC).map((p) => p.slice(CC.length + 1));
    expect(cc).toHaveLength(5);
    expect(cc.slice(2)).toEqual(['edge_cases.jsonl', 'session_b.jsonl', 'dag_compact_after_rewind.jsonl']);
  });

  it('discover: an old-layout agent-*.jsonl whose session file is not beside it is a transcript of its own', () => {
    const dir = join(tmp, 'lone-agents');
    mkdirSync(dir, { recursive: true });
    // agent-a1b2 belongs to the session beside it in the fixture folder; agent-zzzz's session (dddd...) is absent
    for (const f of ['agent-a1b2.jsonl', 'agent-zzzz.jsonl', 'cccc0000-0000-4000-8000-000000000003.jsonl'])
      copyFileSync(join(FIX, 'oldagents', f), join(dir, f));
    const found = claudeReader.discover(dir).map((p) => basename(p));
    expect(found.sort()).toEqual(['agent-zzzz.jsonl', 'cccc0000-0000-4000-8000-000000000003.jsonl']);
    const alone = join(tmp, 'alone');
    mkdirSync(alone, { recursive: true });
    copyFileSync(join(FIX, 'oldagents', 'agent-a1b2.jsonl'), join(alone, 'agent-a1b2.jsonl'));
    const [only] = claudeReader.discover(alone);
    expect(basename(only)).toBe('agent-a1b2.jsonl');
    expect(readClaude(only).turns.length).toBeGreaterThan(0);
  });

  it('read throws one line when the file cannot be read at all', () => {
    expect(() => [...claudeReader.read(join(tmp, 'missing.jsonl'))]).toThrow(
      /^cannot read .*missing\.jsonl: ENOENT$/,
    );
    expect(() => readClaude(tmp)).toThrow(/EISDIR/);
  });
});
