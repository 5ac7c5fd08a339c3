/**
 * What the transcript's details cost per turn (src/ui/runtime/details.ts): the turn's source records read (its
 * chunk decompressed), read by its source's reader, its edits diffed, in the runtime's batches of consecutive
 * turns (the turns on screen are a path's neighbours). The floor, measured right before in each run, is reading
 * the same records alone (Shard.sourceRecordsOf, the part no reader can avoid).
 *
 *   node dist/bench/details.js --db SHARD [--turns 400] [--runs 5] [--json]
 */

import { Shard } from '../src/store/index.js';
import { dbOf } from '../src/store/testing.js';
import { BATCH, importReaders, readBatch } from '../src/ui/runtime/details.js';
import { benchArgs } from './args.js';
import { pairs, Report } from './ratio.js';
import { median } from './stats.js';

const { values } = benchArgs('details', {
  options: {
    db: { type: 'string' },
    turns: { type: 'string', default: '400' },
    runs: { type: 'string', default: '5' },
    json: { type: 'boolean', default: false },
  },
  strict: true,
});
if (!values.db) {
  process.stderr.write('usage: node dist/bench/details.js --db SHARD [--turns 400] [--runs 5] [--json]\n');
  process.exit(2);
}

const shard = Shard.open(values.db, { readonly: true });
// Consecutive imported turns of each session, in Bates order: what a path on screen asks for together.
const turns = dbOf(shard)
  .prepare(
    `SELECT n.bates, n.sid FROM nodes n JOIN node_sources s ON s.bates = n.bates ORDER BY n.bates LIMIT ?`,
  )
  .all(Number(values.turns)) as { bates: string; sid: string }[];
const batches: { bates: string; sid: string }[][] = [];
for (let i = 0; i < turns.length; i += BATCH) batches.push(turns.slice(i, i + BATCH));
const sources = new Map<string, string | null>();
const sourceOf = (sid: string) => {
  if (!sources.has(sid)) sources.set(sid, shard.sourceOfSession(sid)?.source ?? null);
  return sources.get(sid) ?? null;
};

const report = new Report('turn details from source records, per turn', values.json);
report.fact('shard', values.db);
report.fact('turns', turns.length);
report.fact('batch', BATCH);
const t0 = performance.now();
const readers = await importReaders();
report.fact('first use: the readers and jsdiff imported (ms)', (performance.now() - t0).toFixed(1));

const batchMs: number[] = [];
let calls = 0;
let edits = 0;
let thinking = 0;
const perTurn = (f: () => void) => {
  const a = performance.now();
  f();
  return (performance.now() - a) / turns.length;
};
const floor = () =>
  perTurn(() => {
    for (const b of batches) shard.sourceRecordsOf(b.map((t) => t.bates));
  });
const figure = () =>
  perTurn(() => {
    calls = edits = thinking = 0;
    for (const b of batches) {
      const a = performance.now();
      for (const [, d] of readBatch(shard, b, readers, sourceOf)) {
        calls += d?.calls.length ?? 0;
        edits += d?.calls.filter((c) => c.diff).length ?? 0;
        thinking += d?.thinking.length ?? 0;
      }
      batchMs.push(performance.now() - a);
    }
  });
report.add({
  name: 'details of one turn: records read, extracted, edits diffed',
  kind: 'time',
  unit: 'ms',
  floorIs: 'the same records read alone (sourceRecordsOf, same batches)',
  pairs: pairs(Number(values.runs), floor, figure),
});
report.fact('calls, edits, thinking blocks read per run', `${calls}, ${edits}, ${thinking}`);
report.fact(
  'one batch on the main thread, median / max (ms)',
  `${median(batchMs).toFixed(2)} / ${Math.max(...batchMs).toFixed(2)}`,
);
report.end();
shard.close();
