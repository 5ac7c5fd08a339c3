import { describe, expect, it } from 'vitest';
import { appendUnchecked, dbOf } from '../../src/store/testing.js';
import { cli } from '../support/cli.js';
import { demoShard, start, withShard } from './helpers.js';

describe('other writers and the chain', () => {
  it('a turn added by another process appears without a restart', async () => {
    const d = demoShard();
    const wal = d.sid['sqlite wal'];
    const t = await start({ db: d.db, cols: 100, rows: 30 });
    t.press('down', 'down', 'right');
    await t.waitFor('▾ AR  sqlite wal');
    const added = withShard(d.db, (s) =>
      s.addTurn({
        parent: `${wal}-000002`,
        question: 'what about wal2 mode?',
        answer_text: 'an experimental branch',
      }),
    );
    expect(added.bates).toBe(`${wal}-000005`);
    await t.waitFor('000005 what about wal2 mode?', 2000);
    // the session count and the event count follow, and the chain was re-checked
    await t.waitFor(/AR {2}sqlite wal\s+5 /);
    await t.waitFor(/chain ✓ 22 events/);
    // a brand new session shows up too
    withShard(d.db, (s) => s.addTurn({ question: 'a new topic', answer_text: 'yes', label: 'elsewhere' }));
    await t.waitFor('sessions 5', 2000);
    await t.waitFor(/elsewhere\s+1 now/);
  });

  it('tampering with the audit table turns the bar BROKEN, in red', async () => {
    const d = demoShard();
    const t = await start({ db: d.db, cols: 100, rows: 30 });
    await t.waitFor('chain ✓ 21 events');
    withShard(d.db, (s) => {
      dbOf(s)
        .prepare("UPDATE audit_events SET body = CAST(replace(CAST(body AS TEXT), 'tmux', 'tmuX') AS BLOB)")
        .run();
    });
    await t.waitFor(/chain BROKEN at event \d+/, 3000);
    const at = t.find('chain BROKEN')!;
    const cell = t.cell(at.x, at.y)!;
    expect(cell.getBgColor()).toBe(160);
    expect(cell.isBold()).not.toBe(0);
    // `c` re-checks everything and finds it again
    t.press('c');
    await t.waitFor(/chain BROKEN at event \d+/);
  });

  it('c runs a full check with progress', async () => {
    const d = demoShard();
    // Enough events for the check to go to the worker and report progress, appended directly. Of a kind that
    // claims nothing verify compares (a resume's note), so the background state check, which may finish first
    // on a loaded machine, finds the state as recorded: an unknown kind made it say BROKEN.
    withShard(d.db, (s) =>
      s.write(() => {
        for (let i = 0; i < 50000; i++)
          appendUnchecked(s, 'session.resume', {
            source_bates: `${d.sid['tmux']}-000001`,
            new_session_id: `filler-${i}`,
            file: '/nowhere.jsonl',
            lines: 0,
          });
      }),
    );
    expect(cli(['verify', '--db', d.db]).code).toBe(0);
    const t = await start({ db: d.db, cols: 100, rows: 30 });
    await t.waitFor(/chain ✓ [\d,]+ events/, 20000);
    const before = t.raw.length;
    t.press('c');
    // What was drawn, not the screen at one moment: on a fast machine the check can end between two looks.
    await t.waitFor(() => /chain checking/.test(t.raw.slice(before)));
    await t.waitFor(/chain ✓ [\d,]+ events · head [0-9a-f]{8} · checked now/, 20000);
  }, 30000);
});
