/**
 * Builds a realistic synthetic shard through the real store API, for anyone to measure on.
 *
 *   npm run gen -- --nodes 1000000 --db /tmp/arb-bench/1m.db [--seed 1] [--force] [--runs 5] [--json]
 *
 * Many sessions of varied length (5..300 turns, log-uniform), a few interleaved at a time; conversations are
 * chains with occasional rewinds (branches); some sessions fork from a turn of an older session. Questions
 * (~60-200 chars) and answers (~400-1500 chars) are drawn from a Zipf-ranked vocabulary of a few thousand words
 * plus a long tail of rare tokens; each session leans on a few topic words. Timestamps rise over eight months.
 * Deterministic for a given seed: sids come from the PRNG too, so the same seed rebuilds the same shard.
 *
 * Its speed is reported beside a floor measured in the same run (bench/ratio.ts, bench/floor.ts): the run is cut
 * into --runs slices; right after each, up to 2,000 of the slice's turns are written again into bare nodes +
 * nodes_fts tables with the shard's own definitions (one transaction, no hashing, no audit event), and the slice's
 * turns/s is paired with that floor's turns/s. The floor samples' time is left out of gen's total. Printed: the
 * total time and turns/s, the part of it spent making the texts (the generator, not the store), the ratio for the
 * whole and for the store's part alone, the load average before and after.
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { type BulkTurn, formatBates, hashes, type Shard, ShardBuild } from '../src/store/index.js';
import { BareIndex } from './floor.js';
import { type Pair, Report } from './ratio.js';
import { Rng, Zipf } from './rng.js';
import { buildVocabulary, pseudoWord } from './words.js';

const USAGE =
  'usage: npm run gen -- --nodes N --db PATH [--seed S] [--force] [--batch B] [--runs 5] [--json]';

function fail(msg: string): never {
  process.stderr.write(`gen: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

export function gen(argv: string[]): void {
  const { values } = parseArgs({
    args: argv,
    options: {
      nodes: { type: 'string' },
      db: { type: 'string' },
      seed: { type: 'string', default: '1' },
      force: { type: 'boolean', default: false },
      batch: { type: 'string', default: '10000' },
      runs: { type: 'string', default: '5' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
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

  // ---- text -------------------------------------------------------------------------------------------------

  const VOCAB = buildVocabulary(4000);
  const N_FUNCTION = 100; // the head of the curve: function words and the most common content words
  const zipf = new Zipf(VOCAB.length);
  const topicZipf = new Zipf(VOCAB.length - N_FUNCTION, 0.8, 10);
  const rng = new Rng(SEED);

  const OPENERS = [
    'how do I',
    'what is the difference between',
    'why does',
    'can you explain',
    'is it possible to',
    'what happens when',
    'how should I',
    'when should I use',
    'where does',
    'which',
    'what is the best way to',
    'how can I',
    'why is my',
    'should I',
    'what does',
    'help me understand',
    'and for',
    'ok, and what about',
    'follow-up: how does',
    'compare',
  ];

  /** A rare token: an identifier, an error code, a number or a version, almost never repeated. */
  function rareToken(): string {
    const k = rng.int(0, 9);
    if (k < 5) return pseudoWord(rng.u32(), 3);
    if (k < 7) return `${pseudoWord(rng.u32(), 2)}_${pseudoWord(rng.u32(), 2)}`;
    if (k < 8) return `E${rng.int(1000, 9999)}`;
    if (k < 9) return String(rng.int(2, 99999));
    return `v${rng.int(0, 9)}.${rng.int(0, 30)}.${rng.int(0, 20)}`;
  }

  function word(topic: string[]): string {
    const u = rng.float();
    if (u < 0.1) return topic[rng.int(0, topic.length - 1)];
    if (u < 0.1025) return rareToken();
    return VOCAB[zipf.sample(rng)];
  }

  function capitalise(s: string): string {
    return s.charAt(0).toUpperCase() + s.slice(1);
  }

  function question(topic: string[]): string {
    const target = rng.int(60, 200);
    let q = capitalise(rng.pick(OPENERS));
    while (q.length < target - 8) q += ` ${word(topic)}`;
    return `${q}?`;
  }

  function answer(topic: string[]): string {
    const target = rng.int(400, 1500);
    const parts: string[] = [];
    let len = 0;
    while (len < target) {
      const n = rng.int(6, 22);
      let s = capitalise(word(topic));
      for (let i = 1; i < n; i++) {
        s += rng.chance(0.06) ? `, ${word(topic)}` : ` ${word(topic)}`;
      }
      if (rng.chance(0.05)) s += ` \`${word(topic)}()\``;
      s += rng.chance(0.08) ? ':' : '.';
      parts.push(s);
      len += s.length + 1;
      if (rng.chance(0.12)) {
        parts.push('\n\n');
        len += 2;
      }
    }
    return parts.join(' ').replaceAll(' \n\n ', '\n\n');
  }

  // Cited titles: a fixed pool, themselves Zipf-ranked (a few references are cited everywhere).
  const TITLE_KINDS = [
    'Guide',
    'Handbook',
    'Reference',
    'FAQ',
    'Manual',
    'Book',
    'Notes',
    'Docs',
    'RFC',
    'Wiki',
  ];
  const titleRng = new Rng(0x7173);
  const TITLES = Array.from({ length: 3000 }, (_, i) => {
    const a = capitalise(VOCAB[N_FUNCTION + ((titleRng.u32() >>> 0) % (VOCAB.length - N_FUNCTION))]);
    const b = capitalise(VOCAB[N_FUNCTION + ((titleRng.u32() >>> 0) % (VOCAB.length - N_FUNCTION))]);
    const kind = TITLE_KINDS[i % TITLE_KINDS.length];
    return `The ${a} ${b} ${kind} ${titleRng.int(1, 24)}.${titleRng.int(1, 12)}`;
  });
  const titleZipf = new Zipf(TITLES.length, 0.9, 5);

  function cites(n: number): string[] {
    const out = new Set<string>();
    for (let i = 0; i < n; i++) out.add(TITLES[titleZipf.sample(rng)]);
    return [...out];
  }

  function pickAudit(): string {
    const u = rng.float();
    if (u < 0.55) return 'grounded';
    if (u < 0.7) return 'manual';
    if (u < 0.9) return 'cached';
    return 'ungrounded';
  }

  function hexId(bytes: number): string {
    let s = '';
    for (let i = 0; i < bytes; i += 4) s += rng.u32().toString(16).padStart(8, '0');
    return s.slice(0, bytes * 2);
  }

  // ---- structure --------------------------------------------------------------------------------------------

  interface SessionState {
    sid: string;
    /** depth (across sessions) of each turn, by seq - 1 */
    depths: number[];
    /** children of each turn, by seq - 1 */
    kids: number[];
  }

  interface Active {
    s: SessionState;
    remaining: number;
    leafSeq: number;
    topic: string[];
  }

  const sessions: SessionState[] = [];
  const usedSids = new Set<string>();
  const recentGrounded: { q: string; a: string; cited: string[]; key: string }[] = [];
  const K_ACTIVE = 4;
  const active: (Active | null)[] = new Array(K_ACTIVE).fill(null);

  const T0 = Date.UTC(2025, 2, 1);
  const SPAN_MS = 240 * 24 * 3600 * 1000;
  const meanGap = SPAN_MS / N;
  let clock = T0;

  const stats = { sessions: 0, labelled: 0, forks: 0, rewinds: 0, branchPoints: 0, maxDepth: 0, depthSum: 0 };

  function newSid(): string {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
    for (;;) {
      let sid = '';
      for (let i = 0; i < 8; i++) sid += alphabet[rng.u32() % 36];
      if (!usedSids.has(sid)) {
        usedSids.add(sid);
        return sid;
      }
    }
  }

  function sessionLength(): number {
    // log-uniform on 5..300: many short sessions, a few very long ones (mean ~72)
    return Math.round(5 * Math.exp(rng.float() * Math.log(300 / 5)));
  }

  function noteChild(s: SessionState, seq: number): void {
    s.kids[seq - 1]++;
    if (s.kids[seq - 1] === 2) stats.branchPoints++;
  }

  let shard: Shard;
  /** The turns of the batch being made: written together through the bulk path (hashed in memory, folded once). */
  let batch: BulkTurn[] = [];
  const batchIndex = new Map<string, number>();

  function addTurn(a: Active, parent: { s: SessionState; seq: number } | null): void {
    clock += rng.exp(meanGap);
    const created_at = new Date(clock).toISOString();
    const audit = pickAudit();
    let q: string;
    let ans: string;
    let cited: string[];
    let cache_key: string | null = null;
    if (audit === 'cached' && recentGrounded.length > 0) {
      const r = recentGrounded[rng.int(0, recentGrounded.length - 1)];
      q = r.q;
      ans = r.a;
      cited = r.cited;
      cache_key = r.key;
    } else {
      q = question(a.topic);
      ans = answer(a.topic);
      cited = audit === 'grounded' ? cites(rng.int(1, 4)) : audit === 'manual' ? cites(rng.int(0, 1)) : [];
      if (audit === 'grounded' || audit === 'cached') {
        cache_key = hashes.sha256(`${a.s.sid}\n${q}`).toString('hex');
        recentGrounded.push({ q, a: ans, cited, key: cache_key });
        if (recentGrounded.length > 256) recentGrounded.splice(0, 64);
      }
    }
    const imported = rng.chance(0.15);
    const seq = a.s.depths.length + 1;
    const parentBates = parent ? formatBates(parent.s.sid, parent.seq) : null;
    const inBatch = parentBates === null ? undefined : batchIndex.get(parentBates);
    batchIndex.set(formatBates(a.s.sid, seq), batch.length);
    batch.push({
      sid: a.s.sid,
      parent: inBatch ?? parentBates,
      content: {
        question: q,
        answer_text: ans,
        cited_titles: cited,
        audit,
        cache_key,
        created_at,
        source: imported ? 'claude-code' : null,
        source_id: imported ? hexId(16) : null,
      },
    });
    const depth = parent ? parent.s.depths[parent.seq - 1] + 1 : 0;
    a.s.depths.push(depth);
    a.s.kids.push(0);
    if (parent) noteChild(parent.s, parent.seq);
    a.leafSeq = seq;
    a.remaining--;
    stats.maxDepth = Math.max(stats.maxDepth, depth);
    stats.depthSum += depth;
  }

  function startSession(slot: number): void {
    clock += rng.exp(meanGap);
    const sid = newSid();
    const topic = Array.from({ length: rng.int(3, 5) }, () => VOCAB[N_FUNCTION + topicZipf.sample(rng)]);
    const labelled = rng.chance(0.7);
    const label = labelled ? topic.slice(0, rng.int(1, 3)).join(' ') : null;
    shard.createSession({ sid, label, created_at: new Date(clock).toISOString() });
    const s: SessionState = { sid, depths: [], kids: [] };
    sessions.push(s);
    stats.sessions++;
    if (labelled) stats.labelled++;
    const a: Active = { s, remaining: sessionLength(), leafSeq: 0, topic };
    active[slot] = a;
    // Some sessions fork from a turn of an older session: their first turn hangs under it.
    let parent: { s: SessionState; seq: number } | null = null;
    if (sessions.length > 10 && rng.chance(0.06)) {
      const older = sessions[rng.int(0, sessions.length - 2)];
      if (older.depths.length > 0) {
        parent = { s: older, seq: rng.int(1, older.depths.length) };
        stats.forks++;
      }
    }
    addTurn(a, parent);
  }

  function step(): void {
    const slot = rng.int(0, K_ACTIVE - 1);
    const a = active[slot];
    if (a === null || a.remaining <= 0) {
      startSession(slot);
      return;
    }
    let parentSeq = a.leafSeq;
    // A rewind: the user goes back a few turns and asks something else there, starting a branch.
    if (a.leafSeq > 2 && rng.chance(0.07)) {
      parentSeq = rng.int(Math.max(1, a.leafSeq - 12), a.leafSeq - 1);
      stats.rewinds++;
    }
    addTurn(a, { s: a.s, seq: parentSeq });
  }

  // ---- main -----------------------------------------------------------------------------------------------

  function fmt(n: number): string {
    return n.toLocaleString('en-US');
  }

  const report = new Report(`arborist gen: ${PATH}`, values.json);
  const t0 = performance.now();
  // A new shard built under a temporary name, indexed once at the end and linked into place (src/store/build.ts).
  const build = ShardBuild.start(PATH);
  shard = build.shard;
  const floor = new BareIndex(shard.db, dirname(resolve(PATH)));
  let made = 0;
  let lastReport = t0;
  let floorSecs = 0;
  let textSecs = 0;
  const countNodes = () => sessions.reduce((acc, s) => acc + s.depths.length, 0);
  // The run is cut into RUNS slices; after each, a floor sample of the texts just written (its time is not gen's).
  // (A shard of fewer turns than RUNS has one slice a turn.)
  const slices = Math.min(RUNS, N);
  const sliceEnds = Array.from({ length: slices }, (_, k) => Math.round(((k + 1) * N) / slices));
  const sliceRuns: { turns: number; secs: number; text: number; ceiling: number }[] = [];
  let slice = { start: made, t: performance.now(), text: 0, sample: [] as BulkTurn[] };
  try {
    while (made < N) {
      const sliceEnd = sliceEnds.find((e) => e > made) ?? N;
      const end = Math.min(N, made + BATCH, sliceEnd);
      shard.write(() => {
        const tt = performance.now();
        while (made < end) {
          step();
          made++;
        }
        const dt = (performance.now() - tt) / 1000;
        textSecs += dt;
        slice.text += dt;
        const r = shard.addTurnsBulk(batch, {
          kind: 'nodes.bulk',
          data: { generator: 'bench/gen.ts', seed: SEED },
        });
        for (const [bates, i] of batchIndex)
          if (r.added[i].bates !== bates)
            throw new Error(`turn ${i} became ${r.added[i].bates}, not ${bates}`);
        for (const t of batch) if (slice.sample.length < FLOOR_SAMPLE) slice.sample.push(t);
        batch = [];
        batchIndex.clear();
      });
      if (made === sliceEnd && made > slice.start) {
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
  } catch (err) {
    build.abort();
    throw err;
  } finally {
    floor.close();
  }
  if (countNodes() !== N) throw new Error('node count mismatch');
  const head = shard.chainHead();
  const events = shard.audit.count();
  const { indexSecs } = build.finish();
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
    `${secs.toFixed(1)} s (${fmt(Math.round(N / secs))} turns/s), of which ${textSecs.toFixed(1)} s making the texts ` +
      `and ${indexSecs.toFixed(1)} s indexing them all at the end; ` +
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

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) gen(process.argv.slice(2));
