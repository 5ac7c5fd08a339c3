import { describe, expect, it } from 'vitest';
import { parentsFirstOrder } from '../../src/sync/run.js';
import { PulledTurns } from '../../src/sync/turns.js';

/** A host's pulled turns as pull.ts keeps them: listed, sealed, each given its parent. */
function turns(list: [bates: string, parent: string | null][]): PulledTurns {
  const t = new PulledTurns();
  for (const [bates] of list) {
    const [sid, seq] = bates.split('-');
    t.add(sid, Number(seq), '00'.repeat(20));
  }
  expect(t.seal()).toBe(-1);
  for (const [bates, parent] of list) t.setParent(t.indexOf(bates), parent);
  return t;
}

/** The order as Bates ids (sets numbered on, as parentsFirstOrder numbers them). */
function batesOrder(sets: PulledTurns[]): string[] {
  const all = sets.flatMap((t) => Array.from({ length: t.length }, (_, i) => t.bates(i)));
  return Array.from(parentsFirstOrder(sets), (g) => all[g]);
}

describe('the order pulled turns are imported in, a batch at a time', () => {
  it('puts each turn after its parent and after the smaller seqs of its session, whatever order they came in', () => {
    // x-3 hangs under y-2, which hangs under x-1: by path order x-3 would come before y-2.
    const given: [string, string | null][] = [
      ['x-000003', 'y-000002'],
      ['x-000001', null],
      ['x-000002', 'x-000001'],
      ['y-000002', 'y-000001'],
      ['y-000001', 'x-000001'],
      ['z-000001', 'q-000009'], // a parent already here (not in the set)
    ];
    // Across hosts too: y's turns came from a second host.
    const sets = [
      turns(given.filter(([b]) => !b.startsWith('y'))),
      turns(given.filter(([b]) => b.startsWith('y'))),
    ];
    const order = batesOrder(sets);
    expect(order).toHaveLength(given.length);
    expect(new Set(order).size).toBe(given.length);
    const at = (b: string) => order.indexOf(b);
    for (const [b, parent] of given) {
      if (parent && at(parent) >= 0) expect(at(parent)).toBeLessThan(at(b));
      for (const [c] of given)
        if (c.split('-')[0] === b.split('-')[0] && c < b) expect(at(c)).toBeLessThan(at(b));
    }
  });

  it('ends on a forged parent cycle, placing every turn once', () => {
    const order = batesOrder([
      turns([
        ['a-000001', 'b-000001'],
        ['b-000001', 'a-000001'],
      ]),
    ]);
    expect(order.sort()).toEqual(['a-000001', 'b-000001']);
  });

  it('sorts turns listed out of seq order (seqs past six digits) and finds a Bates id listed twice', () => {
    const t = new PulledTurns();
    t.add('s', 1000000, '11'.repeat(20));
    t.add('s', 999999, '22'.repeat(20));
    expect(t.seal()).toBe(-1);
    expect([t.bates(0), t.bates(1)]).toEqual(['s-999999', 's-1000000']);
    expect(t.blobHex(0)).toBe('22'.repeat(20));
    expect(t.indexOf('s-1000000')).toBe(1);
    expect(t.indexOf('s-0999999')).toBe(-1); // not written as formatBates writes it
    const twice = new PulledTurns();
    twice.add('s', 1, '11'.repeat(20));
    twice.add('s', 1, '22'.repeat(20));
    expect(twice.seal()).toBe(1);
  });
});
