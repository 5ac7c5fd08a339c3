import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportText, FORMATS } from '../../src/export/index.js';
import { arboristReader } from '../../src/import/arborist/index.js';
import type { BulkTurn } from '../../src/store/index.js';
import { openShard } from '../support/shard.js';
import { tempDir } from '../support/tmp.js';

/**
 * A 10,000-turn session exports in well under a second in every format: the selection is a few queries (the
 * session's tree and outline), not one per turn. The bound asserted is loose (the machines are shared); the
 * times are printed.
 */

const N = 10_000;

describe('export speed', () => {
  it(`exports a ${N}-turn session, and reads it back, in well under a second each`, () => {
    const s = openShard();
    const sid = s.createSession({ sid: 'big', label: 'big' }).sid;
    const b0 = performance.now();
    // Runs of 100 follow-ups, each forking from one of the first turns: 100 branches, depth ~110. Written through
    // the bulk path (hashed in memory, folded once): adding them one by one rehashed each path and took ~30 s.
    const turns: BulkTurn[] = [];
    for (let i = 0; i < N; i++) {
      const parent = i === 0 ? null : i % 100 === 0 ? (i / 100) % 10 : i - 1;
      const q = `question ${i} ${'lorem ipsum '.repeat(8)}`;
      const a = `answer ${i}\n${'dolor sit amet, consectetur '.repeat(20)}`;
      turns.push({ sid, parent, content: { question: q, answer_text: a } });
    }
    const bates = s
      .addTurnsBulk(turns, { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } })
      .added.map((t) => t.bates);
    const times: Record<string, number> = { build: performance.now() - b0 };
    let json = '';
    for (const format of FORMATS) {
      const t0 = performance.now();
      const text = exportText(s, { id: sid, format });
      times[format] = performance.now() - t0;
      if (format === 'json') json = text;
      expect(text.length).toBeGreaterThan(N * 500);
    }
    const file = join(tempDir(), 'big.json');
    writeFileSync(file, json);
    const t0 = performance.now();
    const sources = [...arboristReader.read(file)];
    times.read = performance.now() - t0;
    expect(sources[0].turns).toHaveLength(N);
    expect(sources[0].problems).toEqual([]);
    // A subtree inside one session is one run of the session's order: the whole session from its root, a chain
    // from its middle.
    let t = performance.now();
    const all = JSON.parse(exportText(s, { id: bates[0], format: 'json', subtree: true }));
    times.subtree = performance.now() - t;
    const session = JSON.parse(json);
    expect(all.turns.map((x: { bates: string }) => x.bates)).toEqual(
      session.turns.map((x: { bates: string }) => x.bates),
    );
    // Two turns of another session under the middle of the big one: the big subtree's other path (every session
    // read whole, then walked) places them right after their parent's own children.
    const x1 = s.addTurn({
      session: s.createSession({ sid: 'zzz' }).sid,
      parent: bates[5000],
      question: 'x1',
      answer_text: 'x',
    });
    const x2 = s.addTurn({ parent: x1.bates, question: 'x2', answer_text: 'x' });
    const withCross = JSON.parse(exportText(s, { id: bates[0], format: 'json', subtree: true }));
    const expected = session.turns.map((x: { bates: string }) => x.bates);
    expected.splice(expected.indexOf(bates[5099]) + 1, 0, x1.bates, x2.bates);
    expect(withCross.turns.map((x: { bates: string }) => x.bates)).toEqual(expected);
    expect(withCross.turns.find((x: { bates: string }) => x.bates === x2.bates).parent_bates).toBe(x1.bates);
    t = performance.now();
    const md = exportText(s, { id: bates[150], format: 'md', subtree: true });
    expect(md).toContain(`### \`${bates[199]}\``);
    times.small = performance.now() - t;
    const mid = JSON.parse(exportText(s, { id: bates[150], format: 'json', subtree: true }));
    expect(mid.turns.map((x: { bates: string }) => x.bates)).toEqual(bates.slice(150, 200));
    const t1 = performance.now();
    const path = exportText(s, { id: bates[N - 1], format: 'json' });
    times.path = performance.now() - t1;
    expect(JSON.parse(path).turns.length).toBeGreaterThan(100);
    console.log(
      `export of ${N} turns (ms): ${JSON.stringify(times, (_k, v) => (typeof v === 'number' ? Math.round(v) : v))}`,
    );
    // ~0.1-0.3 s each on an idle machine; the bound leaves room for a shared, busy one.
    for (const [k, ms] of Object.entries(times)) if (k !== 'build') expect(ms, k).toBeLessThan(3000);
  }, 120_000);
});
