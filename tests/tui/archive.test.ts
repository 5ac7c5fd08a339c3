import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deleteEntry, getEntry, listArchives, listEntries } from '../../src/store/index.js';
import { entryShard } from '../support/entry-shard.js';
import type { Tui } from '../support/pty.js';
import { tempDb } from '../support/tmp.js';
import { start, withShard } from './helpers.js';

/** A shard with entry `main` (see entryShard), and what it holds. */
function shard() {
  const db = tempDb();
  const f = withShard(db, (s) => entryShard(s));
  const events = withShard(db, (s) => s.audit.head().seq);
  return { db, f, events };
}

/** The shard file and its -wal, byte for byte. */
function bytes(db: string): Buffer {
  const wal = `${db}-wal`;
  return Buffer.concat([readFileSync(db), existsSync(wal) ? readFileSync(wal) : Buffer.alloc(0)]);
}

/** The text inside the overlay box titled `title`, its lines joined and spaces folded (wrapping undone). */
function overlayText(t: Tui, title: string): string {
  const lines = t.lines();
  const top = lines.findIndex((l) => l.includes(`┌ ${title} `));
  if (top < 0) return '';
  const x = lines[top].indexOf('┌');
  const r = lines[top].indexOf('┐', x);
  const out: string[] = [];
  for (let y = top + 1; y < lines.length && lines[y][x] !== '└'; y++) out.push(lines[y].slice(x + 1, r));
  return out.join(' ').replace(/\s+/g, ' ');
}

function healthy(db: string): void {
  withShard(db, (s) => {
    expect(s.chainCheck().ok).toBe(true);
    expect(s.verify().ok).toBe(true);
  });
}

describe('entries and the archive tier in the browser', () => {
  it('E, x: the confirmation lists what is archived and what is kept, and why; y archives it; the chain re-checks', async () => {
    const { db, f, events } = shard();
    const t = await start({ db, cols: 120, rows: 40 });
    await t.waitFor(`chain ✓ ${events} events`);
    await t.waitFor('sessions 5');
    t.press('E');
    await t.waitFor('r reset · x delete');
    expect(t.screen()).toContain(`main  ${f.cur.sid} main chat · 2 turns`);
    expect(t.screen()).toMatch(/family 3/);
    t.press('x');
    await t.waitFor('Will be archived:');
    const screen = overlayText(t, "delete entry 'main'");
    expect(screen).toContain("Entry 'main' goes. 2 sessions will be archived (reason deleted), 1 kept.");
    expect(screen).toContain(`${f.cur.sid} · main chat · 2 turns`);
    expect(screen).toContain("in the family of entry 'main' (its current session)");
    expect(screen).toContain(`${f.pre.sid} · before compaction · 2 turns`);
    expect(screen).toMatch(
      /in the family of entry 'main' \(pre-compaction session of checkpoint [a-z0-9]{8}\)/,
    );
    expect(screen).toContain('Kept:');
    expect(screen).toContain(`${f.kept.sid} · kept parent · 2 turns`);
    expect(screen).toContain(
      `holds ${f.kept.bates[1]}, the parent of surviving turn ${f.fork.bates[0]} of session ${f.fork.sid}`,
    );
    // the kept session is listed under Kept, after the archived ones
    expect(screen.indexOf(`${f.kept.sid} · kept parent`)).toBeGreaterThan(screen.indexOf('Kept:'));
    expect(screen.indexOf(`${f.pre.sid} · before`)).toBeLessThan(screen.indexOf('Kept:'));
    t.press('y');
    await t.waitFor("deleted 'main': 2 archived, 1 kept");
    await t.waitFor('sessions 3');
    // one entry.delete and two session.archive events, re-checked
    await t.waitFor(`chain ✓ ${events + 3} events`);
    // the tree's rows show titles (the labels here), not sids
    const tree = t.lines().map((l) => l.slice(0, 30));
    expect(tree.join('\n')).not.toContain('main chat');
    expect(tree.join('\n')).not.toContain('before compaction');
    expect(tree.join('\n')).toContain('kept parent');
    expect(await t.quit()).toMatchObject({ code: 0 });
    withShard(db, (s) => {
      expect(
        listArchives(s)
          .map((a) => `${a.sid}:${a.reason}`)
          .sort(),
      ).toEqual([`${f.cur.sid}:deleted`, `${f.pre.sid}:deleted`].sort());
      expect(listEntries(s)).toEqual([]);
      expect(s.getSession(f.kept.sid)).toBeDefined();
      expect(s.getNode(f.fork.bates[0])!.parent_bates).toBe(f.kept.bates[1]);
      expect(s.audit.head().seq).toBe(events + 3);
    });
    healthy(db);
  });

  it('A shows the archived sessions, marked and read-only: their turns read back, a is refused', async () => {
    const { db, f } = shard();
    withShard(db, (s) => deleteEntry(s, 'main'));
    const before = withShard(db, (s) => s.audit.head().seq);
    const t = await start({ db, cols: 140, rows: 40 });
    await t.waitFor('sessions 3');
    t.press('A');
    await t.waitFor('sessions 3 + 2 archived');
    // Both listed after the live ones, with a dim "archived" tag in place of the age.
    const row = t.find('AR  before compaction')!;
    expect(row).not.toBeNull();
    expect(t.lines()[row.y]).toMatch(/2 archived\s*│/);
    expect(t.cell(row.x, row.y)!.getFgColor()).toBe(244);
    // The last row is the archived session with the smaller sid (same archive time: newest sid first).
    const last = [f.cur.sid, f.pre.sid].sort()[0];
    const label = last === f.cur.sid ? 'main chat' : 'before compaction';
    t.press('G');
    await t.waitFor(`To bring it back: R restores it, or arborist archive restore ${last}.`);
    t.press('right', 'down');
    await t.waitFor(`│ ${last}-000001 depth 0`);
    const screen = t.screen();
    expect(screen).toContain(`archived, read-only · ${last}-000001`);
    expect(screen).toContain(`Q ${label} question 1`);
    expect(screen).toContain(`A ${label} answer 1`);
    t.press('down');
    await t.waitFor(`│ ${last}-000002 depth 1`);
    expect(t.screen()).toContain(`A ${label} answer 2`);
    t.press('a');
    await t.waitFor(`read-only (archived): arborist archive restore ${last}, or R`);
    t.press('f');
    await t.settle(60);
    expect(t.screen()).toContain(`read-only (archived): arborist archive restore ${last}, or R`);
    expect(t.screen()).not.toContain(`ask under ${last}`);
    expect(t.screen()).not.toContain('fork: a new session under');
    // A hides them again
    t.press('A');
    await t.waitFor('archived sessions hidden');
    await t.waitFor((x) => !x.screen().includes(last));
    expect(await t.quit()).toMatchObject({ code: 0 });
    // Browsing wrote nothing.
    withShard(db, (s) => {
      expect(s.audit.head().seq).toBe(before);
      expect(listArchives(s)).toHaveLength(2);
    });
    healthy(db);
  });

  it('n and Esc cancel: nothing is written (file bytes and chain head unchanged)', async () => {
    const { db, events } = shard();
    const t = await start({ db, cols: 120, rows: 40 });
    await t.waitFor(`chain ✓ ${events} events`);
    const before = bytes(db);
    t.press('E');
    await t.waitFor('r reset · x delete');
    t.press('x');
    await t.waitFor('Will be archived:');
    t.press('n');
    await t.waitFor((x) => x.screen().includes('r reset · x delete') && !x.screen().includes('Will be'));
    t.press('r');
    await t.waitFor("Entry 'main' moves to a new, empty session.");
    expect(overlayText(t, "reset entry 'main'")).toContain(
      "Entry 'main' moves to a new, empty session. 2 sessions will be archived (reason reset), 1 kept.",
    );
    t.press('escape');
    await t.waitFor((x) => x.screen().includes('r reset · x delete') && !x.screen().includes('Will be'));
    t.press('x');
    await t.waitFor('Will be archived:');
    t.press('escape', 'escape');
    await t.waitFor((x) => !x.screen().includes('r reset · x delete'));
    await t.settle(100);
    expect(bytes(db).equals(before)).toBe(true);
    expect(await t.quit()).toMatchObject({ code: 0 });
    withShard(db, (s) => {
      expect(s.audit.head().seq).toBe(events);
      expect(listArchives(s)).toEqual([]);
      expect(getEntry(s, 'main')).toBeDefined();
    });
  });

  it('at 80x24: the reset confirmation fits and scrolls; y resets the entry to a new, empty session', async () => {
    const { db, f, events } = shard();
    const t = await start({ db, cols: 80, rows: 24 });
    await t.waitFor(`chain ✓ ${events} events`);
    t.press('E');
    await t.waitFor('r reset · x delete');
    t.press('r');
    await t.waitFor("reset entry 'main'");
    await t.waitFor('y/Enter confirms · n/Esc cancels · ↑↓ 1-');
    for (const l of t.lines()) expect(l.length).toBeLessThanOrEqual(80);
    t.press('G');
    await t.waitFor('Archived sessions stay readable');
    t.press('y');
    await t.waitFor("reset 'main': 2 archived, 1 kept");
    const sid = withShard(db, (s) => getEntry(s, 'main')!.sessionId);
    // the entry's new (empty) session is selected
    await t.waitFor(`session ${sid} ─`);
    await t.waitFor(`chain ✓ ${events + 3} events`);
    expect(await t.quit()).toMatchObject({ code: 0 });
    withShard(db, (s) => {
      expect(getEntry(s, 'main')).toMatchObject({ sessionId: sid, family: [sid] });
      expect(s.getSession(sid)!.n_nodes).toBe(0);
      expect(
        listArchives(s)
          .map((a) => `${a.sid}:${a.reason}`)
          .sort(),
      ).toEqual([`${f.cur.sid}:reset`, `${f.pre.sid}:reset`].sort());
    });
    healthy(db);
  });
});
