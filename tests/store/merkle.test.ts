import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Shard } from '../../src/store/index.js';
import { dbOf, inWalkOrder, MERKLE_SQL } from '../../src/store/testing.js';
import { newShard, prng, rootBytes, subtreeBytes } from './util.js';

const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();

/**
 * Recomputes every hash of a shard from its rows, independently of src/store/hash.ts and verify.ts: the node
 * content JSON is built here by hand in sorted key order (JSON.stringify of strings and numbers matches RFC 8785
 * for the values the store writes).
 */
function recompute(s: Shard): {
  sub: Map<string, Buffer>;
  node: Map<string, Buffer>;
  roots: Map<string, Buffer>;
} {
  const nodes = dbOf(s)
    .prepare(`SELECT n.bates, n.sid, n.seq, p.bates AS parent_bates, p.sid AS parent_sid, n.question, n.answer_text,
      n.cited_titles_json, n.n_cited_sources, n.audit, n.cache_key, n.source, n.source_id, n.created_at
      FROM nodes n LEFT JOIN nodes p ON p.id = n.parent_id ORDER BY n.sid, n.seq`)
    .all() as {
    bates: string;
    sid: string;
    seq: number;
    parent_bates: string | null;
    parent_sid: string | null;
    question: string;
    answer_text: string;
    cited_titles_json: string;
    n_cited_sources: number;
    audit: string;
    cache_key: string | null;
    source: string | null;
    source_id: string | null;
    created_at: string;
  }[];
  const j = JSON.stringify;
  const node = new Map<string, Buffer>();
  const kids = new Map<string, string[]>();
  for (const n of nodes) {
    const canon =
      `{"answer_text":${j(n.answer_text)},"audit":${j(n.audit)},"bates":${j(n.bates)},"cache_key":${j(n.cache_key)},` +
      `"cited_titles":${j(JSON.parse(n.cited_titles_json))},"created_at":${j(n.created_at)},` +
      `"n_cited_sources":${j(n.n_cited_sources)},"parent_bates":${j(n.parent_bates)},"question":${j(n.question)},` +
      `"source":${j(n.source)},"source_id":${j(n.source_id)}}`;
    node.set(n.bates, sha256(Buffer.from([0]), Buffer.from(canon, 'utf8')));
    if (n.parent_bates) {
      // nodes are sorted by (sid, seq), so each child list comes out in (sid, seq) order
      const list = kids.get(n.parent_bates) ?? [];
      list.push(n.bates);
      kids.set(n.parent_bates, list);
    }
  }
  const sub = new Map<string, Buffer>();
  const subOf = (b: string): Buffer => {
    const have = sub.get(b);
    if (have) return have;
    const h = sha256(Buffer.from([1]), node.get(b)!, ...(kids.get(b) ?? []).map(subOf));
    sub.set(b, h);
    return h;
  };
  for (const n of nodes) subOf(n.bates);
  const roots = new Map<string, Buffer>();
  for (const sid of dbOf(s).prepare('SELECT sid FROM sessions').pluck().all() as string[]) {
    const tops = nodes.filter((n) => n.sid === sid && (n.parent_bates === null || n.parent_sid !== sid));
    roots.set(
      sid,
      sha256(
        Buffer.from([2]),
        Buffer.from(sid, 'utf8'),
        Buffer.from([0]),
        ...tops.map((n) => sub.get(n.bates)!),
      ),
    );
  }
  return { sub, node, roots };
}

function expectStoredMatchesRecomputed(s: Shard): void {
  const r = recompute(s);
  const storedNode = new Map(
    dbOf(s).prepare('SELECT bates, node_hash FROM nodes').raw(true).all() as [string, Buffer][],
  );
  for (const [b, h] of r.node)
    expect(storedNode.get(b)!.toString('hex'), `node_hash ${b}`).toBe(h.toString('hex'));
  for (const [b, h] of subtreeBytes(s))
    expect(h.toString('hex'), `subtree_hash ${b}`).toBe(r.sub.get(b)!.toString('hex'));
  for (const [sid, h] of rootBytes(s))
    expect(h.toString('hex'), `session_root ${sid}`).toBe(r.roots.get(sid)!.toString('hex'));
}

/**
 *   aaaa-000001
 *   ├ aaaa-000002 ─ aaaa-000004 ─ aaaa-000005
 *   └ aaaa-000003 ─ aaaa-000006
 *                   └ bbbb-000001 ─ bbbb-000002     (cross-session)
 *   cccc-000001 ─ cccc-000002                       (unrelated)
 */
function tree(s: Shard) {
  for (const sid of ['aaaa', 'bbbb', 'cccc']) s.createSession({ sid });
  const add = (q: string, session: string | undefined, parent?: string) =>
    s.addTurn({ question: q, answer_text: `answer to ${q}`, session, parent }).bates;
  const a1 = add('a1', 'aaaa');
  const a2 = add('a2', undefined, a1);
  const a3 = add('a3', undefined, a1);
  const a4 = add('a4', undefined, a2);
  const a5 = add('a5', undefined, a4);
  const a6 = add('a6', undefined, a3);
  const b1 = add('b1', 'bbbb', a6);
  const b2 = add('b2', undefined, b1);
  const c1 = add('c1', 'cccc');
  const c2 = add('c2', undefined, c1);
  return { a1, a2, a3, a4, a5, a6, b1, b2, c1, c2 };
}

describe('Merkle hashes', () => {
  it('stored hashes equal an independent recomputation after every kind of insert', () => {
    const s = newShard();
    tree(s);
    expectStoredMatchesRecomputed(s);
    expect(s.verify()).toEqual({ ok: true, nodes: 10, mismatches: [], edited: [], sessions: [] });
  });

  it('a randomised forest with cross-session forks stays consistent (O(depth) ripple = full recompute)', () => {
    const s = newShard();
    const rnd = prng(42);
    const sids = ['s0', 's1', 's2', 's3', 's4'];
    for (const sid of sids) s.createSession({ sid });
    const all: string[] = [];
    for (let i = 0; i < 300; i++) {
      const r = rnd();
      const sid = sids[Math.floor(rnd() * sids.length)];
      let t: string;
      if (all.length === 0 || r < 0.05)
        t = s.addTurn({ question: `q${i}`, answer_text: `a${i}`, session: sid }).bates;
      else {
        const parent = all[Math.floor(rnd() * all.length)];
        // half join the parent's session, half fork into a random (maybe the same) session
        t =
          r < 0.5
            ? s.addTurn({ question: `q${i}`, answer_text: `a${i}`, parent }).bates
            : s.addTurn({ question: `q${i}`, answer_text: `a${i}`, parent, session: sid }).bates;
      }
      all.push(t);
    }
    expectStoredMatchesRecomputed(s);
    const v = s.verify();
    expect(v.ok).toBe(true);
    expect(v.nodes).toBe(300);
    expect(s.branchPoints().length).toBeGreaterThan(10);
  });

  it('a deep chain crossing sessions every 50 turns ripples all the way up', () => {
    const s = newShard();
    let parent: string | undefined;
    const sids: string[] = [];
    for (let i = 0; i < 300; i++) {
      if (i % 50 === 0) sids.push(s.createSession({ sid: `deep${i / 50}` }).sid);
      parent = s.addTurn({
        question: `level ${i}`,
        answer_text: '',
        session: sids[sids.length - 1],
        parent,
      }).bates;
    }
    expect(s.pathTo(parent!)).toHaveLength(300);
    expect(s.requireNode(parent!).depth).toBe(299);
    expect(s.sessionTree('deep5')[0]).toMatchObject({ local_depth: 0, depth: 250 });
    expect(s.sessionTree('deep5')[49]).toMatchObject({ local_depth: 49, depth: 299 });
    const roots = rootBytes(s);
    s.addTurn({ question: 'one more', answer_text: '', parent });
    const r2 = rootBytes(s);
    for (const sid of sids) expect(r2.get(sid)!.equals(roots.get(sid)!), sid).toBe(false);
    expectStoredMatchesRecomputed(s);
    expect(s.verify().ok).toBe(true);
  });

  it('a ripple through branch points reads each branch after the path below it is written', () => {
    // rippleUp writes a level's new hash only when it flushes: before a branch point reads its children, and at
    // the end. A branch point that read its children before the flush would hash the path child's old hash.
    const s = newShard();
    const sid = s.createSession({ sid: 'brch' }).sid;
    let parent = s.addTurn({ question: 'root', answer_text: '', session: sid }).bates;
    for (let i = 1; i < 40; i++) {
      const next = s.addTurn({ question: `level ${i}`, answer_text: '', parent }).bates;
      if (i % 7 === 0) s.addTurn({ question: `side ${i}`, answer_text: '', parent });
      parent = next;
    }
    s.addTurn({ question: 'leaf', answer_text: '', parent });
    expect(s.branchPoints().length).toBe(5);
    expectStoredMatchesRecomputed(s);
    expect(s.verify().ok).toBe(true);
  });

  it('finds every row it touches by id, even after an ANALYZE made while the shard was small', () => {
    // Statistics from a 50-turn shard once made a one-statement ripple (UPDATE ... FROM json_each) scan
    // node_subtree on every add of a large one. The store never runs ANALYZE, but a person with sqlite3 may.
    const s = newShard();
    let parent: string | undefined;
    for (let i = 0; i < 50; i++) parent = s.addTurn({ question: `q${i}`, answer_text: '', parent }).bates;
    dbOf(s).exec('ANALYZE');
    const params = (sql: string) => Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => 1);
    for (const [name, sql] of Object.entries(MERKLE_SQL)) {
      const plan = (
        dbOf(s)
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...params(sql)) as { detail: string }[]
      )
        .map((r) => r.detail)
        .join(' | ');
      expect(plan, name).not.toMatch(/SCAN (nodes|node_subtree|n|h|sessions)\b/);
    }
    s.addTurn({ question: 'after', answer_text: '', parent });
    expect(s.verify().ok).toBe(true);
  });

  it("takes the path's order from the walk only when its ids strictly decrease", () => {
    expect(inWalkOrder([7])).toBe(true);
    expect(inWalkOrder([120, 99, 98, 3, 1])).toBe(true);
    expect(inWalkOrder([98, 99, 3])).toBe(false);
    expect(inWalkOrder([99, 99])).toBe(false);
    expect(inWalkOrder([99, Number.NaN])).toBe(false);
  });

  it('a node hash edited to another length on the path: the add goes through, and verify names the node', () => {
    const s = newShard();
    const a = s.addTurn({ question: 'a', answer_text: '' }).bates;
    const b = s.addTurn({ question: 'b', answer_text: '', parent: a }).bates;
    const c = s.addTurn({ question: 'c', answer_text: '', parent: b }).bates;
    dbOf(s).prepare('UPDATE nodes SET node_hash = ? WHERE bates = ?').run(Buffer.alloc(5, 1), b);
    const d = s.addTurn({ question: 'd', answer_text: '', parent: c });
    expect(d.bates).toMatch(/-000004$/);
    const v = s.verify();
    expect(v.ok).toBe(false);
    expect(v.edited).toContain(b);
  });

  it('sibling invariance: a turn under one branch leaves the sibling subtree byte-identical', () => {
    const s = newShard();
    const t = tree(s);
    const before = subtreeBytes(s);
    const roots = rootBytes(s);
    const added = s.addTurn({ question: 'deeper', answer_text: '', parent: t.a5 });
    const after = subtreeBytes(s);
    // the sibling branch under a3 (including its cross-session descendants) did not move a byte
    for (const b of [t.a3, t.a6, t.b1, t.b2, t.c1, t.c2])
      expect(after.get(b)!.equals(before.get(b)!), b).toBe(true);
    // the path from the new node to the root did change
    for (const b of [t.a5, t.a4, t.a2, t.a1]) expect(after.get(b)!.equals(before.get(b)!), b).toBe(false);
    const r2 = rootBytes(s);
    expect(r2.get('aaaa')!.equals(roots.get('aaaa')!)).toBe(false);
    expect(r2.get('bbbb')!.equals(roots.get('bbbb')!)).toBe(true);
    expect(r2.get('cccc')!.equals(roots.get('cccc')!)).toBe(true);
    expect(added.session_root).toBe(r2.get('aaaa')!.toString('hex'));
    expectStoredMatchesRecomputed(s);
  });

  it('cross-session ripple: a child in B under a node of A changes both roots and the ancestors', () => {
    const s = newShard();
    const t = tree(s);
    const dd = s.createSession({ sid: 'dddd' });
    const before = subtreeBytes(s);
    const roots = rootBytes(s);
    const added = s.addTurn({ question: 'fork into d', answer_text: '', session: 'dddd', parent: t.a4 });
    expect(added.sid).toBe('dddd');
    const after = subtreeBytes(s);
    const r2 = rootBytes(s);
    expect(r2.get('aaaa')!.equals(roots.get('aaaa')!)).toBe(false);
    expect(r2.get('dddd')!.equals(roots.get('dddd')!)).toBe(false);
    expect(roots.get('dddd')!.toString('hex')).toBe(dd.session_root);
    expect(r2.get('bbbb')!.equals(roots.get('bbbb')!)).toBe(true);
    expect(r2.get('cccc')!.equals(roots.get('cccc')!)).toBe(true);
    for (const b of [t.a4, t.a2, t.a1]) expect(after.get(b)!.equals(before.get(b)!), b).toBe(false);
    for (const b of [t.a5, t.a3, t.a6, t.b1, t.b2, t.c1, t.c2])
      expect(after.get(b)!.equals(before.get(b)!), b).toBe(true);
    expect(added.session_root).toBe(r2.get('dddd')!.toString('hex'));
    // the audit event records both new roots
    const ev = s.audit.event(s.audit.head().seq)!;
    expect((ev.data as { session_roots: Record<string, string> }).session_roots).toEqual({
      aaaa: r2.get('aaaa')!.toString('hex'),
      dddd: r2.get('dddd')!.toString('hex'),
    });
    expectStoredMatchesRecomputed(s);
  });

  it('a ripple crosses several sessions: C under B under A changes all three roots', () => {
    const s = newShard();
    const t = tree(s); // b2 is under bbbb's top b1, which hangs under aaaa's a6
    s.createSession({ sid: 'eeee' });
    const roots = rootBytes(s);
    s.addTurn({ question: 'three hops', answer_text: '', session: 'eeee', parent: t.b2 });
    const r2 = rootBytes(s);
    for (const sid of ['aaaa', 'bbbb', 'eeee']) expect(r2.get(sid)!.equals(roots.get(sid)!), sid).toBe(false);
    expect(r2.get('cccc')!.equals(roots.get('cccc')!)).toBe(true);
    expectStoredMatchesRecomputed(s);
    expect(s.verify().ok).toBe(true);
  });
});

describe('verify()', () => {
  it('is ok on an intact shard', () => {
    const s = newShard();
    tree(s);
    const v = s.verify();
    expect(v.ok).toBe(true);
    expect(v.nodes).toBe(10);
    expect(v.mismatches).toEqual([]);
  });

  it('names an edited node, its ancestors across sessions, and the affected sessions', () => {
    const s = newShard();
    const t = tree(s);
    dbOf(s).prepare('UPDATE nodes SET question = ? WHERE bates = ?').run('edited behind your back', t.b1);
    const v = s.verify();
    expect(v.ok).toBe(false);
    expect(v.edited).toEqual([t.b1]);
    // the edited node, then every ancestor up to aaaa-000001 (a stale subtree hash): not its child, not siblings
    expect([...v.mismatches].sort()).toEqual([t.a1, t.a3, t.a6, t.b1].sort());
    expect(v.mismatches).not.toContain(t.b2);
    expect(v.mismatches).not.toContain(t.a2);
    expect(v.sessions).toEqual(['aaaa', 'bbbb']);
  });

  it('catches edits to any hashed field, one at a time', () => {
    for (const [col, value] of [
      ['answer_text', 'changed'],
      ['cited_titles_json', '["forged"]'],
      ['n_cited_sources', 9],
      ['audit', 'cached'],
      ['cache_key', 'k'],
      ['created_at', '1999-01-01T00:00:00.000Z'],
      ['source', 'src'],
      ['source_id', 'id'],
    ] as const) {
      const s = newShard();
      const t = tree(s);
      dbOf(s).prepare(`UPDATE nodes SET ${col} = ? WHERE bates = ?`).run(value, t.a4);
      const v = s.verify();
      expect(v.edited, col).toEqual([t.a4]);
      expect([...v.mismatches].sort(), col).toEqual([t.a1, t.a2, t.a4].sort());
      expect(v.sessions, col).toEqual(['aaaa']);
      s.close();
    }
  });

  it('catches a moved node (parent changed) and a forged stored hash', () => {
    const s = newShard();
    const t = tree(s);
    const a2id = dbOf(s).prepare('SELECT id FROM nodes WHERE bates = ?').pluck().get(t.a2);
    dbOf(s).prepare('UPDATE nodes SET parent_id = ? WHERE bates = ?').run(a2id, t.a6);
    const v = s.verify();
    expect(v.ok).toBe(false);
    expect(v.edited).toEqual([t.a6]);

    const s2 = newShard();
    const t2 = tree(s2);
    dbOf(s2)
      .prepare(
        'UPDATE node_subtree SET subtree_hash = zeroblob(32) WHERE id = (SELECT id FROM nodes WHERE bates = ?)',
      )
      .run(t2.c2);
    const v2 = s2.verify();
    expect(v2.edited).toEqual([]);
    expect(v2.mismatches).toEqual([t2.c2]);
    expect(v2.sessions).toEqual([]); // cccc's root was computed from the true hash and still matches

    const s3 = newShard();
    tree(s3);
    dbOf(s3).prepare("UPDATE sessions SET session_root = zeroblob(32) WHERE sid = 'cccc'").run();
    const v3 = s3.verify();
    expect(v3.ok).toBe(false);
    expect(v3.mismatches).toEqual([]);
    expect(v3.sessions).toEqual(['cccc']);
  });
});
