import { describe, expect, it } from 'vitest';
import type { Shard } from '../../src/store/index.js';
import { errorOf, newShard } from './util.js';

const T = (n: number) => `2026-03-01T00:00:${String(n).padStart(2, '0')}.000Z`;

/**
 * A forest used by several tests:
 *   aaaa-000001
 *   ├ aaaa-000002
 *   │ └ aaaa-000004
 *   │   └ bbbb-000001      (cross-session fork, top of bbbb)
 *   │     └ bbbb-000002
 *   └ aaaa-000003
 *   bbbb-000003            (a second top of bbbb, a fresh root)
 *   cccc-000001 (unrelated)
 */
function forest(s: Shard) {
  s.createSession({ sid: 'aaaa', label: 'alpha' });
  s.createSession({ sid: 'bbbb', label: 'beta' });
  s.createSession({ sid: 'cccc' });
  const a1 = s.addTurn({ question: 'a1', answer_text: 'x', session: 'aaaa', created_at: T(1) });
  const a2 = s.addTurn({ question: 'a2', answer_text: 'x', parent: a1.bates, created_at: T(2) });
  const a3 = s.addTurn({ question: 'a3', answer_text: 'x', parent: a1.bates, created_at: T(3) });
  const a4 = s.addTurn({ question: 'a4', answer_text: 'x', parent: a2.bates, created_at: T(4) });
  const b1 = s.addTurn({
    question: 'b1',
    answer_text: 'x',
    session: 'bbbb',
    parent: a4.bates,
    created_at: T(5),
  });
  const b2 = s.addTurn({ question: 'b2', answer_text: 'x', parent: b1.bates, created_at: T(6) });
  const b3 = s.addTurn({ question: 'b3', answer_text: 'x', session: 'beta', created_at: T(7) });
  const c1 = s.addTurn({ question: 'c1', answer_text: 'x', session: 'cccc', created_at: T(8) });
  return { a1, a2, a3, a4, b1, b2, b3, c1 };
}

describe('adding turns', () => {
  it('starts a new session when neither session nor parent is given', () => {
    const s = newShard();
    const t = s.addTurn({
      question: 'what is a lifetime?',
      answer_text: 'a region of code',
      cited_titles: ['The Rust Book 10.3'],
      audit: 'fresh',
      cache_key: 'ck-1',
      label: 'rust',
      source: 'claude-code',
      source_id: 'uuid-1',
      created_at: T(1),
    });
    expect(t.created_session).toBe(true);
    expect(t.seq).toBe(1);
    expect(t.bates).toBe(`${t.sid}-000001`);
    expect(t.parent_bates).toBeNull();
    expect(t.node_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(t.subtree_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(t.subtree_hash).not.toBe(t.node_hash);

    const sess = s.getSession(t.sid)!;
    expect(sess.label).toBe('rust');
    expect(sess.n_nodes).toBe(1);
    expect(sess.session_root).toBe(t.session_root);

    const n = s.requireNode(t.bates);
    expect(n).toMatchObject({
      bates: t.bates,
      sid: t.sid,
      seq: 1,
      parent_bates: null,
      is_top: true,
      depth: 0,
      n_children: 0,
      question: 'what is a lifetime?',
      answer_text: 'a region of code',
      cited_titles: ['The Rust Book 10.3'],
      n_cited_sources: 1,
      audit: 'fresh',
      cache_key: 'ck-1',
      source: 'claude-code',
      source_id: 'uuid-1',
      created_at: T(1),
      node_hash: t.node_hash,
      subtree_hash: t.subtree_hash,
    });
  });

  it('adds a child in the same session and counts it', () => {
    const s = newShard();
    const root = s.addTurn({ question: 'root', answer_text: '' });
    const child = s.addTurn({ question: 'child', answer_text: '', parent: root.bates });
    expect(child.created_session).toBe(false);
    expect(child.sid).toBe(root.sid); // --parent alone joins the parent's session
    expect(child.bates).toBe(`${root.sid}-000002`);
    expect(child.parent_bates).toBe(root.bates);
    const n = s.requireNode(child.bates);
    expect(n.is_top).toBe(false);
    expect(n.depth).toBe(1);
    expect(s.requireNode(root.bates).n_children).toBe(1);
    expect(s.listSessions()).toHaveLength(1);
  });

  it('forks within a session: two children make a branch point', () => {
    const s = newShard();
    const root = s.addTurn({ question: 'root', answer_text: '' });
    expect(s.branchPoints()).toEqual([]);
    const c1 = s.addTurn({ question: 'left', answer_text: '', parent: root.bates });
    expect(s.branchPoints()).toEqual([]);
    const c2 = s.addTurn({ question: 'right', answer_text: '', parent: root.bates });
    expect(s.children(root.bates).map((n) => n.bates)).toEqual([c1.bates, c2.bates]);
    expect(s.branchPoints()).toEqual([{ bates: root.bates, n_children: 2 }]);
    expect(s.branchPoints(root.sid)).toEqual([{ bates: root.bates, n_children: 2 }]);
  });

  it('forks across sessions: a node of B hangs under a node of A', () => {
    const s = newShard();
    const { a4, b1 } = forest(s);
    expect(b1.bates).toBe('bbbb-000001');
    expect(b1.sid).toBe('bbbb');
    expect(b1.parent_bates).toBe(a4.bates);
    const n = s.requireNode(b1.bates);
    expect(n.is_top).toBe(true);
    expect(n.depth).toBe(3); // depth counts across sessions
    expect(s.requireNode(a4.bates).n_children).toBe(1);
    expect(s.children(a4.bates).map((c) => c.bates)).toEqual(['bbbb-000001']);
    expect(s.getSession('bbbb')!.n_nodes).toBe(3);
    expect(s.getSession('aaaa')!.n_nodes).toBe(4);
  });

  it('names the session by label when forking across sessions', () => {
    const s = newShard();
    s.createSession({ sid: 'aaaa' });
    s.createSession({ sid: 'bbbb', label: 'other' });
    const a = s.addTurn({ question: 'a', answer_text: '', session: 'aaaa' });
    const b = s.addTurn({ question: 'b', answer_text: '', session: 'other', parent: a.bates });
    expect(b.bates).toBe('bbbb-000001');
    expect(b.parent_bates).toBe(a.bates);
  });

  it('adds a second top node to an existing session when only the session is given', () => {
    const s = newShard();
    const { b3 } = forest(s);
    expect(b3.bates).toBe('bbbb-000003');
    expect(b3.parent_bates).toBeNull();
    expect(s.requireNode(b3.bates).is_top).toBe(true);
    expect(s.requireNode(b3.bates).depth).toBe(0);
  });

  it('rejects bad input without writing anything', () => {
    const s = newShard();
    const before = s.chainCheck().events;
    expect(errorOf(() => s.addTurn({ question: '', answer_text: 'a' })).kind).toBe('input');
    expect(errorOf(() => s.addTurn({ question: ' \n\t ', answer_text: 'a' })).kind).toBe('input');
    expect(errorOf(() => s.addTurn({ question: 42 as unknown as string, answer_text: 'a' })).kind).toBe(
      'input',
    );
    expect(errorOf(() => s.addTurn({ question: 'q', answer_text: null as unknown as string })).kind).toBe(
      'input',
    );
    expect(errorOf(() => s.addTurn({ question: 'q', answer_text: '', cited_titles: [''] })).kind).toBe(
      'input',
    );
    expect(errorOf(() => s.addTurn({ question: 'q', answer_text: '', n_cited_sources: -1 })).kind).toBe(
      'input',
    );
    expect(errorOf(() => s.addTurn({ question: 'q', answer_text: '', n_cited_sources: 1.5 })).kind).toBe(
      'input',
    );
    expect(errorOf(() => s.addTurn({ question: 'q', answer_text: '', audit: 'Has Space' })).kind).toBe(
      'input',
    );
    expect(s.listSessions()).toEqual([]);
    expect(s.chainCheck().events).toBe(before);
  });

  it('accepts an empty answer', () => {
    const s = newShard();
    const t = s.addTurn({ question: 'q', answer_text: '' });
    expect(s.requireNode(t.bates).answer_text).toBe('');
  });
});

describe('tree queries', () => {
  it('pathTo runs from the root down, crossing sessions', () => {
    const s = newShard();
    forest(s);
    expect(s.pathTo('bbbb-000002').map((n) => n.bates)).toEqual([
      'aaaa-000001',
      'aaaa-000002',
      'aaaa-000004',
      'bbbb-000001',
      'bbbb-000002',
    ]);
    expect(s.pathTo('aaaa-000001').map((n) => n.bates)).toEqual(['aaaa-000001']);
    expect(s.pathTo('bbbb-000003').map((n) => n.bates)).toEqual(['bbbb-000003']);
    // Each step's parent is the previous step.
    const p = s.pathTo('bbbb-000002');
    for (let i = 1; i < p.length; i++) expect(p[i].parent_bates).toBe(p[i - 1].bates);
  });

  it('children come in (sid, seq) order, whatever the insertion order', () => {
    const s = newShard();
    s.createSession({ sid: 'mmmm' });
    s.createSession({ sid: 'zzzz' });
    s.createSession({ sid: 'aaaa' });
    const root = s.addTurn({ question: 'root', answer_text: '', session: 'mmmm' });
    s.addTurn({ question: 'z1', answer_text: '', session: 'zzzz', parent: root.bates });
    s.addTurn({ question: 'm2', answer_text: '', parent: root.bates });
    s.addTurn({ question: 'a1', answer_text: '', session: 'aaaa', parent: root.bates });
    s.addTurn({ question: 'z2', answer_text: '', session: 'zzzz', parent: root.bates });
    s.addTurn({ question: 'm3', answer_text: '', parent: root.bates });
    expect(s.children(root.bates).map((n) => n.bates)).toEqual([
      'aaaa-000001',
      'mmmm-000002',
      'mmmm-000003',
      'zzzz-000001',
      'zzzz-000002',
    ]);
    expect(s.requireNode(root.bates).n_children).toBe(5);
    expect(s.branchPoints()).toEqual([{ bates: root.bates, n_children: 5 }]);
    expect(s.verify().ok).toBe(true);
  });

  it('branchPoints lists nodes with two or more children, per session or all', () => {
    const s = newShard();
    forest(s);
    s.addTurn({ question: 'b1 again', answer_text: '', parent: 'bbbb-000001' });
    expect(s.branchPoints()).toEqual([
      { bates: 'aaaa-000001', n_children: 2 },
      { bates: 'bbbb-000001', n_children: 2 },
    ]);
    expect(s.branchPoints('aaaa')).toEqual([{ bates: 'aaaa-000001', n_children: 2 }]);
    expect(s.branchPoints('beta')).toEqual([{ bates: 'bbbb-000001', n_children: 2 }]);
    expect(s.branchPoints('cccc')).toEqual([]);
  });

  it('sessionTree walks a session depth-first with local depth; a cross-session top is depth 0', () => {
    const s = newShard();
    forest(s);
    const a = s.sessionTree('aaaa').map((n) => [n.bates, n.local_depth, n.depth]);
    expect(a).toEqual([
      ['aaaa-000001', 0, 0],
      ['aaaa-000002', 1, 1],
      ['aaaa-000004', 2, 2],
      ['aaaa-000003', 1, 1],
    ]);
    const b = s.sessionTree('beta').map((n) => [n.bates, n.local_depth, n.depth]);
    expect(b).toEqual([
      ['bbbb-000001', 0, 3],
      ['bbbb-000002', 1, 4],
      ['bbbb-000003', 0, 0],
    ]);
    expect(s.sessionTree('cccc').map((n) => n.bates)).toEqual(['cccc-000001']);
    expect(s.sessionTree(s.createSession().sid)).toEqual([]);
  });

  it('lists sessions with their node counts', () => {
    const s = newShard();
    forest(s);
    expect(s.listSessions().map((x) => [x.sid, x.n_nodes])).toEqual([
      ['aaaa', 4],
      ['bbbb', 3],
      ['cccc', 1],
    ]);
  });
});
