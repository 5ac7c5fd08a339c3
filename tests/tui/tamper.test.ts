import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASES } from '../integrity/cases.js';
import { buildFixture, copy, type Fixture } from '../integrity/fixture.js';
import { tamper } from '../support/attacker.js';
import { start } from './helpers.js';

/**
 * The tampering matrix in the browser: every edit that the chain or the state check can see on its own (all but
 * the two only a head kept elsewhere reveals) turns the status bar BROKEN, and the browser keeps answering keys.
 */
let dir: string;
let f: Fixture;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'arb-tui-tamper-'));
  f = buildFixture(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tampering, seen from the browser', () => {
  it.each(CASES.filter((c) => c.by !== 'head').map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const path = copy(f);
    tamper(path, (db) => c.edit(db, f), { rehash: c.rehash ?? true });
    const t = await start({ db: path, cols: 120, rows: 24 });
    await t.waitFor(/BROKEN/, 15_000);
    const at = t.find('BROKEN')!;
    expect(t.cell(at.x, at.y)!.getBgColor()).toBe(160);
    t.press('?');
    await t.waitFor('Move');
    t.press('q');
    expect((await t.exited).code).toBe(0);
  });
});
