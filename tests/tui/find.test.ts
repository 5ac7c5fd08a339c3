import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import type { Tui } from '../support/pty.js';
import { tempDb } from '../support/tmp.js';
import { answerHome, start, withShard } from './helpers.js';

const HOSTILE = 'evil \x1b]52;c;ZXZpbA==\x07clip\x1b[2J board \x9b31mred \x1b]0;pwned\x07zebra crossing';

/**
 * Two sessions. A ("rust lifetimes", older): a1 ─┬ a2
 *                                                └ a3 (hostile text)
 * B (no label, newer, so listed first):          b1 ─ b2
 */
function twoSessions(): { db: string; A: string; B: string } {
  const db = tempDb();
  const s = Shard.open(db);
  const A = s.createSession({ label: 'rust lifetimes', created_at: '2026-11-01T10:00:00.000Z' }).sid;
  const a1 = s.addTurn({
    session: A,
    question: 'What is a lifetime in Rust?',
    answer_text: 'The region of code for which a reference is valid.',
    created_at: '2026-11-01T10:01:00.000Z',
  });
  s.addTurn({
    parent: a1.bates,
    question: 'Why does a struct that holds references need a lifetime parameter?',
    answer_text: 'So the struct cannot outlive what it borrows.',
    created_at: '2026-11-01T10:02:00.000Z',
  });
  s.addTurn({
    parent: a1.bates,
    question: HOSTILE,
    answer_text: 'nothing to see',
    created_at: '2026-11-01T10:03:00.000Z',
  });
  const B = s.createSession({ created_at: '2026-11-02T10:00:00.000Z' }).sid;
  const b1 = s.addTurn({
    session: B,
    question: 'How does sqlite WAL mode work?',
    answer_text: 'Writers append to a log; readers see a snapshot.',
    created_at: '2026-11-02T10:01:00.000Z',
  });
  s.addTurn({
    parent: b1.bates,
    question: 'When does a checkpoint run in sqlite?',
    answer_text: 'When the log passes 1000 pages, by default.',
    created_at: '2026-11-02T10:02:00.000Z',
  });
  s.close();
  return { db, A, B };
}

/** The overlay's hits, top to bottom: the Bates ids (on each hit's second line). */
function hitIds(t: Tui): string[] {
  return t
    .lines()
    .map((l) => /│ {3}\[([a-z0-9]+-\d{6})\] /.exec(l)?.[1])
    .filter((x): x is string => x !== undefined);
}

describe('the find box in the browser', () => {
  it('finds as you type (typos too), lands on a turn of another session, and a asks under it', async () => {
    const { db, A, B } = twoSessions();
    const t = await start({ db, cols: 100, rows: 30, env: { ARBORIST_HOME: answerHome() } });
    t.press('right', 'right'); // B's first turn
    await t.waitFor(`${B}-000001 depth 0`);
    t.press('/');
    await t.waitFor('type to find among 5 turns');
    t.type('sql');
    await t.waitFor(/│ 2 of 5\s/);
    expect(t.screen()).toContain('/ sql▏');
    expect(hitIds(t).sort()).toEqual([`${B}-000001`, `${B}-000002`]);
    // the results follow the query
    t.press('C-u');
    t.type('lifetme');
    await t.waitFor('also: lifetime');
    await t.waitFor(`[${A}-000001]`);
    const lines = t.lines();
    const second = lines.findIndex((l) => l.includes(`[${A}-000001]`));
    expect(lines[second]).toMatch(/\[\w+-000001\] in the question · manual\s+│/);
    expect(lines[second - 1]).toMatch(
      /│ arborist\s+\d+\w+ {2}What is a lifetime in Rust\?\s+rust lifetimes │/,
    );
    // the match is highlighted (bold yellow), the label dim
    const at = t.find('lifetime in Rust')!;
    const ids = hitIds(t);
    const mine = ids.indexOf(`${A}-000001`);
    for (let i = 0; i < mine; i++) t.press('down');
    if (mine > 0) await t.waitFor(() => t.cell(at.x - 10, at.y)?.getBgColor() === 24);
    expect(t.cell(at.x, at.y)!.isBold()).not.toBe(0);
    expect(t.cell(at.x, at.y)!.getFgColor()).toBe(221);
    t.press('enter');
    // it lands there: A opened, the turn selected, its question in the transcript
    await t.waitFor(`${A}-000001 depth 0`);
    expect(t.screen()).not.toContain('find · all sessions');
    expect(t.screen()).toContain('Q What is a lifetime in Rust?');
    expect(t.screen()).toContain('▾ AR  rust lifetimes');
    const row = t.find('000001 What is a lifetime')!;
    expect(t.cell(row.x, row.y)!.getBgColor()).toBe(24);
    // a asks under that historical turn, in its session
    t.press('a');
    await t.waitFor(`ask under ${A}-000001`);
    t.type('and in a closure?');
    t.press('enter');
    await t.waitFor(`added ${A}-000004`);
    withShard(db, (s) => {
      const n = s.getNode(`${A}-000004`)!;
      expect(n.parent_bates).toBe(`${A}-000001`);
      expect(n.sid).toBe(A);
      expect(n.question).toBe('and in a closure?');
    });
  });

  it('Esc returns to exactly where you were', async () => {
    const { db, B } = twoSessions();
    const t = await start({ db, cols: 100, rows: 30 });
    t.press('right', 'right', 'down');
    await t.waitFor(`${B}-000002 depth 1`);
    await t.settle();
    const before = t.lines().slice(0, -1);
    t.press('/');
    t.type('lifetime');
    await t.waitFor(/│ \d+ of 5\s/);
    t.press('down');
    await t.settle();
    t.press('escape');
    await t.waitFor((x) => !x.screen().includes('find · all sessions'));
    await t.settle();
    expect(t.lines().slice(0, -1)).toEqual(before);
    expect(t.screen()).toContain(`${B}-000002 depth 1`);
  });

  it('n and N step through the hits after closing', async () => {
    const { db } = twoSessions();
    const t = await start({ db, cols: 100, rows: 30 });
    t.press('/');
    t.type('does');
    await t.waitFor(/│ 3 of 5\s/);
    const ids = hitIds(t);
    expect(ids).toHaveLength(3);
    t.press('enter');
    await t.waitFor(`${ids[0]} depth`);
    // (the status bar shows the step; the transcript's title the turn now selected)
    t.press('n');
    await t.waitFor(`find "does": 2 of 3`);
    await t.waitFor(`┌ ${ids[1]} · manual`);
    t.press('N');
    await t.waitFor(`find "does": 1 of 3`);
    await t.waitFor(`┌ ${ids[0]} · manual`);
    t.press('N');
    await t.waitFor(`find "does": 3 of 3, from the bottom`);
    await t.waitFor(`┌ ${ids[2]} · manual`);
  });

  it('the scope key switches between all sessions and the session you were in', async () => {
    const { db, A } = twoSessions();
    const t = await start({ db, cols: 100, rows: 30 });
    t.press('down', 'right', 'right'); // A's first turn
    await t.waitFor(`${A}-000001 depth 0`);
    t.press('/');
    await t.waitFor('Ctrl-S this session only');
    t.type('does');
    await t.waitFor(/│ 3 of 5\s/);
    t.type('\x13'); // Ctrl-S
    await t.waitFor(`find · this session: ${A} rust lifetimes`);
    await t.waitFor(/│ 1 of 3\s/);
    expect(hitIds(t)).toEqual([`${A}-000002`]);
    expect(t.screen()).toContain('Ctrl-S all sessions');
    t.type('\x13');
    await t.waitFor(/│ 3 of 5\s/);
    expect(t.screen()).toContain('find · all sessions');
  });

  it('hostile text in a hit never reaches the terminal', async () => {
    const { db, A } = twoSessions();
    const t = await start({ db, cols: 100, rows: 30 });
    t.press('/');
    t.type('zebra');
    await t.waitFor(`[${A}-000003]`);
    const lines = t.lines();
    const second = lines.findIndex((l) => l.includes(`[${A}-000003]`));
    expect(lines[second - 1]).toContain('evil clip board red zebra crossing');
    expect(t.clipboard).toEqual([]);
    expect(t.oscTitles.join()).not.toContain('pwned');
    expect(t.raw).not.toContain('ZXZpbA');
    expect(t.raw).not.toContain('\x1b[2J board');
    // and going there shows it just as clean in the tree and the transcript
    t.press('enter');
    await t.waitFor(`${A}-000003 depth 1`);
    expect(t.screen()).toContain('Q evil clip board red zebra crossing');
    expect(t.clipboard).toEqual([]);
  });

  it('a hit shows its agent, project and age, and a match in the answer its snippet, highlighted', async () => {
    const db = tempDb();
    withShard(db, (s) => {
      s.createSession({
        sid: 'cccc',
        created_at: '2026-11-01T10:00:00.000Z',
        source: { source: 'claude', source_session: 'C1', info: { cwd: '/home/ana/shop', project: 'shop' } },
      });
      s.createSession({
        sid: 'xxxx',
        created_at: '2026-11-01T10:00:00.000Z',
        source: { source: 'codex', source_session: 'X1', info: { cwd: '/home/ana/garden' } },
      });
      s.addTurn({
        session: 'cccc',
        question: 'How long does a cart live?',
        answer_text: 'Carts expire after a day unless the shopper is signed in.',
        created_at: '2026-11-01T10:01:00.000Z',
      });
      s.addTurn({
        session: 'xxxx',
        question: 'Why will this not compile?',
        answer_text: 'The reference outlives the value it borrows from, so the checker stops it.',
        created_at: '2026-11-01T10:02:00.000Z',
      });
    });
    const t = await start({ db, cols: 80, rows: 24 });
    t.press('/');
    await t.waitFor('type to find among 2 turns');
    t.type('borro'); // a prefix of "borrows", in the answer only
    await t.waitFor(/│ 1 of 2\s/);
    await t.waitFor('answer: ');
    const lines = t.lines();
    const second = lines.findIndex((l) => l.includes('[xxxx-000001] answer:'));
    expect(lines[second - 1]).toMatch(/│ codex\s+…\/ana\/garden\s+\d+\w+ {2}Why will this not compile\?/);
    expect(lines[second]).toContain('value it borrows');
    // the matched word is highlighted in the emulator's cells (bold, the match colour); its neighbours are not
    const word = t.find('borrows')!;
    expect(t.cell(word.x, word.y)!.isBold()).not.toBe(0);
    expect(t.cell(word.x, word.y)!.getFgColor()).toBe(221);
    expect(t.cell(word.x + 8, word.y)!.getFgColor()).not.toBe(221);
    // a filter narrows in the engine, and an unknown agent is said in the box
    t.press('C-u');
    t.type('agent:claude cart');
    await t.waitFor(/│ 1 of 2\s/);
    await t.waitFor(/│ claude\s+…\/ana\/shop\s+\d+\w+ {2}How long does a cart live\?/);
    t.press('C-u');
    t.type('agent:gemini cart');
    await t.waitFor("no agent 'gemini' in this shard");
  });
});
