import { describe, expect, it } from 'vitest';
import { AnswerBuilder } from '../../src/import/answer.js';
import { displayWidth } from '../../src/text/width.js';
import { view } from '../../src/ui/core/view.js';
import { foldedCall, type Piece, parseAnswer } from '../../src/ui/features/transcript/calls.js';
import { pathDoc, type Turn, turnBlock } from '../../src/ui/features/transcript/model.js';
import { selectedCall } from '../../src/ui/features/transcript/update.js';
import { type Frame, Style } from '../../src/ui/term/canvas.js';
import { Driver } from './fixtures.js';

const call = (p: Piece) => {
  if (p.kind !== 'call') throw new Error(`not a call: ${JSON.stringify(p)}`);
  return p;
};

describe('reading an answer back into its pieces (the shapes AnswerBuilder writes)', () => {
  it('finds text, calls with and without an argument, results, cut results, errors and steering', () => {
    const b = new AnswerBuilder();
    b.text('I will look.\nTwo lines of text.');
    b.toolCall('Bash', { command: 'npm test' });
    b.toolResult(Array.from({ length: 212 }, (_, i) => `out ${i}`).join('\n'));
    b.toolCall('Read', { file_path: '/src/a.ts' });
    b.toolResult('boom\nat line 3', true);
    b.toolCall('Think', null);
    b.toolResult('one line');
    b.toolCall('Write', { path: 'x' });
    b.typedWhileBusy('stop, use pnpm\nplease');
    b.error('model overloaded');
    b.text('Done.');
    const pieces = parseAnswer(b.toString());
    expect(pieces.map((p) => p.kind)).toEqual([
      'text',
      'call',
      'call',
      'call',
      'call',
      'steer',
      'error',
      'text',
    ]);
    expect(pieces[0]).toEqual({ kind: 'text', lines: ['I will look.', 'Two lines of text.'] });
    expect(call(pieces[1])).toEqual({
      kind: 'call',
      name: 'Bash',
      arg: 'npm test',
      result: ['out 0', 'out 1', 'out 2'],
      more: 209,
      error: false,
    });
    expect(call(pieces[2])).toMatchObject({
      name: 'Read',
      arg: '/src/a.ts',
      result: ['boom', 'at line 3'],
      error: true,
    });
    expect(call(pieces[3])).toMatchObject({ name: 'Think', arg: '', result: ['one line'], more: 0 });
    expect(call(pieces[4])).toMatchObject({ name: 'Write', arg: 'x', result: [] });
    expect(pieces[5]).toEqual({ kind: 'steer', lines: ['» typed while busy: stop, use pnpm', 'please'] });
    expect(pieces[6]).toEqual({ kind: 'error', text: 'model overloaded' });
    expect(pieces[7]).toEqual({ kind: 'text', lines: ['Done.'] });
  });

  it('reads a call one line: tool, argument, first result line and the size the stored text gives', () => {
    const [bash, read, think, write] = parseAnswer(
      [
        '→ Bash: npm test',
        '  out 0\n  out 1\n  out 2\n  … 209 more lines',
        '→ Read: /src/a.ts',
        '  error: boom',
        '→ Think',
        '  one line',
        '→ Write: x',
      ].join('\n\n'),
    ).map(call);
    expect(foldedCall(bash)).toBe('→ Bash  npm test  · out 0 · 212 lines');
    expect(foldedCall(read)).toBe('→ Read  /src/a.ts  · error: boom · 1 line');
    expect(foldedCall(think)).toBe('→ Think  · one line · 1 line');
    expect(foldedCall(write)).toBe('→ Write  x  · no result under it');
    // narrow: a long argument gives up room, the size stays
    const long = call(parseAnswer(`→ Bash: ${'x'.repeat(200)}\n\n  ${'y'.repeat(200)}\n  … 9 more lines`)[0]);
    const one = foldedCall(long, 50);
    expect(displayWidth(one)).toBeLessThanOrEqual(50);
    expect(one).toMatch(/^→ Bash {2}x+… {2}· y+… · 10 lines$/);
    // a short first line leaves its room to the argument: a path is not cut while the row has space for it
    const path = call(
      parseAnswer('→ read: .github/workflows/ci.yml\n\n  name: ci\n  on: push\n  … 7 more lines')[0],
    );
    expect(foldedCall(path, 68)).toBe('→ read  .github/workflows/ci.yml  · name: ci · 9 lines');
    expect(foldedCall(path, 54)).toBe('→ read  .github/workflows/ci.yml  · name: ci · 9 lines');
    expect(foldedCall(path, 50)).toBe('→ read  .github/workflows/c…  · name: ci · 9 lines');
  });

  it('in a narrow row (an 80-column terminal) the argument comes first; the first result line only when it has room', () => {
    const bash = call(
      parseAnswer(
        '→ Bash: python /tmp/decorator_example.py\n\n  Hello, Alice!\n  Hello, Alice!\n  Hello, Alice!',
      )[0],
    );
    // It read `→ Bash  python /t…  · Hello, Al… · 3 lines`: ten columns said nothing of what ran.
    expect(foldedCall(bash, 44)).toBe('→ Bash  python /tmp/decorator_exa… · 3 lines');
    // A short argument leaves the rest to the first line.
    const ls = call(parseAnswer('→ Bash: ls\n\n  a.ts b.ts c.ts d.ts e.ts f.ts g.ts\n  … 3 more lines')[0]);
    expect(foldedCall(ls, 44)).toBe('→ Bash  ls  · a.ts b.ts c.ts d.ts… · 4 lines');
    // No result: the shorter tail, so the path is whole (it read `tests/test_…  · no result under it`).
    const edit = call(parseAnswer('→ edit: tests/test_readme.py')[0]);
    expect(foldedCall(edit, 44)).toBe('→ edit  tests/test_readme.py  · no result');
    expect(foldedCall(edit, 60)).toBe('→ edit  tests/test_readme.py  · no result under it');
  });

  it("a tool name too long for half the row (an MCP tool's) gives up its start: the size and the result still show", () => {
    const name = 'mcp__plugin_showcase_example__inspect_repository_structure';
    const mcp = call(
      parseAnswer(`→ ${name}: .\n\n  {\n  "repository": "example-app",\n  … 50 more lines`)[0],
    );
    const one = foldedCall(mcp, 68);
    expect(displayWidth(one)).toBeLessThanOrEqual(68);
    // it read `→ mcp__plugin_showcase_example__inspect_repository_structure  .  …`: no result, no size
    expect(one).toBe('→ …inspect_repository_structure  .  · { · 52 lines');
    const bare = call(parseAnswer(`→ ${name}: .`)[0]);
    expect(foldedCall(bare, 50)).toBe('→ …t_repository_structure  .  · no result under it');
    // the tool's own part is kept whole when it fits, never cut mid-word after a `__`
    expect(foldedCall(mcp, 64)).toBe('→ …inspect_repository_structure  .  · { · 52 lines');
    // a name that fits is whole
    expect(foldedCall(mcp)).toBe(`→ ${name}  .  · { · 52 lines`);
  });

  it('leaves a line that merely looks like a call as text: inside a paragraph, or in a fenced code block', () => {
    const b = new AnswerBuilder();
    b.text('The log shows:\n→ Bash: rm -rf /\nwhich I did not run.');
    b.text('```\n→ Edit: in a fence\n\n→ Bash: still in the fence\n\n  indented too\n```');
    b.text('~~~~sh\n→ Grep: x\n~~~\nstill open\n\n→ Read: y\n~~~~');
    b.toolCall('Grep', { pattern: 'TODO' });
    const pieces = parseAnswer(b.toString());
    expect(pieces.map((p) => p.kind)).toEqual(['text', 'call']);
    const text = pieces[0].kind === 'text' ? pieces[0].lines.join('\n') : '';
    expect(text).toContain('→ Bash: rm -rf /');
    expect(text).toContain('→ Bash: still in the fence\n\n  indented too');
    expect(text).toContain('→ Read: y');
    expect(call(pieces[1]).arg).toBe('TODO');
  });

  it('keeps a result with no call above it (a call in an earlier message) as the text it is', () => {
    const b = new AnswerBuilder();
    b.toolResult('late output');
    b.toolCall('Bash', { command: 'ls' });
    b.toolResult('a');
    b.toolResult('second result, not under a call');
    const pieces = parseAnswer(b.toString());
    expect(pieces.map((p) => p.kind)).toEqual(['text', 'call', 'text']);
    expect(call(pieces[1]).result).toEqual(['a']);
  });
});

const mk = (bates: string, answer: string): Turn => ({
  bates,
  sid: bates.slice(0, 4),
  parent_bates: null,
  is_top: true,
  question: 'run the tests',
  answer_text: answer,
  cited_titles: [],
  audit: 'imported',
  created_at: '2026-11-01T10:00:00Z',
  node_hash: '1'.repeat(64),
  subtree_hash: '2'.repeat(64),
  n_children: 0,
  depth: 0,
});

const ANSWER = (() => {
  const b = new AnswerBuilder();
  b.text('Running them.');
  b.toolCall('Bash', { command: 'npm test' });
  b.toolResult('FAIL a.test.ts\nexpected 1\nreceived 2\nline 4\nline 5');
  b.toolCall('Read', { file_path: 'a.ts' });
  b.toolResult('const a = 2;');
  b.text('Fixed.');
  return b.toString();
})();

describe('the transcript shows each call as one line, opened on demand', () => {
  it('lays a turn out folded, and opens only the calls asked for', () => {
    const t = mk('cccc-000001', ANSWER);
    const text = (open?: ReadonlySet<number>) =>
      turnBlock(t, null, 60, null, open)
        .filter((l) => l.role !== 'session' && l.role !== 'header' && l.role !== 'meta')
        .map((l) => l.text);
    expect(text()).toEqual([
      'Q run the tests',
      'A Running them.',
      '',
      '  → Bash  npm test  · FAIL a.test.ts · 5 lines',
      '  → Read  a.ts  · const a = 2; · 1 line',
      '',
      '  Fixed.',
      '',
    ]);
    expect(text(new Set([0]))).toEqual([
      'Q run the tests',
      'A Running them.',
      '',
      '  → Bash  npm test',
      '    FAIL a.test.ts',
      '    expected 1',
      '    received 2',
      '    … 2 more lines, not kept by the import',
      '  → Read  a.ts  · const a = 2; · 1 line',
      '',
      '  Fixed.',
      '',
    ]);
    const calls = turnBlock(t, null, 60, null).filter((l) => l.call !== undefined);
    expect(calls.map((l) => [l.role, l.call])).toEqual([
      ['tool', 0],
      ['tool', 1],
    ]);
  });

  it('labels an answer that starts with a call, and says when there is none', () => {
    const b = new AnswerBuilder();
    b.toolCall('Bash', { command: 'ls' });
    const lines = turnBlock(mk('cccc-000002', b.toString()), null, 60, null);
    expect(lines.find((l) => l.lead && l.role !== 'q')).toEqual({
      role: 'tool',
      text: 'A → Bash  ls  · no result under it',
      lead: true,
      call: 0,
    });
    expect(turnBlock(mk('cccc-000003', '  \n'), null, 60, null).some((l) => l.text === 'A (no answer)')).toBe(
      true,
    );
  });

  it('parses a turn once: the pieces of a loaded turn are reused when its calls open and fold', () => {
    const t = mk('cccc-000004', ANSWER);
    const doc = (open: ReadonlySet<number>) =>
      pathDoc(
        [t],
        60,
        () => null,
        null,
        () => open,
      );
    const a = doc(new Set()).block(0);
    const b = doc(new Set([1])).block(0);
    // the lines of the pieces are shared, not laid out again
    const folded = a.find((l) => l.call === 0);
    expect(b.find((l) => l.call === 0)).toBe(folded);
    expect(b.length).toBe(a.length + 1);
  });
});

describe('the fold keys', () => {
  it('o opens the first call on screen and folds it again; O opens and folds every call of the turn', () => {
    const d = new Driver(100, 30);
    d.key('j', 'l', 'l');
    expect(d.selKey).toBe('aaaa-000001');
    d.send({ type: 'path', bates: 'aaaa-000001', turns: [mk('aaaa-000001', ANSWER)] });
    expect(selectedCall(d.state)).toEqual({ bates: 'aaaa-000001', call: 0 });
    // drawn: one line per call, the one the key acts on highlighted
    const row = (f: Frame, text: string) => f.lines().findIndex((l) => l.includes(text));
    let f = view(d.state);
    const bash = row(f, '→ Bash  npm test  · FAIL a.test.ts · 5 lines');
    const read = row(f, '→ Read  a.ts  · const a = 2; · 1 line');
    expect(read).toBe(bash + 1);
    const x = f.lines()[bash].indexOf('→');
    expect(f.st[bash * f.width + x]).toBe(Style.selBlur);
    expect(f.st[read * f.width + x]).toBe(Style.link);
    d.key('o');
    expect(d.state.toolsOpen.get('aaaa-000001')).toEqual(new Set([0]));
    f = view(d.state);
    expect(row(f, '→ Bash  npm test  ·')).toBe(-1);
    expect(row(f, '    received 2')).toBe(row(f, '→ Bash  npm test') + 3);
    expect(row(f, '… 2 more lines, not kept by the import')).toBeGreaterThan(0);
    d.key('o');
    expect(d.state.toolsOpen.has('aaaa-000001')).toBe(false);
    d.key('O');
    expect(d.state.toolsOpen.get('aaaa-000001')).toEqual(new Set([0, 1]));
    d.key('O');
    expect(d.state.toolsOpen.has('aaaa-000001')).toBe(false);
  });

  it("at the transcript's end j moves the highlight to the next call on screen, so every call can be opened; k back", () => {
    const d = new Driver(100, 30);
    d.key('j', 'l', 'l');
    const one = mk('aaaa-000001', ANSWER);
    const two = { ...mk('aaaa-000002', ANSWER), parent_bates: 'aaaa-000001' };
    d.send({ type: 'path', bates: 'aaaa-000001', turns: [one, two] });
    d.key('tab');
    // the whole path fits: nothing scrolls, and the fold keys reached only the first turn's first call
    expect(selectedCall(d.state)).toEqual({ bates: 'aaaa-000001', call: 0 });
    d.key('j');
    expect(selectedCall(d.state)).toEqual({ bates: 'aaaa-000001', call: 1 });
    d.key('j');
    expect(selectedCall(d.state)).toEqual({ bates: 'aaaa-000002', call: 0 });
    // drawn highlighted, and the one o opens
    const f = view(d.state);
    const hl = f
      .lines()
      .findIndex((l, y) => l.includes('→ Bash') && f.st[y * f.width + l.indexOf('→')] === Style.selBlur);
    expect(hl).toBeGreaterThan(f.lines().findIndex((l) => l.includes('aaaa-000002')));
    d.key('o');
    expect(d.state.toolsOpen.get('aaaa-000002')).toEqual(new Set([0]));
    expect(d.state.toolsOpen.has('aaaa-000001')).toBe(false);
    expect(selectedCall(d.state)).toEqual({ bates: 'aaaa-000002', call: 0 });
    d.key('o');
    expect(d.state.toolsOpen.size).toBe(0);
    d.key('j', 'j', 'j');
    expect(selectedCall(d.state)).toEqual({ bates: 'aaaa-000002', call: 1 }); // the last call: j stops there
    d.key('k', 'k', 'k');
    expect(selectedCall(d.state)).toEqual({ bates: 'aaaa-000001', call: 0 });
  });

  it('says so when the turn has no calls', () => {
    const d = new Driver(100, 30);
    d.key('j', 'l', 'l');
    d.send({
      type: 'path',
      bates: 'aaaa-000001',
      turns: [mk('aaaa-000001', 'just text\n\n→ in a paragraph\nyes')],
    });
    d.key('o');
    expect(d.state.message?.text).toBe('no tool calls in this turn');
    expect(d.state.toolsOpen.size).toBe(0);
  });
});
