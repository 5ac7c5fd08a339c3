/**
 * The transcript's details, pure: thinking hidden behind one line (or shown), an open call's whole input, its edit
 * as a diff with add/delete/hunk roles (real jsdiff, as the runtime uses it), its whole result, all capped and
 * sanitised; and a turn laid out with its details.
 */
import { structuredPatch } from 'diff/lib/patch/create.js';
import { describe, expect, it } from 'vitest';
import { AnswerBuilder } from '../../src/import/answer.js';
import { displayWidth } from '../../src/text/width.js';
import { view } from '../../src/ui/core/view.js';
import { type Piece, parseAnswer } from '../../src/ui/features/transcript/calls.js';
import {
  alignCalls,
  DIFF_LINES,
  diffLines,
  openCallLines,
  RESULT_LINES,
  type ShownCall,
  type StructuredPatch,
  thinkingLines,
} from '../../src/ui/features/transcript/details.js';
import { type Turn, turnBlock } from '../../src/ui/features/transcript/model.js';
import { Driver } from './fixtures.js';

const patch: StructuredPatch = (a, b, o, n, oh, nh, opts) => structuredPatch(a, b, o, n, oh, nh, opts);

const callPiece = (name: string, arg: string): Extract<Piece, { kind: 'call' }> => ({
  kind: 'call',
  name,
  arg,
  result: [],
  more: 0,
  error: false,
});

const mk = (bates: string, answer: string): Turn => ({
  bates,
  sid: bates.slice(0, 4),
  parent_bates: null,
  is_top: true,
  question: 'fix it',
  answer_text: answer,
  cited_titles: [],
  audit: 'imported',
  created_at: '2026-11-01T10:00:00Z',
  node_hash: '1'.repeat(64),
  subtree_hash: '2'.repeat(64),
  n_children: 0,
  depth: 0,
});

describe('an edit as diff lines', () => {
  it('a replacement: hunk header, context, deleted and added lines, each with its role', () => {
    const edit = { kind: 'replace' as const, file: 'a.ts', pairs: [{ old: 'a\nb\nc', new: 'a\nB\nc' }] };
    const diff = diffLines(edit, patch);
    expect(diff).toEqual(['@@ -1,3 +1,3 @@', ' a', '-b', '+B', ' c']);
    const d: ShownCall = {
      name: 'Edit',
      input: { file_path: 'a.ts', old_string: 'x', new_string: 'y' },
      edit,
      diff,
    };
    const lines = openCallLines(callPiece('Edit', 'a.ts'), d, 60);
    expect(lines.map((l) => [l.role, l.text])).toEqual([
      ['input', '  file_path: a.ts'], // the key argument; old/new strings are the diff's
      ['diffHunk', '  @@ -1,3 +1,3 @@'],
      ['input', '   a'],
      ['diffDel', '  -b'],
      ['diffAdd', '  +B'],
      ['input', '   c'],
      ['result', '  ⎿ (no result in the records)'],
    ]);
  });

  it('several replacements are numbered; a written file is all added lines; a patch is coloured as it is', () => {
    const two = diffLines(
      {
        kind: 'replace',
        file: 'f',
        pairs: [
          { old: 'x', new: 'y' },
          { old: '', new: 'z' },
        ],
      },
      patch,
    );
    expect(two).toEqual([
      '@@ edit 1 of 2 @@',
      '@@ -1,1 +1,1 @@',
      '-x',
      '+y',
      '@@ edit 2 of 2 @@',
      '@@ -0,0 +1,1 @@',
      '+z',
    ]);
    expect(diffLines({ kind: 'write', file: 'n.txt', content: 'one\ntwo\n' }, patch)).toEqual([
      '@@ n.txt written: 2 lines @@',
      '+one',
      '+two',
    ]);
    const p = '*** Begin Patch\n*** Update File: a.ts\n@@\n-old\n+new\n ctx\n*** End Patch';
    const d: ShownCall = {
      name: 'apply_patch',
      input: p,
      edit: { kind: 'patch', patch: p },
      diff: diffLines({ kind: 'patch', patch: p }, patch),
    };
    expect(openCallLines(callPiece('apply_patch', 'a.ts'), d, 60).map((l) => l.role)).toEqual([
      'diffHunk',
      'diffHunk',
      'diffHunk',
      'diffDel',
      'diffAdd',
      'input',
      'diffHunk',
      'result',
    ]);
  });

  it('a diff line too long for the pane keeps its + or - on every row it wraps to (without colour it read as context)', () => {
    const edit = {
      kind: 'replace' as const,
      file: 'a.py',
      pairs: [
        { old: 'keep\nold = 1', new: 'keep\nresult = func(first_argument, second_argument, **kwargs)' },
      ],
    };
    const d: ShownCall = { name: 'Edit', input: { file_path: 'a.py' }, edit, diff: diffLines(edit, patch) };
    const lines = openCallLines(callPiece('Edit', 'a.py'), d, 30).filter((l) => l.role.startsWith('diff'));
    expect(lines.map((l) => [l.role, l.text])).toEqual([
      ['diffHunk', '  @@ -1,2 +1,2 @@'],
      ['diffDel', '  -old = 1'],
      ['diffAdd', '  +result ='],
      ['diffAdd', '  +func(first_argument,'],
      ['diffAdd', '  +second_argument, **kwargs)'],
    ]);
    // A context line wraps past the mark's column too, so its rows never start where a mark would stand.
    const ctx = diffLines({ kind: 'patch', patch: ' context line that is rather long for the pane' }, patch);
    const shown = openCallLines(
      callPiece('apply_patch', 'x'),
      { name: 'apply_patch', input: '', edit: { kind: 'patch', patch: ctx[0] }, diff: ctx },
      30,
    );
    expect(shown.slice(0, 2).map((l) => l.text)).toEqual([
      '   context line that is rather',
      '   long for the pane',
    ]);
  });

  it('a long diff is capped and says how much is left; so is a long result', () => {
    const content = Array.from({ length: 500 }, (_, i) => `line ${i}`).join('\n');
    const edit = { kind: 'write' as const, file: 'big', content };
    const result = { text: Array.from({ length: 100 }, (_, i) => `out ${i}`).join('\n'), error: false };
    const d: ShownCall = {
      name: 'Write',
      input: { file_path: 'big', content },
      edit,
      diff: diffLines(edit, patch),
      result,
    };
    const lines = openCallLines(callPiece('Write', 'big'), d, 60);
    expect(lines.filter((l) => l.role === 'diffAdd')).toHaveLength(DIFF_LINES - 1);
    expect(lines.some((l) => l.text === '  … 301 more lines of the diff')).toBe(true);
    expect(lines.some((l) => l.text === '  ⎿ result · 100 lines')).toBe(true);
    expect(lines.filter((l) => l.text.startsWith('    out '))).toHaveLength(RESULT_LINES);
    expect(lines[lines.length - 1].text).toBe('    … 60 more lines');
  });
  it('laying out an open edit reads only the diff lines it shows (a 50 MB Write was cleaned whole at every t)', () => {
    const content = Array.from({ length: 100_000 }, (_, i) => `line ${i}`).join('\n');
    const edit = { kind: 'write' as const, file: 'big', content };
    const diff = diffLines(edit, patch);
    let read = 0;
    const counted = new Proxy(diff, {
      get(t, k, r) {
        if (typeof k === 'string' && /^\d+$/.test(k)) read++;
        return Reflect.get(t, k, r);
      },
    });
    const lines = openCallLines(
      callPiece('Write', 'big'),
      { name: 'Write', input: {}, edit, diff: counted },
      60,
    );
    expect(lines.some((l) => l.text === `  … ${diff.length - DIFF_LINES} more lines of the diff`)).toBe(true);
    expect(read).toBeLessThan(DIFF_LINES * 3);
  });

  it('a MultiEdit of many pairs jsdiff gives up on is diffed within one budget, the rest shown as old and new', () => {
    // 200 pairs of 3,000 unlike lines: jsdiff gives up on each after its timeout, 100 ms, so 20 s with the loop held.
    const lines = (tag: string) =>
      Array.from({ length: 3000 }, (_, i) => `${tag} ${(i * 7919) % 1000}`).join('\n');
    const pairs = Array.from({ length: 200 }, (_, i) => ({ old: lines(`o${i}`), new: lines(`n${i}`) }));
    const real: StructuredPatch = (a, b, o, n, oh, nh, opts) =>
      structuredPatch(a, b, o, n, oh, nh, { ...opts, timeout: 100 });
    const t0 = performance.now();
    const out = diffLines({ kind: 'replace', file: 'f', pairs }, real);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(out.filter((l) => l.startsWith('@@ edit '))).toHaveLength(200);
    expect(out.filter((l) => l.startsWith('-'))).toHaveLength(200 * 3000);
    expect(out.filter((l) => l.startsWith('+'))).toHaveLength(200 * 3000);
  }, 30_000);
});

describe("an open call's input and result", () => {
  it('the key argument first, the other fields readable (JSON indented), long values capped; an error result says so', () => {
    const d: ShownCall = {
      name: 'Grep',
      input: {
        glob: '*.ts',
        pattern: 'TODO',
        opts: { i: true },
        body: Array.from({ length: 30 }, (_, i) => `b${i}`).join('\n'),
      },
      result: { text: 'boom', error: true },
    };
    const lines = openCallLines(callPiece('Grep', 'TODO'), d, 60).map((l) => l.text);
    expect(lines.slice(0, 6)).toEqual([
      '  pattern: TODO',
      '  glob: *.ts',
      '  opts:',
      '    {',
      '      "i": true',
      '    }',
    ]);
    expect(lines).toContain('  body:');
    expect(lines).toContain('    … 20 more lines');
    expect(lines.slice(-2)).toEqual(['  ⎿ error · result · 1 line', '    boom']);
  });

  it('strings from records never reach the screen raw: escape sequences are removed', () => {
    const d: ShownCall = {
      name: 'Bash',
      input: { command: 'echo \u001b]0;pwned\u0007hi\u001b[2J' },
      result: { text: '\u001b[31mred\u001b[0m', error: false },
    };
    const text = openCallLines(callPiece('Bash', 'echo hi'), d, 60)
      .map((l) => l.text)
      .join('\n');
    expect(text).not.toMatch(/\u001b/);
    expect(text).toContain('command: echo hi');
    expect(text).toContain('red');
  });

  it('an input nested too deeply for JSON.stringify is said, not thrown (it blanked the details of its batch)', () => {
    // JSON.parse takes any depth; stringify and String() recurse and overflow the stack.
    const deep = JSON.parse(`${'['.repeat(50_000)}${']'.repeat(50_000)}`);
    const d: ShownCall = {
      name: 'Bash',
      input: { command: 'echo hi', x: deep },
      result: { text: 'hi', error: false },
    };
    const text = openCallLines(callPiece('Bash', 'echo hi'), d, 60).map((l) => l.text);
    expect(text).toContain('  command: echo hi');
    expect(text).toContain('  x: (a value nested too deeply to show)');
    expect(text.slice(-2)).toEqual(['  ⎿ result · 1 line', '    hi']);
    const whole: ShownCall = { name: 'Bash', input: deep };
    expect(openCallLines(callPiece('Bash', ''), whole, 60)[0].text).toBe(
      '  (a value nested too deeply to show)',
    );
  });

  it('a call line the records cannot account for gets no details: never another call’s diff under it', () => {
    // The answer's text is the model's: a paragraph of its own reading `→ Edit: src/a.ts` parses as a call.
    const answer =
      'I will now write\n\n→ Edit: src/a.ts\n\nthen\n\n→ Edit: src/b.ts\n\n  ok\n\n→ Bash: ls\n\n  a';
    const names = parseAnswer(answer).flatMap((p) => (p.kind === 'call' ? [p.name] : []));
    expect(names).toEqual(['Edit', 'Edit', 'Bash']);
    const realEdit: ShownCall = { name: 'Edit', input: { file_path: 'src/b.ts' }, diff: ['-x', '+y'] };
    const bash: ShownCall = { name: 'Bash', input: { command: 'ls' } };
    expect(alignCalls(names, [realEdit, bash])).toEqual([undefined, undefined, bash]);
    // With the lines' arguments, the real Edit is the one call whose input holds its path; the paragraph has none.
    const args = parseAnswer(answer).flatMap((p) => (p.kind === 'call' ? [p.arg] : []));
    expect(alignCalls(names, [realEdit, bash], args)).toEqual([undefined, realEdit, bash]);
    // A paragraph naming the same path as the real call: neither can be told apart, so neither gets details.
    expect(alignCalls(['Edit', 'Edit'], [realEdit], ['src/b.ts', 'src/b.ts'])).toEqual([
      undefined,
      undefined,
    ]);
  });

  it("calls line up by name, in order; one the records do not have keeps the answer's view", () => {
    const a: ShownCall = { name: 'Read', input: {} };
    const b: ShownCall = { name: 'Bash', input: {} };
    expect(alignCalls(['Read', 'Bash'], [a, b])).toEqual([a, b]);
    expect(alignCalls(['Read', 'Write', 'Bash'], [a, b])).toEqual([a, undefined, b]);
    expect(alignCalls(['Bash'], [a, b])).toEqual([b]);
  });
});

describe('thinking', () => {
  it('hidden: one line saying how much and which key shows it; shown: the text; redacted: said so', () => {
    const t = (text: string, redacted = false) => ({ text, redacted, before: 0 });
    expect(thinkingLines([t('a\nb\nc')], false, 't', 60)).toEqual([
      { role: 'thinking', text: '✻ thinking · 3 lines hidden (t shows)' },
    ]);
    expect(thinkingLines([t('a'), t('b\nc'), t('', true)], false, 'T', 60)[0].text).toBe(
      '✻ thinking · 2 blocks, 3 lines hidden (T shows), 1 redacted',
    );
    expect(thinkingLines([t('', true)], false, 't', 60)[0].text).toBe(
      '✻ thinking · redacted: the source kept no readable text',
    );
    expect(thinkingLines([t('a\nb'), t('', true)], true, 't', 60).map((l) => l.text)).toEqual([
      '✻ thinking (t hides)',
      '  a',
      '  b',
      '  (redacted: the source kept no readable text)',
    ]);
  });

  it('a long thinking block is cleaned once, not again at every t and resize', () => {
    const text = Array.from({ length: 100_000 }, (_, i) => `thought ${i} ${'z'.repeat(40)}`).join('\n');
    const block = { text, redacted: false, before: 0 };
    const time = (f: () => void) => {
      const t0 = performance.now();
      f();
      return performance.now() - t0;
    };
    const first = time(() =>
      expect(thinkingLines([block], false, 't', 100)[0].text).toContain('100000 lines'),
    );
    const again = Math.min(...[80, 90, 100].map((w) => time(() => thinkingLines([block], false, 't', w))));
    expect(again).toBeLessThan(first / 5);
    expect(thinkingLines([block], true, 't', 100)).toHaveLength(100_001);
  });

  it('an open call with details keeps its line to one row: the input under it says the rest, whole', () => {
    const todos = Array.from({ length: 3 }, (_, i) => ({
      id: `${i}`,
      content: `Design part ${i}`,
      status: 'pending',
    }));
    const b = new AnswerBuilder();
    b.toolCall('TodoWrite', { todos });
    b.toolResult('Todos have been modified successfully.');
    const turn = mk('eeee-000001', b.toString());
    const details = {
      thinking: [],
      calls: [
        {
          name: 'TodoWrite',
          input: { todos },
          result: { text: 'Todos have been modified successfully.', error: false },
        },
      ],
    };
    const open = turnBlock(turn, null, 60, null, new Set([0]), { details, thinking: false, key: 't' }).map(
      (l) => l.text,
    );
    const at = open.findIndex((l) => l.startsWith('A → TodoWrite'));
    // The stored argument is 120 characters of flat JSON: wrapped, it broke mid-token over three rows.
    expect(open[at]).toMatch(/^A → TodoWrite {2}\{"todos":.*…$/);
    expect(displayWidth(open[at])).toBeLessThanOrEqual(62);
    expect(open[at + 1]).toBe('    todos:');
    // Without details, the argument the answer keeps is all there is: it wraps as before.
    const plain = turnBlock(turn, null, 60, null, new Set([0])).map((l) => l.text);
    const p = plain.findIndex((l) => l.startsWith('A → TodoWrite'));
    expect(plain[p + 1]).toMatch(/^ {2}\S/);
  });

  it('a turn laid out with details: thinking where it was (before the calls after it), a call opened to its diff', () => {
    const b = new AnswerBuilder();
    b.text('Looking.');
    b.toolCall('Read', { file_path: 'a.ts' });
    b.toolResult('a\nb');
    b.toolCall('Edit', { file_path: 'a.ts' });
    b.toolResult('ok');
    const turn = mk('dddd-000001', b.toString());
    expect(parseAnswer(b.toString()).filter((p) => p.kind === 'call')).toHaveLength(2);
    const edit = { kind: 'replace' as const, file: 'a.ts', pairs: [{ old: 'b', new: 'B' }] };
    const details = {
      thinking: [
        { text: 'first I read', redacted: false, before: 0 },
        { text: 'then I edit\nit', redacted: false, before: 1 },
      ],
      calls: [
        { name: 'Read', input: { file_path: 'a.ts' }, result: { text: 'a\nb', error: false } },
        {
          name: 'Edit',
          input: { file_path: 'a.ts', old_string: 'b', new_string: 'B' },
          edit,
          diff: diffLines(edit, patch),
          result: { text: 'ok', error: false },
        },
      ],
    };
    const folded = turnBlock(turn, null, 60, null, new Set(), { details, thinking: false, key: 't' }).map(
      (l) => l.text,
    );
    const answer = folded.slice(folded.findIndex((l) => l.startsWith('A ')));
    expect(answer.slice(0, 6)).toEqual([
      'A ✻ thinking · 1 line hidden (t shows)',
      '',
      '  Looking.',
      '',
      '  → Read  a.ts  · a · 2 lines',
      '',
    ]);
    expect(answer[6]).toBe('  ✻ thinking · 2 lines hidden (t shows)');
    const open = turnBlock(turn, null, 60, null, new Set([1]), { details, thinking: true, key: 't' });
    const roles = open.map((l) => `${l.role} ${l.text}`);
    expect(roles).toContain('thinking   ✻ thinking (t hides)');
    expect(roles).toContain('thinking     then I edit');
    expect(roles).toContain('diffDel     -b');
    expect(roles).toContain('diffAdd     +B');
    // Without details (none loaded, or a turn asked here), the same turn is what its answer keeps.
    const plain = turnBlock(turn, null, 60, null, new Set([1])).map((l) => l.text);
    expect(plain.some((l) => l.includes('thinking'))).toBe(false);
    expect(plain).toContain('    ok');
  });
});

describe('the reducer: details asked for the turns on screen, once; t shows and hides thinking', () => {
  it('a path shown asks for its visible turns; the answer fills the pane; t toggles; a turn with none stays as it was', () => {
    const d = new Driver(100, 30);
    d.key('j', 'l', 'l');
    expect(d.selKey).toBe('aaaa-000001');
    const b = new AnswerBuilder();
    b.text('Done.');
    const fx = d.send({ type: 'path', bates: 'aaaa-000001', turns: [mk('aaaa-000001', b.toString())] });
    expect(fx).toContainEqual({ type: 'loadDetails', turns: [{ bates: 'aaaa-000001', sid: 'aaaa' }] });
    expect(d.state.details.get('aaaa-000001')).toBe('pending');
    // asked once: a scroll or a key later does not ask again
    expect(d.key('J').some((e) => e.type === 'loadDetails')).toBe(false);
    const text = () => view(d.state).lines().join('\n');
    expect(text()).not.toContain('thinking');
    d.send({
      type: 'details',
      entries: [
        ['aaaa-000001', { thinking: [{ text: 'why\nbecause', redacted: false, before: 0 }], calls: [] }],
      ],
    });
    expect(text()).toContain('A ✻ thinking · 2 lines hidden (t shows)');
    d.key('t');
    expect(d.state.showThinking).toBe(true);
    expect(text()).toContain('✻ thinking (t hides)');
    expect(text()).toContain('    because');
    d.key('t');
    expect(text()).not.toContain('because');
    d.send({ type: 'details', entries: [['aaaa-000001', null]] });
    expect(text()).not.toContain('thinking');
    expect(text()).toContain('A Done.');
  });
});
