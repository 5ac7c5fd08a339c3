import { describe, expect, it } from 'vitest';
import type { Tui } from '../support/pty.js';
import { tempDb } from '../support/tmp.js';
import { start, withShard } from './helpers.js';

const ANSWER = [
  '## Package.json Analysis Summary',
  '',
  'Uses **TypeScript** and `npm test`.',
  '',
  '```ts',
  'const total = 42; // the answer',
  '```',
].join('\n');

/** A shard of one session whose turns answer with each text, in order. */
function shardOf(answers: string[]): string {
  const db = tempDb();
  withShard(db, (s) => {
    let parent: string | undefined;
    for (const [i, a] of answers.entries()) {
      parent = s.addTurn({ question: `question ${i + 1}`, answer_text: a, label: 'md', parent }).bates;
    }
  });
  return db;
}

/** Opens the session and selects its turn `n` (1-based). */
async function openTurn(t: Tui, n: number): Promise<void> {
  t.press('l');
  await t.waitFor('question 1');
  for (let i = 0; i < n; i++) t.press('j');
  await t.waitFor(`00000${n} depth ${n - 1}`);
}

describe('markdown in the transcript pane (real pty, xterm emulator)', () => {
  it('renders a heading without its ## and colours a code block by its language (80x24)', async () => {
    const t = await start({ db: shardOf([ANSWER]), cols: 80, rows: 24 });
    await openTurn(t, 1);
    await t.waitFor('A Package.json Analysis Summary');
    expect(t.screen()).not.toContain('##');
    expect(t.screen()).not.toContain('**');
    expect(t.screen()).toContain('Uses TypeScript and npm test.');
    await t.waitFor('│ const total = 42; // the answer');
    const kw = t.find('const total')!;
    const num = t.find('42;')!;
    const comment = t.find('// the answer')!;
    // The 256-colour theme (src/ui/term/terminal.ts): keyword 170, number 179, comment 244.
    expect(t.cell(kw.x, kw.y)!.getFgColor()).toBe(170);
    expect(t.cell(num.x, num.y)!.getFgColor()).toBe(179);
    expect(t.cell(comment.x, comment.y)!.getFgColor()).toBe(244);
    const head = t.find('Package.json')!;
    expect(t.cell(head.x, head.y)!.isBold()).not.toBe(0);
    expect(t.cell(head.x, head.y)!.getFgColor()).toBe(81);
  });

  it('shows the same structure under NO_COLOR, with no colour at all', async () => {
    const t = await start({ db: shardOf([ANSWER]), cols: 80, rows: 24, env: { NO_COLOR: '1' } });
    await openTurn(t, 1);
    await t.waitFor('│ const total = 42; // the answer');
    expect(t.screen()).not.toContain('##');
    for (const text of ['Package.json', 'const total', '42;', '// the answer', 'npm test', 'TypeScript']) {
      const at = t.find(text)!;
      const c = t.cell(at.x, at.y)!;
      expect(c.isFgDefault(), text).toBe(true);
      expect(c.isBgDefault(), text).toBe(true);
    }
    // Heading and keyword by weight, inline code by inverse video.
    const head = t.find('Package.json')!;
    expect(t.cell(head.x, head.y)!.isBold()).not.toBe(0);
    const kw = t.find('const total')!;
    expect(t.cell(kw.x, kw.y)!.isBold()).not.toBe(0);
    const code = t.find('npm test')!;
    expect(t.cell(code.x, code.y)!.isInverse()).not.toBe(0);
  });

  it('survives hostile answers: 10,000 nested quotes, escapes in a code block, a 1 MB line, a 2,000-deep list', async () => {
    const deep = `${'>'.repeat(10_000)} deep`;
    const escapes =
      '```bash\necho \x1b]52;c;aGVsbG8=\x07 \x1b]0;pwned\x07 \x9b2J \x1b[31mred\x1b[0m done\n```';
    const long = `${'word '.repeat(200_000)}end`;
    const nested = Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i * 2)}- n${i}`).join('\n');
    const t = await start({ db: shardOf([deep, escapes, long, nested]), cols: 80, rows: 24 });
    await openTurn(t, 1);
    await t.waitFor('>>>>>>>>>>');
    t.press('j');
    await t.waitFor('000002 depth 1');
    await t.waitFor('echo');
    await t.waitFor('red done');
    expect(t.clipboard).toEqual([]);
    expect(t.oscTitles.filter((x) => x.includes('pwned'))).toEqual([]);
    t.press('j');
    await t.waitFor('000003 depth 2');
    await t.waitFor('word word word');
    t.press('j');
    await t.waitFor('000004 depth 3');
    // Deeper than the parser's cap: shown as the text it is, every item kept.
    await t.waitFor('A - n0');
    // Still answering keys: the transcript scrolls to the end of the 2,000-deep list and back to the path's top.
    t.press('tab', 'G');
    await t.waitFor('- n1999');
    t.press('g');
    await t.waitFor('A >>>>>>>>>>');
  });
});
