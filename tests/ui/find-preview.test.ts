import { describe, expect, it } from 'vitest';
import { deleteEntry, type SearchMatch, Shard } from '../../src/store/index.js';
import type { Action } from '../../src/ui/core/actions.js';
import type { Effect } from '../../src/ui/core/effects.js';
import { view } from '../../src/ui/core/view.js';
import type { FindOverlay, HitLine } from '../../src/ui/features/find/model.js';
import {
  autoTop,
  findLayout,
  firstMatchLine,
  matchRanges,
  PREVIEW_BESIDE_COLS,
  previewLines,
} from '../../src/ui/features/find/preview.js';
import type { Turn } from '../../src/ui/features/transcript/model.js';
import { SETTLE_MS, TYPING_QUIET_MS } from '../../src/ui/runtime/preview.js';
import { Style } from '../../src/ui/term/canvas.js';
import { entryShard } from '../support/entry-shard.js';
import { tempDb } from '../support/tmp.js';
import { driveRuntime, until } from '../support/ui-runtime.js';
import { Driver } from './fixtures.js';

function turn(bates: string, question: string, answer: string): Turn {
  return {
    bates,
    sid: bates.slice(0, 4),
    parent_bates: null,
    is_top: true,
    question,
    answer_text: answer,
    cited_titles: [],
    audit: 'manual',
    created_at: '2026-11-01T10:00:00.000Z',
    node_hash: 'ab'.repeat(32),
    subtree_hash: 'cd'.repeat(32),
    n_children: 0,
    depth: 0,
  };
}

/** An answer whose line `at` (of `n`, counting from 1) holds the word `word`. */
function longAnswer(n: number, at: number, word: string): string {
  return Array.from({ length: n }, (_, i) =>
    i + 1 === at ? `line ${i + 1} has ${word} here` : `line ${i + 1}`,
  ).join('\n');
}

const M = (words: string[], prefix: string | null = null): SearchMatch => ({ words, prefix });

function hit(bates: string, opts: Partial<HitLine> = {}): HitLine {
  return {
    bates,
    sid: bates.slice(0, 4),
    audit: 'manual',
    question: `q of ${bates}`,
    label: null,
    highlights: [],
    agent: 'claude',
    project: '/home/ana/shop',
    created_at: '2026-11-01T00:00:00.000Z',
    field: 'answer',
    snippet: '',
    ...opts,
  };
}

function overlay(d: Driver): FindOverlay {
  const ov = d.state.overlay;
  if (ov?.kind !== 'find') throw new Error(`no find overlay: ${ov?.kind}`);
  return ov;
}

const previews = (fx: Effect[]) => fx.filter((e) => e.type === 'previewTurn');

describe('the find preview: layout', () => {
  it('sits beside the list from 110 columns, the two side by side inside the box', () => {
    const l = findLayout(120, 40, true);
    expect(l.side).toBe('beside');
    const p = l.preview!;
    expect(p.x).toBeGreaterThan(l.list.x + l.list.w);
    expect(p.x + p.w).toBeLessThanOrEqual(l.box.x + l.box.w - 2);
    expect(p.y).toBe(l.list.y);
    expect(p.h).toBe(l.list.h);
    expect(l.list.w).toBeGreaterThanOrEqual(44);
    // the box takes the width it needs, past the list-only box's 120 columns
    expect(findLayout(200, 40, true).box.w).toBe(196);
    expect(findLayout(200, 40, false).box.w).toBe(120);
  });

  it('goes under the list below 110 columns: whole hits above, a few lines of turn below', () => {
    const l = findLayout(80, 24, true);
    expect(PREVIEW_BESIDE_COLS).toBe(110);
    expect(l.side).toBe('under');
    const p = l.preview!;
    expect(l.list.h % 2).toBe(0);
    expect(l.list.h / 2).toBeGreaterThanOrEqual(3);
    expect(p.y).toBe(l.list.y + l.list.h);
    expect(p.h).toBeGreaterThanOrEqual(6);
    expect(p.y + p.h).toBe(l.box.y + l.box.h - 2);
    expect(findLayout(109, 40, true).side).toBe('under');
  });

  it('hidden, or with no room for it, the list has the whole box', () => {
    for (const [c, r, show] of [
      [120, 40, false],
      [80, 24, false],
      [80, 11, true],
    ] as const) {
      const l = findLayout(c, r, show);
      expect(l.preview).toBeNull();
      expect(l.list.h).toBe(l.box.h - 5);
    }
  });
});

describe('the find preview: the matched words and where it opens', () => {
  it('marks whole words the search matched, folded as the index folds them, and words under the prefix', () => {
    const t = 'Café and CAFE, a vitest test; Borrowed borrow.';
    const marked = (m: SearchMatch) => matchRanges(t, m).map(([a, b]) => t.slice(a, b + 1));
    expect(marked(M(['cafe']))).toEqual(['Café', 'CAFE']);
    // whole words: `test` is not in `vitest`
    expect(marked(M(['test']))).toEqual(['test']);
    expect(marked(M([], 'borr'))).toEqual(['Borrowed', 'borrow']);
    expect(marked(M(['and'], 'tes'))).toEqual(['and', 'test']);
    expect(marked(M([]))).toEqual([]);
    // an ASCII line takes the quick path: the same answers
    const a = 'A vitest test; Borrowed borrow.';
    const ascii = (m: SearchMatch) => matchRanges(a, m).map(([x, y]) => a.slice(x, y + 1));
    expect(ascii(M(['test']))).toEqual(['test']);
    expect(ascii(M(['a'], 'borr'))).toEqual(['A', 'Borrowed', 'borrow']);
    expect(ascii(M(['nothing'], 'zz'))).toEqual([]);
  });

  it('opens a line or two above the first line holding a match in the answer', () => {
    const t = turn('cccc-000001', 'a question with nothing', longAnswer(80, 50, 'lifetime'));
    const lines = previewLines(t, 60, null);
    const at = firstMatchLine(lines, M(['lifetime']));
    expect(lines[at].text).toContain('line 50 has lifetime here');
    const top = autoTop(lines, M(['lifetime']), 7);
    expect(top).toBe(at - 1);
    expect(autoTop(lines, M(['lifetime']), 20)).toBe(at - 2);
  });

  it('a match in the question opens at the question; no match opens at the top; near the end it fills the window', () => {
    // (turnBlock keeps a turn's lines by Bates id and subtree hash: each test's turn has its own id)
    const t = turn('cccc-000002', 'what about lifetimes', longAnswer(80, 79, 'lifetime'));
    const lines = previewLines(t, 60, null);
    const q = lines.findIndex((l) => l.role === 'q');
    expect(firstMatchLine(lines, M([], 'lifetim'))).toBe(q);
    expect(autoTop(lines, M(['nowhere']), 7)).toBe(0);
    // only "lifetime" (the answer's line 79) matches: the window ends at the turn's end, the match inside it
    const at = firstMatchLine(lines, M(['lifetime']));
    expect(lines[at].text).toContain('line 79');
    const top = autoTop(lines, M(['lifetime']), 20);
    expect(top).toBe(lines.length - 20);
    expect(at).toBeGreaterThanOrEqual(top);
    expect(at).toBeLessThan(top + 20);
  });

  it('the session and header lines are not searched (a Bates id or audit tag is no match in the turn)', () => {
    const t = turn('cccc-000003', 'plain question', 'plain answer');
    expect(firstMatchLine(previewLines(t, 60, 'manual label'), M(['manual']))).toBe(-1);
  });
});

describe('the find preview: the reducer', () => {
  const HITS = [hit('aaaa-000001'), hit('aaaa-000002'), hit('bbbb-000001')];
  const T1 = turn('aaaa-000001', 'first question', longAnswer(60, 40, 'lifetime'));
  const T2 = turn('aaaa-000002', 'second question', 'short answer with lifetime');

  function opened(cols = 120, rows = 40): Driver {
    const d = new Driver(cols, rows);
    d.key('/', ...'lifetime');
    d.send({
      type: 'found',
      seq: overlay(d).seq,
      hits: HITS,
      searched: 9,
      corrections: [],
      match: M(['lifetime']),
    });
    return d;
  }

  it("asks for the selected hit's turn once the hits arrive, and again as the selection moves", () => {
    const d = opened();
    expect(previews(d.effects)).toEqual([{ type: 'previewTurn', bates: 'aaaa-000001' }]);
    expect(overlay(d).preview).toEqual({ bates: 'aaaa-000001', turn: null, archived: false, error: null });
    expect(view(d.state).lines().join('\n')).toContain('loading…');
    d.send({ type: 'previewed', bates: 'aaaa-000001', turn: T1, archived: false });
    expect(overlay(d).preview?.turn).toBe(T1);
    const fx = d.key('down');
    expect(previews(fx)).toEqual([{ type: 'previewTurn', bates: 'aaaa-000002' }]);
    expect(overlay(d).preview).toMatchObject({ bates: 'aaaa-000002', turn: null });
    // typing the same query again does not ask again for the turn already shown
    expect(previews(d.key('C-n', 'C-p'))).toHaveLength(2);
  });

  it('drops a load for a hit no longer selected', () => {
    const d = opened();
    d.key('down');
    d.send({ type: 'previewed', bates: 'aaaa-000001', turn: T1, archived: false });
    expect(overlay(d).preview).toMatchObject({ bates: 'aaaa-000002', turn: null });
    d.send({ type: 'previewed', bates: 'aaaa-000002', turn: T2, archived: false });
    expect(overlay(d).preview?.turn).toBe(T2);
  });

  it('Shift-Down/Up scroll the preview by half its height, within the turn', () => {
    const d = opened(80, 24);
    d.send({ type: 'previewed', bates: 'aaaa-000001', turn: T1, archived: false });
    expect(overlay(d).pscroll).toBeNull();
    const h = findLayout(80, 24, true).preview!.h - 1;
    const lines = previewLines(T1, findLayout(80, 24, true).preview!.w, null);
    const auto = autoTop(lines, M(['lifetime']), h);
    d.key('S-down');
    expect(overlay(d).pscroll).toBe(auto + Math.floor(h / 2));
    d.key('S-up', 'S-up');
    expect(overlay(d).pscroll).toBe(auto - Math.floor(h / 2));
    for (let i = 0; i < 50; i++) d.key('S-up');
    expect(overlay(d).pscroll).toBe(0);
    for (let i = 0; i < 50; i++) d.key('S-down');
    expect(overlay(d).pscroll).toBe(lines.length - h);
    // J is a letter in the box, not a scroll key
    d.key('J');
    expect(overlay(d).text).toBe('lifetimeJ');
    // a new hit opens at its own match again
    d.key('down');
    expect(overlay(d).pscroll).toBeNull();
  });

  it('Ctrl-O hides the preview (no turns loaded, the list takes the box) and shows it again', () => {
    const d = opened(80, 24);
    d.key('C-o');
    expect(d.state.find.hidePreview).toBe(true);
    expect(overlay(d).preview).toBeNull();
    expect(previews(d.key('down'))).toEqual([]);
    // it stays hidden the next time the box opens
    d.key('escape');
    d.key('/');
    expect(d.state.find.hidePreview).toBe(true);
    d.key('C-o');
    expect(d.state.find.hidePreview).toBe(false);
  });

  it('a turn that cannot be read says why; an archived one says it is read-only', () => {
    const d = opened();
    d.send({ type: 'previewed', bates: 'aaaa-000001', turn: null, archived: false, error: 'turn gone' });
    expect(view(d.state).lines().join('\n')).toContain('cannot show this turn: turn gone');
    d.key('down');
    d.send({ type: 'previewed', bates: 'aaaa-000002', turn: T2, archived: true });
    expect(view(d.state).lines().join('\n')).toContain('aaaa-000002 · archived, read-only');
  });
});

describe('the find preview: the view', () => {
  const T = turn('aaaa-000001', 'first question', longAnswer(60, 40, 'lifetime'));

  function shown(cols: number, rows: number) {
    const d = new Driver(cols, rows);
    d.key('/', ...'lifetime');
    d.send({
      type: 'found',
      seq: overlay(d).seq,
      hits: [hit('aaaa-000001'), hit('aaaa-000002')],
      searched: 9,
      corrections: [],
      match: M(['lifetime']),
    });
    d.send({ type: 'previewed', bates: 'aaaa-000001', turn: T, archived: false });
    const f = view(d.state);
    return { d, f, lines: f.lines() };
  }

  for (const [cols, rows] of [
    [120, 40],
    [80, 24],
  ] as const) {
    it(`${cols}x${rows}: the turn opens at its match, highlighted, with where it is`, () => {
      const { f, lines } = shown(cols, rows);
      const y = lines.findIndex((l) => l.includes('line 40 has lifetime here'));
      expect(y).toBeGreaterThan(0);
      const x = lines[y].indexOf('lifetime');
      expect(f.st[y * f.width + x]).toBe(Style.match);
      expect(f.st[y * f.width + lines[y].indexOf('line 40')]).not.toBe(Style.match);
      const l = findLayout(cols, rows, true);
      // the hits are still there, and the title line says which turn and where
      expect(lines[l.list.y]).toContain('claude');
      expect(lines[l.preview!.y]).toContain('aaaa-000001');
      expect(lines[l.preview!.y]).toMatch(/↑↓ line \d+\/\d+/);
      expect(lines.join('\n')).not.toContain('line 30 ');
      // the preview's keys are on the key line, whole, at 80 columns too
      expect(lines.join('\n')).toMatch(/Shift-↓↑ scroll( preview)? · Ctrl-O (hide )?preview/);
    });
  }
});

describe('the find preview: the runtime', () => {
  function harness() {
    const s = Shard.open(tempDb());
    const f = entryShard(s);
    const seen: Extract<Action, { type: 'previewed' }>[] = [];
    const h = driveRuntime(s, { inlineFind: true }, [{ type: 'loadSessions' }], (a) => {
      if (a.type === 'previewed') seen.push(a);
    });
    return { h, f, s, seen };
  }

  it('reads the turn after a short settle, only the last of a quick run of requests, and keeps it', async () => {
    const { h, f, seen } = harness();
    try {
      h.rt.run([{ type: 'previewTurn', bates: f.cur.bates[0] }]);
      h.rt.run([{ type: 'previewTurn', bates: f.cur.bates[1] }]);
      // nothing is read on the request's own path
      expect(seen).toEqual([]);
      await until(() => seen.length > 0);
      await new Promise((r) => setTimeout(r, SETTLE_MS * 2));
      expect(seen.map((a) => a.bates)).toEqual([f.cur.bates[1]]);
      expect(seen[0]).toMatchObject({ archived: false, turn: { question: 'main chat question 2' } });
      // the same turn again is answered from what was read, at once after the current event
      h.rt.run([{ type: 'previewTurn', bates: f.cur.bates[1] }]);
      await new Promise((r) => setImmediate(r));
      expect(seen).toHaveLength(2);
      expect(seen[1].turn).toBe(seen[0].turn);
    } finally {
      h.close();
    }
  });

  it('reads nothing while the query is being typed: the preview follows the first pause', async () => {
    const { h, f, seen } = harness();
    try {
      const t0 = Date.now();
      h.rt.run([{ type: 'search', seq: 1, query: 'main', scope: null, limit: 5 }]);
      h.rt.run([{ type: 'previewTurn', bates: f.cur.bates[0] }]);
      await new Promise((r) => setTimeout(r, SETTLE_MS * 2));
      h.rt.run([{ type: 'search', seq: 2, query: 'main c', scope: null, limit: 5 }]);
      await until(() => seen.length > 0);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(SETTLE_MS * 2 + TYPING_QUIET_MS - 5);
      expect(seen.map((a) => a.bates)).toEqual([f.cur.bates[0]]);
    } finally {
      h.close();
    }
  });

  it('a turn archived since the search reads back from its archive, read-only; a gone one says so', async () => {
    const { h, f, s, seen } = harness();
    try {
      deleteEntry(s, 'main');
      h.rt.run([{ type: 'previewTurn', bates: f.cur.bates[0] }]);
      await until(() => seen.length > 0);
      expect(seen[0]).toMatchObject({ archived: true, turn: { question: 'main chat question 1' } });
      h.rt.run([{ type: 'previewTurn', bates: 'zzzz9999-000001' }]);
      await until(() => seen.length > 1);
      expect(seen[1]).toMatchObject({ turn: null, archived: false });
      expect(seen[1].error).toMatch(/no longer in the shard/);
    } finally {
      h.close();
    }
  });
});
