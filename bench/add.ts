/**
 * add at depth 100, in a COPY of the shard (the original is only read), beside a bare SQLite INSERT of the same
 * bytes in the same copy and run.
 *
 * N conversations of DEPTH turns (depths 0..DEPTH-1) are built in batches, then one turn is added under each leaf
 * (depth DEPTH: its ripple rehashes DEPTH ancestors), each in its own transaction as a real ask is, with the
 * process's idle housekeeping (Shard.idle) between adds, untimed, as in the TUI where a person types between
 * questions. ARBORIST_BENCH_NO_IDLE=1 adds back to back; ARBORIST_BENCH_INDEX_NOW=1 indexes each add at once
 * instead of in the TUI's deferred batches.
 *
 * Floor, one before each add: the row the previous add wrote (its nodes row and its audit event, byte for byte)
 * inserted into bare copies of the two tables (their own constraints, no secondary index, no FTS, no hashing) in
 * one IMMEDIATE transaction on the same connection. The adds are split into runs; each run pairs its p50 (and p99)
 * with the floor's.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Shard } from '../src/store/index.js';
import { dbOf } from '../src/store/testing.js';
import type { Pair, Report } from './ratio.js';
import type { Rng } from './rng.js';
import { sampleTexts } from './sample.js';
import { percentile } from './stats.js';

export interface AddBenchOptions {
  n: number;
  depth: number;
  runs: number;
  rng: Rng;
  progress?: (msg: string) => void;
}

function fileSize(p: string): number {
  return existsSync(p) ? statSync(p).size : 0;
}

/** A bare copy of `table` (its CREATE statement under another name: its constraints, none of its indexes). */
function bareCopy(shard: Shard, table: string, as: string): { insert: (row: unknown[]) => void } {
  const sql = dbOf(shard)
    .prepare('SELECT sql FROM sqlite_schema WHERE type = ? AND name = ?')
    .pluck()
    .get('table', table) as string;
  dbOf(shard).exec(sql.replace(new RegExp(`^CREATE TABLE ${table}\\b`), `CREATE TABLE ${as}`));
  const cols = (dbOf(shard).pragma(`table_info(${table})`) as { name: string; pk: number }[])
    .filter((c) => c.pk === 0)
    .map((c) => c.name);
  const ins = dbOf(shard).prepare(
    `INSERT INTO ${as} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
  );
  return { insert: (row) => ins.run(row) };
}

export function benchAdd(report: Report, path: string, opts: AddBenchOptions): void {
  const progress = opts.progress ?? (() => {});
  const runs = Math.max(5, opts.runs);
  const n = Math.max(opts.n, runs);
  const depth = opts.depth;
  const dir = mkdtempSync(join(tmpdir(), 'arb-bench-add-'));
  const copy = join(dir, 'copy.db');
  try {
    // The shard and its WAL (if any) copied together are a consistent snapshot while nobody writes.
    let t0 = performance.now();
    copyFileSync(path, copy);
    if (fileSize(`${path}-wal`) > 0) copyFileSync(`${path}-wal`, `${copy}-wal`);
    const shard = Shard.open(copy);
    dbOf(shard).pragma('wal_checkpoint(TRUNCATE)');
    progress(`add: copied the shard in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const texts = sampleTexts(shard, opts.rng, 1000);
    let ti = 0;
    const text = () => texts[ti++ % texts.length];
    t0 = performance.now();
    const leaves: string[] = [];
    const base = Date.parse('2026-01-01T00:00:00Z');
    let clock = 0;
    const CHAINS_PER_TX = 20;
    for (let c = 0; c < n; c += CHAINS_PER_TX) {
      shard.write(() => {
        for (let k = c; k < Math.min(n, c + CHAINS_PER_TX); k++) {
          const sid = shard.createSession({ label: `bench chain ${k}` }).sid;
          let parent: string | undefined;
          for (let d = 0; d < depth; d++) {
            parent = shard.addTurn({
              ...text(),
              audit: 'grounded',
              session: sid,
              parent,
              created_at: new Date(base + clock++ * 1000).toISOString(),
            }).bates;
          }
          leaves.push(parent!);
        }
      });
    }
    dbOf(shard).pragma('wal_checkpoint(TRUNCATE)');
    progress(
      `add: built ${n} conversations of ${depth} turns in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );

    const nodeRow = dbOf(shard).prepare('SELECT * FROM nodes WHERE bates = ?').raw();
    const lastEvent = dbOf(shard).prepare('SELECT * FROM audit_events ORDER BY seq DESC LIMIT 1').raw();
    const withoutFirst = (r: unknown[]) => r.slice(1); // the INTEGER PRIMARY KEY: the bare table mints its own
    const floorNodes = bareCopy(shard, 'nodes', 'bench_floor_nodes');
    const floorEvents = bareCopy(shard, 'audit_events', 'bench_floor_events');
    const floorTx = dbOf(shard).transaction((node: unknown[], event: unknown[]) => {
      floorNodes.insert(node);
      floorEvents.insert(event);
    });

    const idleBetween = process.env.ARBORIST_BENCH_NO_IDLE !== '1';
    // As the TUI does (src/ui/app.ts): FTS rows are indexed in batches, at idle or 256 at a time.
    shard.deferIndexing = process.env.ARBORIST_BENCH_INDEX_NOW !== '1';
    shard.idle();
    let prev = {
      node: withoutFirst(nodeRow.get(leaves[0]) as unknown[]),
      event: withoutFirst(lastEvent.get() as unknown[]),
    };
    const per = Math.floor(leaves.length / runs);
    const fig: number[][] = [];
    const flo: number[][] = [];
    let maxDepth = 0;
    for (let run = 0; run < runs; run++) {
      const f: number[] = [];
      const g: number[] = [];
      for (const leaf of leaves.slice(run * per, (run + 1) * per)) {
        const t = text();
        const created_at = new Date(base + clock++ * 1000).toISOString();
        let t1 = performance.now();
        floorTx.immediate(prev.node, prev.event);
        f.push(performance.now() - t1);
        t1 = performance.now();
        const added = shard.addTurn({ ...t, audit: 'grounded', parent: leaf, created_at });
        g.push(performance.now() - t1);
        const row = nodeRow.get(added.bates) as unknown[];
        prev = { node: withoutFirst(row), event: withoutFirst(lastEvent.get() as unknown[]) };
        maxDepth = Math.max(maxDepth, shard.getNode(added.bates)!.depth);
        if (idleBetween) shard.idle();
      }
      fig.push(g);
      flo.push(f);
    }
    shard.close();
    const at = (p: number): Pair[] =>
      fig.map((g, i) => ({ figure: percentile(g, p), floor: percentile(flo[i], p) }));
    const floorIs = (p: string) =>
      `${p} of a bare INSERT of the same nodes row + audit event, one transaction, same copy`;
    const note = `${per * runs} adds in ${runs} runs, each its own transaction, ${idleBetween ? 'idle housekeeping between adds' : 'back to back'}`;
    report.add({
      name: `add at depth ${maxDepth}, p50`,
      kind: 'time',
      unit: 'ms',
      floorIs: floorIs('p50'),
      pairs: at(50),
      target: { at_most: 0.5 },
      note,
    });
    report.add({
      name: `add at depth ${maxDepth}, p99`,
      kind: 'time',
      unit: 'ms',
      floorIs: floorIs('p99'),
      pairs: at(99),
      target: { at_most: 2 },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
