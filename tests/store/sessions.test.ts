import { describe, expect, it } from 'vitest';
import { formatBates, hashes, parseBates } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';
import { errorOf, newShard } from './util.js';

describe('sessions', () => {
  it('creates sessions with and without a label and lists them', () => {
    const s = newShard();
    const a = s.createSession({ label: 'rust lifetimes', created_at: '2026-01-01T00:00:00.000Z' });
    const b = s.createSession({ created_at: '2026-01-02T00:00:00.000Z' });
    expect(a.sid).toMatch(/^[a-z0-9]{8}$/);
    expect(b.sid).toMatch(/^[a-z0-9]{8}$/);
    expect(a.sid).not.toBe(b.sid);
    expect(a.label).toBe('rust lifetimes');
    expect(b.label).toBeNull();
    // An empty session's root is H(0x02 || sid || 0x00): no top nodes.
    expect(a.session_root).toBe(hashes.sessionRoot(a.sid, []).toString('hex'));

    const list = s.listSessions();
    expect(list.map((x) => [x.sid, x.label, x.n_nodes])).toEqual([
      [a.sid, 'rust lifetimes', 0],
      [b.sid, null, 0],
    ]);
    expect(s.getSession(a.sid)).toEqual(a);
  });

  it('treats an empty label as no label', () => {
    const s = newShard();
    expect(s.createSession({ label: '' }).label).toBeNull();
  });

  it('accepts a chosen sid and refuses a duplicate or malformed one', () => {
    const s = newShard();
    expect(s.createSession({ sid: 'abc123' }).sid).toBe('abc123');
    expect(errorOf(() => s.createSession({ sid: 'abc123' })).kind).toBe('input');
    expect(errorOf(() => s.createSession({ sid: 'Has-Dash' })).kind).toBe('input');
    expect(errorOf(() => s.createSession({ sid: 'x'.repeat(33) })).kind).toBe('input');
    expect(s.listSessions()).toHaveLength(1);
  });

  it('resolves a session by sid and by label', () => {
    const s = newShard();
    const a = s.createSession({ label: 'alpha' });
    const b = s.createSession({ label: 'beta' });
    expect(s.resolveSession(a.sid).sid).toBe(a.sid);
    expect(s.resolveSession('alpha').sid).toBe(a.sid);
    expect(s.resolveSession('beta').sid).toBe(b.sid);
  });

  it('prefers the sid when a label equals another session id', () => {
    const s = newShard();
    const a = s.createSession({ sid: 'aaaa' });
    s.createSession({ sid: 'bbbb', label: 'aaaa' });
    expect(s.resolveSession('aaaa').sid).toBe(a.sid);
  });

  it('refuses an ambiguous label instead of guessing', () => {
    const s = newShard();
    const a = s.createSession({ label: 'dup' });
    const b = s.createSession({ label: 'dup' });
    const e = errorOf(() => s.resolveSession('dup'));
    expect(e.kind).toBe('input');
    expect(e.message).toContain(a.sid);
    expect(e.message).toContain(b.sid);
    // The sids still resolve.
    expect(s.resolveSession(b.sid).sid).toBe(b.sid);
  });

  it('reports an unknown session or turn as not_found', () => {
    const s = newShard();
    s.createSession({ label: 'alpha' });
    expect(errorOf(() => s.resolveSession('nosuch')).kind).toBe('not_found');
    expect(errorOf(() => s.requireNode('nosuch-000001')).kind).toBe('not_found');
    expect(errorOf(() => s.children('nosuch-000001')).kind).toBe('not_found');
    expect(errorOf(() => s.pathTo('nosuch-000001')).kind).toBe('not_found');
    expect(errorOf(() => s.sessionTree('nosuch')).kind).toBe('not_found');
    expect(errorOf(() => s.branchPoints('nosuch')).kind).toBe('not_found');
    expect(errorOf(() => s.addTurn({ question: 'q', answer_text: 'a', session: 'nosuch' })).kind).toBe(
      'not_found',
    );
    expect(errorOf(() => s.addTurn({ question: 'q', answer_text: 'a', parent: 'nosuch-000001' })).kind).toBe(
      'not_found',
    );
    expect(s.getNode('nosuch-000001')).toBeUndefined();
    expect(s.getSession('nosuch')).toBeUndefined();
  });
});

describe('Bates ids', () => {
  it('formats and parses <sid>-<6 digits>, wider only past 999999', () => {
    expect(formatBates('k3m9x2qa', 42)).toBe('k3m9x2qa-000042');
    expect(formatBates('a', 999999)).toBe('a-999999');
    expect(formatBates('a', 1234567)).toBe('a-1234567');
    expect(parseBates('k3m9x2qa-000042')).toEqual({ sid: 'k3m9x2qa', seq: 42 });
    expect(parseBates('a-1234567')).toEqual({ sid: 'a', seq: 1234567 });
    for (const bad of [
      'k3m9x2qa-42',
      'K3M9-000001',
      'a-b-000001',
      '-000001',
      'abc',
      'abc-00000x',
      ' a-000001',
    ]) {
      expect(parseBates(bad), bad).toBeNull();
    }
  });

  it('mints consecutive seqs per session, independently across sessions', () => {
    const s = newShard();
    const a = s.createSession({ sid: 'aaaa' });
    const b = s.createSession({ sid: 'bbbb' });
    const out: string[] = [];
    let lastA: string | undefined;
    let lastB: string | undefined;
    for (let i = 0; i < 5; i++) {
      lastA = s.addTurn({ question: `a${i}`, answer_text: '', session: a.sid, parent: lastA }).bates;
      out.push(lastA);
      lastB = s.addTurn({ question: `b${i}`, answer_text: '', session: b.sid, parent: lastB }).bates;
      out.push(lastB);
    }
    expect(out).toEqual([
      'aaaa-000001',
      'bbbb-000001',
      'aaaa-000002',
      'bbbb-000002',
      'aaaa-000003',
      'bbbb-000003',
      'aaaa-000004',
      'bbbb-000004',
      'aaaa-000005',
      'bbbb-000005',
    ]);
    expect(s.getSession('aaaa')!.n_nodes).toBe(5);
    expect(s.sessionTree('aaaa').map((n) => n.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('never reuses a seq, even after the newest turn is removed behind its back', () => {
    const s = newShard();
    const a = s.createSession({ sid: 'aaaa' });
    const t1 = s.addTurn({ question: 'one', answer_text: '', session: a.sid });
    const t2 = s.addTurn({ question: 'two', answer_text: '', parent: t1.bates });
    expect(t2.bates).toBe('aaaa-000002');
    // Simulate an archived turn: the row is gone, but its id was minted and must stay retired.
    dbOf(s).prepare('DELETE FROM nodes WHERE bates = ?').run(t2.bates);
    const t3 = s.addTurn({ question: 'three', answer_text: '', parent: t1.bates });
    expect(t3.bates).toBe('aaaa-000003');
    expect(t3.seq).toBe(3);
  });

  it('does not consume a seq when an add fails', () => {
    const s = newShard();
    const a = s.createSession({ sid: 'aaaa' });
    s.addTurn({ question: 'one', answer_text: '', session: a.sid });
    expect(
      errorOf(() => s.addTurn({ question: 'x', answer_text: '', session: a.sid, parent: 'aaaa-000009' }))
        .kind,
    ).toBe('not_found');
    expect(
      errorOf(() => s.addTurn({ question: 'x', answer_text: '', session: a.sid, audit: 'NOT OK' })).kind,
    ).toBe('input');
    expect(s.addTurn({ question: 'two', answer_text: '', session: a.sid }).bates).toBe('aaaa-000002');
    expect(s.getSession('aaaa')!.n_nodes).toBe(2);
  });
});

describe('resolve()', () => {
  function setup() {
    const s = newShard();
    s.createSession({ sid: 'aaaa', label: 'alpha' });
    s.createSession({ sid: 'bbbb', label: 'beta' });
    const a1 = s.addTurn({ question: 'first', answer_text: '', session: 'aaaa' });
    const a2 = s.addTurn({ question: 'second', answer_text: '', parent: a1.bates });
    s.addTurn({ question: 'b first', answer_text: '', session: 'bbbb' });
    return { s, a1, a2 };
  }

  it('resolves a Bates id to its node', () => {
    const { s, a2 } = setup();
    const r = s.resolve('aaaa-000002');
    expect(r.kind).toBe('node');
    if (r.kind !== 'node') throw new Error('unreachable');
    expect(r.node.bates).toBe(a2.bates);
    expect(r.node.question).toBe('second');
    expect(r.node.parent_bates).toBe('aaaa-000001');
  });

  it('resolves a bare seq in the current session', () => {
    const { s } = setup();
    for (const [x, sid, want] of [
      ['2', 'aaaa', 'aaaa-000002'],
      ['000002', 'aaaa', 'aaaa-000002'],
      ['1', 'bbbb', 'bbbb-000001'],
      [' 1 ', 'aaaa', 'aaaa-000001'],
    ] as const) {
      const r = s.resolve(x, sid);
      expect(r.kind === 'node' ? r.node.bates : r.session.sid, `${x} in ${sid}`).toBe(want);
    }
  });

  it('resolves a sid and a label to the session', () => {
    const { s } = setup();
    const bySid = s.resolve('bbbb');
    const byLabel = s.resolve('alpha');
    expect(bySid.kind === 'session' && bySid.session.sid).toBe('bbbb');
    expect(byLabel.kind === 'session' && byLabel.session.sid).toBe('aaaa');
  });

  it('refuses garbage with the right kind of error', () => {
    const { s } = setup();
    expect(errorOf(() => s.resolve('')).kind).toBe('input');
    expect(errorOf(() => s.resolve('   ')).kind).toBe('input');
    expect(errorOf(() => s.resolve('7')).kind).toBe('input'); // bare seq without a current session
    expect(errorOf(() => s.resolve('7', 'aaaa')).kind).toBe('not_found');
    expect(errorOf(() => s.resolve('aaaa-000099')).kind).toBe('not_found');
    expect(errorOf(() => s.resolve('zzzz-000001')).kind).toBe('not_found');
    for (const g of [
      'aaaa-12',
      'AAAA-000001',
      'not a thing',
      '-1',
      '1.5',
      '$(rm -rf /)',
      "'; DROP TABLE nodes; --",
    ]) {
      expect(errorOf(() => s.resolve(g, 'aaaa')).kind, g).toBe('not_found');
    }
    // Nothing was harmed by the hostile ids.
    expect(s.verify().ok).toBe(true);
    expect(s.listSessions()).toHaveLength(2);
  });
});

describe('resolveTurn() (where /cd goes)', () => {
  function setup() {
    const s = newShard();
    s.createSession({ sid: 'aaaa', label: 'alpha' });
    s.createSession({ sid: 'bbbb', label: 'beta' });
    s.createSession({ sid: 'cccc', label: 'empty' });
    const a1 = s.addTurn({ question: 'first', answer_text: '', session: 'aaaa' });
    const a2 = s.addTurn({ question: 'second', answer_text: '', parent: a1.bates });
    // bbbb's first turn hangs under a turn of aaaa
    const b1 = s.addTurn({ question: 'b first', answer_text: '', session: 'bbbb', parent: a2.bates });
    return { s, a1, a2, b1 };
  }

  it('a turn is itself; a session stands for its newest turn, or its top when it has none', () => {
    const { s, a2, b1 } = setup();
    expect(s.resolveTurn('aaaa-000002')).toEqual({ bates: a2.bates, sid: 'aaaa' });
    expect(s.resolveTurn('1', { sid: 'bbbb' })).toEqual({ bates: b1.bates, sid: 'bbbb' });
    expect(s.resolveTurn('alpha')).toEqual({ bates: a2.bates, sid: 'aaaa' });
    expect(s.resolveTurn('cccc')).toEqual({ bates: null, sid: 'cccc' });
  });

  it('.. is the parent, across sessions, and the top of the session from a root', () => {
    const { s, a1, a2, b1 } = setup();
    expect(s.resolveTurn('..', { sid: 'bbbb', bates: b1.bates })).toEqual({ bates: a2.bates, sid: 'aaaa' });
    expect(s.resolveTurn(' .. ', { bates: a2.bates })).toEqual({ bates: a1.bates, sid: 'aaaa' });
    expect(s.resolveTurn('..', { bates: a1.bates })).toEqual({ bates: null, sid: 'aaaa' });
    expect(errorOf(() => s.resolveTurn('..', { sid: 'cccc' })).message).toBe('.. needs a current turn');
    expect(errorOf(() => s.resolveTurn('aaaa-000099')).kind).toBe('not_found');
    expect(errorOf(() => s.resolveTurn('nope')).kind).toBe('not_found');
  });
});
