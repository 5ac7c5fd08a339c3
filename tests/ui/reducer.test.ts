import { describe, expect, it } from 'vitest';
import type { ChainCheck } from '../../src/store/index.js';
import { selectedBates } from '../../src/ui/core/selectors.js';
import { transcriptDoc, transcriptPos } from '../../src/ui/features/transcript/doc.js';
import type { Turn } from '../../src/ui/features/transcript/model.js';
import { progressText } from '../../src/ui/runtime/import-histories.js';
import { Driver } from './fixtures.js';

function turn(bates: string, parent: string | null, answer = 'an answer'): Turn {
  return {
    bates,
    sid: bates.slice(0, 4),
    parent_bates: parent,
    is_top: parent === null,
    question: `q of ${bates}`,
    answer_text: answer,
    cited_titles: [],
    audit: 'manual',
    created_at: '2026-11-01T10:00:00.000Z',
    node_hash: 'ab'.repeat(32),
    subtree_hash: 'cd'.repeat(32),
    n_children: 0,
    depth: 0,
  };
}

const ok = (events: number): ChainCheck => ({
  ok: true,
  events,
  head: `${events}:${'e'.repeat(64)}`,
  first_broken_seq: null,
  reason: null,
  verified: { seq: events, hash: 'e'.repeat(64) },
});

describe('tree navigation', () => {
  it('starts on the first (newest) session; j/k move; Right expands (loading the outline) and enters', () => {
    const d = new Driver();
    expect(d.selKey).toBe('s:bbbb');
    d.key('j');
    expect(d.selKey).toBe('s:aaaa');
    d.key('k', 'k');
    expect(d.selKey).toBe('s:bbbb');
    d.key('j');
    const fx = d.key('l');
    expect(fx).toContainEqual({ type: 'loadOutline', sid: 'aaaa' });
    expect(d.state.expanded.has('aaaa')).toBe(true);
    expect(d.selKey).toBe('s:aaaa');
    const fx2 = d.key('l');
    expect(d.selKey).toBe('aaaa-000001');
    expect(fx2).toContainEqual({ type: 'loadPath', bates: 'aaaa-000001' });
  });

  it('Left collapses a turn with children, then goes to its parent; on a top turn, to the session row', () => {
    const d = new Driver();
    d.key('j', 'l', 'l', 'j', 'j'); // aaaa-000003
    expect(d.selKey).toBe('aaaa-000003');
    d.key('h');
    expect(d.state.collapsed.has('aaaa-000003')).toBe(true);
    expect(d.selKey).toBe('aaaa-000003');
    expect(d.state.list).toHaveLength(7); // 000004 hidden
    d.key('h');
    expect(d.selKey).toBe('aaaa-000002');
    d.key('l'); // expanded already: goes to the first child
    expect(d.selKey).toBe('aaaa-000003');
    d.key('l'); // collapsed: expands
    expect(d.state.collapsed.has('aaaa-000003')).toBe(false);
    d.key('home', 'j', 'j');
    expect(d.selKey).toBe('aaaa-000001');
    d.key('h', 'h');
    expect(d.selKey).toBe('s:aaaa');
    d.key('h');
    expect(d.state.expanded.has('aaaa')).toBe(false);
  });

  it('Right on a cross-session link reveals the turn in its own session; Left there follows the parent back', () => {
    const d = new Driver();
    d.key('j', 'l', 'end');
    expect(d.selKey).toBe('l:bbbb-000001');
    expect(selectedBates(d.state)).toBe('bbbb-000001');
    const fx = d.key('l');
    expect(fx).toContainEqual({ type: 'reveal', bates: 'bbbb-000001' });
    expect(d.state.expanded.has('bbbb')).toBe(true);
    expect(d.selKey).toBe('bbbb-000001');
    d.key('h'); // has a child: collapses first
    const back = d.key('h');
    expect(back).toContainEqual({ type: 'reveal', bates: 'aaaa-000005' });
    expect(d.selKey).toBe('aaaa-000005');
  });

  it('[ and ] step through branch points, opening collapsed ancestors', () => {
    const d = new Driver();
    d.key('j', 'l', 'l');
    d.key(']');
    expect(d.selKey).toBe('aaaa-000002');
    d.key(']');
    expect(d.state.message?.text).toMatch(/no later branch point in aaaa/);
    d.key('h'); // clears the message, collapses 000002
    expect(d.state.message).toBeNull();
    d.key('end', '[');
    expect(d.selKey).toBe('aaaa-000002');
  });

  it('PgDn/PgUp/Home/End move by pages and keep the selection on screen', () => {
    const d = new Driver(100, 12); // tree pane shows 9 rows
    d.key('j', 'l', 'k', 'l'); // both sessions open: 2 + 2 + 6 rows
    expect(d.state.list).toHaveLength(10);
    d.key('pagedown');
    expect(d.state.sel).toBe(8);
    d.key('end');
    expect(d.state.sel).toBe(9);
    expect(d.state.top).toBeGreaterThan(0);
    d.key('home');
    expect(d.state.sel).toBe(0);
    expect(d.state.top).toBe(0);
  });

  it('Enter toggles; Tab moves the arrow keys to the transcript', () => {
    const d = new Driver();
    d.key('enter');
    expect(d.state.expanded.has('bbbb')).toBe(true);
    d.key('enter');
    expect(d.state.expanded.has('bbbb')).toBe(false);
    d.key('tab');
    expect(d.state.focus).toBe('transcript');
    d.key('j');
    expect(d.selKey).toBe('s:bbbb');
    d.key('tab');
    expect(d.state.focus).toBe('tree');
  });
});

describe('transcript', () => {
  it('shows the loaded path of the selection; scrolls with the keys when focused', () => {
    const d = new Driver(100, 14);
    d.key('j', 'l', 'l', 'j', 'j', 'j');
    expect(d.selKey).toBe('aaaa-000004');
    const long = 'word '.repeat(300);
    d.send({
      type: 'path',
      bates: 'aaaa-000004',
      turns: [
        turn('aaaa-000001', null, long),
        turn('aaaa-000002', 'aaaa-000001'),
        turn('aaaa-000003', 'aaaa-000002'),
        turn('aaaa-000004', 'aaaa-000003'),
      ],
    });
    const doc = transcriptDoc(d.state);
    expect(doc.n).toBe(4);
    const auto = transcriptPos(d.state);
    expect(auto.turn).toBeGreaterThan(0); // the end of the path is on screen
    d.key('tab', 'home');
    expect(d.state.tpos).toEqual({ turn: 0, line: 0 });
    d.key('j', 'j');
    expect(d.state.tpos).toEqual({ turn: 0, line: 2 });
    d.key('end');
    const end = d.state.tpos!;
    d.key('j');
    expect(d.state.tpos).toEqual(end); // clamped
    // a path for another selection is ignored
    d.send({ type: 'path', bates: 'aaaa-000001', turns: [] });
    expect(d.state.path?.bates).toBe('aaaa-000004');
  });
});

describe('asking', () => {
  it('a opens the question box; typing edits; Enter asks; chunks stream; done reveals the new turn', () => {
    const d = new Driver();
    d.key('j', 'l', 'l');
    d.key('a');
    expect(d.state.overlay).toMatchObject({ kind: 'input', mode: 'ask', parent: 'aaaa-000001' });
    d.key('h', 'i', 'x', 'backspace', 'space', 'q', 'j'); // every printable key is text here
    expect(d.state.overlay).toMatchObject({ text: 'hi qj' });
    d.key('C-w');
    expect(d.state.overlay).toMatchObject({ text: 'hi ' });
    d.send({ type: 'key', key: '\x1b', ch: '\x1b]0;x\x07', action: null });
    expect(d.state.overlay).toMatchObject({ text: 'hi ' });
    const fx = d.key('enter');
    expect(fx).toContainEqual({
      type: 'ask',
      mode: 'ask',
      question: 'hi',
      parent: 'aaaa-000001',
      session: null,
    });
    expect(d.state.overlay).toBeNull();
    d.send({ type: 'askChunk', text: 'part one, ' });
    d.send({ type: 'askChunk', text: 'part two' });
    expect(d.state.ask?.answer).toBe('part one, part two');
    const doc = transcriptDoc(d.state);
    const last = doc.block(doc.n - 1).map((l) => l.text);
    expect(last).toContain('A part one, part two▍');
    // a second question waits for the first
    d.key('a');
    expect(d.state.overlay).toBeNull();
    expect(d.state.message?.text).toMatch(/still running/);
    const done = d.send({ type: 'askDone', bates: 'aaaa-000006', sid: 'aaaa', createdSession: false });
    expect(done).toContainEqual({ type: 'reveal', bates: 'aaaa-000006' });
    expect(done).toContainEqual({ type: 'syncChain' });
    expect(d.state.ask).toBeNull();
    expect(d.state.message?.text).toBe('added aaaa-000006');
  });

  it('f forks from a turn; on a session row it explains; Esc cancels a running question', () => {
    const d = new Driver();
    d.key('f');
    expect(d.state.message?.text).toBe('select a turn to fork from');
    d.key('a');
    expect(d.state.overlay).toMatchObject({ kind: 'input', mode: 'ask', parent: null, session: 'bbbb' });
    d.key('escape');
    d.key('j', 'l', 'l', 'f', 'x', 'enter');
    expect(d.effects).toContainEqual({
      type: 'ask',
      mode: 'fork',
      question: 'x',
      parent: 'aaaa-000001',
      session: null,
    });
    expect(d.key('escape')).toContainEqual({ type: 'cancelAsk' });
    d.send({ type: 'askFailed', error: 'question cancelled; nothing was added', cancelled: true });
    expect(d.state.ask).toBeNull();
    expect(d.state.overlay).toBeNull();
    expect(d.state.message).toMatchObject({ level: 'error', text: 'question cancelled; nothing was added' });
    d.send({ type: 'askDone', bates: 'zzzz-000001', sid: 'zzzz', createdSession: true });
    expect(d.state.message?.text).toBe('forked into zzzz-000001 (new session)');
  });

  it('a question that failed comes back in its box: Enter asks it again', () => {
    const d = new Driver();
    d.key('j', 'l', 'a', ...'why so slow?'.split(''), 'enter');
    expect(d.state.ask).toMatchObject({ question: 'why so slow?' });
    const { parent, session } = d.state.ask!;
    d.send({ type: 'askFailed', error: "answer command 'sh' failed (exit status 3): boom" });
    expect(d.state.ask).toBeNull();
    expect(d.state.overlay).toEqual({ kind: 'input', mode: 'ask', parent, session, text: 'why so slow?' });
    expect(d.state.message).toMatchObject({
      level: 'error',
      text: "answer command 'sh' failed (exit status 3): boom",
    });
    d.effects.length = 0;
    d.key('enter');
    expect(d.effects).toContainEqual({
      type: 'ask',
      mode: 'ask',
      question: 'why so slow?',
      parent,
      session,
    });
  });
});

describe('shard events', () => {
  it('tracks chain checks: checking with progress, intact, broken', () => {
    const d = new Driver();
    d.send({ type: 'chainStart', full: true, total: 200 });
    expect(d.state.chain).toMatchObject({ status: 'checking', progress: { done: 0, total: 200 } });
    d.send({ type: 'chainProgress', done: 100 });
    expect(d.state.chain.progress?.done).toBe(100);
    d.send({ type: 'chainDone', result: ok(200), full: true });
    expect(d.state.chain).toMatchObject({ status: 'ok', events: 200, brokenAt: null, progress: null });
    d.send({
      type: 'chainDone',
      full: true,
      result: {
        ...ok(5),
        ok: false,
        events: 210,
        first_broken_seq: 6,
        reason: 'event 6 does not match its hash',
      },
    });
    expect(d.state.chain).toMatchObject({ status: 'broken', brokenAt: 6, events: 210 });
    expect(d.key('c')).toContainEqual({ type: 'checkChain', full: true });
  });

  it('another writer: reloads sessions, open outlines, the path, and syncs the chain', () => {
    const d = new Driver();
    d.key('j', 'l', 'l');
    const fx = d.send({ type: 'dataChanged' });
    expect(fx).toEqual([
      { type: 'loadSessions' },
      { type: 'loadOutline', sid: 'aaaa' },
      { type: 'loadPath', bates: 'aaaa-000001' },
      { type: 'syncChain' },
    ]);
    // a session that vanished is forgotten; the selection survives on its key
    d.send({ type: 'sessions', sessions: [{ sid: 'aaaa', label: 'first', created_at: '', n_nodes: 6 }] });
    expect(d.selKey).toBe('aaaa-000001');
    expect(d.state.list[0]).toEqual({ session: 0, node: -1 });
  });

  it('an empty shard offers the demo (d) and a first question (a), once', () => {
    const d = new Driver();
    d.send({ type: 'sessions', sessions: [] });
    expect(d.key('d')).toEqual([{ type: 'buildDemo' }]);
    expect(d.state.busy).toMatch(/building/);
    expect(d.key('d')).toEqual([]);
    d.send({ type: 'demoBuilt' });
    expect(d.state.busy).toBeNull();
    d.send({ type: 'sessions', sessions: [] });
    d.key('a');
    expect(d.state.overlay).toMatchObject({ kind: 'input', parent: null, session: null });
  });

  it('while the first import fills the shard, an unmoved cursor stays on the newest session; a moved one stays put', () => {
    const d = new Driver();
    d.send({ type: 'sessions', sessions: [] });
    d.state = { ...d.state, histories: [{ kind: 'claude', label: 'Claude Code', path: '/h', files: 3 }] };
    d.key('i');
    const row = (sid: string) => ({ sid, label: sid, created_at: '', n_nodes: 1 });
    d.send({ type: 'sessions', sessions: [row('old1')] });
    d.send({ type: 'sessions', sessions: [row('new2'), row('new1'), row('old1')] });
    expect(d.selKey).toBe('s:new2');
    d.key('j');
    expect(d.selKey).toBe('s:new1');
    d.send({ type: 'sessions', sessions: [row('new3'), row('new2'), row('new1'), row('old1')] });
    expect(d.selKey).toBe('s:new1');
  });

  it('the sessions the first import wrote last, loaded after it ended, still take an unmoved cursor to the top', () => {
    const d = new Driver();
    d.send({ type: 'sessions', sessions: [] });
    d.state = { ...d.state, histories: [{ kind: 'claude', label: 'Claude Code', path: '/h', files: 3 }] };
    d.key('i');
    const row = (sid: string) => ({ sid, label: sid, created_at: '', n_nodes: 1 });
    d.send({ type: 'sessions', sessions: [row('cc2'), row('cc1')] });
    expect(d.selKey).toBe('s:cc2');
    // the last sources' sessions (newer ones) arrive with the reload that the import's end asks for
    expect(d.send({ type: 'historiesImported', turns: 9, problems: 0, failed: null })).toContainEqual({
      type: 'loadSessions',
    });
    d.send({ type: 'sessions', sessions: [row('pi1'), row('cc2'), row('cc1')] });
    expect(d.selKey).toBe('s:pi1');
    expect(d.state.sel).toBe(0);
    // a cursor moved during the import stays on its session
    const m = new Driver();
    m.send({ type: 'sessions', sessions: [] });
    m.state = { ...m.state, histories: [{ kind: 'claude', label: 'Claude Code', path: '/h', files: 3 }] };
    m.key('i');
    m.send({ type: 'sessions', sessions: [row('cc2'), row('cc1')] });
    m.key('j');
    m.send({ type: 'historiesImported', turns: 9, problems: 0, failed: null });
    m.send({ type: 'sessions', sessions: [row('pi1'), row('cc2'), row('cc1')] });
    expect(m.selKey).toBe('s:cc1');
  });

  it('the first start’s import shows how far it is while it runs, and nothing after it ended', () => {
    const d = new Driver();
    d.send({ type: 'sessions', sessions: [] });
    d.state = {
      ...d.state,
      histories: [{ kind: 'claude', label: 'Claude Code', path: '/h/.claude/projects', files: 3 }],
    };
    expect(d.key('i')).toEqual([{ type: 'importHistories' }]);
    expect(d.state.busy).toBe('importing Claude Code…');
    const line = JSON.stringify({
      source: 'Claude Code',
      files_done: 2,
      files: 3,
      bytes_done: 9,
      bytes: 12,
      turns: 1200,
    });
    d.send({ type: 'historiesProgress', text: progressText(line)! });
    expect(d.state.busy).toBe('importing Claude Code: 2/3 files, 1,200 turns…');
    d.send({ type: 'historiesImported', turns: 1300, problems: 0, failed: null });
    expect(d.state.busy).toBeNull();
    expect(d.state.message?.text).toBe('imported 1,300 turns');
    d.send({ type: 'historiesProgress', text: 'importing late…' });
    expect(d.state.busy).toBeNull();
    // Another tool's output on stderr is no progress; a source's name is cleaned before it is shown.
    expect(progressText('warning: something')).toBeNull();
    expect(progressText('{"turns":3}')).toBeNull();
    expect(
      progressText(JSON.stringify({ source: 'x\u001b[2Jy', files_done: 1, files: 'many', turns: -1 })),
    ).toBe('importing xy: 1/0 files, -1 turns…');
  });

  it('q quits (cancelling a running question first); ? opens help, Esc closes it', () => {
    const d = new Driver();
    d.key('?');
    expect(d.state.overlay?.kind).toBe('help');
    d.key('j');
    expect(d.state.overlay).toMatchObject({ kind: 'help', scroll: 1 });
    d.key('escape');
    expect(d.state.overlay).toBeNull();
    expect(d.key('q')).toEqual([{ type: 'quit' }]);
    const e = new Driver();
    e.key('j', 'l', 'l', 'a', 'x', 'enter');
    const fx = e.key('q');
    expect(fx).toContainEqual({ type: 'cancelAsk' });
    expect(fx).toContainEqual({ type: 'quit' });
    expect(e.state.quitting).toBe(true);
  });

  it('resizing keeps the selection visible', () => {
    const d = new Driver(100, 40);
    d.key('j', 'l', 'k', 'l', 'end');
    d.send({ type: 'resize', cols: 80, rows: 10 });
    const h = 10 - 3;
    expect(d.state.sel).toBeGreaterThanOrEqual(d.state.top);
    expect(d.state.sel).toBeLessThan(d.state.top + h);
  });

  it('mouse: a click selects the row under it; the wheel scrolls', () => {
    const d = new Driver();
    d.send({ type: 'mouse', kind: 'mousedown', x: 5, y: 2 });
    expect(d.selKey).toBe('s:aaaa');
    d.send({ type: 'mouse', kind: 'mousedown', x: 70, y: 5 });
    expect(d.state.focus).toBe('transcript');
  });
});
