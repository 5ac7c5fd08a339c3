import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type * as Store from '../../src/store/index.js';
import type * as Verify from '../../src/store/testing.js';
import { dbOf } from '../../src/store/testing.js';
import { tempDb } from '../support/tmp.js';

/**
 * verify on a large shard shares the nodes and the chain's claims with helper threads (verify-parallel.ts). The
 * helpers run from the compiled build (dist/, made by `npm test`'s pretest), so this test drives the compiled
 * store, with the size from which helpers start lowered so that a shard of a few thousand turns uses them.
 */
const dist = new URL('../../dist/src/store/index.js', import.meta.url);
const distVerify = new URL('../../dist/src/store/testing.js', import.meta.url);

/** The compiled store and verify, and a new shard opened with it. */
async function compiled() {
  const store = (await import(dist.href)) as typeof Store;
  const { verifyShard } = (await import(distVerify.href)) as typeof Verify;
  return { store, verifyShard, s: store.Shard.open(tempDb()) };
}

describe.skipIf(!existsSync(dist))('verify with helper threads', () => {
  it('gives exactly the report of the one-thread verify: intact, and after edits in any chunk', async () => {
    const { s, verifyShard } = await compiled();
    try {
      s.createSession({ sid: 'pppp' });
      s.createSession({ sid: 'qqqq' });
      const N = 6000;
      const turns = Array.from({ length: N }, (_, i) => ({
        sid: i % 3 === 0 ? 'qqqq' : 'pppp',
        parent: i % 40 === 0 ? null : i - 1,
        content: { question: `q ${i} é`, answer_text: `a ${i}\n"x"\t`, cited_titles: [`t${i}`] },
      }));
      const bates = s
        .addTurnsBulk(turns, { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } })
        .added.map((a) => a.bates);
      const both = (subtrees: 'held' | 'failed' | 'none' = 'failed') => {
        const one = verifyShard(dbOf(s));
        const stats = { chunks: 0, helperChunks: 0, helperClaims: false };
        const many = verifyShard(dbOf(s), { parallelFrom: 1000, stats });
        expect(many).toEqual(one);
        // The helper rebuilt the claims (it does that first); chunks go to whichever thread is free; the subtree
        // check was shared, and the fold ran only when it did not hold.
        expect(stats).toMatchObject({ chunks: 6, helperClaims: true, subtrees });
        return many;
      };
      expect(both('held')).toMatchObject({ ok: true, nodes: N });
      const id = (b: string) =>
        dbOf(s).prepare('SELECT id FROM nodes WHERE bates = ?').pluck().get(b) as number;
      // A stored subtree hash alone, then its whole path to the root rewritten from it (as an attacker who keeps
      // the fold consistent above the edit would): the check does not hold, and the fold names the node.
      const sub = (b: string) =>
        dbOf(s).prepare('SELECT subtree_hash FROM node_subtree WHERE id = ?').pluck().get(id(b)) as Buffer;
      const setSub = (b: string, h: Buffer) =>
        dbOf(s).prepare('UPDATE node_subtree SET subtree_hash = ? WHERE id = ?').run(h, id(b));
      const leaf = bates[39]; // the last of a chain of 40 (turn 40 starts a new top)
      const original = sub(leaf);
      setSub(leaf, Buffer.alloc(32, 7));
      const r0 = both();
      expect(r0.mismatches).toEqual([leaf]);
      setSub(leaf, original);
      expect(both('held').ok).toBe(true);
      // A top node's stored subtree hash alone: the roots taken over the stored hashes while the check ran would
      // name its session; the check fails, and the roots are taken again over the fold, which does not.
      const top = bates[40];
      const topOriginal = sub(top);
      setSub(top, Buffer.alloc(32, 9));
      expect(both()).toMatchObject({ mismatches: [top], sessions: [] });
      setSub(top, topOriginal);
      // A session's stored root alone: the check holds, and the roots over the stored hashes name the session.
      const root = dbOf(s).prepare("SELECT session_root FROM sessions WHERE sid = 'qqqq'").pluck().get();
      dbOf(s).prepare("UPDATE sessions SET session_root = zeroblob(32) WHERE sid = 'qqqq'").run();
      expect(both('held')).toMatchObject({ ok: false, mismatches: [], sessions: ['qqqq'] });
      dbOf(s).prepare("UPDATE sessions SET session_root = ? WHERE sid = 'qqqq'").run(root);
      expect(both('held').ok).toBe(true);
      // An edited answer late in the id range (a helper's chunk, when the helper takes it), one early, a stored
      // subtree hash, a node deleted behind the store's back, a body of the chain's node.add claims changed.
      dbOf(s).prepare("UPDATE nodes SET answer_text = 'edited' WHERE bates = ?").run(bates[5500]);
      dbOf(s).prepare("UPDATE nodes SET question = 'edited' WHERE bates = ?").run(bates[10]);
      dbOf(s)
        .prepare('UPDATE node_subtree SET subtree_hash = zeroblob(32) WHERE id = ?')
        .run(id(bates[3000]));
      const r = both();
      expect(r.ok).toBe(false);
      expect(r.edited).toEqual([bates[10], bates[5500]]);
      expect(r.mismatches).toContain(bates[3000]);
      dbOf(s).prepare('DELETE FROM node_subtree WHERE id = ?').run(id(bates[4000]));
      dbOf(s).pragma('foreign_keys = OFF'); // as an attacker would
      dbOf(s).prepare('DELETE FROM nodes WHERE id = ?').run(id(bates[4500]));
      // A stored subtree hash missing: no check stands in for the fold.
      expect(both('none').problems?.length).toBeGreaterThan(0);
    } finally {
      s.close();
    }
  }, 120_000);

  it('gives the same report when ids have gaps (an archived session) inside and at the end of chunks', async () => {
    const { s, verifyShard, store } = await compiled();
    try {
      for (const sid of ['kkkk', 'gone', 'last']) s.createSession({ sid });
      const turns = Array.from({ length: 6000 }, (_, i) => ({
        // Every third turn in the middle third and in the last sixth goes with its session (the last id stays).
        sid:
          i % 3 === 0 && ((i >= 2000 && i < 4000) || (i >= 5000 && i < 5999))
            ? 'gone'
            : i === 5999
              ? 'last'
              : 'kkkk',
        parent: null,
        content: { question: `q ${i}`, answer_text: `a ${i}` },
      }));
      s.addTurnsBulk(turns, { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } });
      store.archiveSessions(s, ['gone']);
      const one = verifyShard(dbOf(s));
      const stats = { chunks: 0, helperChunks: 0, helperClaims: false };
      expect(verifyShard(dbOf(s), { parallelFrom: 1000, stats })).toEqual(one);
      expect(one).toMatchObject({ ok: true, nodes: 6000 - 667 - 333 });
      expect(stats.helperClaims).toBe(true);
    } finally {
      s.close();
    }
  }, 120_000);

  it('starts no helper inside a caller’s transaction, whose changes only this connection sees', async () => {
    const { s, verifyShard } = await compiled();
    try {
      s.createSession({ sid: 'rrrr' });
      const turns = Array.from({ length: 3000 }, (_, i) => ({
        sid: 'rrrr',
        parent: i % 25 === 0 ? null : i - 1,
        content: { question: `q ${i}`, answer_text: `a ${i}` },
      }));
      s.addTurnsBulk(turns, { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } });
      const clean = verifyShard(dbOf(s));
      // Inside a transaction with a change the helpers could not see: no helpers, and the change is seen.
      dbOf(s).exec('BEGIN');
      dbOf(s).prepare("UPDATE nodes SET answer_text = 'in the transaction' WHERE id = 2999").run();
      const inside = verifyShard(dbOf(s), { parallelFrom: 1000 });
      dbOf(s).exec('ROLLBACK');
      expect(inside.edited).toHaveLength(1);
      expect(verifyShard(dbOf(s), { parallelFrom: 1000 })).toEqual(clean);
    } finally {
      s.close();
    }
  }, 120_000);
});
