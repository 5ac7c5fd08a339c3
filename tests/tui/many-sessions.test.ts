/**
 * More sessions than fit on the screen: the first screen is drawn from the newest that fit (the rest are read
 * right after it), and what a person sees and can do is what it was with every session read first: the count,
 * the position, the oldest session at the bottom, and find.
 */
import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { tempDb } from '../support/tmp.js';
import { start } from './helpers.js';

function shardOf(n: number): { db: string; oldest: string; newest: string } {
  const db = tempDb();
  const s = Shard.open(db);
  s.write(() => {
    for (let i = 0; i < n; i++) {
      const at = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
      const ses = s.createSession({
        label: i % 2 === 0 ? `label${String(i).padStart(3, '0')}` : null,
        created_at: at,
      });
      s.addTurn({
        session: ses.sid,
        question: `zebra${i} asks`,
        answer_text: 'a',
        created_at: at,
      });
    }
  });
  const all = s.sessionSummaries();
  s.close();
  return { db, newest: all[0].sid, oldest: all[all.length - 1].sid };
}

describe('a shard with more sessions than rows', () => {
  it('shows the whole count at once, reaches the oldest session with End, and finds in any of them', async () => {
    const d = shardOf(150);
    const t = await start({ db: d.db, cols: 100, rows: 24 });
    await t.waitFor('chain ✓');
    const lines = t.lines();
    expect(lines[0]).toMatch(/^┌ sessions 150 ─/);
    expect(lines[1]).toContain('▸ AR  zebra149 asks');
    expect(lines[22]).toMatch(/ 1\/150 ─┘/);
    // An unlabelled session shows its first question; a labelled one its label.
    expect(lines[2]).toContain('label148');
    t.press('end');
    await t.waitFor('AR  label000');
    expect(t.lines()[22]).toMatch(/ 150\/150 ─┘/);
    t.press('home');
    await t.waitFor(/ 1\/150 ─┘/);
    t.press('/');
    t.type('zebra3');
    // A hit from an old session, far below the first screen's rows (not the typed text: that reads 'zebra3').
    await t.waitFor('zebra3 asks');
  });

  it('answers a key pressed before the rest of the sessions are read as if they had been', async () => {
    const d = shardOf(150);
    const t = await start({ db: d.db, cols: 100, rows: 24 });
    // As soon as the first screen is there, before anything else.
    await t.waitFor(/sessions 150/);
    t.press('end');
    await t.waitFor('AR  label000');
    expect(t.lines()[22]).toMatch(/ 150\/150 ─┘/);
  });
});
