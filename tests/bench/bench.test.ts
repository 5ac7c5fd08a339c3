/**
 * The benchmark scripts as a person runs them (the built dist/bench/*.js, on a real shard that bench/gen.ts makes):
 * every figure comes with its floor, >= 5 runs and a ratio; bad input is one clear line and exit 2; vs-fzf without
 * fzf says so and exits 0. Run `npm run build` first.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keystrokes } from '../../bench/find.js';
import { summarise } from '../../bench/ratio.js';
import { Shard } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';

const DIST = fileURLToPath(new URL('../../dist/bench/', import.meta.url));

function script(name: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(process.execPath, [join(DIST, name), ...args], {
    encoding: 'utf8',
    env,
    timeout: 240_000,
    killSignal: 'SIGKILL',
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

interface Figure {
  name: string;
  runs: number;
  figure: { median: number };
  floor: { median: number };
  ratio: { median: number; min: number; max: number };
  ok: boolean | null;
}

let dir: string;
let db: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'arb-bench-test-'));
  db = join(dir, 'gen.db');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The figures of a --json report, each checked to be a real pairing: >= 5 runs, a positive finite ratio. */
function figures(stdout: string): { doc: Record<string, unknown>; byName: Map<string, Figure> } {
  const doc = JSON.parse(stdout) as { figures: Figure[]; load_before: string; load_after: string };
  expect(doc.load_before).toMatch(/^\d+\.\d\d \d+\.\d\d \d+\.\d\d$/);
  expect(doc.load_after).toMatch(/^\d+\.\d\d \d+\.\d\d \d+\.\d\d$/);
  for (const f of doc.figures) {
    expect(f.runs, f.name).toBeGreaterThanOrEqual(5);
    expect(Number.isFinite(f.ratio.median) && f.ratio.median > 0, f.name).toBe(true);
    expect(f.ratio.min).toBeLessThanOrEqual(f.ratio.max);
  }
  return { doc, byName: new Map(doc.figures.map((f) => [f.name, f])) };
}

describe('bench/gen', () => {
  it('makes the shard it says and reports its turns/s beside a floor from the same run', () => {
    const r = script('gen.js', ['--nodes', '600', '--db', db, '--batch', '100', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const { byName } = figures(r.stdout);
    expect([...byName.keys()]).toEqual([
      'gen, whole',
      "gen, the store's part (addTurnsBulk and commit; the generator's text-making taken out)",
    ]);
    const s = Shard.open(db, { readonly: true });
    try {
      expect(dbOf(s).prepare('SELECT count(*) FROM nodes').pluck().get()).toBe(600);
    } finally {
      s.close();
    }
  }, 120_000);

  it('makes the same shard with the texts made inline as on its worker thread (timestamps of events aside)', () => {
    const other = join(dir, 'gen-inline.db');
    const r = script('gen.js', ['--nodes', '600', '--db', other, '--batch', '100', '--inline', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const [a, b] = [db, other].map((p) => Shard.open(p, { readonly: true }));
    try {
      for (const sql of [
        'SELECT bates, hex(node_hash) FROM nodes ORDER BY id',
        'SELECT id, hex(subtree_hash) FROM node_subtree ORDER BY id',
        'SELECT sid, label, created_at, hex(session_root) FROM sessions ORDER BY sid',
        'SELECT term, n FROM fts_terms ORDER BY term',
        "SELECT seq, kind, json_remove(body, '$.ts') FROM audit_events ORDER BY seq",
      ])
        expect(dbOf(b).prepare(sql).raw(true).all(), sql).toEqual(dbOf(a).prepare(sql).raw(true).all());
      expect(dbOf(a).prepare('SELECT count(*) FROM nodes').pluck().get()).toBe(600);
    } finally {
      a.close();
      b.close();
    }
  }, 120_000);

  it('says in one line, exit 2, when the shard cannot be made there', () => {
    const r = script('gen.js', ['--nodes', '10', '--db', join(db, 'inside.db')]);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`gen: ${join(db, 'inside.db')} cannot be created (ENOTDIR)`);
  });

  it('refuses to overwrite a shard without --force, in one line, exit 2', () => {
    const r = script('gen.js', ['--nodes', '10', '--db', db]);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`gen: ${db} exists and is not empty; pass --force to replace it`);
  });
});

describe('npm run bench', () => {
  it('pairs tree, path, find and add with their floors, and names the slowest keystrokes', () => {
    expect(existsSync(db)).toBe(true);
    const r = script('run.js', [
      '--db',
      db,
      '--only',
      'tree,path,find,add',
      '--n',
      '10',
      '--depth',
      '5',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const { doc, byName } = figures(r.stdout);
    const names = [...byName.keys()];
    for (const want of [
      /^tree: the largest session's outline/,
      /^path: root to each of the 10 deepest turns/,
      /^find as typed, p95 keystroke$/,
      /^find as typed, p99 keystroke$/,
      /^find as typed, slowest keystroke$/,
      /^find CLI/,
      /^find Shard\.find/,
      /^add at depth 5, p50$/,
    ])
      expect(
        names.some((n) => want.test(n)),
        String(want),
      ).toBe(true);
    const facts = doc.facts as Record<string, unknown>;
    expect(String(facts['find: background load'])).toMatch(
      /one busy core.*started before find and stopped after/,
    );
    const slow = facts['find as typed: the 10 slowest keystrokes (all runs)'] as {
      ms: number;
      query: string;
    }[];
    expect(slow).toHaveLength(10);
    expect(slow[0].ms).toBeGreaterThanOrEqual(slow[9].ms);
    expect(byName.get('find as typed, slowest keystroke')!.figure.median).toBeGreaterThanOrEqual(
      byName.get('find as typed, p95 keystroke')!.figure.median,
    );
  }, 240_000);

  it('leaves the shard it measures as it was (add works on a copy)', () => {
    const s = Shard.open(db, { readonly: true });
    try {
      expect(dbOf(s).prepare('SELECT count(*) FROM nodes').pluck().get()).toBe(600);
      expect(
        dbOf(s).prepare("SELECT count(*) FROM sqlite_schema WHERE name LIKE 'bench_%'").pluck().get(),
      ).toBe(0);
    } finally {
      s.close();
    }
  });

  it.each([
    [[], 'bench: --db PATH is required'],
    [['--db', '/nonexistent/x.db'], 'bench: no shard at /nonexistent/x.db'],
    [['--db', 'DB', '--only', 'tree,speed'], "bench: unknown metric 'speed'"],
    [['--db', 'DB', '--runs', '3'], "bench: --runs must be an integer >= 5, not '3'"],
    [['--db', 'DB', '--bogus'], "bench: Unknown option '--bogus'"],
  ])('refuses %j in one line, exit 2', (args, line) => {
    const r = script(
      'run.js',
      args.map((a) => (a === 'DB' ? db : a)),
    );
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toContain(line);
    expect(r.stdout).toBe('');
  });
});

describe('bench/vs-fzf', () => {
  it('without fzf on PATH, says how to install it in one line and exits 0', () => {
    const bin = join(dir, 'bin-no-fzf');
    mkdirSync(bin, { recursive: true });
    if (!existsSync(join(bin, 'sh'))) symlinkSync('/bin/sh', join(bin, 'sh'));
    const r = script('vs-fzf.js', ['--db', db], { PATH: bin });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'vs-fzf: skipped, fzf is not installed (apt-get install fzf, then run this again)\n',
    );
  });

  const hasFzf = spawnSync('sh', ['-c', 'command -v fzf']).status === 0;
  it.skipIf(!hasFzf)(
    'times fzf --filter and Shard.search on the same queries in the same run',
    () => {
      const r = script('vs-fzf.js', ['--db', db, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const { doc, byName } = figures(r.stdout);
      expect([...byName.keys()]).toEqual([
        'Shard.search (the TUI find box), p50 query',
        'Shard.search (the TUI find box), p95 query',
      ]);
      const rows = (doc.facts as Record<string, unknown>)['per query (medians of the runs)'] as {
        query: string;
        fzf_matches: number;
      }[];
      expect(rows[0].query).toBe('th');
      // fzf really read the dump: "th" is in almost every question the generator writes.
      expect(rows[0].fzf_matches).toBeGreaterThan(100);
    },
    240_000,
  );
});

describe('bench/ratio and the typed query mix', () => {
  it('max_at_most holds the worst run to the target, not the median run', () => {
    const pairs = [5, 5, 5, 5, 150].map((figure) => ({ figure, floor: 1 }));
    const s = summarise({
      name: 'k',
      kind: 'time',
      unit: 'ms',
      floorIs: 'f',
      pairs,
      target: { max_at_most: 100 },
    });
    expect(s.ok).toBe(false);
    expect(s.target).toBe('<= 100 ms in every run');
    const under = summarise({
      name: 'k',
      kind: 'time',
      unit: 'ms',
      floorIs: 'f',
      pairs,
      target: { at_most: 100 },
    });
    expect(under.ok).toBe(true);
  });

  it('types every prefix, so the common short ones ("th", "shou") are searched', () => {
    const k = keystrokes(['that', 'should I']);
    expect(k).toEqual([
      't',
      'th',
      'tha',
      'that',
      's',
      'sh',
      'sho',
      'shou',
      'shoul',
      'should',
      'should ',
      'should I',
    ]);
  });
});

describe('the bench scripts’ command lines (bench/args.ts)', () => {
  const scripts = [
    'ask',
    'claude-corpus',
    'details',
    'find-tui',
    'gen',
    'import',
    'keep',
    'mcp',
    'mixed-corpus',
  ];
  it('--help prints the options (exit 0); an unknown option is one line and the usage (exit 2), no stack trace', () => {
    for (const name of scripts) {
      const help = script(`${name}.js`, ['--help']);
      expect(help.code, name).toBe(0);
      expect(help.stdout, name).toMatch(new RegExp(`^usage: node dist/bench/${name}\\.js .*\\n$`));
      const bad = script(`${name}.js`, ['--no-such-option']);
      expect(bad.code, name).toBe(2);
      expect(bad.stderr, name).toMatch(new RegExp(`^${name}: Unknown option '--no-such-option'.*\\nusage: `));
      expect(bad.stderr, name).not.toMatch(/\n\s+at /);
    }
  });
});
