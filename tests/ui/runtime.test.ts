import { describe, expect, it } from 'vitest';
import { buildKeymap } from '../../src/keymap/index.js';
import { Shard } from '../../src/store/index.js';
import { buildDemo } from '../../src/ui/demo.js';
import { selectedBates, update } from '../../src/ui/reducer.js';
import { Runtime } from '../../src/ui/runtime.js';
import { type Action, initialState, type State } from '../../src/ui/state.js';
import { tempDb } from '../support/tmp.js';

async function until(pred: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The reducer and the real runtime on a real shard, without a terminal (chain checks run inline). */
function harness(db: string) {
  const shard = Shard.open(db);
  const km = buildKeymap();
  let state: State = initialState({ cols: 100, rows: 30, keymap: km });
  const rt = new Runtime(
    shard,
    (a) => dispatch(a),
    () => state,
    {
      inlineChecks: true,
      provider: { kind: 'manual', answer: 'a manual answer' },
    },
  );
  function dispatch(a: Action): void {
    const [s, fx] = update(state, a);
    state = s;
    rt.run(fx);
  }
  const key = (...ks: string[]) => {
    for (const k of ks)
      dispatch({ type: 'key', key: k, ch: k.length === 1 ? k : undefined, action: km.byKey.get(k) ?? null });
  };
  rt.run([{ type: 'loadSessions' }]);
  rt.changed();
  return {
    shard,
    rt,
    key,
    dispatch,
    get state() {
      return state;
    },
    poll() {
      if (rt.changed()) dispatch({ type: 'dataChanged' });
    },
  };
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
    other.db
      .prepare("UPDATE audit_events SET body = CAST(replace(CAST(body AS TEXT), 'tmux', 'TMUX') AS BLOB)")
      .run();
    h.poll();
    expect(h.state.chain).toMatchObject({ status: 'broken', full: true });
    expect(h.state.chain.brokenAt).toBeGreaterThan(0);
    // a rewritten tail (the verified event changed) is caught too
    other.close();
    h.shard.close();
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
