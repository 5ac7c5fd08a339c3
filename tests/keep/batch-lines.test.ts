import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { batchLines } from '../../src/keep/run.js';
import { type BatchReport, emptyBatchReport } from '../../src/keep/types.js';
import { cli } from '../support/cli.js';
import { fakeHome, logText, startKeeper, stop, until } from './helpers.js';

/**
 * A keeper's batch with many problems: the batch's line says how many and the first, the next nine follow a line
 * each, and past them one line says how many more as keep --status says it. Before, the first five problems of a
 * batch and "N more problems" were joined into its one line: a thousand columns.
 */
describe('keep: a batch of many problems', () => {
  it('is a line with the count and the first, then a line each, then "and N more" as keep --status', async () => {
    const h = fakeHome();
    // Thirteen transcripts that are no JSON, their names carrying an escape sequence: read in the first batch.
    for (let i = 10; i < 23; i++) writeFileSync(join(h.claude, `bad-${i}\x1b[2J.jsonl`), 'not json at all\n');
    const k = startKeeper(h);
    await until('the problems are logged', () =>
      /and \d+ more \(`arborist import` lists every one\)/.test(logText(h)),
    );
    const status = cli(['keep', '--status'], { env: h.env });
    expect(await stop(k)).toBe(0);
    const lines = logText(h)
      .trimEnd()
      .split('\n')
      .map((l) => l.replace(/^\S+Z /, ''));
    const at = lines.findIndex((l) => /\d+ problems; problem /.test(l));
    expect(at, lines.join('\n')).toBeGreaterThanOrEqual(0);
    // The fixtures' own problems and the thirteen: counted, the first said on the line.
    const count = Number(/(\d+) problems; /.exec(lines[at])![1]);
    expect(count).toBeGreaterThanOrEqual(13);
    expect(lines[at]).toMatch(/^\+\d+ turns \(.*\); \d+ new sessions; \d+ problems; problem \S+:\d+: /);
    expect(lines[at].match(/problem \S+:\d+: /g)).toHaveLength(1);
    for (const l of lines.slice(at + 1, at + 10)) expect(l).toMatch(/^ {2}problem \S+:\d+: \S/);
    expect(lines[at + 10]).toBe(`  and ${count - 10} more (\`arborist import\` lists every one)`);
    expect(logText(h)).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);
    // keep --status counts the same problems, lists as many and says the rest in the same words.
    expect(status.stdout).toContain(`problems in what it read (${count}):`);
    expect(status.stdout).toContain(`  and ${count - 10} more (\`arborist import\` lists every one)`);
  });

  it('says a batch with one or two items on its one line, as before; more: counted, the first, a line each', () => {
    const batch = (over: Partial<BatchReport>): BatchReport => ({ ...emptyBatchReport(), files: 1, ...over });
    expect(batchLines(batch({}))).toEqual([]);
    expect(
      batchLines(
        batch({
          turns_added: 2,
          by_source: { claude: 2 },
          gone: ['/a.jsonl'],
          problems: [{ file: '/b', line: 3, reason: 'x' }],
        }),
      ),
    ).toEqual(['+2 turns (claude 2); /a.jsonl is gone; the shard keeps every turn it held; problem /b:3: x']);
    // Three files gone, no problem: counted, the first named, a line each, no pointer to keep --status (it lists
    // problems).
    expect(batchLines(batch({ gone: ['/a', '/b', '/c'] }))).toEqual([
      '3 files gone; /a is gone; the shard keeps every turn it held',
      '  /b is gone; the shard keeps every turn it held',
      '  /c is gone; the shard keeps every turn it held',
    ]);
    const many = Array.from({ length: 12 }, (_, i) => `/g${i}`);
    expect(batchLines(batch({ gone: many }))).toHaveLength(11);
    expect(batchLines(batch({ gone: many })).at(-1)).toBe('  and 2 more');
  });
});
