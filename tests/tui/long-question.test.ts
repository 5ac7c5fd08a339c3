import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { tempDb } from '../support/tmp.js';
import { start } from './helpers.js';

/**
 * A question of one 1 MB line (a pasted log, an imported prompt with a file inlined): wrapping it asked the width
 * of the whole rest of the line for every line cut off it, quadratic, and the browser froze on the find box's
 * preview and on the transcript (minutes of CPU, keys unanswered, SIGTERM unheard). It now shows at once.
 */
describe('a turn whose question is a 1 MB line', () => {
  it('previews in the find box, opens in the transcript and answers keys at once', async () => {
    const db = tempDb();
    const s = Shard.open(db);
    const question = `pastedlog ${'lorem ipsum dolor sit amet \x1b[31m '.repeat(32_000)}`;
    expect(question.length).toBeGreaterThan(1_000_000);
    s.addTurn({ question, answer_text: 'short answer' });
    s.addTurn({ question: 'a small one', answer_text: 'fine' });
    s.close();
    const t = await start({ db, cols: 80, rows: 24 });
    t.press('/');
    t.type('pastedlog');
    await t.waitFor(/Q pastedlog lorem ipsum dolor sit amet +lorem/, 4000);
    t.press('enter');
    await t.waitFor(/grounded|manual|imported/, 4000);
    await t.waitFor((x) => x.lines().some((l) => l.includes('│ Q pastedlog lorem ipsum')), 4000);
    // the browser still answers: the help opens and closes
    t.press('?');
    await t.waitFor('┌ keys', 4000);
    t.press('escape');
    expect((await t.quit()).code).toBe(0);
  }, 30_000);
});
