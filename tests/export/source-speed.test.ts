import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

/**
 * An imported session's JSON and source exports read each record chunk once, not once per turn: a 295-turn Claude
 * Code session of real size took 6-7 s for `--format json` and `--format source` (a 4 MiB chunk decompressed and
 * hashed per turn) against 0.3 s for `--format md`. The bound is a ratio against the markdown export of the same
 * session, measured in the same run (the machines are shared); the times are printed.
 */

const N = 400;

/** Varied words, so the chunk's compressed size and its decompression cost are those of real text. */
function words(seed: number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(`w${(i * 7919 + seed * 104729) % 50021}`);
  return out.join(' ');
}

/** One Claude Code session of N turns in a chain, each answer ~10 KB: one file, ~4 MB of records. */
function transcript(dir: string): void {
  const base = {
    isSidechain: false,
    userType: 'external',
    cwd: '/work/fx',
    sessionId: 's-big',
    version: '2.1.0',
  };
  const at = (i: number) => new Date(Date.UTC(2026, 1, 2, 9, 0, i * 2)).toISOString();
  const lines: string[] = [];
  let parent: string | null = null;
  for (let i = 0; i < N; i++) {
    const u = `u${i}`;
    const a = `a${i}`;
    lines.push(
      JSON.stringify({
        ...base,
        parentUuid: parent,
        type: 'user',
        uuid: u,
        timestamp: at(i),
        message: { role: 'user', content: `question ${i} ${words(i, 20)}` },
      }),
      JSON.stringify({
        ...base,
        parentUuid: u,
        type: 'assistant',
        uuid: a,
        timestamp: at(i),
        message: {
          id: `m${i}`,
          type: 'message',
          role: 'assistant',
          model: 'x',
          content: [{ type: 'text', text: words(i + 1, 1500) }],
          stop_reason: 'end_turn',
        },
      }),
    );
    parent = a;
  }
  writeFileSync(join(dir, 's-big.jsonl'), `${lines.join('\n')}\n`);
}

function timed(args: string[]): { ms: number; out: string } {
  const t0 = performance.now();
  const r = cli(args);
  const ms = performance.now() - t0;
  expect(r.code, r.stderr).toBe(0);
  return { ms, out: r.stdout };
}

describe('export of an imported session', () => {
  it('reads each record chunk once: json and source cost about what md does', () => {
    const dir = tempDir();
    const db = join(dir, 'x.db');
    transcript(dir);
    const imp = cli(['import', 'claude', dir, '--db', db]);
    expect(imp.code, imp.stderr).toBe(0);
    const sid = cli(['list', '--db', db, '--json']).json()[0].sid;
    const md = timed(['export', sid, '--format', 'md', '--db', db]);
    const json = timed(['export', sid, '--format', 'json', '--db', db]);
    const source = timed(['export', sid, '--format', 'source', '--db', db]);
    expect(JSON.parse(json.out).turns).toHaveLength(N);
    expect(source.out.split('\n').filter((l) => l !== '')).toHaveLength(2 * N);
    console.log(
      `export of ${N} imported turns (ms): md ${Math.round(md.ms)}, json ${Math.round(json.ms)}, source ${Math.round(source.ms)}`,
    );
    // One decompression per turn made json and source 10-20x md; read once they are within ~2x of it.
    expect(json.ms).toBeLessThan(4 * md.ms + 500);
    expect(source.ms).toBeLessThan(4 * md.ms + 500);
  }, 120_000);
});
