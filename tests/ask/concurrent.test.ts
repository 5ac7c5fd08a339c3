import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ask } from '../../src/ask/index.js';
import { Shard } from '../../src/store/index.js';
import { tempDb } from '../support/tmp.js';
import { CAPTURE, counts, FIXTURES, nodeCmd, seed } from './helpers.js';

function check(path: string, expectNodes: number): void {
  const s = Shard.open(path);
  try {
    expect(counts(s).nodes).toBe(expectNodes);
    expect(s.chainCheck().ok).toBe(true);
    const v = s.verify();
    expect(v.mismatches).toEqual([]);
    expect(v.ok).toBe(true);
  } finally {
    s.close();
  }
}

describe('concurrent asks', () => {
  it('on separate connections to one file, in one process: nothing lost, chain intact', async () => {
    const path = tempDb();
    const first = Shard.open(path);
    const c = seed(first);
    const base = counts(first).nodes;
    const conns = Array.from({ length: 6 }, () => Shard.open(path));
    try {
      const jobs = conns.flatMap((s, i) => [
        // Commands finish in a shuffled order, so the writes interleave across connections.
        ask(s, {
          question: `command ${i} on wal`,
          parent: c.b1,
          provider: nodeCmd(`setTimeout(() => console.log('answer ${i}'), ${(i * 37) % 120})`),
        }),
        ask(s, { question: `builtin ${i} on sqlite checkpoints`, parent: c.b2 }),
        ask(s, {
          question: `fork ${i}`,
          parent: c.a2,
          fork: true,
          provider: { kind: 'manual', answer: `m${i}` },
        }),
      ]);
      const results = await Promise.all(jobs);
      const ids = results.map((r) => r.bates);
      expect(new Set(ids).size).toBe(ids.length);
      expect(first.requireNode(c.b1).n_children).toBe(1 + 6);
      expect(first.requireNode(c.a2).n_children).toBe(6);
      for (const r of results) expect(first.getNode(r.bates)?.answer_text).toBe(r.answer_text);
    } finally {
      for (const s of conns) s.close();
      first.close();
    }
    check(path, base + 18);
  });

  it('from several processes at once: nothing lost, chain intact', async () => {
    const path = tempDb();
    const s = Shard.open(path);
    const c = seed(s);
    const base = counts(s).nodes;
    s.close();
    const P = 4;
    const N = 6;
    const worker = join(FIXTURES, 'ask-worker.mjs');
    const runOne = (tag: string) =>
      new Promise<string[]>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['--import', join(FIXTURES, 'register-ts.mjs'), worker, path, c.b1, String(N), tag, CAPTURE],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let out = '';
        let err = '';
        child.stdout.on('data', (b) => {
          out += b;
        });
        child.stderr.on('data', (b) => {
          err += b;
        });
        child.on('error', reject);
        child.on('close', (code) => {
          if (code === 0) resolve(JSON.parse(out));
          else reject(new Error(`worker ${tag} exited ${code}: ${err}`));
        });
      });
    const all = (await Promise.all(Array.from({ length: P }, (_, i) => runOne(`w${i}`)))).flat();
    expect(all).toHaveLength(P * N);
    expect(new Set(all).size).toBe(P * N);
    check(path, base + P * N);
    const after = Shard.open(path, { readonly: true });
    try {
      for (const b of all) expect(after.getNode(b)).toBeDefined();
      expect(after.requireNode(c.b1).n_children).toBe(1 + P * (N / 2));
    } finally {
      after.close();
    }
  }, 60_000);
});
