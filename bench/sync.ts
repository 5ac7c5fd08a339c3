/**
 * What `arborist sync` costs (issue 32): two hosts with a base of turns in common, then, each run, 1,000 new turns
 * on host A: A's sync (push) and B's sync (pull), each <= 5 s, and the bytes A sends within 2x of the new turns'
 * compressed size.
 *
 *   npm run build && node dist/bench/sync.js [--base 1000000] [--from SHARD] [--new 1000] [--runs 3] [--keep DIR]
 *                                           [--json]
 *
 * Set-up (timed, no target): host A's shard is generated (`bench/gen.ts`, --base turns) or copied from --from (a
 * shard with its WAL checkpointed); a bare repository in a temporary folder is both hosts' remote; A syncs (its
 * first push, every turn), B, an empty shard, syncs (its first pull, every turn), and A syncs again (B's chain,
 * which B's first sync pushed: an event for every turn B imported, read once). --keep DIR keeps the set-up
 * for the next run of the bench (a second run with the same --keep and --base skips it).
 *
 * Each run: --new turns imported into A (a generated Claude Code corpus, bench/claude-corpus.ts), then
 *   push   A's `arborist sync --json` (the real binary), beside its floor: git alone moving the same turns' bytes,
 *          one blob a turn, through `git fast-import` into a scratch repository and `git push` to a scratch bare one;
 *   bytes  what the remote grew by (its objects' bytes after the push minus before: what git received), beside the
 *          new turns' canonical JSON compressed one by one with zlib (as git stores a blob);
 *   pull   B's `arborist sync --json`, beside its floor: `git fetch` of the scratch commit into another scratch
 *          repository and `git cat-file --batch` of its blobs.
 * Every figure beside its floor, through bench/ratio.ts; load average before and after.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { CANON_SQL } from '../src/store/testing.js';
import { benchArgs } from './args.js';
import { type Pair, Report } from './ratio.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/arborist');
const DIST = join(ROOT, 'dist/bench');

const { values } = benchArgs('sync', {
  options: {
    base: { type: 'string', default: '1000000' },
    from: { type: 'string' },
    new: { type: 'string', default: '1000' },
    runs: { type: 'string', default: '3' },
    keep: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const BASE = Number(values.base);
const NEW = Number(values.new);
const RUNS = Number(values.runs);
if (!(BASE >= 0 && NEW > 0 && RUNS > 0)) {
  process.stderr.write('sync bench: --base, --new and --runs take positive whole numbers\n');
  process.exit(2);
}

const work = values.keep ?? mkdtempSync(join(tmpdir(), 'arborist-sync-bench-'));
mkdirSync(work, { recursive: true });
const host = (name: string) => ({ home: join(work, name), db: join(work, name, 'sessions.db') });
const A = host('a');
const B = host('b');
const REMOTE = join(work, 'remote.git');
const report = new Report(
  `arborist sync: ${NEW} new turns on a base of ${BASE.toLocaleString('en-US')}`,
  values.json,
);

function arborist(h: { home: string; db: string }, args: string[]): string {
  const r = spawnSync(process.execPath, [BIN, ...args, '--db', h.db], {
    env: { ...process.env, ARBORIST_HOME: h.home, NO_COLOR: '1' },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`arborist ${args.join(' ')}: exit ${r.status}: ${r.stderr.trim()}`);
  return r.stdout;
}

function git(args: string[], input?: string | Buffer): Buffer {
  return execFileSync('git', args, { input, maxBuffer: 1024 * 1024 * 1024, stdio: ['pipe', 'pipe', 'pipe'] });
}

function timed(f: () => void): number {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
}

/** The bytes of every file under a folder. */
function bytesUnder(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) n += bytesUnder(p);
    else if (e.isFile()) n += statSync(p).size;
  }
  return n;
}

function turnsIn(db: string): number {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare('SELECT count(*) FROM nodes').pluck().get() as number;
  } finally {
    d.close();
  }
}

function maxId(db: string): number {
  const d = new Database(db, { readonly: true });
  try {
    return (d.prepare('SELECT max(id) FROM nodes').pluck().get() as number | null) ?? 0;
  } finally {
    d.close();
  }
}

/** The canonical JSON of the turns after `id` (the bytes their node hashes cover, what sync sends a turn as). */
function canonicalAfter(db: string, id: number): { bates: string; body: Buffer }[] {
  const d = new Database(db, { readonly: true });
  try {
    return d
      .prepare(
        `SELECT n.bates AS bates, CAST(${CANON_SQL} AS BLOB) AS body FROM nodes n
           LEFT JOIN nodes p ON p.id = n.parent_id WHERE n.id > ? ORDER BY n.id`,
      )
      .all(id) as { bates: string; body: Buffer }[];
  } finally {
    d.close();
  }
}

function setUp(): void {
  const marker = join(work, `set-up-${BASE}`);
  if (existsSync(marker)) {
    report.fact('set-up', `kept from an earlier run in ${work}`);
    return;
  }
  for (const h of [A, B]) mkdirSync(h.home, { recursive: true });
  if (values.from) {
    copyFileSync(values.from, A.db);
    report.fact('host A', `a copy of ${values.from} (${turnsIn(A.db).toLocaleString('en-US')} turns)`);
  } else if (BASE > 0) {
    const ms = timed(() =>
      execFileSync(
        process.execPath,
        [join(DIST, 'gen.js'), '--nodes', String(BASE), '--db', A.db, '--force'],
        {
          stdio: 'ignore',
        },
      ),
    );
    report.fact('host A generated', `${BASE.toLocaleString('en-US')} turns in ${(ms / 1000).toFixed(1)} s`);
  }
  git(['init', '-q', '--bare', REMOTE]);
  for (const h of [A, B]) arborist(h, ['sync', 'remote', 'add', 'origin', REMOTE]);
  const push = timed(() => arborist(A, ['sync', '--json']));
  report.fact(
    'first push (A, every turn)',
    `${(push / 1000).toFixed(1)} s, remote ${mib(bytesUnder(REMOTE))}`,
  );
  const pull = timed(() => arborist(B, ['sync', '--json']));
  report.fact('first pull (B, every turn)', `${(pull / 1000).toFixed(1)} s, B holds ${turnsIn(B.db)} turns`);
  // B's first sync pushed B's own chain (an event for every turn it imported): A reads it once, here, so the runs
  // measure what a sync of new turns costs, not A's first look at a new host.
  const back = timed(() => arborist(A, ['sync', '--json']));
  report.fact("A's first pull of B's chain", `${(back / 1000).toFixed(1)} s`);
  execFileSync('touch', [marker]);
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/** git alone moving the same bytes: fast-import of one blob a turn, then a push; then a fetch and a read back. */
function gitFloor(turns: { bates: string; body: Buffer }[], run: number): { push: number; pull: number } {
  const dir = join(work, `floor-${run}`);
  rmSync(dir, { recursive: true, force: true });
  const src = join(dir, 'src.git');
  const dst = join(dir, 'dst.git');
  const back = join(dir, 'back.git');
  for (const d of [src, dst, back]) git(['init', '-q', '--bare', d]);
  const parts: Buffer[] = [];
  turns.forEach((t, i) => {
    parts.push(Buffer.from(`blob\nmark :${i + 1}\ndata ${t.body.length}\n`), t.body, Buffer.from('\n'));
  });
  parts.push(Buffer.from('commit refs/heads/main\ncommitter b <b@b> 0 +0000\ndata 0\n'));
  turns.forEach((t, i) => {
    parts.push(Buffer.from(`M 100644 :${i + 1} t/${t.bates}.json\n`));
  });
  const stream = Buffer.concat(parts);
  const push = timed(() => {
    git(['--git-dir', src, 'fast-import', '--quiet'], stream);
    git(['--git-dir', src, 'push', '-q', dst, 'main']);
  });
  const pull = timed(() => {
    git(['--git-dir', back, 'fetch', '-q', dst, 'main:main']);
    const ids = git(['--git-dir', back, 'ls-tree', '-r', '--format=%(objectname)', 'main']).toString();
    git(['--git-dir', back, 'cat-file', '--batch'], ids);
  });
  rmSync(dir, { recursive: true, force: true });
  return { push, pull };
}

setUp();
/** Each invocation's corpora are new turns, also in a set-up kept from an earlier invocation (--keep). */
const SEED = 1000 + (Date.now() % 1_000_000) * 100;
const pushes: Pair[] = [];
const pulls: Pair[] = [];
const bytes: Pair[] = [];
for (let run = 0; run < RUNS; run++) {
  const corpus = join(work, `new-${run}`);
  rmSync(corpus, { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [join(DIST, 'claude-corpus.js'), '--out', corpus, '--turns', String(NEW), '--seed', String(SEED + run)],
    { stdio: 'ignore' },
  );
  const before = maxId(A.db);
  arborist(A, ['import', 'claude', corpus, '--json']);
  const turns = canonicalAfter(A.db, before);
  // A kept set-up already holds the corpora of earlier runs (the seeds differ per invocation, but say so if not).
  if (turns.length < NEW * 0.9)
    throw new Error(`run ${run + 1}: the corpus added ${turns.length} turns, not ~${NEW}`);
  const zipped = turns.reduce((n, t) => n + deflateSync(t.body).length, 0);
  const floor = gitFloor(turns, run);
  const remoteBefore = bytesUnder(join(REMOTE, 'objects'));
  const push = timed(() => arborist(A, ['sync', '--json']));
  const sent = bytesUnder(join(REMOTE, 'objects')) - remoteBefore;
  const bHad = turnsIn(B.db);
  const pull = timed(() => arborist(B, ['sync', '--json']));
  const got = turnsIn(B.db) - bHad;
  if (got !== turns.length) throw new Error(`run ${run + 1}: B received ${got} turns, not ${turns.length}`);
  pushes.push({ figure: push, floor: floor.push });
  pulls.push({ figure: pull, floor: floor.pull });
  bytes.push({ figure: sent / 1024, floor: zipped / 1024 });
  rmSync(corpus, { recursive: true, force: true });
}

report.add({
  name: `push: A's sync with ${NEW} new turns`,
  kind: 'time',
  unit: 'ms',
  floorIs: 'git fast-import of the same turns, one blob each, and git push to a local bare repository',
  pairs: pushes,
  target: { at_most: 5000 },
});
report.add({
  name: `pull: B's sync receiving them`,
  kind: 'time',
  unit: 'ms',
  floorIs: 'git fetch of that commit and git cat-file --batch of its blobs',
  pairs: pulls,
  target: { at_most: 5000 },
});
report.add({
  name: 'bytes the remote received for the push',
  kind: 'time',
  unit: 'KiB',
  floorIs: "the new turns' canonical JSON, each compressed with zlib (as git stores a blob)",
  pairs: bytes,
  target: { ratio: 2 },
});
report.end();
if (!values.keep) rmSync(work, { recursive: true, force: true });
