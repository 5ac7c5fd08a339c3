/**
 * Reading the tree, through the store's API, beside a bare SQLite read of the same rows in the same run.
 *
 * tree  a session's outline as the TUI's left pane reads it (Shard.sessionOutline, src/ui/runtime/sessions.ts):
 *       the largest session, and 20 sessions (the 10 largest and 10 drawn at random). Floor: the same rows (its own
 *       turns by seq, and its children in other sessions) read as raw arrays, no join for the parent's Bates id, no
 *       walk.
 * path  the path from the root to the 10 deepest turns, as `arborist show` and export read it (Shard.pathTo).
 *       Floor: one recursive SELECT of the same rows (and their subtree hashes) along parent_id.
 *
 * A measurement repeats its reads until it has taken >= 20 ms, so that sub-millisecond reads are not timer noise;
 * figures are per read.
 */
import type { Shard } from '../src/store/index.js';
import { dbOf } from '../src/store/testing.js';
import { type Pair, pairs, type Report } from './ratio.js';
import type { Rng } from './rng.js';

const OWN = `SELECT id, bates, sid, seq, parent_id, is_top, n_children, substr(question, 1, 160), audit, created_at
  FROM nodes WHERE sid = ? ORDER BY seq`;
const CROSS = `SELECT c.id, c.bates, c.sid, c.seq, c.parent_id, c.is_top, c.n_children, substr(c.question, 1, 160),
  c.audit, c.created_at FROM nodes p JOIN nodes c ON c.parent_id = p.id WHERE p.sid = ? AND c.sid <> p.sid`;
const PATH = `WITH RECURSIVE up(id) AS (
    SELECT id FROM nodes WHERE bates = ?
    UNION ALL SELECT n.parent_id FROM nodes n JOIN up ON n.id = up.id WHERE n.parent_id IS NOT NULL)
  SELECT n.*, h.subtree_hash FROM up JOIN nodes n ON n.id = up.id JOIN node_subtree h ON h.id = n.id`;

/** How many times `fn` must run to take >= 20 ms (at least once). */
function repsFor(fn: () => void): number {
  const t = performance.now();
  fn();
  const ms = performance.now() - t;
  return Math.max(1, Math.ceil(20 / Math.max(ms, 0.001)));
}

/** Milliseconds per call of `fn`, over `reps` calls. */
function per(reps: number, fn: () => void): number {
  const t = performance.now();
  for (let i = 0; i < reps; i++) fn();
  return (performance.now() - t) / reps;
}

/** Pairs of (floor, figure), each timed over the same number of repetitions, after a warm-up of both. */
function measured(runs: number, floor: () => void, figure: () => void): Pair[] {
  floor();
  figure();
  const rf = repsFor(floor);
  const rg = repsFor(figure);
  return pairs(
    runs,
    () => per(rf, floor),
    () => per(rg, figure),
  );
}

export function benchTree(report: Report, shard: Shard, runs: number, rng: Rng): void {
  const bySize = dbOf(shard)
    .prepare('SELECT sid, n_nodes FROM sessions ORDER BY n_nodes DESC')
    .raw()
    .all() as [string, number][];
  if (bySize.length === 0) {
    report.fact('tree', 'skipped: the shard has no sessions');
    return;
  }
  const own = dbOf(shard).prepare(OWN).raw();
  const cross = dbOf(shard).prepare(CROSS).raw();
  const bare = (sid: string) => {
    own.all(sid);
    cross.all(sid);
  };
  const [bigSid, bigN] = bySize[0];
  const twenty = bySize.slice(0, 10).map(([sid]) => sid);
  for (let i = 0; i < 10 && bySize.length > 10; i++) twenty.push(bySize[rng.int(10, bySize.length - 1)][0]);
  report.add({
    name: `tree: the largest session's outline (${bigN.toLocaleString('en-US')} turns)`,
    kind: 'time',
    unit: 'ms',
    floorIs: 'a bare SELECT of the same rows (own turns and cross-session children), raw',
    pairs: measured(
      runs,
      () => bare(bigSid),
      () => shard.sessionOutline(bigSid),
    ),
  });
  report.add({
    name: `tree: ${twenty.length} sessions' outlines (the 10 largest, the rest at random)`,
    kind: 'time',
    unit: 'ms',
    floorIs: 'bare SELECTs of the same rows, raw',
    pairs: measured(
      runs,
      () => {
        for (const sid of twenty) bare(sid);
      },
      () => {
        for (const sid of twenty) shard.sessionOutline(sid);
      },
    ),
  });
}

export function benchPath(report: Report, shard: Shard, runs: number): void {
  // Once, untimed: a scan of the depth column (no index holds it).
  const deepest = dbOf(shard)
    .prepare('SELECT bates, depth FROM nodes ORDER BY depth DESC LIMIT 10')
    .raw()
    .all() as [string, number][];
  if (deepest.length === 0) {
    report.fact('path', 'skipped: the shard has no turns');
    return;
  }
  const up = dbOf(shard).prepare(PATH).raw();
  report.add({
    name: `path: root to each of the 10 deepest turns (depth ${deepest[deepest.length - 1][1]}-${deepest[0][1]})`,
    kind: 'time',
    unit: 'ms',
    floorIs: 'one recursive SELECT of the same rows along parent_id, raw',
    note: 'Shard.pathTo, as `arborist show` and export read a turn; figures are for the 10 paths together',
    pairs: measured(
      runs,
      () => {
        for (const [b] of deepest) up.all(b);
      },
      () => {
        for (const [b] of deepest) shard.pathTo(b);
      },
    ),
  });
}
