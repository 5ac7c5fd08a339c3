/**
 * How fast `arborist import claude` runs, beside what this machine allows in the same run (issue 11, issue 12's
 * rule: every figure next to its floor, and the ratio is the figure).
 *
 *   npm run bench:import -- [--turns 100000] [--corpus DIR] [--runs 5] [--result-bytes 800]
 *
 * The corpus (bench/claude-corpus.ts) is generated once per size and kept. Each run imports it end to end into a
 * fresh shard through the real CLI (a child process, under /usr/bin/time for its peak RSS). Measured in the same
 * run, interleaved with the imports:
 *   parse floor  a child that reads every file and JSON.parses every line, nothing else;
 *   write floor  the same turns' texts inserted into a bare FTS5 table (our tokenizer and prefix settings), in one
 *                transaction, plus sha256 of every line: the indexing and hashing any import must do.
 * Printed: medians of the runs and their spread, turns/s, the floors, import time / (parse + write floor), peak
 * RSS, corpus size, load average before and after. A second import of the same corpus (nothing new) is timed too.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { hash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { median } from './stats.js';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '100000' },
    corpus: { type: 'string' },
    runs: { type: 'string', default: '5' },
    'result-bytes': { type: 'string', default: '800' },
    json: { type: 'boolean', default: false },
  },
  strict: true,
});
const TURNS = Number(values.turns);
const RUNS = Number(values.runs);
const CORPUS = values.corpus ?? join(tmpdir(), `arborist-claude-corpus-${TURNS}-${values['result-bytes']}`);
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

function ensureCorpus(): { files: string[]; bytes: number } {
  if (!existsSync(CORPUS)) {
    execFileSync(
      process.execPath,
      [
        join(ROOT, 'dist/bench/claude-corpus.js'),
        '--out',
        CORPUS,
        '--turns',
        String(TURNS),
        '--result-bytes',
        String(values['result-bytes']),
      ],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
  }
  const list = files(CORPUS);
  return { files: list, bytes: list.reduce((a, f) => a + statSync(f).size, 0) };
}

/** Wall seconds and peak RSS (MiB) of a child, through GNU time. */
function timed(args: string[]): { secs: number; rssMiB: number; stdout: string } {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', process.execPath, ...args], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
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

/** The texts an import indexes, read back from an imported shard, into a bare FTS5 table; and sha256 of the lines. */
function writeFloor(shardPath: string, corpusFiles: string[]): number {
  const src = new Database(shardPath, { readonly: true });
  const rows = src
    .prepare('SELECT id, question, answer_text, cited_titles_json FROM nodes')
    .raw(true)
    .all() as [number, string, string, string][];
  src.close();
  const texts = corpusFiles.map((f) => readFileSync(f));
  const dir = mkdtempSync(join(tmpdir(), 'arb-floor-'));
  const db = new Database(join(dir, 'floor.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE VIRTUAL TABLE f USING fts5(question, answer_text, cited_titles_json,
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3')`);
  const ins = db.prepare(
    'INSERT INTO f (rowid, question, answer_text, cited_titles_json) VALUES (?, ?, ?, ?)',
  );
  const t0 = performance.now();
  db.transaction(() => {
    for (const r of rows) ins.run(r[0], r[1], r[2], r[3]);
  })();
  for (const t of texts) hash('sha256', t);
  const secs = (performance.now() - t0) / 1000;
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return secs;
}

function fmt(x: number, d = 0): string {
  return x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
}

function main(): void {
  const corpus = ensureCorpus();
  const loadBefore = loadavg();
  const imports: number[] = [];
  const again: number[] = [];
  const rss: number[] = [];
  const parse: number[] = [];
  const write: number[] = [];
  let added = 0;
  for (let run = 0; run < RUNS; run++) {
    const dir = mkdtempSync(join(tmpdir(), 'arb-import-bench-'));
    const db = join(dir, 'sessions.db');
    const r = timed([BIN, 'import', 'claude', CORPUS, '--db', db, '--json']);
    const summary = JSON.parse(r.stdout) as { turns_added: number; errors: number };
    added = summary.turns_added;
    imports.push(r.secs);
    rss.push(r.rssMiB);
    again.push(timed([BIN, 'import', 'claude', CORPUS, '--db', db, '--json']).secs);
    parse.push(timed(['-e', PARSE_FLOOR, CORPUS]).secs);
    write.push(writeFloor(db, corpus.files));
    rmSync(dir, { recursive: true, force: true });
    process.stderr.write(
      `run ${run + 1}/${RUNS}: import ${r.secs.toFixed(2)} s, again ${again[run].toFixed(2)} s, parse floor ${parse[run].toFixed(2)} s, write floor ${write[run].toFixed(2)} s, rss ${fmt(r.rssMiB)} MiB\n`,
    );
  }
  const loadAfter = loadavg();
  const imp = median(imports);
  const floor = median(parse) + median(write);
  const result = {
    corpus: { dir: CORPUS, files: corpus.files.length, mib: corpus.bytes / 1048576, turns: added },
    import_s: { median: imp, min: Math.min(...imports), max: Math.max(...imports) },
    turns_per_s: added / imp,
    again_s: median(again),
    parse_floor_s: median(parse),
    write_floor_s: median(write),
    floor_turns_per_s: added / floor,
    ratio_floor_over_import: floor / imp,
    peak_rss_mib: { median: median(rss), max: Math.max(...rss) },
    load: { before: loadBefore.map((x) => +x.toFixed(2)), after: loadAfter.map((x) => +x.toFixed(2)) },
  };
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const lines = [
    `corpus        ${corpus.files.length} files, ${fmt(corpus.bytes / 1048576, 1)} MiB, ${fmt(added)} turns imported`,
    `import        median ${imp.toFixed(2)} s (${imports.map((x) => x.toFixed(2)).join(' ')}): ${fmt(result.turns_per_s)} turns/s`,
    `again         median ${result.again_s.toFixed(2)} s (nothing new)`,
    `floor         parse ${result.parse_floor_s.toFixed(2)} s + index and hash ${result.write_floor_s.toFixed(2)} s = ${fmt(result.floor_turns_per_s)} turns/s`,
    `ratio         floor / import = ${result.ratio_floor_over_import.toFixed(2)}`,
    `peak RSS      median ${fmt(result.peak_rss_mib.median)} MiB, max ${fmt(result.peak_rss_mib.max)} MiB`,
    `load          ${result.load.before.join(' ')} before, ${result.load.after.join(' ')} after`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main();
