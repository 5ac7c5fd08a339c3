/**
 * The crash and concurrency harness shared by `npm run stress` (bench/stress.ts) and its small CI versions
 * (tests/integrity/crash.test.ts, tests/integrity/concurrency.test.ts). Everything is real: the built
 * bin/arborist in child processes, SIGKILL, SQLite files in temporary folders.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import Database from 'better-sqlite3';
import {
  addCheckpoint,
  addUsageFamily,
  CRASH_HOOK_ENV,
  deleteEntry,
  Shard,
  setEntry,
} from '../src/store/index.js';
import { dbOf } from '../src/store/testing.js';
import { Rng } from './rng.js';
import { median } from './stats.js';

/** The project root: the folder above this file holding package.json (bench/ from source, dist/bench/ built). */
function findRoot(): string {
  let d = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(d, 'package.json')) || !existsSync(join(d, 'bin', 'arborist'))) {
    const up = dirname(d);
    if (up === d) throw new Error('cannot find the project root (package.json and bin/arborist)');
    d = up;
  }
  return d;
}
export const ROOT = findRoot();
export const BIN = join(ROOT, 'bin', 'arborist');

let niceness = 0;

/**
 * Runs every child CLI at this nice level (0: as is). The CI-sized tests use it: dozens of CLI processes, four at
 * a time, would otherwise starve the timing-sensitive tests that vitest runs beside them on a 2-core machine.
 */
export function setNiceness(n: number): void {
  niceness = n;
}

/** The command line of the CLI (through nice(1) when asked; nice execs it, so the pid is the CLI's own). */
function command(args: string[]): [string, string[]] {
  return niceness === 0
    ? [process.execPath, [BIN, ...args]]
    : ['nice', ['-n', String(niceness), process.execPath, BIN, ...args]];
}

const cleanEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  ...extra,
});

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs the CLI to completion. */
export function cliSync(args: string[], env: NodeJS.ProcessEnv = {}): Run {
  const t0 = performance.now();
  const [cmd, argv] = command(args);
  const r = spawnSync(cmd, argv, {
    env: cleanEnv(env),
    encoding: 'utf8',
    timeout: 60_000,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, ms: performance.now() - t0 };
}

/**
 * Starts the CLI; SIGKILLs it `killAfterMs` after it started, or, with `walOf`, after that shard's -wal appeared
 * (the process has opened the shard: SQLite creates the -wal on the first read of a WAL database), unless it
 * exited first. `openMs` says when the -wal appeared (null: never seen).
 */
export function cliKilled(
  args: string[],
  killAfterMs: number | null,
  env: NodeJS.ProcessEnv = {},
  walOf?: string,
): Promise<Run & { openMs: number | null }> {
  const t0 = performance.now();
  const p = spawn(process.execPath, [BIN, ...args], {
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let openMs: number | null = null;
  p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    if (killAfterMs !== null) timer = setTimeout(() => p.kill('SIGKILL'), killAfterMs);
  };
  let poll: NodeJS.Timeout | undefined;
  if (walOf) {
    poll = setInterval(() => {
      if (!existsSync(`${walOf}-wal`)) return;
      openMs = performance.now() - t0;
      clearInterval(poll);
      arm();
    }, 1);
  } else arm();
  // A hung child must not hang the harness.
  const guard = setTimeout(() => p.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => {
    p.on('close', (code, signal) => {
      clearTimeout(timer);
      clearInterval(poll);
      clearTimeout(guard);
      resolve({ code, signal, stdout, stderr, ms: performance.now() - t0, openMs });
    });
  });
}

// ---- the shard as the harness sees it (read through better-sqlite3 and the documented format only) ---------

/** Structure that a crash could leave half changed: which sessions are live or archived, entries, counts. */
export interface Signature {
  live: string[];
  nLive: number;
  archived: string[];
  entries: string[];
  nodes: number;
  events: number;
}

function withDb<T>(path: string, readonly: boolean, fn: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly, fileMustExist: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** Sids the template knew keep their names; anything new (reset's fresh session) is `new`. */
export function signature(path: string, known: Set<string>): Signature {
  return withDb(path, true, (db) => {
    const live = db.prepare('SELECT sid FROM sessions ORDER BY sid').pluck().all() as string[];
    const ent = db.prepare('SELECT key, sid FROM session_entries ORDER BY key').all() as {
      key: string;
      sid: string;
    }[];
    return {
      live: live.filter((s) => known.has(s)),
      nLive: live.length,
      archived: db.prepare('SELECT sid FROM session_archives ORDER BY sid').pluck().all() as string[],
      entries: ent.map((e) => `${e.key}=${known.has(e.sid) ? e.sid : 'new'}`),
      nodes: db.prepare('SELECT count(*) FROM nodes').pluck().get() as number,
      events: db.prepare('SELECT count(*) FROM audit_events').pluck().get() as number,
    };
  });
}

/** Every Bates id in the shard: live turns and the turns inside archive bodies (gzip of canonical JSON). */
export function allBates(path: string): Set<string> {
  return withDb(path, true, (db) => {
    const out = new Set(db.prepare('SELECT bates FROM nodes').pluck().all() as string[]);
    for (const body of db.prepare('SELECT body FROM session_archives').pluck().all() as Buffer[]) {
      const doc = JSON.parse(gunzipSync(body).toString('utf8')) as { nodes: { bates: string }[] };
      for (const n of doc.nodes) out.add(n.bates);
    }
    return out;
  });
}

/** PRAGMA integrity_check through a plain writable connection (which also recovers a hot WAL). */
export function integrity(path: string): string {
  return withDb(
    path,
    false,
    (db) => (db.pragma('integrity_check', { simple: true }) as string) ?? 'no answer',
  );
}

/** The audit events are seq 1..N with no gap. */
export function eventsContiguous(path: string): { ok: boolean; min: number; max: number; count: number } {
  return withDb(path, true, (db) => {
    const r = db
      .prepare('SELECT min(seq) AS min, max(seq) AS max, count(*) AS count FROM audit_events')
      .get() as {
      min: number;
      max: number;
      count: number;
    };
    return { ...r, ok: r.min === 1 && r.max === r.count };
  });
}

// ---- operations ---------------------------------------------------------------------------------------------

export interface Template {
  /** A closed shard file, never written after it is built: each round gets a copy. */
  path: string;
  /** Every sid in it (live or archived). */
  sids: Set<string>;
  /** Every Bates id in it (live or archived). */
  bates: Set<string>;
  args: string[];
  /** Crash-hook points this operation passes, with the state a kill there must leave. */
  points: { point: string; leaves: 'before' | 'after' }[];
}

export interface Operation {
  name: string;
  build(dir: string): Template;
}

const ARCHIVE_POINTS = [
  'serialise',
  'delete-fts',
  'delete-nodes',
  'delete-session',
  'ripple',
  'archive-record',
  'audit',
  'delete-nodes:2',
].map((point) => ({ point, leaves: 'before' as const }));
const COMMIT = { point: 'commit', leaves: 'after' as const };

const LONG = 'lorem ipsum dolor sit amet consectetur adipiscing elit '.repeat(40);

/** A session with a chain of n turns (optionally under a parent in another session), with fixed old timestamps. */
function chain(s: Shard, n: number, opts: { label?: string; parent?: string; day?: number } = {}) {
  const day = opts.day ?? 1;
  const sid = s.createSession({
    label: opts.label,
    created_at: `2025-01-${String(day).padStart(2, '0')}T00:00:00.000Z`,
  }).sid;
  const bates: string[] = [];
  let parent = opts.parent;
  s.write(() => {
    for (let i = 0; i < n; i++) {
      const r = s.addTurn({
        session: sid,
        parent,
        question: `${opts.label ?? sid} question ${i + 1} walrus`,
        answer_text: `${LONG} ${i}`,
        cited_titles: [`source ${i}`],
        created_at: `2025-01-${String(day).padStart(2, '0')}T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
      });
      bates.push(r.bates);
      parent = r.bates;
    }
  });
  return { sid, bates };
}

function finish(path: string, s: Shard, args: string[], points: Template['points']): Template {
  const sids = new Set(
    dbOf(s)
      .prepare('SELECT sid FROM sessions UNION SELECT sid FROM session_archives')
      .pluck()
      .all() as string[],
  );
  s.close();
  return { path, sids, bates: allBates(path), args: [...args, '--db', '<db>'], points };
}

/** Entry `main`: current session, a pre-compaction session, a usage-family session that a live fork keeps. */
function entryTemplate(path: string, turns: number): Shard {
  const s = Shard.open(path);
  chain(s, 5, { label: 'unrelated', day: 1 });
  const pre = chain(s, turns, { label: 'pre', day: 2 });
  const cur = chain(s, turns, { label: 'cur', day: 3 });
  const kept = chain(s, 3, { label: 'kept', day: 4 });
  chain(s, 2, { label: 'fork', parent: kept.bates[1], day: 5 });
  // A session under the current one, in the usage family too: archived with it, children first.
  const under = chain(s, 2, { label: 'under', parent: cur.bates[turns - 1], day: 6 });
  setEntry(s, 'main', cur.sid);
  addCheckpoint(s, 'main', { pre: pre.bates[turns - 1], post: cur.sid, summary: 'compacted' });
  addUsageFamily(s, 'main', kept.sid);
  addUsageFamily(s, 'main', under.sid);
  return s;
}

export function operations(scale = 1): Operation[] {
  const turns = Math.max(10, Math.round(300 * scale));
  return [
    {
      name: 'ask',
      build(dir) {
        const path = join(dir, 'ask.db');
        const s = Shard.open(path);
        const deep = chain(s, turns, { label: 'deep' });
        chain(s, 3, { label: 'other', parent: deep.bates[10] });
        const leaf = deep.bates[turns - 1];
        return finish(
          path,
          s,
          ['ask', 'stress question', '--answer', LONG.repeat(5), '--parent', leaf, '--json'],
          [],
        );
      },
    },
    {
      name: 'delete',
      build(dir) {
        const path = join(dir, 'delete.db');
        return finish(
          path,
          entryTemplate(path, turns),
          ['delete', 'main', '--json'],
          [...ARCHIVE_POINTS, COMMIT],
        );
      },
    },
    {
      name: 'reset',
      build(dir) {
        const path = join(dir, 'reset.db');
        return finish(
          path,
          entryTemplate(path, turns),
          ['reset', 'main', '--json'],
          [...ARCHIVE_POINTS, COMMIT],
        );
      },
    },
    {
      name: 'restore',
      build(dir) {
        const path = join(dir, 'restore.db');
        const s = entryTemplate(path, turns);
        const archived = deleteEntry(s, 'main').archived.map((a) => a.sid);
        return finish(
          path,
          s,
          ['archive', 'restore', ...archived, '--json'],
          [{ point: 'insert-nodes', leaves: 'before' }, { point: 'ripple', leaves: 'before' }, COMMIT],
        );
      },
    },
    {
      name: 'maintain',
      build(dir) {
        const path = join(dir, 'maintain.db');
        const s = Shard.open(path);
        const first = chain(s, turns, { label: 'm0', day: 1 });
        for (let i = 1; i < 5; i++) chain(s, Math.ceil(turns / 3), { label: `m${i}`, day: i + 1 });
        // a newer session under the oldest one pins it: retention must keep it and archive the rest
        chain(s, 2, { label: 'pin', parent: first.bates[0], day: 20 });
        return finish(
          path,
          s,
          ['maintain', '--max-sessions', '2', '--apply', '--json'],
          [...ARCHIVE_POINTS, COMMIT],
        );
      },
    },
  ];
}

// ---- one crash round ----------------------------------------------------------------------------------------

export interface Prepared {
  op: Operation;
  template: Template;
  before: Signature;
  after: Signature;
  /** Median wall time of an uninterrupted run, process start to exit. */
  typicalMs: number;
  /** Median time from the shard being opened (its -wal appearing) to the exit. */
  openToExitMs: number;
}

function argsFor(t: Template, db: string): string[] {
  return t.args.map((a) => (a === '<db>' ? db : a));
}

const sameSig = (a: Signature, b: Signature) => JSON.stringify(a) === JSON.stringify(b);

/** Builds the template, runs the operation uninterrupted `measure` times: its typical time and its after state. */
export async function prepare(op: Operation, dir: string, measure = 3): Promise<Prepared> {
  const template = op.build(dir);
  const before = signature(template.path, template.sids);
  const times: number[] = [];
  const open: number[] = [];
  let after: Signature | undefined;
  for (let i = 0; i < measure; i++) {
    const db = join(dir, `${op.name}-measure-${i}.db`);
    copyFileSync(template.path, db);
    const r = await cliKilled(argsFor(template, db), null, {}, db);
    if (r.code !== 0) throw new Error(`${op.name}: an uninterrupted run failed (${r.code}): ${r.stderr}`);
    times.push(r.ms);
    if (r.openMs !== null) open.push(r.ms - r.openMs);
    const sig = signature(db, template.sids);
    if (after && !sameSig(after, sig))
      throw new Error(`${op.name}: two uninterrupted runs ended differently`);
    after = sig;
    if (sameSig(after, before)) throw new Error(`${op.name}: an uninterrupted run changed nothing`);
    rmShard(db);
  }
  return {
    op,
    template,
    before,
    after: after!,
    typicalMs: median(times),
    openToExitMs: open.length > 0 ? median(open) : median(times),
  };
}

function rmShard(db: string): void {
  for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
}

export type Outcome = 'exited' | 'before' | 'after';

export interface RoundResult {
  /** The process was killed (SIGKILL) rather than exiting on its own. */
  killed: boolean;
  /** It died with the shard open (its -wal was still there): the kill landed inside the operation. */
  midOperation: boolean;
  outcome: Outcome;
  failures: string[];
  delayMs: number | null;
}

/**
 * The checks after a kill: PRAGMA integrity_check ok, `arborist check` exit 0, the state is the one before or the
 * one after (never in between), no turn of the template is lost, an acknowledged ask is in the shard, and the
 * shard takes a new write.
 */
export function checkAfterKill(p: Prepared, db: string, run: Run, expect?: 'before' | 'after'): RoundResult {
  const failures: string[] = [];
  const killed = run.signal === 'SIGKILL';
  const midOperation = killed && existsSync(`${db}-wal`);
  if (!killed && run.code !== 0)
    failures.push(`exited ${run.code} without being killed: ${run.stderr.trim()}`);
  const ic = integrity(db);
  if (ic !== 'ok') failures.push(`integrity_check: ${ic}`);
  const check = cliSync(['check', '--json', '--db', db]);
  if (check.code !== 0)
    failures.push(`arborist check exit ${check.code}: ${check.stdout.slice(0, 500)} ${check.stderr}`);
  const sig = signature(db, p.template.sids);
  let outcome: Outcome = sameSig(sig, p.before) ? 'before' : sameSig(sig, p.after) ? 'after' : 'exited';
  if (outcome === 'exited')
    failures.push(`half a change: ${JSON.stringify(sig)} is neither before nor after`);
  else if (expect && outcome !== expect)
    failures.push(`expected the ${expect} state, found the ${outcome} state`);
  if (!killed && run.code === 0 && outcome === 'before') failures.push('exited 0 but nothing changed');
  if (!killed) outcome = 'exited';
  const have = allBates(db);
  const lost = [...p.template.bates].filter((b) => !have.has(b));
  if (lost.length > 0) failures.push(`${lost.length} turns lost, e.g. ${lost.slice(0, 3)}`);
  // Acknowledged: the process printed its JSON result before it died.
  let ack: { bates?: string } | undefined;
  try {
    ack = JSON.parse(run.stdout);
  } catch {
    // not acknowledged (or not an ask)
  }
  if (ack?.bates && !have.has(ack.bates)) failures.push(`acknowledged turn ${ack.bates} is missing`);
  if (ack && sameSig(sig, p.before)) failures.push('acknowledged, but the shard is in the before state');
  const w = cliSync(['ask', 'after the crash', '--answer', 'still writable', '--json', '--db', db]);
  if (w.code !== 0) failures.push(`a write after the crash failed: ${w.stderr.trim()}`);
  return { killed, midOperation, outcome, failures, delayMs: null };
}

export type Anchor = 'spawn' | 'open';

/**
 * One round: a fresh copy, the CLI started and SIGKILLed `delayMs` after it started (anchor `spawn`) or after it
 * opened the shard (`open`), then every check.
 */
export async function killRound(
  p: Prepared,
  dir: string,
  tag: string,
  delayMs: number,
  anchor: Anchor = 'spawn',
): Promise<RoundResult> {
  const db = join(dir, `${p.op.name}-${tag}.db`);
  copyFileSync(p.template.path, db);
  try {
    const run = await cliKilled(argsFor(p.template, db), delayMs, {}, anchor === 'open' ? db : undefined);
    return { ...checkAfterKill(p, db, run), delayMs };
  } finally {
    rmShard(db);
  }
}

/** One deterministic round through the crash hook: the process kills itself at `point`. */
export function hookRound(
  p: Prepared,
  dir: string,
  point: { point: string; leaves: 'before' | 'after' },
): RoundResult {
  const db = join(dir, `${p.op.name}-hook-${point.point.replace(':', '_')}.db`);
  copyFileSync(p.template.path, db);
  try {
    const run = cliSync(argsFor(p.template, db), { [CRASH_HOOK_ENV]: point.point });
    const r = checkAfterKill(p, db, run, point.leaves);
    if (!r.killed)
      r.failures.unshift(`the hook at ${point.point} did not kill the process (exit ${run.code})`);
    return r;
  } finally {
    rmShard(db);
  }
}

export interface OpSummary {
  op: string;
  typicalMs: number;
  openToExitMs: number;
  runs: number;
  killed: number;
  midOperation: number;
  before: number;
  after: number;
  exited: number;
  hookPoints: number;
  failures: string[];
}

/** `rounds` random kills of each operation (delay uniform in [0, typical]), then every crash-hook point. */
export async function crashSuite(opts: {
  rounds: number;
  seed: number;
  scale?: number;
  only?: string[];
  /** Where each round's delay counts from; `mixed`: even rounds from the start, odd ones from the open. */
  anchor?: Anchor | 'mixed';
  measure?: number;
  hooks?: boolean;
  log?: (s: string) => void;
}): Promise<OpSummary[]> {
  const rng = new Rng(opts.seed);
  const dir = mkdtempSync(join(tmpdir(), 'arb-crash-'));
  const out: OpSummary[] = [];
  try {
    for (const op of operations(opts.scale)) {
      if (opts.only && !opts.only.includes(op.name)) continue;
      const p = await prepare(op, dir, opts.measure);
      const sum: OpSummary = {
        op: op.name,
        typicalMs: p.typicalMs,
        openToExitMs: p.openToExitMs,
        runs: 0,
        killed: 0,
        midOperation: 0,
        before: 0,
        after: 0,
        exited: 0,
        hookPoints: 0,
        failures: [],
      };
      for (let i = 0; i < opts.rounds; i++) {
        const anchor =
          opts.anchor === 'mixed' || opts.anchor === undefined ? (i % 2 ? 'open' : 'spawn') : opts.anchor;
        // uniform in [0, the operation's typical duration] from where it is anchored
        const delay = rng.float() * (anchor === 'open' ? p.openToExitMs : p.typicalMs);
        const r = await killRound(p, dir, String(i), delay, anchor);
        sum.runs++;
        if (r.killed) sum.killed++;
        if (r.midOperation) sum.midOperation++;
        sum[r.outcome]++;
        for (const f of r.failures)
          sum.failures.push(`${op.name} kill ${delay.toFixed(0)} ms after ${anchor}: ${f}`);
      }
      if (opts.hooks ?? true) {
        for (const point of p.template.points) {
          const r = hookRound(p, dir, point);
          sum.hookPoints++;
          for (const f of r.failures) sum.failures.push(`${op.name} hook ${point.point}: ${f}`);
        }
      }
      opts.log?.(
        `${op.name}: typical ${p.typicalMs.toFixed(0)} ms (${p.openToExitMs.toFixed(0)} with the shard open), ${sum.runs} kills (${sum.midOperation} mid-operation), ` +
          `${sum.hookPoints} hook points, ${sum.failures.length} failures`,
      );
      out.push(sum);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

// ---- concurrency ----------------------------------------------------------------------------------------------

export interface ConcurrencyResult {
  writers: number;
  asksPerWriter: number;
  acknowledged: number;
  crossForks: number;
  failures: string[];
  seconds: number;
  events: number;
}

/**
 * `writers` loops at once, each running `asks` CLI asks one after another into the same shard: a follow-up in its
 * own session, or (one in four) a turn of its own session hung under a turn another writer was acknowledged for.
 * Then: every acknowledged turn is present with the parent it was asked under, chain-check and verify are clean,
 * and the events are one linear chain, seq 1..N with no gap.
 */
export async function concurrencySuite(opts: {
  writers: number;
  asks: number;
  seed: number;
  dir?: string;
  log?: (s: string) => void;
}): Promise<ConcurrencyResult> {
  const rng = new Rng(opts.seed);
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'arb-conc-'));
  const db = join(dir, 'shared.db');
  const failures: string[] = [];
  const t0 = performance.now();
  try {
    const sids: string[] = [];
    for (let w = 0; w < opts.writers; w++) {
      const r = cliSync(['new', '--label', `writer${w}`, '--json', '--db', db]);
      if (r.code !== 0) throw new Error(`arborist new failed: ${r.stderr}`);
      sids.push(JSON.parse(r.stdout).sid);
    }
    const acked: { bates: string; parent: string | null; writer: number }[] = [];
    let crossForks = 0;
    const loop = async (w: number) => {
      for (let i = 0; i < opts.asks; i++) {
        const others = acked.filter((a) => a.writer !== w);
        const args = [
          'ask',
          `writer ${w} question ${i}`,
          '--answer',
          `answer ${w}/${i}`,
          '--session',
          sids[w],
        ];
        let parent: string | null = null;
        if (others.length > 0 && rng.chance(0.25)) {
          parent = others[rng.int(0, others.length - 1)].bates;
          args.push('--parent', parent);
          crossForks++;
        }
        const r = await cliKilled([...args, '--json', '--db', db], null);
        if (r.code !== 0) {
          failures.push(`writer ${w} ask ${i}: exit ${r.code} ${r.signal ?? ''} ${r.stderr.trim()}`);
          continue;
        }
        const j = JSON.parse(r.stdout) as { bates: string; parent_bates: string | null; sid: string };
        if (parent !== null && j.parent_bates !== parent)
          failures.push(`writer ${w} ask ${i}: asked under ${parent}, stored under ${j.parent_bates}`);
        if (j.sid !== sids[w]) failures.push(`writer ${w} ask ${i}: landed in ${j.sid}, not ${sids[w]}`);
        acked.push({ bates: j.bates, parent: j.parent_bates, writer: w });
        if ((acked.length % 200 === 0 || acked.length === opts.writers * opts.asks) && opts.log)
          opts.log(`  ${acked.length} asks acknowledged`);
      }
    };
    await Promise.all(sids.map((_, w) => loop(w)));

    const have = withDb(db, true, (d) => {
      const rows = d
        .prepare('SELECT n.bates, p.bates AS parent FROM nodes n LEFT JOIN nodes p ON p.id = n.parent_id')
        .all() as { bates: string; parent: string | null }[];
      return new Map(rows.map((r) => [r.bates, r.parent]));
    });
    for (const a of acked) {
      if (!have.has(a.bates)) failures.push(`acknowledged turn ${a.bates} is missing`);
      else if (have.get(a.bates) !== a.parent)
        failures.push(`${a.bates}: parent ${have.get(a.bates)}, acknowledged with ${a.parent}`);
    }
    if (new Set(acked.map((a) => a.bates)).size !== acked.length)
      failures.push('a Bates id was handed out twice');
    if (have.size !== acked.length) failures.push(`${have.size} turns stored, ${acked.length} acknowledged`);
    const chain = cliSync(['chain-check', '--json', '--db', db]);
    if (chain.code !== 0 || !JSON.parse(chain.stdout).ok)
      failures.push(`chain-check: ${chain.stdout} ${chain.stderr}`);
    const verify = cliSync(['verify', '--json', '--db', db]);
    if (verify.code !== 0 || !JSON.parse(verify.stdout).ok)
      failures.push(`verify: ${verify.stdout.slice(0, 500)} ${verify.stderr}`);
    const seqs = eventsContiguous(db);
    if (!seqs.ok) failures.push(`events are not seq 1..N: ${JSON.stringify(seqs)}`);
    // one event per turn and per session: init + sessions + turns
    if (seqs.count !== 1 + opts.writers + acked.length)
      failures.push(`${seqs.count} events for ${opts.writers} sessions and ${acked.length} turns`);
    const ic = integrity(db);
    if (ic !== 'ok') failures.push(`integrity_check: ${ic}`);
    return {
      writers: opts.writers,
      asksPerWriter: opts.asks,
      acknowledged: acked.length,
      crossForks,
      failures,
      seconds: (performance.now() - t0) / 1000,
      events: seqs.count,
    };
  } finally {
    if (!opts.dir) rmSync(dir, { recursive: true, force: true });
  }
}
