import { describe, expect, it } from 'vitest';
import { demoShard, start } from './helpers.js';

describe('browsing the demo shard', () => {
  it('opens on the sessions, newest first, with the chain state in the status bar', async () => {
    const d = demoShard();
    const t = await start({ db: d.db, cols: 100, rows: 30 });
    await t.waitFor('chain ✓');
    const lines = t.lines();
    expect(lines[0]).toMatch(/^┌ sessions 4 ─+┐┌ session \S+ ─+┐$/);
    // newest first: rust + sqlite (1 day), tmux, sqlite wal, rust lifetimes (12 days)
    // each row: its agent's badge (AR: asked here), its title, turns and age
    expect(lines[1]).toContain('▸ AR  rust + sqlite');
    expect(lines[2]).toContain('▸ AR  tmux');
    expect(lines[3]).toContain('▸ AR  sqlite wal');
    expect(lines[4]).toContain('▸ AR  rust lifetimes');
    expect(lines[4]).toMatch(/6 12d│/);
    const status = lines[29];
    expect(status).toMatch(/chain ✓ \d+ events · head [0-9a-f]{8} · checked (now|\ds ago)/);
    expect(status).toContain('? help');
    // borders intact on every row
    for (let y = 1; y < 28; y++) expect(lines[y]).toMatch(/^│.*││.*│$/);
    expect(lines[28]).toMatch(/^└─+┘└─+┘$/);
    // the selected row is highlighted (inverse colours), the first row here
    const sel = t.cell(2, 1)!;
    expect(sel.getBgColor()).not.toBe(t.cell(2, 2)!.getBgColor());
    expect(t.altScreen).toBe(true);
    expect(t.cursorVisible).toBe(false);
  });

  it('navigates down, right, left, and up to a parent in another session', async () => {
    const d = demoShard();
    const wal = d.sid['sqlite wal'];
    const fork = d.sid['rust + sqlite'];
    const t = await start({ db: d.db, cols: 110, rows: 34 });
    t.press('down', 'down', 'l');
    await t.waitFor('▾ AR  sqlite wal');
    // expanded: turns with seq, question start, branch mark with child count, cross-session child with its id
    await t.waitFor(/000001 What does WAL mode change.*⑂2/);
    await t.waitFor(`├ 000002 How does checkpointing work?`);
    await t.waitFor(`↳ ${fork}-000001 How would I poll`);
    // Right goes to the first child, j moves on: the transcript shows the path root first
    t.press('l', 'j', 'j', 'j');
    await t.waitFor(`${wal}-000004 · grounded`);
    // The status bar may come a frame after the pane: wait for it, then read the whole screen.
    await t.waitFor(`${wal}-000004 depth 2`);
    let screen = t.screen();
    expect(screen).toContain('Q How can a long-running reader');
    expect(screen).toContain(`session ${wal} · sqlite wal`);
    // onto the link, then Right: the linked turn in its own session, with the crossing marked
    t.press('j');
    await t.waitFor(`${fork}-000001 depth 3`);
    t.press('l');
    await t.waitFor('▾ AR  rust + sqlite');
    await t.waitFor(`⇢ crosses into session ${fork}`);
    screen = t.screen();
    expect(screen).toContain(`forked from`);
    expect(screen).toMatch(/000001 ↰ How would I poll data/);
    // Left on a turn with children collapses it; Left again follows the parent into the other session
    t.press('h');
    await t.waitFor(/000001 ▸ ↰ How would I poll/);
    t.press('h');
    await t.waitFor(`${wal}-000004 depth 2`);
    const row = t.lines().find((l) => l.includes('000004 How can a long-running'));
    expect(row).toBeDefined();
    // the selected row is the parent: highlighted
    const pos = t.find('000004 How can a long-running')!;
    expect(t.cell(pos.x, pos.y)!.getBgColor()).toBe(24);
    // Left on a session row collapses it
    t.press('home', 'h');
    await t.waitFor('▸ AR  rust + sqlite');
  });

  it('steps through branch points with ] and [ and lists them with b', async () => {
    const d = demoShard();
    const rust = d.sid['rust lifetimes'];
    const t = await start({ db: d.db, cols: 100, rows: 30 });
    t.press('end', 'l');
    await t.waitFor('▾ AR  rust lifetimes');
    t.press(']');
    await t.waitFor(`${rust}-000002 depth 1`);
    t.press(']');
    await t.waitFor('no later branch point');
    t.press('[');
    await t.waitFor('no earlier branch point');
    t.press('b');
    await t.waitFor(`branch points in ${rust}`);
    await t.waitFor(new RegExp(`${rust}-000002 ⑂2 And for structs`));
    t.press('escape');
    await t.waitFor((x) => !x.screen().includes('branch points in'));
  });

  it('scrolls the transcript after Tab, and shows the help overlay from the key table', async () => {
    const d = demoShard();
    const t = await start({ db: d.db, cols: 80, rows: 24 });
    // DFS order: 1, 2, 3, 6, the link under 6, 4, 5
    t.press('end', 'l', 'j', 'j', 'j', 'j');
    await t.waitFor(/-000006 depth 3/);
    const before = t.lines()[1];
    t.press('tab', 'home');
    await t.waitFor((x) => x.lines()[1] !== before);
    expect(t.lines()[1]).toContain('session');
    t.press('?');
    // The overlay's footer: the frame may reach the emulator in more than one write, so wait for all of it.
    await t.waitFor((x) => x.screen().includes('┌ keys') && x.screen().includes('Esc closes'));
    const help = t.screen();
    expect(help).toContain('Move');
    expect(help).toMatch(/↓ j\s+Next row/);
    expect(help).toContain('Esc closes');
    // Page down until the Turns group shows (how many pages it takes depends on how many keys come before it).
    const ask = /a\s+Ask a follow-up under the selected turn/;
    for (let i = 0; i < 4 && !ask.test(t.screen()); i++) {
      const page = t.screen();
      t.press('pagedown');
      await t.waitFor((x) => x.screen() !== page);
    }
    await t.waitFor(ask);
    t.press('escape');
    await t.waitFor((x) => !x.screen().includes('┌ keys'));
  });
});
