import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ArboristError,
  addCheckpoint,
  addUsageFamily,
  archiveSessions,
  deleteEntry,
  listArchives,
  listEntries,
  maintain,
  readArchive,
  resetEntry,
  restoreArchives,
  Shard,
  setEntry,
} from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';
import { independentHashes } from '../support/recompute.js';
import { tempDir } from '../support/tmp.js';

/**
 * Property: whatever sequence of store operations runs, after EVERY step the shard is what its rules and its chain
 * say it is. Steps are random (fast-check shrinks a failure to the shortest sequence that shows it): turns (a new
 * session, a follow-up, a cross-session fork), empty sessions, entries (set, checkpoint, usage family, reset,
 * delete), archiving by hand, restoring, retention with apply. After each step:
 *   - verify().ok and chainCheck().ok (the verify report is printed on failure);
 *   - every stored node hash, subtree hash and session root equals an independent recomputation from the rows
 *     (tests/support/recompute.ts, written from docs/sessions.md, importing nothing of src/);
 *   - every turn ever minted is still there, live or in an archive body, and no Bates id or sid is ever minted
 *     twice (a set of every one ever seen, across archive and restore);
 *   - a refusal (ArboristError of kind input / not_found) wrote nothing: the chain head did not move.
 * Runs on a real SQLite file through the public store API; nothing is mocked.
 */

const KEYS = ['main', 'work'] as const;

type Step =
  | { op: 'new' }
  | { op: 'follow'; t: number }
  | { op: 'fork'; t: number; s: number }
  | { op: 'newFork'; t: number }
  | { op: 'session' }
  | { op: 'set'; k: number; s: number }
  | { op: 'checkpoint'; k: number; pre: number; post: number; byTurn: boolean }
  | { op: 'usage'; k: number; s: number }
  | { op: 'reset'; k: number }
  | { op: 'delete'; k: number }
  | { op: 'archive'; s: number[] }
  | { op: 'restore'; a: number[] }
  | { op: 'maintain'; max: number };

const idx = fc.nat({ max: 1000 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Step>({ op: 'new' }) },
  { weight: 5, arbitrary: fc.record({ op: fc.constant('follow' as const), t: idx }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('fork' as const), t: idx, s: idx }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('newFork' as const), t: idx }) },
  { weight: 1, arbitrary: fc.constant<Step>({ op: 'session' }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('set' as const), k: idx, s: idx }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('checkpoint' as const),
      k: idx,
      pre: idx,
      post: idx,
      byTurn: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('usage' as const), k: idx, s: idx }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('reset' as const), k: idx }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), k: idx }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('archive' as const),
      s: fc.array(idx, { minLength: 1, maxLength: 2 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('restore' as const),
      a: fc.array(idx, { minLength: 1, maxLength: 2 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('maintain' as const), max: fc.nat({ max: 4 }) }) },
);

/** What the test remembers across steps. */
interface Model {
  /** Every Bates id ever minted. */
  bates: Set<string>;
  /** Every sid ever minted. */
  sids: Set<string>;
  n: number;
}

const pick = <T>(xs: T[], i: number): T | undefined => (xs.length === 0 ? undefined : xs[i % xs.length]);

function liveTurns(s: Shard): { bates: string; sid: string }[] {
  return dbOf(s).prepare('SELECT bates, sid FROM nodes ORDER BY id').all() as {
    bates: string;
    sid: string;
  }[];
}
const liveSids = (s: Shard) =>
  dbOf(s).prepare('SELECT sid FROM sessions ORDER BY sid').pluck().all() as string[];
const archivedSids = (s: Shard) => listArchives(s).map((a) => a.sid);

function minted(m: Model, kind: 'bates' | 'sids', id: string): void {
  const seen = m[kind];
  if (seen.has(id))
    throw new Error(`${kind === 'bates' ? 'Bates id' : 'sid'} ${id} was minted a second time`);
  seen.add(id);
}

/** Carries out one step; returns a short description of what happened (for the failure message). */
function apply(s: Shard, m: Model, st: Step): string {
  const turns = liveTurns(s);
  const sids = liveSids(s);
  const q = () => `q${++m.n} ${st.op}`;
  // An existing entry when there is one (an unknown key is refused: that path is taken while none exists).
  const entries = listEntries(s).map((e) => e.key);
  const key = (k: number) => pick(entries, k) ?? KEYS[k % KEYS.length];
  const turn = (input: Parameters<Shard['addTurn']>[0]) => {
    const r = s.addTurn(input);
    minted(m, 'bates', r.bates);
    if (r.created_session) minted(m, 'sids', r.sid);
    return r.bates;
  };
  switch (st.op) {
    case 'new':
      return turn({ question: q(), answer_text: 'a' });
    case 'follow': {
      const p = pick(turns, st.t);
      if (!p) return 'skip';
      return turn({ question: q(), answer_text: 'follow-up', parent: p.bates });
    }
    case 'fork': {
      const p = pick(turns, st.t);
      const others = sids.filter((x) => x !== p?.sid);
      const into = pick(others, st.s);
      if (!p || !into) return 'skip';
      return turn({ question: q(), answer_text: 'cross', parent: p.bates, session: into });
    }
    case 'newFork': {
      const p = pick(turns, st.t);
      if (!p) return 'skip';
      const sid = s.createSession({}).sid;
      minted(m, 'sids', sid);
      return turn({ question: q(), answer_text: 'fork', parent: p.bates, session: sid });
    }
    case 'session': {
      const sid = s.createSession({}).sid;
      minted(m, 'sids', sid);
      return sid;
    }
    case 'set': {
      const sid = pick(sids, st.s);
      if (!sid) return 'skip';
      return JSON.stringify(setEntry(s, KEYS[st.k % KEYS.length], sid).changed);
    }
    case 'checkpoint': {
      const ref = (i: number) => (st.byTurn ? pick(turns, i)?.bates : pick(sids, i));
      const pre = ref(st.pre);
      const post = ref(st.post);
      if (!pre || !post) return 'skip';
      return addCheckpoint(s, key(st.k), { pre, post, summary: 'cp' }).checkpoint.checkpointId;
    }
    case 'usage': {
      const sid = pick(sids, st.s);
      if (!sid) return 'skip';
      return JSON.stringify(addUsageFamily(s, key(st.k), sid).changed);
    }
    case 'reset': {
      const r = resetEntry(s, key(st.k));
      if (r.sid) minted(m, 'sids', r.sid);
      return `archived ${r.archived.map((a) => a.sid)}`;
    }
    case 'delete':
      return `archived ${deleteEntry(s, key(st.k)).archived.map((a) => a.sid)}`;
    case 'archive': {
      const chosen = [...new Set(st.s.map((i) => pick(sids, i)).filter((x) => x !== undefined))];
      if (chosen.length === 0) return 'skip';
      return `archived ${archiveSessions(s, chosen).map((a) => a.sid)}`;
    }
    case 'restore': {
      const arch = archivedSids(s);
      const chosen = [...new Set(st.a.map((i) => pick(arch, i)).filter((x) => x !== undefined))];
      if (chosen.length === 0) return 'skip';
      return `restored ${restoreArchives(s, chosen).map((r) => `${r.sid}:${r.identical}`)}`;
    }
    case 'maintain':
      return `archived ${maintain(s, { maxSessions: st.max, apply: true }).archived.map((a) => a.sid)}`;
  }
}

/** Every invariant; throws with a readable message on the first that fails. */
function check(s: Shard, m: Model, where: string): void {
  const v = s.verify();
  if (!v.ok) throw new Error(`${where}: verify failed: ${JSON.stringify(v, null, 1)}`);
  const c = s.chainCheck();
  if (!c.ok) throw new Error(`${where}: chain-check failed: ${JSON.stringify(c)}`);

  const want = independentHashes(dbOf(s));
  const stored = dbOf(s)
    .prepare(
      'SELECT n.bates, n.node_hash, h.subtree_hash FROM nodes n LEFT JOIN node_subtree h ON h.id = n.id ORDER BY n.id',
    )
    .all() as { bates: string; node_hash: Buffer; subtree_hash: Buffer | null }[];
  for (const r of stored) {
    const w = want.nodes.get(r.bates)!;
    if (!w.node.equals(r.node_hash))
      throw new Error(`${where}: node_hash of ${r.bates} differs from recomputed`);
    if (!r.subtree_hash || !w.subtree.equals(r.subtree_hash))
      throw new Error(`${where}: subtree_hash of ${r.bates} differs from recomputed`);
  }
  const roots = dbOf(s).prepare('SELECT sid, session_root FROM sessions').all() as {
    sid: string;
    session_root: Buffer;
  }[];
  for (const r of roots) {
    if (!want.roots.get(r.sid)!.equals(r.session_root))
      throw new Error(`${where}: session_root of ${r.sid} differs from recomputed`);
  }

  // Nothing minted is ever lost: each turn is live or in exactly one archive body; each sid live or archived.
  const live = stored.map((r) => r.bates);
  const archived = archivedSids(s).flatMap((sid) => readArchive(s, sid).nodes.map((n) => n.bates));
  const all = [...live, ...archived];
  if (new Set(all).size !== all.length) throw new Error(`${where}: a Bates id is both live and archived`);
  const missing = [...m.bates].filter((b) => !all.includes(b));
  if (missing.length > 0 || all.length !== m.bates.size)
    throw new Error(
      `${where}: turns lost or unknown: missing ${missing}, have ${all.length} of ${m.bates.size}`,
    );
  const sidsNow = [...liveSids(s), ...archivedSids(s)];
  for (const sid of m.sids)
    if (!sidsNow.includes(sid)) throw new Error(`${where}: session ${sid} is neither live nor archived`);
}

describe('property: random operation sequences keep the shard consistent after every step', () => {
  it('verify, chain, independent hashes, unique Bates ids, refusals write nothing', () => {
    const dir = tempDir('arb-prop-');
    let run = 0;
    const stats = { steps: 0, refused: 0, skipped: 0 };
    const done = new Map<string, number>();
    fc.assert(
      fc.property(fc.array(step, { minLength: 10, maxLength: 25, size: 'max' }), (steps) => {
        const s = Shard.open(join(dir, `run-${++run}.db`));
        const m: Model = { bates: new Set(), sids: new Set(), n: 0 };
        const log: string[] = [];
        try {
          check(s, m, 'fresh shard');
          for (const [i, st] of steps.entries()) {
            const head = s.chainHead();
            let what: string;
            try {
              what = apply(s, m, st);
            } catch (err) {
              if (!(err instanceof ArboristError) || !['input', 'not_found'].includes(err.kind)) throw err;
              what = `refused (${err.kind}): ${err.message}`;
              stats.refused++;
              expect(s.chainHead(), `a refused ${st.op} wrote to the chain`).toBe(head);
            }
            if (what === 'skip') stats.skipped++;
            else if (!what.startsWith('refused') && what !== 'archived ')
              done.set(st.op, (done.get(st.op) ?? 0) + 1);
            stats.steps++;
            log.push(`${i}: ${JSON.stringify(st)} -> ${what}`);
            check(s, m, `after step ${log.join('\n')}`);
          }
        } finally {
          s.close();
        }
      }),
      { numRuns: 100, seed: process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : undefined },
    );
    // The generator must actually reach the interesting paths: refusals happen, and most steps do something.
    console.log(
      `property: ${run} shards, ${JSON.stringify(stats)}, done ${JSON.stringify(Object.fromEntries(done))}`,
    );
    expect(stats.refused).toBeGreaterThan(0);
    expect(stats.skipped).toBeLessThan(stats.steps / 2);
    for (const op of ['fork', 'reset', 'delete', 'archive', 'restore', 'maintain', 'checkpoint'])
      expect(done.get(op) ?? 0, `${op} never did anything`).toBeGreaterThan(0);
  }, 60_000);
});
