import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { cli } from '../support/cli.js';
import { tempDb } from '../support/tmp.js';
import { session } from './util.js';

function shard(): string {
  const db = tempDb();
  const s = Shard.open(db);
  try {
    for (let i = 0; i < 3; i++) session(s, 40, { word: `word${i}` });
  } finally {
    s.close();
  }
  return db;
}

const criteria = (db: string, size: string) => {
  const r = cli(['maintain', '--max-bytes', size, '--db', db, '--json']);
  expect(r.code, `${size}: ${r.stderr}`).toBe(0);
  return r.json().criteria.max_bytes as number;
};

/** `maintain --max-bytes`: sizes with units in and out (docs/sessions.md, "Retention"). */
describe('maintain --max-bytes', () => {
  it('takes a size with a unit, K M G T as powers of 1024 whether written K, KB or KiB, and bare bytes', () => {
    const db = shard();
    expect(criteria(db, '500M')).toBe(500 * 1024 ** 2);
    expect(criteria(db, '2G')).toBe(2 * 1024 ** 3);
    expect(criteria(db, '1.5GiB')).toBe(1.5 * 1024 ** 3);
    expect(criteria(db, '100KB')).toBe(100 * 1024);
    expect(criteria(db, '100kb')).toBe(100 * 1024);
    expect(criteria(db, '1T')).toBe(1024 ** 4);
    expect(criteria(db, '4096')).toBe(4096);
    expect(criteria(db, '4096B')).toBe(4096);
    expect(criteria(db, '0')).toBe(0);
  });

  it('says the sizes in its plan with units: the live size and the maximum (they were raw byte counts)', () => {
    const db = shard();
    const r = cli(['maintain', '--max-bytes', '1K', '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    const why = r.stdout.split('\n').filter((l) => l.includes('of live turns'));
    expect(why.length).toBeGreaterThan(0);
    for (const w of why)
      expect(w).toMatch(/^ {4}[\d.]+ (B|KiB|MiB) of live turns, more than the maximum of 1 KiB$/);
    // the same reasons in --json, where the numbers stay exact beside them
    const j = cli(['maintain', '--max-bytes', '1K', '--db', db, '--json']).json();
    expect(j.archive[0].why[0]).toMatch(/ KiB of live turns, more than the maximum of 1 KiB$/);
    expect(j.criteria.max_bytes).toBe(1024);
  });

  it('two sizes that round alike are told apart by their bytes', () => {
    const db = shard();
    const live = cli(['maintain', '--db', db, '--json']).json().live.bytes as number;
    const r = cli(['maintain', '--max-bytes', String(live - 1), '--db', db]);
    expect(r.stdout).toMatch(
      new RegExp(
        `KiB \\(${live.toLocaleString('en-US')} bytes\\) of live turns, more than the maximum of [\\d.]+ KiB \\(${(live - 1).toLocaleString('en-US')} bytes\\)`,
      ),
    );
  });

  it('refuses junk in one line naming the units (exit 2), a size too large to count included', () => {
    const db = shard();
    for (const bad of [
      'lots',
      '5X',
      '1e3',
      '1.5.3',
      '',
      '2 GB extra',
      '-1',
      `1${'0'.repeat(400)}`,
      '99999999T',
    ]) {
      const r = cli(['maintain', `--max-bytes=${bad}`, '--db', db]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr.split('\n').filter(Boolean), bad).toHaveLength(1);
      expect(r.stderr, bad).toMatch(/is not a size|is too large/);
      expect(r.stderr, bad).toContain('powers of 1024');
    }
  });
});
