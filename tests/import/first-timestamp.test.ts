import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstTimestamp } from '../../src/import/jsonl.js';
import { tempDir } from '../support/tmp.js';

/** A discovery orders files by their first timestamp, read from the head (the first MiB) of each. */
describe('firstTimestamp', () => {
  const file = (text: string) => {
    const f = join(tempDir('arb-first-ts-'), 'f.jsonl');
    writeFileSync(f, text);
    return f;
  };
  const at = '2026-02-02T09:00:00.000Z';

  it('finds the time in a first line longer than one read, in a later line, or in a last line without newline', () => {
    const long = JSON.stringify({ pad: 'p'.repeat(300 * 1024), timestamp: at });
    expect(firstTimestamp(file(`${long}\n`))).toBe(Date.parse(at));
    expect(
      firstTimestamp(file(`{"x":1}\n${'{"y":"'.padEnd(200 * 1024, 'q')}"}\n{"timestamp":"${at}"}`)),
    ).toBe(Date.parse(at));
  });

  it('looks no further than the first MiB, and gives NaN for a file with no time there', () => {
    const pad = JSON.stringify({ pad: 'p'.repeat(1024 * 1024) });
    expect(firstTimestamp(file(`${pad}\n{"timestamp":"${at}"}\n`))).toBeNaN();
    expect(firstTimestamp(file('{"a":1}\n{"b":2}\n'))).toBeNaN();
    expect(firstTimestamp(file(''))).toBeNaN();
  });
});
