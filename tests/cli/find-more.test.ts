import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { cli } from '../support/cli.js';
import { tempDb } from '../support/tmp.js';

/** A shard of `n` turns that all mention "lantern". */
function shard(n: number): string {
  const db = tempDb();
  const s = Shard.open(db);
  s.createSession({ sid: 'llll' });
  for (let i = 0; i < n; i++) s.addTurn({ session: 'llll', question: `lantern ${i}`, answer_text: 'lit' });
  s.close();
  return db;
}

const hitLines = (out: string) => out.split('\n').filter((l) => l.startsWith('['));

/**
 * `find` shows the first 20 matches by default; it said nothing when there were more, so a user took 20 for all
 * of them (a word in 218 turns of a 20,000-turn shard showed 20 and no hint).
 */
describe('find says when there are more matches than it shows', () => {
  it('more than the limit: the first ones, and a line on stderr saying there are more and how to see them', () => {
    const db = shard(25);
    const r = cli(['find', 'lantern', '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(hitLines(r.stdout)).toHaveLength(20);
    expect(r.stderr).toBe(
      'arborist: the first 20 matches are shown; there are more (raise --limit, or narrow the query)\n',
    );
    const j = cli(['find', 'lantern', '--db', db, '--json']);
    expect(j.json()).toHaveLength(20);
    expect(j.stderr).toBe('');
    const all = cli(['find', 'lantern', '--limit', '25', '--db', db]);
    expect(hitLines(all.stdout)).toHaveLength(25);
    expect(all.stderr).toBe('');
  });

  it('a --limit above the 200 candidates each index query used to read: that many, and the line (it showed 200)', () => {
    const db = shard(450);
    const r = cli(['find', 'lantern', '--limit', '400', '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(hitLines(r.stdout)).toHaveLength(400);
    expect(r.stderr).toBe(
      'arborist: the first 400 matches are shown; there are more (raise --limit, or narrow the query)\n',
    );
    // The newest first, as with any limit: the 400 newest of the 450.
    const j = cli(['find', 'lantern', '--limit', '450', '--db', db, '--json']).json();
    expect(j).toHaveLength(450);
    expect(new Set(j.map((h: { question: string }) => h.question)).size).toBe(450);
  });

  it('exactly as many as the limit: no such line', () => {
    const db = shard(20);
    const r = cli(['find', 'lantern', '--db', db]);
    expect(hitLines(r.stdout)).toHaveLength(20);
    expect(r.stderr).toBe('');
  });

  it('find --cache-key with no turn of that key says so (it printed nothing)', () => {
    const db = shard(1);
    const r = cli(['find', '--cache-key', 'nosuchkey', '--db', db]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("no turn has cache key 'nosuchkey'\n");
    expect(cli(['find', '--cache-key', 'nosuchkey', '--db', db, '--json']).json()).toEqual([]);
  });
});

describe('find with nothing to show', () => {
  it('says how many turns it searched, as a person reads a number (it printed "searched 1234")', () => {
    const db = shard(1234);
    const r = cli(['find', 'zeppelin', '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('no turns match (searched 1,234 turns)\n');
    const one = shard(1);
    expect(cli(['find', 'zeppelin', '--db', one]).stdout).toBe('no turns match (searched 1 turn)\n');
  });
});
