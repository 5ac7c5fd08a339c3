import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import type { Tui } from '../support/pty.js';
import { tempDb } from '../support/tmp.js';
import { answerHome, start, withShard } from './helpers.js';

/** The budget for another writer's turn to reach a browser's screen (the TUI polls data_version). */
const SHOW_MS = 1500;

/** Waits until `t` shows `text`, and returns how long that took from `since`. */
async function shows(t: Tui, text: string, since: number): Promise<number> {
  await t.waitFor(text, SHOW_MS);
  return Date.now() - since;
}

describe('two browsers and a CLI writer on one shard', () => {
  it("each browser shows the other writers' new turns within 1.5 s, and the shard stays clean", async () => {
    const db = tempDb();
    const sid = withShard(db, (s) => {
      const t = s.addTurn({ question: 'the first question', answer_text: 'first', label: 'shared' });
      return t.sid;
    });
    const home = answerHome();
    const [a, b] = await Promise.all([
      start({ db, cols: 100, rows: 30, env: { ARBORIST_HOME: home } }),
      start({ db, cols: 100, rows: 30, env: { ARBORIST_HOME: home } }),
    ]);
    for (const t of [a, b]) {
      t.press('right');
      await t.waitFor('▾ AR  shared');
      t.press('right');
      await t.waitFor(`${sid}-000001 depth 0`);
    }
    const took: Record<string, number> = {};

    // The CLI writes: both browsers show it.
    const r = cli(['ask', 'from the command line', '--answer', 'cli answer', '--session', sid, '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    const t0 = Date.now();
    [took['cli -> a'], took['cli -> b']] = await Promise.all([
      shows(a, '000002 from the command line', t0),
      shows(b, '000002 from the command line', t0),
    ]);

    // Browser a asks: b shows it (and the other way round).
    for (const [asker, watcher, seq, q] of [
      [a, b, '000003', 'asked in browser a'],
      [b, a, '000004', 'asked in browser b'],
    ] as const) {
      asker.press('a');
      await asker.waitFor(`ask under ${sid}-000001`);
      asker.type(q);
      asker.press('enter');
      await asker.waitFor(`added ${sid}-${seq}`, 5000);
      took[`${q} -> other`] = await shows(watcher, `${seq} ${q}`, Date.now());
      asker.press('right'); // clears the message
    }
    console.log(`shown after (ms): ${JSON.stringify(took)}`);

    withShard(db, (s) => {
      expect(s.verify()).toMatchObject({ ok: true, nodes: 4 });
      expect(s.chainCheck()).toMatchObject({ ok: true, events: 1 + 1 + 4 });
      expect(s.sessionTree(sid).map((n) => n.question)).toEqual([
        'the first question',
        'from the command line',
        'asked in browser a',
        'asked in browser b',
      ]);
    });
    for (const t of [a, b]) expect(await t.quit()).toMatchObject({ code: 0 });
  });
});
