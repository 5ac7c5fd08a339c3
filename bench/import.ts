/**
 * How fast `arborist import claude` runs, beside what this machine allows in the same run (issue 11, issue 12's
 * rule: every figure next to its floor, and the ratio is the figure).
 *
 *   npm run bench:import -- [--turns 100000] [--corpus DIR] [--runs 5] [--result-bytes 800] [--mixed]
 *
 * --mixed: the corpus is a home holding Claude Code, Codex, Gemini CLI, Copilot CLI, Pi and OpenClaw histories
 * (bench/mixed-corpus.ts), imported by `arborist import` with no kind, as a new user's first import is.
 *
 * The corpus (bench/claude-corpus.ts) is generated once per size and kept. Each run imports it end to end into a
 * fresh shard through the real CLI (a child process, under /usr/bin/time for its peak RSS). Measured in the same
 * run, interleaved with the imports:
 *   parse floor  a child that reads every file and JSON.parses every line, nothing else;
 *   write floor  the same turns' texts inserted into a bare FTS5 table with the imported shard's own definition
 *                (bench/floor.ts: our tokenizer and prefix settings, whatever they are now), in one transaction, plus
 *                sha256 of every line: the indexing and hashing any import must do.
 * Printed through bench/ratio.ts: each run's import beside its parse + write floors, and the second import of the
 * same corpus (nothing new) beside the parse floor; medians, spreads, ratios, turns/s, peak RSS, corpus size, load
 * average before and after (--json: the same as JSON).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { hash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { benchArgs } from './args.js';
import { BareIndex, type BareText } from './floor.js';
import { type Pair, Report } from './ratio.js';
import { median } from './stats.js';

interface Options {
  turns: number;
  runs: number;
  corpus: string;
  resultBytes: string;
  json: boolean;
  /** The corpus is a home of several agents' histories (bench/mixed-corpus.ts), imported by `arborist import`. */
  mixed: boolean;
}

function options(argv: string[]): Options {
  const { values } = benchArgs('import', {
    args: argv,
    options: {
      turns: { type: 'string', default: '100000' },
      corpus: { type: 'string' },
      runs: { type: 'string', default: '5' },
      'result-bytes': { type: 'string', default: '800' },
      json: { type: 'boolean', default: false },
      mixed: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const turns = Number(values.turns);
  const runs = Math.max(5, Number(values.runs));
  const resultBytes = String(values['result-bytes']);
  const mixed = values.mixed;
  const corpus =
    values.corpus ?? join(tmpdir(), `arborist-${mixed ? 'mixed' : 'claude'}-corpus-${turns}-${resultBytes}`);
  return { turns, runs, corpus, resultBytes, json: values.json, mixed };
}
const ROOT = new URL('../..', import.meta.url).pathname;
const BIN = join(ROOT, 'dist/bundle/main.js');

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p));
    else if (e.name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}

function ensureCorpus(o: Options): { files: string[]; bytes: number } {
  const CORPUS = o.corpus;
  if (!existsSync(CORPUS)) {
    execFileSync(
      process.execPath,
      [
        join(ROOT, o.mixed ? 'dist/bench/mixed-corpus.js' : 'dist/bench/claude-corpus.js'),
        '--out',
        CORPUS,
        '--turns',
        String(o.turns),
        '--result-bytes',
        o.resultBytes,
      ],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
  }
  const list = files(CORPUS);
  return { files: list, bytes: list.reduce((a, f) => a + statSync(f).size, 0) };
}

/** Wall seconds and peak RSS (MiB) of a child, through GNU time. */
function timed(args: string[], env?: NodeJS.ProcessEnv): { secs: number; rssMiB: number; stdout: string } {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', process.execPath, ...args], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env,
  });
  if (r.error || r.stderr === null)
    throw new Error(`cannot run ${args.slice(0, 3).join(' ')}: ${r.error?.message}`);
  const last = r.stderr.trim().split('\n').pop() ?? '';
  const [secs, kb] = last.split(' ').map(Number);
  if (!Number.isFinite(secs)) throw new Error(`child failed: ${r.stderr.slice(0, 500)}`);
  return { secs, rssMiB: kb / 1024, stdout: r.stdout };
}

// Walks the folder itself: a list of 1,300 paths as one argument passes Linux's 128 KiB limit on an argument.
const PARSE_FLOOR = `
const fs = require('node:fs');
const path = require('node:path');
let n = 0;
const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) {
  const p = path.join(d, e.name);
  if (e.isDirectory()) walk(p);
  else if (e.name.endsWith('.jsonl')) {
    const text = fs.readFileSync(p, 'utf8');
    for (const line of text.split('\\n')) if (line !== '') { JSON.parse(line); n++; }
  }
} };
walk(process.argv[1]);
process.stdout.write(String(n));`;

/**
 * The texts an import indexes, read back from an imported shard, into a bare FTS5 table with that shard's own
 * definition (bench/floor.ts), in one transaction; and sha256 of the lines.
 */
function writeFloor(shardPath: string, corpusFiles: string[]): number {
  const src = new Database(shardPath, { readonly: true });
  const rows = src
    .prepare('SELECT question, answer_text, cited_titles_json FROM nodes ORDER BY id')
    .all() as BareText[];
  const bare = new BareIndex(src, tmpdir());
  src.close();
  const texts = corpusFiles.map((f) => readFileSync(f));
  try {
    const index = bare.write(rows, false);
    const t0 = performance.now();
    for (const t of texts) hash('sha256', t);
    return index + (performance.now() - t0) / 1000;
  } finally {
    bare.close();
  }
}

function fmt(x: number, d = 0): string {
  return x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
}

export function main(argv: string[]): void {
  const o = options(argv);
  const { runs: RUNS, corpus: CORPUS } = o;
  const corpus = ensureCorpus(o);
  const what = o.mixed ? 'arborist import (every agent of a mixed home)' : 'arborist import claude';
  const report = new Report(`arborist bench:import (${what})`, o.json);
  // The mixed corpus is a home: `arborist import` with no kind finds each agent's history where it keeps it.
  const importArgs = (db: string) =>
    o.mixed ? [BIN, 'import', '--db', db, '--json'] : [BIN, 'import', 'claude', CORPUS, '--db', db, '--json'];
  const env = o.mixed ? { PATH: process.env.PATH, HOME: CORPUS, TZ: 'UTC' } : undefined;
  const rss: number[] = [];
  const whole: Pair[] = [];
  const again: Pair[] = [];
  let added = 0;
  for (let run = 0; run < RUNS; run++) {
    const dir = mkdtempSync(join(tmpdir(), 'arb-import-bench-'));
    const db = join(dir, 'sessions.db');
    const r = timed(importArgs(db), env);
    const doc = JSON.parse(r.stdout) as { turns_added: number; total?: { turns_added: number } };
    added = (doc.total ?? doc).turns_added;
    rss.push(r.rssMiB);
    const second = timed(importArgs(db), env).secs;
    const parse = timed(['-e', PARSE_FLOOR, CORPUS]).secs;
    const write = writeFloor(db, corpus.files);
    rmSync(dir, { recursive: true, force: true });
    whole.push({ figure: r.secs, floor: parse + write });
    again.push({ figure: second, floor: parse });
    process.stderr.write(
      `run ${run + 1}/${RUNS}: import ${r.secs.toFixed(2)} s, again ${second.toFixed(2)} s, parse floor ${parse.toFixed(2)} s, write floor ${write.toFixed(2)} s, rss ${fmt(r.rssMiB)} MiB\n`,
    );
  }
  report.fact(
    'corpus',
    `${corpus.files.length} files, ${fmt(corpus.bytes / 1048576, 1)} MiB, ${fmt(added)} turns imported (${CORPUS})`,
  );
  const s = report.add({
    name: `${o.mixed ? 'import (mixed)' : 'import claude'}, a fresh shard`,
    kind: 'time',
    unit: 's',
    floorIs:
      "parse floor (read + JSON.parse every line, a child) + write floor (the texts into a bare FTS5 table with the shard's definition, sha256 of every line)",
    pairs: whole,
  });
  report.fact('import turns/s', `${fmt(added / s.figure.median)} (floor ${fmt(added / s.floor.median)})`);
  report.add({
    name: `${o.mixed ? 'import (mixed)' : 'import claude'} again, nothing new`,
    kind: 'time',
    unit: 's',
    floorIs: 'parse floor (read + JSON.parse every line, a child)',
    pairs: again,
  });
  report.fact('peak RSS', `median ${fmt(median(rss))} MiB, max ${fmt(Math.max(...rss))} MiB`);
  report.end();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
