import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import type { Tui } from '../support/pty.js';
import { tempDb, tempDir } from '../support/tmp.js';
import { CRASH_SCRIPT, demoShard, start, withShard } from './helpers.js';

/** Every body row has its four borders in place, whatever the text inside. */
function bordersIntact(t: Tui): void {
  const lines = t.lines();
  const last = t.rows - 2;
  expect(lines[0]).toMatch(/^┌.*┐┌.*┐$/);
  for (let y = 1; y < last; y++) {
    expect(t.cell(0, y)!.getChars(), `row ${y}: ${lines[y]}`).toBe('│');
    expect(t.cell(t.cols - 1, y)!.getChars(), `row ${y}: ${lines[y]}`).toBe('│');
    expect(lines[y], `row ${y}`).toMatch(/^│.*││.*│$/);
  }
  expect(lines[last]).toMatch(/^└─*.*┘└.*┘$/);
}

const HOSTILE = [
  'clipboard \x1b]52;c;cHduZWQ=\x07 and \x9d52;c;cHduZWQ=\x9c',
  'title \x1b]0;pwned-title\x07 \x1b]2;pwned-two\x1b\\ \x9d2;pwned-c1\x9c',
  'clear \x1b[2J\x1b[H \x9b2J \x1bc reset',
  'c1 \x85 \x84 \x8d \x90qdcs\x9c \x1bP1$rdcs\x1b\\ \x1b_apc\x1b\\ \x1b^pm\x1b\\ \x98sos\x9c',
  'bidi \u202eevil\u202c \u2066iso\u2069 bell\x07 tags {red-fg}red{/red-fg} {bold}b{/bold}',
].join('\n');

describe('terminal safety and behaviour', () => {
  it('an answer holding OSC 52, title changes, a screen clear and C1 controls does nothing to the terminal', async () => {
    const db = tempDb();
    const bates = withShard(db, (s) => {
      const a = s.addTurn({
        question: 'is this safe? \x1b]0;q-title\x07\x9b31m',
        answer_text: HOSTILE,
        label: 'hostile \x1b[31mred',
      });
      return a.bates;
    });
    const t = await start({ db, cols: 100, rows: 30 });
    t.press('right', 'right');
    await t.waitFor(`${bates} depth 0`);
    await t.waitFor('tags {red-fg}red{/red-fg}');
    await t.waitFor('{bold}b{/bold}');
    await t.settle();
    expect(t.clipboard).toEqual([]);
    expect(t.oscTitles).toEqual([]);
    expect(t.titles).toEqual([]);
    expect(t.bells).toBe(0);
    const screen = t.screen();
    expect(screen).not.toContain('pwned');
    expect(screen).toContain('A clipboard  and');
    expect(screen).toContain('bidi evil iso bell tags');
    expect(screen).toContain('hostile red');
    expect(screen).toContain('Q is this safe?');
    // nothing cleared the screen: the tree and the status bar are still there
    expect(screen).toMatch(/chain ✓ \d+ events/);
    expect(screen).toContain('sessions 1');
    bordersIntact(t);
    // no raw escape of ours carried the payload either
    expect(t.raw).not.toContain('pwned');
    expect(t.raw).not.toMatch(/[\x80-\x9f]/);
  });

  it('CJK and emoji do not break the borders', async () => {
    const db = tempDb();
    withShard(db, (s) => {
      let p = s.addTurn({
        question: '日本語の質問です、とても長い質問で枠を超えるかもしれません😀😀😀',
        answer_text: '答え: 漢字とかなと絵文字🎉が混ざった長い回答です。'.repeat(6),
        label: '絵文字 🎉 ラベル',
      }).bates;
      p = s.addTurn({
        parent: p,
        question: 'e\u0301 combining, ZWJ 👩‍💻 and flags 🇯🇵 and ✅ ⌚',
        answer_text: 'ok 👍🏽 fine',
      }).bates;
      s.addTurn({ parent: p, question: 'x'.repeat(40) + '中'.repeat(30), answer_text: 'ｆｕｌｌｗｉｄｔｈ' });
    });
    for (const [cols, rows] of [
      [80, 24],
      [97, 27],
    ]) {
      const t = await start({ db, cols, rows });
      t.press('right', 'right', 'down', 'down');
      await t.waitFor(/-000003 depth 2/);
      await t.settle();
      bordersIntact(t);
      expect(t.screen()).toContain('絵文字 🎉');
      t.press('up');
      await t.waitFor(/-000002 depth 1/);
      await t.settle();
      bordersIntact(t);
      t.kill();
    }
  });

  it('resizing reflows the layout', async () => {
    const d = demoShard();
    const t = await start({ db: d.db, cols: 100, rows: 30 });
    t.press('end', 'right', 'down');
    await t.waitFor(/-000001 depth 0/);
    t.resize(80, 24);
    await t.waitFor((x) => x.lines()[23].includes('chain ✓') && x.lines()[22].startsWith('└'));
    bordersIntact(t);
    t.resize(140, 45);
    await t.waitFor((x) => x.lines()[44].includes('chain ✓') && /^└─+┘└.*┘$/.test(x.lines()[43]));
    bordersIntact(t);
    expect(t.lines()[0].length).toBe(140);
    // too small: says so instead of drawing garbage
    t.resize(30, 8);
    await t.waitFor('terminal too small');
    t.resize(80, 24);
    await t.waitFor((x) => x.lines()[23].includes('chain ✓'));
    bordersIntact(t);
  });

  it('q quits and gives the terminal back (normal screen, cursor visible)', async () => {
    const d = demoShard();
    const t = await start({ db: d.db, cols: 80, rows: 24 });
    expect(t.altScreen).toBe(true);
    const e = await t.quit();
    expect(e.code).toBe(0);
    expect(t.altScreen).toBe(false);
    expect(t.cursorVisible).toBe(true);
  });

  it('the shard deleted under it: one line, exit 2, the terminal given back (it wrote into the deleted file)', async () => {
    const d = demoShard();
    const t = await start({ db: d.db, cols: 80, rows: 24 });
    for (const f of [d.db, `${d.db}-wal`, `${d.db}-shm`]) rmSync(f, { force: true });
    const e = await t.close(3000);
    expect(e.code).toBe(2);
    expect(t.altScreen).toBe(false);
    expect(t.raw).toMatch(/arborist: the shard .* was deleted or replaced while the browser ran/);
  });

  for (const [sig, num] of [
    ['SIGTERM', 15],
    ['SIGHUP', 1],
  ] as const) {
    it(`${sig} restores the terminal and ends the process`, async () => {
      const d = demoShard();
      const t = await start({ db: d.db, cols: 80, rows: 24 });
      t.kill(sig);
      const e = await t.close();
      expect(e.signal).toBe(num);
      expect(t.altScreen).toBe(false);
      expect(t.cursorVisible).toBe(true);
      expect(t.raw).not.toContain('Assertion failed');
    });
  }

  it("an exception restores the terminal and is reported as a bug (exit 70), under the CLI's error policy", async () => {
    const d = demoShard();
    const t = await start({ db: d.db, cols: 80, rows: 24, nodeArgs: ['--import', CRASH_SCRIPT] });
    const e = await t.close();
    expect(e.code).toBe(70);
    expect(t.altScreen).toBe(false);
    expect(t.cursorVisible).toBe(true);
    expect(t.screen()).toContain('arborist: internal error: boom from a test');
    expect(t.screen()).toContain('arborist: this is a bug in arborist, not a mistake of yours.');
  });

  for (const term of ['xterm-256color', 'screen-256color', 'tmux-256color', 'xterm', 'linux']) {
    it(`TERM=${term}: a correct screen, no terminfo errors`, async () => {
      const d = demoShard();
      const t = await start({ db: d.db, cols: 90, rows: 26, env: { TERM: term } });
      await t.waitFor('chain');
      expect(t.raw).not.toMatch(/Error on|terminfo|Terminfo/);
      bordersIntact(t);
      const closed = term === 'linux' ? '>' : '▸';
      expect(t.screen()).toContain(`${closed} AR  tmux`);
      // colours degrade: 256 colours only where the terminal has them
      const at = t.find('chain')!;
      const bg = t.cell(at.x, at.y)!.getBgColor();
      if (term.endsWith('256color')) expect(bg).toBe(236);
      else expect(bg).toBe(4);
      const e = await t.quit();
      expect(e.code).toBe(0);
    });
  }

  it('NO_COLOR gives a monochrome screen (attributes only)', async () => {
    const d = demoShard();
    const t = await start({ db: d.db, cols: 90, rows: 26, env: { NO_COLOR: '1' } });
    t.press('right', 'down');
    await t.waitFor(/-000001 depth \d/);
    await t.settle();
    for (let y = 0; y < t.rows; y++) {
      for (let x = 0; x < t.cols; x++) {
        const c = t.cell(x, y)!;
        expect(c.isFgDefault() && c.isBgDefault(), `cell ${x},${y}`).toBe(true);
      }
    }
    // the selection and the status bar still stand out, by inverse video
    const sel = t.find('├ 000001')!;
    expect(t.cell(sel.x, sel.y)!.isInverse()).not.toBe(0);
    expect(t.cell(2, t.rows - 1)!.isInverse()).not.toBe(0);
  });

  it('mouse reporting is off by default and on with --mouse', async () => {
    const d = demoShard();
    const t = await start({ db: d.db, cols: 80, rows: 24 });
    expect((t.term as unknown as { modes: { mouseTrackingMode: string } }).modes.mouseTrackingMode).toBe(
      'none',
    );
    t.kill();
    const m = await start({ db: d.db, cols: 80, rows: 24, args: ['--mouse'] });
    expect((m.term as unknown as { modes: { mouseTrackingMode: string } }).modes.mouseTrackingMode).not.toBe(
      'none',
    );
    // a click on the third row selects it (SGR mouse report, 1-based)
    m.type('\x1b[<0;6;4M\x1b[<0;6;4m');
    await m.waitFor(new RegExp(`│ ${d.sid['sqlite wal']}`));
  });

  const sessionsIn = (db: string) => {
    const s = Shard.open(db, { readonly: true });
    try {
      return s.listSessions().length;
    } finally {
      s.close();
    }
  };

  it("an empty shard offers the demo: d opens the demo's own shard and leaves the empty one empty", async () => {
    const home = tempDir('arborist-home-');
    const db = join(home, 'sessions.db');
    Shard.open(db).close();
    const t = await start({ db, cols: 120, rows: 24, env: { ARBORIST_HOME: home } });
    await t.waitFor('This shard is empty.');
    await t.waitFor('Press d to load a demo, q to quit');
    t.press('d');
    await t.waitFor('sessions 4');
    await t.waitFor('rust lifetim');
    await t.waitFor(/demo shard \/.*demo\.db · your shard stays empty/);
    await t.waitFor(/chain ✓/);
    // The demo's shard works as any other: Enter expands a session from it.
    t.press('Enter');
    await t.waitFor(/[├└]/);
    await t.quit();
    expect(sessionsIn(db)).toBe(0);
    expect(sessionsIn(join(home, 'demo.db'))).toBe(4);
  });

  it('on the demo shard itself (`arborist demo` left it empty, or a link to it), d builds the demo in place', async () => {
    const home = tempDir('arborist-home-');
    const db = join(home, 'demo.db');
    Shard.open(db).close();
    const t = await start({ db, cols: 80, rows: 24, env: { ARBORIST_HOME: home } });
    t.press('d');
    await t.waitFor('demo loaded');
    await t.waitFor(/chain ✓ 21 events/);
    await t.quit();
    expect(sessionsIn(db)).toBe(4);
    // demo.db a link to the shard shown: the same file, built in place, not opened a second time.
    const other = tempDir('arborist-home-');
    const real = join(other, 'mine.db');
    Shard.open(real).close();
    symlinkSync(real, join(other, 'demo.db'));
    const u = await start({ db: real, cols: 80, rows: 24, env: { ARBORIST_HOME: other } });
    u.press('d');
    await u.waitFor('demo loaded');
    await u.quit();
    expect(sessionsIn(real)).toBe(4);
  });

  it('a demo shard that cannot be opened is said in one line, and the browser stays on the empty shard', async () => {
    const home = tempDir('arborist-home-');
    const db = join(home, 'sessions.db');
    Shard.open(db).close();
    writeFileSync(join(home, 'demo.db'), 'not a database, but a file a person keeps\n'.repeat(200));
    const t = await start({ db, cols: 120, rows: 24, env: { ARBORIST_HOME: home } });
    t.press('d');
    await t.waitFor(/the demo shard cannot be opened: /);
    expect(t.screen()).toContain('This shard is empty.');
    await t.quit();
    expect(sessionsIn(db)).toBe(0);
  });

  it('keys.json: an override works; an unknown action or a key bound twice refuses to start (exit 2)', async () => {
    const d = demoShard();
    const home = tempDir('arborist-home-');
    writeFileSync(join(home, 'keys.json'), JSON.stringify({ 'move.down': ['w'], 'move.up': 'p' }));
    const t = await start({ db: d.db, cols: 80, rows: 24, env: { ARBORIST_HOME: home } });
    t.press('w', 'w');
    await t.waitFor(new RegExp(`│ ${d.sid['sqlite wal']}`));
    t.press('?');
    await t.waitFor(/ w\s+Next row/);
    await t.quit();

    writeFileSync(join(home, 'keys.json'), JSON.stringify({ 'move.dwn': ['n'] }));
    const bad = await start({ db: d.db, cols: 80, rows: 24, env: { ARBORIST_HOME: home }, ready: null });
    expect((await bad.close()).code).toBe(2);
    expect(bad.raw).toMatch(/arborist: .*keys\.json: unknown action 'move\.dwn'/);
    expect(bad.altScreen).toBe(false);

    writeFileSync(join(home, 'keys.json'), JSON.stringify({ ask: ['j'] }));
    const twice = await start({ db: d.db, cols: 80, rows: 24, env: { ARBORIST_HOME: home }, ready: null });
    expect((await twice.close()).code).toBe(2);
    expect(twice.raw).toMatch(/keys\.json: key 'j' is bound to both move\.down and ask\r?\n$/);
  });
});
