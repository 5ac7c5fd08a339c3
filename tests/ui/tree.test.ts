import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ancestorKeys,
  buildRows,
  keyOfRow,
  type Outline,
  prepareOutline,
  type Row,
  rowKeyOf,
  type SessionLike,
} from '../../src/ui/features/tree/model.js';
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

  it('builds rows for 100,000 sessions, in time linear in their number', () => {
    const sessions = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ sid: `s${i}`, label: null, created_at: '', n_nodes: 1 }));
    expect(buildRows(sessions(100_000), new Set(), new Map(), new Set())).toHaveLength(100_000);
    // Not a stopwatch (the machine's speed drifts; bench/tui.ts measures the first screen): ten times the sessions
    // must cost about ten times as much, not a hundred (the best of three runs of each, so a pause counts once).
    const best = (n: number) => {
      const list = sessions(n);
      let min = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 3; i++) {
        const t = performance.now();
        buildRows(list, new Set(), new Map(), new Set());
        min = Math.min(min, performance.now() - t);
      }
      return min;
    };
    expect(best(200_000) / Math.max(best(20_000), 0.5)).toBeLessThan(40);
  });
});

/** The rows as buildRows made them before it kept its rows between builds: every session visited, every row new. */
function plainRows(
  sessions: readonly SessionLike[],
  expanded: ReadonlySet<string>,
  outlines: ReadonlyMap<string, Outline>,
  collapsed: ReadonlySet<string>,
): Row[] {
  const out: Row[] = [];
  sessions.forEach((ses, session) => {
    out.push({ session, node: -1 });
    const ol = expanded.has(ses.sid) ? outlines.get(ses.sid) : undefined;
    if (!ol) return;
    for (let i = 0; i < ol.rows.length; ) {
      out.push({ session, node: i });
      const r = ol.rows[i];
      i = r.end > i + 1 && collapsed.has(rowKeyOf(r)) ? r.end : i + 1;
    }
  });
  return out;
}

describe('the rows kept between builds', () => {
  const sids = ['aaaa', 'bbbb', 'cccc', 'dddd'];
  // New outline objects, of the whole sessions or of their first turns only: a session's outline that grew or
  // shrank must not be shown with the rows made for the one before.
  const fresh = (short: [boolean, boolean] = [false, false]) =>
    new Map([
      ['aaaa', prepareOutline('aaaa', short[0] ? A.slice(0, 4) : A)],
      ['bbbb', prepareOutline('bbbb', short[1] ? B.slice(0, 1) : B)],
    ]);
  const keys = [...fresh().values()].flatMap((o) => o.rows.map(rowKeyOf));

  it('are the rows a plain walk of every session gives, build after build, repeated sids included', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...sids), { maxLength: 12 }),
        fc.array(
          fc.record({
            expanded: fc.subarray(sids),
            collapsed: fc.subarray(keys),
            newOutlines: fc.option(fc.tuple(fc.boolean(), fc.boolean()), { nil: null }),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        (order, builds) => {
          const sessions = order.map((sid) => ({ sid, label: null, created_at: '', n_nodes: 1 }));
          let outlines = fresh();
          for (const b of builds) {
            if (b.newOutlines) outlines = fresh(b.newOutlines);
            const expanded = new Set(b.expanded);
            const collapsed = new Set(b.collapsed);
            expect(buildRows(sessions, expanded, outlines, collapsed)).toEqual(
              plainRows(sessions, expanded, outlines, collapsed),
            );
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('give a list that grew in place its own rows', () => {
    const sessions: SessionLike[] = [{ sid: 'aaaa', label: null, created_at: '', n_nodes: 1 }];
    const outlines = fresh();
    buildRows(sessions, new Set(), outlines, new Set());
    sessions.push({ sid: 'bbbb', label: null, created_at: '', n_nodes: 1 });
    const expanded = new Set(['bbbb']);
    expect(buildRows(sessions, expanded, outlines, new Set())).toEqual(
      plainRows(sessions, expanded, outlines, new Set()),
    );
  });
});
