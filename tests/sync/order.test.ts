import { describe, expect, it } from 'vitest';
import type { PulledTurn } from '../../src/sync/pull.js';
import { parentsFirstOrder } from '../../src/sync/run.js';

function turn(bates: string, parent: string | null): { host: string; turn: PulledTurn } {
  const [sid, seq] = bates.split('-');
  return {
    host: 'h',
    turn: { bates, parent_bates: parent, sid, seq: Number(seq), created_at: '', blob: '', node_hash: '' },
  };
}

describe('the order pulled turns are imported in, a batch at a time', () => {
  it('puts each turn after its parent and after the smaller seqs of its session, whatever order they came in', () => {
    // x-3 hangs under y-2, which hangs under x-1: by path order x-3 would come before y-2.
    const given = [
      turn('x-000003', 'y-000002'),
      turn('x-000001', null),
      turn('x-000002', 'x-000001'),
      turn('y-000002', 'y-000001'),
      turn('y-000001', 'x-000001'),
      turn('z-000001', 'q-000009'), // a parent already here (not in the set)
    ];
    const order = parentsFirstOrder(given).map((p) => p.turn.bates);
    expect(order).toHaveLength(given.length);
    const at = (b: string) => order.indexOf(b);
    for (const { turn: t } of given) {
      if (t.parent_bates && at(t.parent_bates) >= 0) expect(at(t.parent_bates)).toBeLessThan(at(t.bates));
      for (const { turn: u } of given)
        if (u.sid === t.sid && u.seq < t.seq) expect(at(u.bates)).toBeLessThan(at(t.bates));
    }
  });

  it('ends on a forged parent cycle, placing every turn once', () => {
    const order = parentsFirstOrder([turn('a-000001', 'b-000001'), turn('b-000001', 'a-000001')]);
    expect(order.map((p) => p.turn.bates).sort()).toEqual(['a-000001', 'b-000001']);
  });
});
