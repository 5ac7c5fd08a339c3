import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbOf } from '../../src/store/testing.js';
import { buildFixture, copy, type Fixture } from '../integrity/fixture.js';
import { tamper } from '../support/attacker.js';
import { cli } from '../support/cli.js';
import { start, withShard } from './helpers.js';

/** The browser on damaged and hostile shards: BROKEN in the status bar, never a hang or a crash. */
let dir: string;
let f: Fixture;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'arb-tui-int-'));
  f = buildFixture(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the browser on a damaged shard', () => {
  it('a turn edited behind its back with every hash recomputed: the chain is intact, the bar says BROKEN', async () => {
    const path = copy(f);
    tamper(path, (db) => db.prepare("UPDATE nodes SET question = 'forged' WHERE bates = ?").run(f.a[1]));
    const t = await start({ db: path, cols: 120, rows: 30 });
    await t.waitFor(new RegExp(`BROKEN: turn ${f.a[1]}: its content differs`), 10_000);
    const at = t.find('BROKEN')!;
    expect(t.cell(at.x, at.y)!.getBgColor()).toBe(160);
    // still alive and answering keys
    t.press('?');
    await t.waitFor('Move');
  });

  it('the newest event overwritten and another writer appending: the bar turns BROKEN', async () => {
    const path = copy(f);
    const t = await start({ db: path, cols: 120, rows: 30 });
    await t.waitFor(/chain ✓ \d+ events/);
    withShard(path, (s) => {
      dbOf(s)
        .prepare(
          'UPDATE audit_events SET body = CAST(? AS BLOB), event_hash = zeroblob(32) WHERE seq = (SELECT max(seq) FROM audit_events)',
        )
        .run('{"garbage":true}');
    });
    const r = cli(['ask', 'after the overwrite', '--answer', 'x', '--db', path]);
    expect(r.code, r.stderr).toBe(0);
    await t.waitFor(/chain BROKEN at event \d+/, 5000);
  });

  // The event the last check stopped at is where the next one resumes: its own bytes must be checked again, not
  // only its stored hash (which the attacker leaves as it was, so the appended event still links to it).
  it.each([
    ['bytes that are not JSON', 'garbage'],
    ['other JSON', '{"garbage":true}'],
  ])(
    'the verified head event rewritten with %s, its hash kept, then an append: BROKEN at that event',
    async (_n, body) => {
      const path = copy(f);
      const t = await start({ db: path, cols: 160, rows: 30 });
      await t.waitFor(/chain ✓ \d+ events/);
      // Past the first state check (runtime.ts, 1.5 s after start; the next is minutes away): only the chain check
      // is left to see the edit, as in a browser left open.
      await new Promise((r) => setTimeout(r, 3000));
      const head = withShard(path, (s) => s.audit.head().seq);
      withShard(path, (s) => {
        dbOf(s).prepare('UPDATE audit_events SET body = CAST(? AS BLOB) WHERE seq = ?').run(body, head);
      });
      const r = cli(['ask', 'after the overwrite', '--answer', 'x', '--db', path]);
      expect(r.code, r.stderr).toBe(0);
      expect(cli(['chain-check', '--db', path]).stdout).toContain(`event ${head}`);
      await t.waitFor(`chain BROKEN at event ${head}`, 5000);
      const screen = t.screen();
      expect(screen).not.toContain('chain ✓');
      expect(screen).not.toMatch(/Unexpected token|not valid JSON/);
    },
  );

  it('a parent cycle: the browser opens, lists the session and goes on answering keys', async () => {
    const path = copy(f);
    tamper(
      path,
      (db) => {
        const id = (b: string) => db.prepare('SELECT id FROM nodes WHERE bates = ?').pluck().get(b);
        db.prepare('UPDATE nodes SET parent_id = ? WHERE bates = ?').run(id(f.a[2]), f.a[0]);
      },
      { rehash: false },
    );
    const t = await start({ db: path, cols: 120, rows: 30 });
    // Open every session and walk down its rows: nothing may hang.
    for (let i = 0; i < 12; i++) t.press('right', 'down');
    t.press('?');
    await t.waitFor('Move', 5000);
    t.press('escape');
    await t.waitFor(/BROKEN/, 10_000);
  });
});

describe('the browser on hostile content', () => {
  it('an answer of 200,000 short lines: selecting it shows it, and the browser stays up', async () => {
    const path = copy(f);
    const lines = Array.from({ length: 200_000 }, (_, i) => `l${i % 10}`).join('\n');
    const added = withShard(path, (s) =>
      s.addTurn({ question: 'a very long answer', answer_text: lines, label: 'long' }),
    );
    const t = await start({ db: path, cols: 100, rows: 30 });
    // The newest session is listed first: open it and select its turn.
    t.press('right', 'down');
    await t.waitFor('a very long answer', 5000);
    await t.waitFor(`${added.bates} ·`, 5000);
    t.press('tab', 'end');
    await t.settle(100);
    t.press('home');
    await t.waitFor('Q a very long answer', 5000);
    t.press('q');
    const exit = await t.exited;
    expect(exit.code).toBe(0);
  });

  it('the same turn shows the same time, with its zone, in the CLI and in the browser', async () => {
    const path = copy(f);
    const env = { TZ: 'Asia/Kolkata' };
    const shown = cli(['show', f.d[0], '--db', path], { env });
    const m = /created\s+(\d{4}-\d\d-\d\d \d\d:\d\d \+05:30)/.exec(shown.stdout);
    expect(m, shown.stdout).not.toBeNull();
    const t = await start({ db: path, cols: 120, rows: 30, env });
    // delta is the newest session: open it and select its one turn
    t.press('right', 'down');
    await t.waitFor(`${f.d[0]} · manual · ${m![1]}`, 5000);
  });
});
