import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import type { Tui } from '../support/pty.js';
import { tempDb } from '../support/tmp.js';
import { start } from './helpers.js';

/** Lines of an answer, the `at`th holding `word` (so the preview must scroll to show it). */
function answer(tag: string, n: number, at: number, word: string): string {
  return Array.from({ length: n }, (_, i) =>
    i + 1 === at ? `${tag} line ${i + 1} holds the ${word} here` : `${tag} line ${i + 1}`,
  ).join('\n');
}

/** Two turns found by a word only their answers hold: deep in a long answer, and near the top of another. */
function shard(): string {
  const db = tempDb();
  const s = Shard.open(db);
  const A = s.createSession({ label: 'airships', created_at: '2026-11-01T10:00:00.000Z' }).sid;
  s.addTurn({
    session: A,
    question: 'Tell me about old aircraft',
    answer_text: answer('alpha', 60, 45, 'zeppelin'),
    created_at: '2026-11-01T10:01:00.000Z',
  });
  const B = s.createSession({ label: 'balloons', created_at: '2026-11-02T10:00:00.000Z' }).sid;
  s.addTurn({
    session: B,
    question: 'And lighter than air craft?',
    answer_text: answer('bravo', 30, 3, 'zeppelins'),
    created_at: '2026-11-02T10:01:00.000Z',
  });
  s.close();
  return db;
}

/** The screen position of the first `word` on the line holding `text`. */
function wordOn(t: Tui, text: string, word: string, below = -1): { x: number; y: number } {
  // `below`: the row under which to look (a hit's snippet may hold the same line above the preview).
  const y = t.lines().findIndex((l, i) => i > below && l.includes(text));
  if (y < 0) throw new Error(`no line holds ${text}`);
  return { x: t.lines()[y].indexOf(word, t.lines()[y].indexOf(text)), y };
}

/** The word is painted as a match: the match style's colour (256-colour 221), bold. */
function highlighted(t: Tui, at: { x: number; y: number }): boolean {
  const c = t.cell(at.x, at.y);
  return c !== undefined && c.getFgColor() === 221 && c.isBold() !== 0;
}

describe('the find box preview in the browser', () => {
  it('120x40: beside the hits, the turn opens at its match (highlighted); Down moves it to the next hit', async () => {
    const t = await start({ db: shard(), cols: 120, rows: 40 });
    await t.waitFor('airships');
    t.press('/');
    await t.waitFor('type to find among 2 turns');
    t.type('zeppeli');
    await t.waitFor(/│ 2 of 2\s/);
    // the newer turn (bravo) is first: its match is near its top
    await t.waitFor('bravo line 3 holds the zeppelins here');
    const b = wordOn(t, 'bravo line 3 holds', 'zeppelins');
    const hitRow = t.find('And lighter than air')!;
    expect(b.x).toBeGreaterThan(hitRow.x + 30); // beside the list, not under it
    expect(highlighted(t, b)).toBe(true);
    expect(highlighted(t, { x: b.x - 4, y: b.y })).toBe(false); // "the" before it is not
    t.press('down');
    await t.waitFor('alpha line 45 holds the zeppelin here');
    expect(t.screen()).not.toContain('bravo line 3 ');
    // 60 lines of answer: the window opened near line 45, not at the question
    expect(t.screen()).not.toContain('alpha line 10\n');
    expect(t.screen()).toMatch(/line \d+\/\d+/);
    expect(highlighted(t, wordOn(t, 'alpha line 45', 'zeppelin'))).toBe(true);
    // the preview scrolls (Shift-Up) without moving the selection
    t.press('S-up', 'S-up', 'S-up', 'S-up', 'S-up', 'S-up', 'S-up', 'S-up');
    await t.waitFor('Tell me about old aircraft');
    expect(t.screen()).not.toContain('alpha line 45 holds');
    // a mistyped filter says so in the box, with the filter meant (its word is searched as text), as find does
    t.press('C-u');
    t.type('agnt:bar zeppelin');
    await t.waitFor('agnt: is no filter (did you mean agent:?); searched it as words');
  });

  it('80x24: the preview sits under the hits, a few lines of the turn at its match', async () => {
    const t = await start({ db: shard(), cols: 80, rows: 24 });
    await t.waitFor('airships');
    t.press('/');
    await t.waitFor('type to find among 2 turns');
    t.type('zeppelin');
    await t.waitFor('bravo line 3 holds the zeppelins here');
    const hits = t.find('And lighter than air')!;
    const b = wordOn(t, 'bravo line 3 holds', 'zeppelins', hits.y + 1);
    expect(b.y).toBeGreaterThan(hits.y + 3); // under both hits and their snippets
    expect(highlighted(t, b)).toBe(true);
    t.press('down');
    await t.waitFor('alpha line 45 holds the zeppelin here');
    // Ctrl-O hides it: the list has the box again
    t.press('C-o');
    await t.waitFor((x) => !x.screen().includes('alpha line 45 holds the zeppelin here'));
    expect(t.screen()).toContain('Ctrl-O preview');
  });
});
