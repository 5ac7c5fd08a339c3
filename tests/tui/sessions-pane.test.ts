/** The sessions pane in a real terminal: badges and projects on the rows, grouped by project, filtered by agent. */
import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { tempDb } from '../support/tmp.js';
import { start } from './helpers.js';

function shard(): string {
  const db = tempDb();
  const s = Shard.open(db);
  const at = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString();
  const add = (source: string | null, cwd: string, title: string | null, q: string, d: number) => {
    const ses = s.createSession({
      created_at: at(d),
      ...(source
        ? { source: { source, source_session: q, info: { cwd, ...(title ? { title } : {}) } } }
        : {}),
    });
    s.addTurn({ session: ses.sid, question: q, answer_text: 'ok', created_at: at(d) });
  };
  add('claude', '/home/me/src/arborist', 'Parser rewrite', 'rewrite the parser please', 1);
  add('codex', '/srv/shop', null, 'which port does the shop use', 2);
  add('codex', '/home/me/src/arborist', null, 'ship the release', 3);
  add(null, '', null, 'asked in arborist itself', 4);
  s.close();
  return db;
}

describe('the sessions pane', () => {
  it('shows badges and projects, groups by project under headings, and filters by agent (80x24)', async () => {
    const t = await start({ db: shard(), cols: 80, rows: 24 });
    await t.waitFor('Parser re'); // the source's own title, not the first question
    let lines = t.lines();
    expect(lines[1]).toMatch(/^│▸ CC {2}…borist Parser re… 1 {2}1d│/);
    expect(lines[2]).toMatch(/^│▸ CX {2}…v\/shop which por… 1 {2}2d│/);
    // asked here, no project: the project column left blank, its title under the others (it started 8 columns left)
    expect(lines[4]).toMatch(/^│▸ AR {10}asked in … 1 {2}4d│/);
    const starts = ['Parser', 'which', 'ship', 'asked'].map((w, i) => lines[i + 1].indexOf(` ${w}`));
    expect(starts.every((x) => x > 0 && x === starts[0])).toBe(true);
    t.press('P');
    await t.waitFor('sessions 4 · by project');
    lines = t.lines();
    expect(lines[1]).toMatch(/^│▾ \/home\/me\/src\/arborist\s+2\s+1d│/);
    expect(lines[2]).toMatch(/^│▸ CC {2}Parser rewrite/);
    expect(lines[3]).toMatch(/^│▸ CX {2}ship the release/);
    expect(lines[4]).toMatch(/^│▾ \/srv\/shop\s+1\s+2d│/);
    expect(lines[6]).toMatch(/^│▾ \(no project\)\s+1\s+4d│/);
    // a heading is bold and coloured (the emulator's cells hold the attributes)
    const h = t.find('/srv/shop');
    expect(h).toBeDefined();
    const heading = t.cell(h!.x, h!.y);
    expect(heading).toBeDefined();
    expect(heading!.isBold()).not.toBe(0); // xterm gives the bold flag's bit, 0 when not bold
    // and a session's title (not the selected row) is not: the attribute is the heading's own
    const row = t.find('ship the release');
    expect(row).toBeDefined();
    expect(t.cell(row!.x, row!.y)!.isBold()).toBe(0);
    // Left on a session goes to its heading; Left again closes it
    t.press('left', 'left');
    await t.waitFor(/│▸ \/home\/me\/src\/arborist\s+2/);
    expect(t.lines()[2]).toMatch(/^│▾ \/srv\/shop/);
    // the filter prompt: Tab completes the agent; Enter filters; the title says how
    t.press('F');
    await t.waitFor('filter sessions');
    t.type('cod');
    t.press('tab');
    await t.waitFor('agent:codex▏');
    t.press('enter');
    await t.waitFor('2 · by proj · agent:codex');
    lines = t.lines();
    // codex's newest session is in /srv/shop now; the closed heading stays closed
    expect(lines[1]).toMatch(/^│▾ \/srv\/shop\s+1\s+2d│/);
    expect(lines[2]).toMatch(/^│▸ CX {2}which port/);
    expect(lines[3]).toMatch(/^│▸ \/home\/me\/src\/arborist\s+1\s+3d│/);
    expect(lines[4]).toMatch(/^│\s+│/);
    expect(await t.quit()).toMatchObject({ code: 0 });
  });
});
