/**
 * Builds a realistic synthetic shard through the real store API, for anyone to measure on.
 *
 *   npm run gen -- --nodes 1000000 --db /tmp/arb-bench/1m.db [--seed 1] [--force] [--runs 5] [--json]
 *
 * The texts and the shape of the shard come from gen-texts.ts, made on a worker thread (gen-worker.ts) a batch
 * ahead of this thread, which writes them (--inline: made here, between the writes, as before). Deterministic for
 * a given seed: sids come from the PRNG too, so the same seed rebuilds the same shard (the same node hashes and
 * session roots; only the events' timestamps differ), wherever the texts were made. The shard is a fresh bulk
 * build (src/store/build.ts): written under a temporary name, indexed once at the end, then linked into place.
 *
 * Its speed is reported beside a floor measured in the same run (bench/ratio.ts, bench/floor.ts): the run is cut
 * into --runs slices; right after each, up to 2,000 of the slice's turns are written again into bare nodes +
 * nodes_fts tables with the shard's own definitions (one transaction, no hashing, no audit event), and the slice's
 * turns/s is paired with that floor's turns/s. The floor samples' time is left out of gen's total. Printed: the
 * total time and turns/s, the part of it this thread waited for the texts (the generator, not the store), the ratio
 * for the whole and for the store's part alone, the load average before and after. The index built at the end is
 * shared out evenly among the slices' times.
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ArboristError, type BulkTurn, ShardBuild } from '../src/store/index.js';
import { dbOf } from '../src/store/testing.js';
import { benchArgs } from './args.js';
import { BareIndex } from './floor.js';
import { type GenBatch, type GenStats, turnMaker } from './gen-texts.js';
import { type Pair, Report } from './ratio.js';

const USAGE =
  'usage: npm run gen -- --nodes N --db PATH [--seed S] [--force] [--batch B] [--runs 5] [--inline] [--json]';

function fail(msg: string): never {
  process.stderr.write(`gen: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

/** Where the batches come from: asked for in order, answered in order. */
interface TextSource {
  batch(end: number): Promise<GenBatch>;
  stats(): Promise<GenStats>;
  close(): void;
}

function inlineTexts(nodes: number, seed: number): TextSource {
  const maker = turnMaker(nodes, seed);
  return {
    batch: async (end) => maker.next(end),
    stats: async () => maker.stats(),
    close: () => {},
  };
}

function workerTexts(nodes: number, seed: number): TextSource {
  const worker = new Worker(new URL('./gen-worker.js', import.meta.url), { workerData: { nodes, seed } });
  const waiting: { resolve: (v: never) => void; reject: (e: unknown) => void }[] = [];
  worker.on('message', (m: { batch?: GenBatch; stats?: GenStats }) =>
    waiting.shift()?.resolve((m.batch ?? m.stats) as never),
  );
  const failAll = (err: unknown) => {
    for (const w of waiting.splice(0)) w.reject(err);
  };
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`the text worker exited (${code})`)));
  const ask = <T>(msg: unknown) =>
    new Promise<T>((resolve, reject) => {
      waiting.push({ resolve: resolve as (v: never) => void, reject });
      worker.postMessage(msg);
    });
  return {
    batch: (end) => ask<GenBatch>({ end }),
    stats: () => ask<GenStats>('stats'),
    close: () => void worker.terminate(),
  };
}

export async function gen(argv: string[]): Promise<void> {
  const { values } = benchArgs(
    'gen',
    {
      args: argv,
      options: {
        nodes: { type: 'string' },
        db: { type: 'string' },
        seed: { type: 'string', default: '1' },
        force: { type: 'boolean', default: false },
        batch: { type: 'string', default: '10000' },
        runs: { type: 'string', default: '5' },
        json: { type: 'boolean', default: false },
        inline: { type: 'boolean', default: false },
      },
      strict: true,
    },
    ['nodes', 'db'],
  );
  const N = Number(values.nodes);
  if (!values.nodes || !Number.isInteger(N) || N < 1) fail('--nodes must be a positive integer');
  if (!values.db) fail('--db PATH is required');
  const PATH = values.db;
  const SEED = Number(values.seed);
  if (!Number.isInteger(SEED)) fail('--seed must be an integer');
  const BATCH = Number(values.batch);
  if (!Number.isInteger(BATCH) || BATCH < 1) fail('--batch must be a positive integer');
  const RUNS = Number(values.runs);
  if (!Number.isInteger(RUNS) || RUNS < 5) fail('--runs must be an integer >= 5');
  /** Turns of each slice written again into the bare tables: the floor. */
  const FLOOR_SAMPLE = 2000;

  if (existsSync(PATH) && statSync(PATH).size > 0) {
    if (!values.force) fail(`${PATH} exists and is not empty; pass --force to replace it`);
    for (const f of [PATH, `${PATH}-wal`, `${PATH}-shm`]) rmSync(f, { force: true });
  }

  // ---- main -----------------------------------------------------------------------------------------------

  function fmt(n: number): string {
    return n.toLocaleString('en-US');
  }

  const report = new Report(`arborist gen: ${PATH}`, values.json);
  const t0 = performance.now();
  // A new shard built under a temporary name, indexed once at the end and linked into place (src/store/build.ts).
  let build: ShardBuild;
  try {
    build = ShardBuild.start(PATH);
  } catch (err) {
    if (err instanceof ArboristError) fail(err.message);
    throw err;
  }
  const shard = build.shard;
  const floor = new BareIndex(dbOf(shard), dirname(resolve(PATH)));
  let made = 0;
  let lastReport = t0;
  let floorSecs = 0;
  /** The main thread's time waiting for texts (inline: making them). */
  let textSecs = 0;
  // The run is cut into RUNS slices; after each, a floor sample of the texts just written (its time is not gen's).
  // (A shard of fewer turns than RUNS has one slice a turn.) Batches end at BATCH turns and at every slice's end.
  const slices = Math.min(RUNS, N);
  const sliceEnds = Array.from({ length: slices }, (_, k) => Math.round(((k + 1) * N) / slices));
  const ends: number[] = [];
  for (let e = 0; e < N; ) {
    e = Math.min(N, e + BATCH, sliceEnds.find((x) => x > e) ?? N);
    ends.push(e);
  }
  const texts = values.inline ? inlineTexts(N, SEED) : workerTexts(N, SEED);
  const sliceRuns: { turns: number; secs: number; text: number; ceiling: number }[] = [];
  let slice = { start: made, t: performance.now(), text: 0, sample: [] as BulkTurn[] };
  let stats: GenStats;
  try {
    // Two batches asked for ahead: the worker makes the next while this thread writes the one it has.
    // (A queue, not an array kept whole: a 1M run held every batch's texts, 3.3 GB resident.)
    const asked = ends.slice(0, 2).map((e) => texts.batch(e));
    for (let k = 0; k < ends.length; k++) {
      const tt = performance.now();
      const b = await (asked.shift() as Promise<GenBatch>);
      if (k + 2 < ends.length) asked.push(texts.batch(ends[k + 2]));
      const dt = (performance.now() - tt) / 1000;
      textSecs += dt;
      slice.text += dt;
      made = ends[k];
      shard.write(() => {
        for (const s of b.sessions) shard.createSession(s);
        const r = shard.addTurnsBulk(b.turns, {
          kind: 'nodes.bulk',
          data: { generator: 'bench/gen.ts', seed: SEED },
        });
        b.bates.forEach((bates, i) => {
          if (r.added[i].bates !== bates)
            throw new Error(`turn ${i} became ${r.added[i].bates}, not ${bates}`);
        });
      });
      for (const t of b.turns) if (slice.sample.length < FLOOR_SAMPLE) slice.sample.push(t);
      if (sliceEnds.includes(made) && made > slice.start) {
        const secs = (performance.now() - slice.t) / 1000;
        const turns = made - slice.start;
        const sample = slice.sample.map((t) => ({
          question: t.content.question,
          answer_text: t.content.answer_text,
          cited_titles_json: JSON.stringify(t.content.cited_titles ?? []),
        }));
        const fs = floor.write(sample);
        floorSecs += fs;
        sliceRuns.push({ turns, secs, text: slice.text, ceiling: sample.length / fs });
        slice = { start: made, t: performance.now(), text: 0, sample: [] };
      }
      const now = performance.now();
      if (now - lastReport > 2000 || made === N) {
        lastReport = now;
        const secs = (now - t0) / 1000 - floorSecs;
        const rate = made / secs;
        process.stderr.write(
          `gen: ${fmt(made)}/${fmt(N)} nodes  ${fmt(Math.round(rate))}/s  ${secs.toFixed(1)}s` +
            `  eta ${((N - made) / rate).toFixed(0)}s\n`,
        );
      }
    }
    stats = await texts.stats();
  } catch (err) {
    build.abort();
    throw err;
  } finally {
    texts.close();
    floor.close();
  }
  if (stats.nodes !== N) throw new Error('node count mismatch');
  const head = shard.chainHead();
  const events = shard.audit.count();
  const { indexSecs, threaded } = build.finish();
  // The index is built once for the whole shard: its time is shared out evenly among the slices.
  const whole: Pair[] = sliceRuns.map((r) => ({
    figure: r.turns / (r.secs + indexSecs / sliceRuns.length),
    floor: r.ceiling,
  }));
  const store: Pair[] = sliceRuns.map((r) => ({
    figure: r.turns / (r.secs - r.text + indexSecs / sliceRuns.length),
    floor: r.ceiling,
  }));
  const secs = (performance.now() - t0) / 1000 - floorSecs;
  const size = statSync(PATH).size;
  report.fact('shard', PATH);
  report.fact('seed', SEED);
  report.fact('nodes', fmt(N));
  report.fact('sessions', `${fmt(stats.sessions)} (${fmt(stats.labelled)} labelled)`);
  report.fact('forks', `${fmt(stats.forks)} cross-session`);
  report.fact('rewinds', `${fmt(stats.rewinds)} (${fmt(stats.branchPoints)} branch points)`);
  report.fact('depth', `max ${stats.maxDepth}, mean ${(stats.depthSum / N).toFixed(1)}`);
  report.fact('events', `${fmt(events)}, head ${head}`);
  report.fact('size', `${(size / 1048576).toFixed(1)} MiB`);
  report.fact(
    'time',
    `${secs.toFixed(1)} s (${fmt(Math.round(N / secs))} turns/s), of which ${textSecs.toFixed(1)} s waiting for the texts (${stats.makeSecs.toFixed(1)} s making them${values.inline ? '' : ', on a worker thread'}) ` +
      (threaded
        ? `and ${indexSecs.toFixed(1)} s finishing the index written on a thread of its own; `
        : `and ${indexSecs.toFixed(1)} s indexing them all at the end; `) +
      `${floorSecs.toFixed(1)} s of floor samples not counted (target for 1,000,000: <= 180 s)`,
  );
  const floorIs = `the slice's texts (its first ${FLOOR_SAMPLE.toLocaleString('en-US')} at most), written again into bare nodes + nodes_fts tables with the shard's own definitions, one transaction`;
  report.add({
    name: 'gen, whole',
    kind: 'rate',
    unit: 'turns/s',
    floorIs,
    pairs: whole,
    note: `${slices} slices of ${fmt(Math.round(N / slices))} turns, each beside the floor sample taken right after it`,
  });
  report.add({
    name: "gen, the store's part (addTurnsBulk and commit; the generator's text-making taken out)",
    kind: 'rate',
    unit: 'turns/s',
    floorIs,
    pairs: store,
  });
  report.end();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  await gen(process.argv.slice(2));
