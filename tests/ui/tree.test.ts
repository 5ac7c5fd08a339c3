import { describe, expect, it } from 'vitest';
import { ancestorKeys, buildRows, keyOfRow, prepareOutline } from '../../src/ui/features/tree/model.js';
import { A, B, SESSIONS } from './fixtures.js';

describe('outline and visible rows', () => {
  it('indents only at branch points, with connectors and continuation lines', () => {
    const ol = prepareOutline('aaaa', A);
    expect(ol.rows.map((r) => `${r.guide}${r.cross ? '↳' : r.seq}`)).toEqual([
      '1',
      '2',
      '├ 3',
      '│ 4',
      '└ 5',
      '  ↳',
    ]);
    expect(ol.rows.map((r) => r.parent)).toEqual([-1, 0, 1, 2, 1, 4]);
    expect(ol.rows.map((r) => r.end)).toEqual([6, 6, 4, 4, 6, 6]);
    expect(ol.index.get('l:bbbb-000001')).toBe(5);
    expect(ancestorKeys(ol, 3)).toEqual(['aaaa-000003', 'aaaa-000002', 'aaaa-000001']);
  });

  it('gives several top turns of one session connectors too', () => {
    const ol = prepareOutline('cccc', [
      { ...A[0], sid: 'cccc', bates: 'cccc-000001', n_children: 0 },
      { ...A[0], sid: 'cccc', bates: 'cccc-000002', seq: 2 },
    ]);
    expect(ol.rows.map((r) => r.guide)).toEqual(['├ ', '└ ']);
  });

  it('sanitises questions for display', () => {
    const ol = prepareOutline('x', [{ ...A[0], question: 'bad\x1b]0;t\x07\nline\u202e' }]);
    expect(ol.rows[0].q).toBe('bad line');
  });

  it("shows sessions, expanded sessions' turns, and hides collapsed subtrees", () => {
    const outlines = new Map([
      ['aaaa', prepareOutline('aaaa', A)],
      ['bbbb', prepareOutline('bbbb', B)],
    ]);
    const keys = (rows: ReturnType<typeof buildRows>) => rows.map((r) => keyOfRow(r, SESSIONS, outlines));
    expect(keys(buildRows(SESSIONS, new Set(), outlines, new Set()))).toEqual(['s:bbbb', 's:aaaa']);
    expect(keys(buildRows(SESSIONS, new Set(['aaaa']), outlines, new Set()))).toEqual([
      's:bbbb',
      's:aaaa',
      'aaaa-000001',
      'aaaa-000002',
      'aaaa-000003',
      'aaaa-000004',
      'aaaa-000005',
      'l:bbbb-000001',
    ]);
    expect(
      keys(buildRows(SESSIONS, new Set(['aaaa']), outlines, new Set(['aaaa-000003', 'aaaa-000005']))),
    ).toEqual(['s:bbbb', 's:aaaa', 'aaaa-000001', 'aaaa-000002', 'aaaa-000003', 'aaaa-000005']);
    // a collapsed leaf hides nothing
    expect(buildRows(SESSIONS, new Set(['bbbb']), outlines, new Set(['bbbb-000002']))).toHaveLength(4);
  });

  it('builds rows for 100,000 sessions quickly', () => {
    const many = Array.from({ length: 100_000 }, (_, i) => ({
      sid: `s${i}`,
      label: null,
      created_at: '',
      n_nodes: 1,
    }));
    const t = performance.now();
    const rows = buildRows(many, new Set(), new Map(), new Set());
    expect(rows).toHaveLength(100_000);
    expect(performance.now() - t).toBeLessThan(200);
  });
});
