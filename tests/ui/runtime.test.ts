import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';
import { selectedBates } from '../../src/ui/core/selectors.js';
import { buildDemo } from '../../src/ui/runtime/demo.js';
import { describe as describeError } from '../../src/ui/runtime/describe.js';
import { tempDb } from '../support/tmp.js';
import { driveRuntime, until } from '../support/ui-runtime.js';

/** The reducer and the real runtime on a real shard, without a terminal (chain checks run inline). */
function harness(db: string) {
  const h = driveRuntime(Shard.open(db), { provider: { kind: 'manual', answer: 'a manual answer' } });
  h.rt.changed();
  return h;
}

describe('runtime effects on a real shard', () => {
  it('loads sessions and outlines, reveals across sessions, lists branch points', () => {
    const db = tempDb();
    const s0 = Shard.open(db);
    buildDemo(s0);
    const wal = s0.listSessions().find((s) => s.label === 'sqlite wal')!.sid;
    s0.close();
    const h = harness(db);
    expect(h.state.sessions.map((s) => s.label)).toEqual([
      'rust + sqlite',
      'tmux',
      'sqlite wal',
      'rust lifetimes',
    ]);
    h.key('j', 'j', 'l', 'l');
    expect(selectedBates(h.state)).toBe(`${wal}-000001`);
    expect(h.state.path?.turns.map((t) => t.bates)).toEqual([`${wal}-000001`]);
    h.key('b');
    expect(h.state.overlay).toMatchObject({
      kind: 'branches',
      items: [{ bates: `${wal}-000001`, n_children: 2 }],
    });
    h.key('escape', 'end');
    expect(h.state.selKey).toMatch(/^s:/);
    h.key('up'); // the link under sqlite wal-000004, just above the last session
    expect(h.state.selKey).toMatch(/^l:/);
    h.key('right');
    const fork = selectedBates(h.state)!;
    expect(h.state.expanded.has(fork.slice(0, 8))).toBe(true);
    expect(h.state.path?.turns.map((t) => t.sid)).toEqual([wal, wal, wal, fork.slice(0, 8)]);
    h.shard.close();
  });

  it('checks the chain, re-checks new events incrementally, and finds tampering', () => {
    const db = tempDb();
    const other = Shard.open(db);
    buildDemo(other);
    const h = harness(db);
    h.rt.check(true);
    expect(h.state.chain).toMatchObject({ status: 'ok', events: 21, full: true });
    // another writer appends: incremental
    other.addTurn({ question: 'new', answer_text: 'x' });
    h.poll();
    expect(h.state.chain).toMatchObject({ status: 'ok', events: 23, full: false });
    expect(h.state.sessions).toHaveLength(5);
    // a change without an event (tampering): a full check finds it
    dbOf(other)
      .prepare("UPDATE audit_events SET body = CAST(replace(CAST(body AS TEXT), 'tmux', 'TMUX') AS BLOB)")
      .run();
    h.poll();
    expect(h.state.chain).toMatchObject({ status: 'broken', full: true });
    expect(h.state.chain.brokenAt).toBeGreaterThan(0);
    // a rewritten tail (the verified event changed) is caught too
    other.close();
    h.shard.close();
  });

  it('the verified event rewritten (its hash kept) before another writer appends: BROKEN there, no parser text', () => {
    const db = tempDb();
    const other = Shard.open(db);
    buildDemo(other);
    const h = harness(db);
    h.rt.check(true);
    expect(h.state.chain).toMatchObject({ status: 'ok', events: 21 });
    dbOf(other).prepare("UPDATE audit_events SET body = CAST('garbage' AS BLOB) WHERE seq = 21").run();
    other.addTurn({ question: 'new', answer_text: 'x' });
    h.poll();
    expect(h.state.chain).toMatchObject({ status: 'broken', brokenAt: 21, full: true });
    expect(h.state.message?.text ?? '').not.toMatch(/JSON|token/);
    other.close();
    h.shard.close();
  });

  it("an error for the status bar: a parser's message (it quotes the shard's bytes) is never shown, others sanitised", () => {
    let parse: unknown;
    try {
      JSON.parse('garbage');
    } catch (e) {
      parse = e;
    }
    expect(describeError(parse)).toBe('the shard holds data that cannot be read');
    expect(describeError(new Error('bad \x1b]0;title\x07thing\nsecond line'))).toBe('bad thing');
  });

  it('asks and forks through src/ask, and builds the demo on an empty shard', async () => {
    const db = tempDb();
    Shard.open(db).close();
    const h = harness(db);
    expect(h.state.sessions).toEqual([]);
    h.key('d');
    expect(h.state.sessions).toHaveLength(4);
    h.key('l', 'l', 'a');
    for (const c of 'why?') h.key(c);
    h.key('enter');
    await until(() => h.state.ask === null);
    expect(h.state.message?.text).toMatch(/^added [a-z0-9]+-000004$/);
    const added = selectedBates(h.state)!;
    expect(h.shard.getNode(added)!.answer_text).toBe('a manual answer');
    h.key('f', 'x', 'enter');
    await until(() => h.state.ask === null);
    expect(h.state.message?.text).toMatch(/^forked into [a-z0-9]+-000001 \(new session\)$/);
    expect(h.state.sessions).toHaveLength(5);
    expect(h.shard.getNode(selectedBates(h.state)!)!.parent_bates).toBe(added);
    h.shard.close();
  });
});
