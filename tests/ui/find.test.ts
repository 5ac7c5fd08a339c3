import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import type { Action } from '../../src/ui/core/actions.js';
import type { Effect } from '../../src/ui/core/effects.js';
import { selectedBates } from '../../src/ui/core/selectors.js';
import { view } from '../../src/ui/core/view.js';
import {
  FIND_LIMIT,
  type FindOverlay,
  findBox,
  type HitLine,
  highlightSegments,
  toFound,
  wordHighlights,
} from '../../src/ui/features/find/model.js';
import { fitSegments, shortProject } from '../../src/ui/features/find/view.js';
import { buildDemo } from '../../src/ui/runtime/demo.js';
import { Style } from '../../src/ui/term/canvas.js';
import { tempDb } from '../support/tmp.js';
import { driveRuntime, until } from '../support/ui-runtime.js';
import { Driver } from './fixtures.js';

function hit(bates: string, question = `q of ${bates}`, opts: Partial<HitLine> = {}): HitLine {
  return {
    bates,
    sid: bates.slice(0, 4),
    audit: 'manual',
    question,
    label: bates.startsWith('aaaa') ? 'first' : 'second',
    highlights: [],
    agent: 'claude',
    project: '/home/ana/shop',
    created_at: '2026-11-01T00:00:00.000Z',
    field: 'question',
    snippet: '',
    ...opts,
  };
}

const HITS = [hit('bbbb-000002'), hit('aaaa-000004'), hit('aaaa-000001')];

function searches(fx: Effect[]): Extract<Effect, { type: 'search' }>[] {
  return fx.filter((e): e is Extract<Effect, { type: 'search' }> => e.type === 'search');
}

function overlay(d: Driver): FindOverlay {
  const ov = d.state.overlay;
  if (ov?.kind !== 'find') throw new Error(`no find overlay: ${ov?.kind}`);
  return ov;
}

/** Opens the box, types `text`, and answers the latest query with `hits`. */
function findAndAnswer(d: Driver, text: string, hits: HitLine[] = HITS, searched = 7): void {
  d.key('/', ...[...text]);
  d.send({ type: 'found', seq: overlay(d).seq, hits, searched, corrections: [] });
}

describe('the find box (reducer)', () => {
  it('/ opens it; every keystroke echoes at once and asks for a query with a higher seq', () => {
    const d = new Driver();
    const fx = d.key('/');
    expect(overlay(d).text).toBe('');
    const first = searches(fx);
    // one more than the list keeps: whether there were more hits than it shows
    expect(first).toEqual([{ type: 'search', seq: 1, query: '', scope: null, limit: FIND_LIMIT + 1 }]);
    const seqs: number[] = [];
    for (const c of 'lif') {
      const s = searches(d.key(c));
      expect(s).toHaveLength(1);
      seqs.push(s[0].seq);
      expect(overlay(d).seq).toBe(s[0].seq);
    }
    expect(seqs).toEqual([2, 3, 4]);
    expect(overlay(d).text).toBe('lif');
    expect(searches(d.key('backspace'))[0]).toMatchObject({ seq: 5, query: 'li' });
    expect(searches(d.key('space', 'x', 'C-w'))[2]).toMatchObject({ seq: 8, query: 'li ' });
    expect(searches(d.key('C-u'))[0]).toMatchObject({ seq: 9, query: '' });
    // n, N and q are text here, not the find.next / find.prev / quit actions
    d.key('n', 'N', 'q');
    expect(overlay(d).text).toBe('nNq');
    expect(d.state.quitting).toBe(false);
    // and a new overlay keeps counting up: an old answer can never match it
    d.key('escape', '/');
    expect(overlay(d).seq).toBe(13);
  });

  it('drops answers to queries typed over since; shows the latest one', () => {
    const d = new Driver();
    d.key('/', 'l', 'i', 'f');
    const ov = overlay(d);
    d.send({ type: 'found', seq: ov.seq - 1, hits: [hit('aaaa-000001')], searched: 7, corrections: [] });
    expect(overlay(d).hits).toEqual([]);
    expect(overlay(d).shown).toBe(0);
    d.send({ type: 'found', seq: ov.seq, hits: HITS, searched: 7, corrections: ['lifetime'] });
    expect(overlay(d).hits).toEqual(HITS);
    expect(overlay(d).shown).toBe(ov.seq);
    expect(overlay(d).corrections).toEqual(['lifetime']);
    // a late answer to an older query does not replace it either
    d.send({ type: 'found', seq: ov.seq - 2, hits: [], searched: 7, corrections: [] });
    expect(overlay(d).hits).toEqual(HITS);
    // a failure of the latest query shows; of an older one, nothing
    d.key('e');
    d.send({ type: 'findFailed', seq: ov.seq, error: 'old' });
    expect(overlay(d).error).toBeNull();
    d.send({ type: 'findFailed', seq: overlay(d).seq, error: 'disk I/O error\x1b[2J' });
    expect(overlay(d).error).toBe('disk I/O error');
    // answers after the box closed are ignored
    d.key('escape');
    const before = d.state;
    d.send({ type: 'found', seq: ov.seq + 1, hits: HITS, searched: 7, corrections: [] });
    expect(d.state.overlay).toBeNull();
    expect(d.state.selKey).toBe(before.selKey);
  });

  it('Up/Down (and C-n/C-p) select; Enter closes and reveals the selected hit in its session', () => {
    const d = new Driver();
    expect(d.selKey).toBe('s:bbbb');
    findAndAnswer(d, 'q of');
    d.key('down');
    expect(overlay(d).sel).toBe(1);
    d.key('C-n', 'C-n');
    expect(overlay(d).sel).toBe(2); // stops at the last
    d.key('C-p', 'up', 'up');
    expect(overlay(d).sel).toBe(0);
    d.key('C-n');
    const fx = d.key('enter');
    expect(fx).toContainEqual({ type: 'reveal', bates: 'aaaa-000004' });
    expect(d.state.overlay).toBeNull();
    // (the fixture driver answers reveal with the outline): the turn is selected, its ancestors open
    expect(d.selKey).toBe('aaaa-000004');
    expect(d.state.expanded.has('aaaa')).toBe(true);
    expect(d.state.focus).toBe('tree');
    expect(d.state.find.last).toMatchObject({ query: 'q of', at: 1 });
    // ready for a: the question goes under that turn
    d.key('a');
    expect(d.state.overlay).toMatchObject({ kind: 'input', mode: 'ask', parent: 'aaaa-000004' });
  });

  it('Enter with no hits does nothing', () => {
    const d = new Driver();
    findAndAnswer(d, 'zzz', []);
    expect(d.key('enter')).toEqual([]);
    expect(overlay(d).text).toBe('zzz');
  });

  it('Esc returns to exactly where you were: selection, tree scroll, transcript scroll, focus', () => {
    const d = new Driver(100, 12);
    d.key('j', 'l', 'l', 'j', 'j'); // aaaa-000003
    d.send({ type: 'path', bates: 'aaaa-000003', turns: [] });
    d.key('tab', 'J');
    const was = {
      selKey: d.state.selKey,
      sel: d.state.sel,
      top: d.state.top,
      tpos: d.state.tpos,
      focus: d.state.focus,
    };
    expect(was.focus).toBe('transcript');
    findAndAnswer(d, 'q');
    d.key('down', 'down');
    d.key('escape');
    expect(d.state.overlay).toBeNull();
    expect({
      selKey: d.state.selKey,
      sel: d.state.sel,
      top: d.state.top,
      tpos: d.state.tpos,
      focus: d.state.focus,
    }).toEqual(was);
    expect(d.state.find.last).toBeNull();
  });

  it('n / N step through the hits after closing, wrapping at the ends', () => {
    const d = new Driver();
    const none = d.key('n');
    expect(none).toEqual([]);
    expect(d.state.message?.text).toMatch(/no hits to step through: \/ finds/);
    findAndAnswer(d, 'q of');
    d.key('enter');
    expect(d.selKey).toBe('bbbb-000002');
    expect(d.key('n')).toContainEqual({ type: 'reveal', bates: 'aaaa-000004' });
    expect(d.selKey).toBe('aaaa-000004');
    expect(d.state.message?.text).toBe('find "q of": 2 of 3');
    expect(d.key('n')).toContainEqual({ type: 'reveal', bates: 'aaaa-000001' });
    expect(d.key('n')).toContainEqual({ type: 'reveal', bates: 'bbbb-000002' });
    expect(d.state.message?.text).toBe('find "q of": 1 of 3, from the top');
    expect(d.key('N')).toContainEqual({ type: 'reveal', bates: 'aaaa-000001' });
    expect(d.state.message?.text).toBe('find "q of": 3 of 3, from the bottom');
    expect(d.selKey).toBe('aaaa-000001');
    expect(d.key('N')).toContainEqual({ type: 'reveal', bates: 'aaaa-000004' });
  });

  it('the scope key switches between all sessions and the session of the selection when the box opened', () => {
    const d = new Driver();
    d.key('j', 'l', 'l'); // aaaa-000001
    d.key('/', 'x');
    expect(overlay(d).sid).toBe('aaaa');
    const fx = d.key('C-s');
    expect(searches(fx)).toEqual([
      { type: 'search', seq: overlay(d).seq, query: 'x', scope: 'aaaa', limit: FIND_LIMIT + 1 },
    ]);
    expect(overlay(d).scope).toBe('session');
    expect(view(d.state).lines().join('\n')).toContain('find · this session: aaaa first');
    const fx2 = d.key('C-s');
    expect(searches(fx2)[0]).toMatchObject({ query: 'x', scope: null });
    expect(overlay(d).scope).toBe('all');
    expect(view(d.state).lines().join('\n')).toContain('find · all sessions');
  });

  it('C-c still quits from the box', () => {
    const d = new Driver();
    const fx = d.key('/', 'C-c');
    expect(fx).toContainEqual({ type: 'quit' });
  });
});

describe('the find box (view)', () => {
  function drawn(d: Driver) {
    const f = view(d.state);
    const r = findBox(d.state.cols, d.state.rows);
    const lines = f.lines();
    const styleAt = (text: string, line: number) => {
      const x = lines[line].indexOf(text);
      if (x < 0) throw new Error(`${text} not on line ${line}: ${lines[line]}`);
      return f.st[line * f.width + x];
    };
    return { f, r, lines, styleAt };
  }

  it('under a date filter the count has no "of N" (the turns of those days are not counted): "2 found"', () => {
    const d = new Driver(100, 30);
    d.key('/', ...'lifetime after:2026-11-01');
    d.send({
      type: 'found',
      seq: overlay(d).seq,
      hits: [hit('aaaa-000001', 'What is a lifetime?'), hit('bbbb-000002', 'And for structs?')],
      searched: null,
      corrections: [],
    });
    const { r, lines } = drawn(d);
    expect(lines[r.y + 2]).toMatch(/│ 2 found\s+│/);
  });

  it('shows the query, the counts, corrections, and two lines per hit with matches highlighted', () => {
    const d = new Driver(100, 30);
    d.key('/', ...'lifetme');
    const q = 'What is a lifetime in Rust?';
    d.send({
      type: 'found',
      seq: overlay(d).seq,
      hits: [
        hit('aaaa-000001', q, { audit: 'fresh', highlights: [[10, 17]] }),
        hit('bbbb-000002', 'And for structs?', { label: null }),
      ],
      searched: 12408,
      corrections: ['lifetime'],
    });
    const { r, lines, styleAt } = drawn(d);
    expect(lines[r.y]).toContain('find · all sessions');
    expect(lines[r.y + 1]).toContain('/ lifetme▏');
    expect(lines[r.y + 2]).toContain('2 of 12,408 · also: lifetime');
    expect(lines[r.y + 3]).toMatch(
      /│ claude\s+\/home\/ana\/shop\s+2d {2}What is a lifetime in Rust\?\s+first │/,
    );
    expect(lines[r.y + 4]).toMatch(/│ {3}\[aaaa-000001\] in the question · fresh\s+│/);
    expect(lines[r.y + 5]).toMatch(/claude\s+\/home\/ana\/shop\s+2d {2}And for structs\?\s+│/);
    expect(lines[r.y + 6]).toMatch(/\[bbbb-000002\] in the question · manual\s+│/);
    // (with the preview's keys the long forms do not fit in 100 columns: shorter ones, none cut)
    expect(lines[r.y + 2 + r.h - 4]).toContain(
      'Enter go · Esc back · Ctrl-S this session only · Shift-↓↑ scroll · Ctrl-O preview',
    );
    // the match stands out (on the selected first line: its selected form), the label is dim elsewhere
    expect(styleAt('lifetime in', r.y + 3)).toBe(Style.matchSel);
    expect(styleAt('What', r.y + 3)).toBe(Style.selFocus);
    d.key('down');
    const again = drawn(d);
    expect(again.styleAt('lifetime in', r.y + 3)).toBe(Style.match);
    expect(again.styleAt('What', r.y + 3)).toBe(Style.overlay);
    expect(again.styleAt('first', r.y + 3)).toBe(Style.dim);
    expect(again.styleAt('claude', r.y + 3)).toBe(Style.sid);
    expect(again.styleAt('[aaaa', r.y + 4)).toBe(Style.dim);
  });

  it('more hits than the list keeps: "50+ of 150", not "50 of 150" (there were 93)', () => {
    const d = new Driver(100, 30);
    const many = Array.from({ length: FIND_LIMIT + 1 }, (_, i) =>
      hit(`aaaa-${String(i + 1).padStart(6, '0')}`),
    );
    findAndAnswer(d, 'agent:pi', many, 150);
    expect(overlay(d).hits).toHaveLength(FIND_LIMIT);
    const { r, lines } = drawn(d);
    expect(lines[r.y + 2]).toMatch(new RegExp(`│ ${FIND_LIMIT}\\+ of 150\\s+│`));
    // exactly as many as the list keeps: no more were found
    findAndAnswer(d, 'x', many.slice(0, FIND_LIMIT), 150);
    expect(drawn(d).lines[r.y + 2]).toMatch(new RegExp(`│ ${FIND_LIMIT} of 150\\s+│`));
  });

  it('says "searching…" while the hits shown answer an older query, and nothing is found', () => {
    const d = new Driver(100, 30);
    findAndAnswer(d, 'abc', HITS, 7);
    const { r, lines } = drawn(d);
    expect(lines[r.y + 2]).toMatch(/│ 3 of 7\s+│/);
    d.key('d');
    expect(drawn(d).lines[r.y + 2]).toMatch(/│ 3 of 7 searching…\s+│/);
    d.send({ type: 'found', seq: overlay(d).seq, hits: [], searched: 7, corrections: [] });
    const none = drawn(d).lines;
    expect(none[r.y + 2]).toMatch(/│ 0 of 7\s+│/);
    expect(none[r.y + 3]).toContain('no turn matches');
    d.key('C-u');
    expect(drawn(d).lines[r.y + 2]).toContain('type to find among 7 turns');
  });

  it('hostile text in a hit never reaches the frame; wide text keeps the border in place', () => {
    const d = new Driver(100, 30);
    d.key('/', 'x');
    const evil = 'a \x1b]52;c;ZXZpbA==\x07b\x1b[2Jc\x9b31md\u202eevil\x1b]0;title\x07 end 日本語😀 ok';
    d.send({
      type: 'found',
      seq: overlay(d).seq,
      hits: [
        hit('aaaa-000001', evil, {
          label: 'lab\x1b[31mel',
          audit: 'fr\x07esh',
          highlights: [
            [0, 0],
            [2, 40],
          ],
        }),
      ],
      searched: 1,
      corrections: ['\x1b[5mboo'],
    });
    const { f, r, lines } = drawn(d);
    const text = lines.join('\n');
    for (const l of lines) expect(l).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202e]/);
    expect(text).not.toContain('[2J');
    expect(text).not.toContain('52;');
    expect(text).not.toContain('title');
    expect(lines[r.y + 3]).toContain('a bcdevil end 日本語😀 ok');
    expect(lines[r.y + 3]).toContain('label');
    expect(lines[r.y + 4]).toContain('[aaaa-000001] in the question · fresh');
    expect(lines[r.y + 2]).toContain('also: boo');
    // the right border is where it belongs on every row
    for (let y = r.y; y < r.y + r.h; y++) {
      const cells = f.ch.slice(y * f.width, (y + 1) * f.width);
      expect(cells[r.x + r.w - 1], `row ${y}`).toMatch(/[│┐┘]/);
    }
  });

  it('keeps the selected hit on screen when the list scrolls and after a resize', () => {
    const d = new Driver(100, 40);
    const many = Array.from({ length: 40 }, (_, i) => hit(`aaaa-${String(i + 1).padStart(6, '0')}`));
    findAndAnswer(d, 'q', many, 40);
    for (let i = 0; i < 30; i++) d.key('down');
    expect(overlay(d).sel).toBe(30);
    const selLine = (lines: string[]) => lines.find((l) => l.includes('[aaaa-000031]'));
    expect(selLine(view(d.state).lines())).toBeDefined();
    expect(view(d.state).lines().join('\n')).toContain(' 31/40 ');
    d.send({ type: 'resize', cols: 60, rows: 12 });
    const f = view(d.state);
    const lines = f.lines();
    const y = lines.findIndex((l) => l.includes('[aaaa-000031]'));
    expect(y).toBeGreaterThan(0);
    expect(f.st[y * f.width + lines[y].indexOf('[aaaa')]).toBe(Style.selFocus);
  });

  it("a hit matched in its answer shows the answer's snippet, its matched words highlighted", () => {
    const d = new Driver(100, 30);
    d.key('/', ...'borr');
    d.send({
      type: 'found',
      seq: overlay(d).seq,
      hits: [
        hit('bbbb-000001', 'first hit', { field: 'question' }),
        hit('aaaa-000002', 'codex question', {
          field: 'answer',
          agent: 'codex',
          project: '/home/ana/projects/a-long-garden-name',
          created_at: '2026-10-20T00:00:00.000Z',
          snippet: 'the lifetime is bound by the «borrow» checker',
        }),
        hit('aaaa-000003', 'asked here', { agent: null, project: null }),
      ],
      searched: 9,
      corrections: [],
    });
    const { r, lines, styleAt } = drawn(d);
    // agent, project (shortened from the left, its last folders kept), age
    expect(lines[r.y + 5]).toMatch(/codex\s+…ng-garden-name\s+2w {2}codex question/);
    expect(shortProject('/home/ana/projects/shop', 16, '…')).toBe('…/projects/shop');
    expect(lines[r.y + 6]).toContain('[aaaa-000002] answer: the lifetime is bound by the borrow checker');
    expect(styleAt('borrow', r.y + 6)).toBe(Style.match);
    expect(styleAt('checker', r.y + 6)).toBe(Style.dim);
    expect(lines[r.y + 7]).toMatch(/│ arborist\s+2d {2}asked here/);
  });

  it('says in the box when a filter cannot be used', () => {
    const d = new Driver(100, 30);
    d.key('/', ...'x agent:gemini');
    d.send({
      type: 'found',
      seq: overlay(d).seq,
      hits: [],
      searched: 9,
      corrections: [],
      problems: ["no agent 'gemini' in this shard (agents: arborist, claude)"],
    });
    const { r, lines, styleAt } = drawn(d);
    expect(lines[r.y + 2]).toContain("no agent 'gemini' in this shard (agents: arborist, claude)");
    expect(styleAt('no agent', r.y + 2)).toBe(Style.error);
  });

  it('fits 80x24 and the smallest screen', () => {
    for (const [c, rws] of [
      [80, 24],
      [40, 10],
    ]) {
      const d = new Driver(c, rws);
      findAndAnswer(d, 'q', HITS);
      const lines = view(d.state).lines();
      expect(lines).toHaveLength(rws);
      for (const l of lines) expect(l.length).toBe(c);
      expect(lines.join('\n')).toContain('[bbbb-000002]');
    }
  });
});

describe('highlights', () => {
  it('maps ranges of the raw question onto the sanitised line', () => {
    expect(highlightSegments('What is a lifetime?', [[10, 17]])).toEqual([
      { text: 'What is a ', hl: false },
      { text: 'lifetime', hl: true },
      { text: '?', hl: false },
    ]);
    // an escape sequence before the match shortens the text: the match still lands on its word
    expect(highlightSegments('\x1b[31mred\x1b[0m and blue', [[17, 20]])).toEqual([
      { text: 'red and ', hl: false },
      { text: 'blue', hl: true },
    ]);
    // newlines and tabs fold to one space; private-use markers in the text cannot forge a highlight
    expect(highlightSegments('a\n\n\tb \ue000c\ue001', [])).toEqual([
      { text: 'a b \ufffdc\ufffd', hl: false },
    ]);
    // overlapping and out-of-range ranges are harmless
    expect(
      highlightSegments('abcdef', [
        [1, 3],
        [2, 4],
        [9, 12],
        [-1, 0],
      ]),
    ).toEqual([
      { text: 'a', hl: false },
      { text: 'bcde', hl: true },
      { text: 'f', hl: false },
    ]);
  });

  it('keeps word matches and drops scattered letters', () => {
    const q = 'And for structs that hold references?';
    expect(
      wordHighlights(q, [
        [27, 29],
        [31, 31],
        [16, 22],
        [0, 0],
      ]),
    ).toEqual([[16, 22]]);
  });

  it('keeps the first match in view when the question is long', () => {
    const segs = [
      { text: 'x'.repeat(100), hl: false },
      { text: 'needle', hl: true },
      { text: ' tail', hl: false },
    ];
    const out = fitSegments(segs, 30, '…');
    const joined = out.map((s) => s.text).join('');
    expect(joined.length).toBeLessThanOrEqual(30);
    expect(joined.startsWith('…')).toBe(true);
    expect(out.find((s) => s.hl)?.text).toBe('needle');
    // short enough: untouched; too long without a match: cut at the end
    expect(fitSegments(segs.slice(1), 30, '…')).toEqual(segs.slice(1));
    const plain = fitSegments([{ text: 'y'.repeat(50), hl: false }], 10, '…');
    expect(plain.map((s) => s.text).join('')).toBe(`${'y'.repeat(9)}…`);
  });

  it('toFound trims a search answer to what the box shows', () => {
    const long = `${'word '.repeat(200)}needle`;
    const f = toFound({
      hits: [
        {
          bates: 'aaaa-000001',
          sid: 'aaaa',
          seq: 1,
          audit: 'fresh',
          question: long,
          label: null,
          snippet: `«needle» ${'x'.repeat(900)}`,
          created_at: '',
          field: 'question',
          score: 1,
          agent: 'codex',
          project: '/home/ana/garden',
          highlights: [
            [0, 3],
            [1000, 1005],
          ],
        },
      ],
      searched: 9,
      // (the store leaves out of the corrections a word typed as a filter name: tests/cli/find-filters.test.ts)
      corrections: { lifetme: ['lifetime'], sqlte: ['sqlite', 'lifetime'] },
      problems: ["in: takes 'question', not 'x'"],
      unknownFilters: ['agnt'],
      refused: false,
      match: { words: ['lifetime'], prefix: 'sql' },
    });
    expect(f.hits[0]).toMatchObject({ agent: 'codex', project: '/home/ana/garden' });
    expect(f.hits[0].snippet.length).toBe(600);
    // A name typed as a filter that is none: the filter meant, first.
    expect(f.problems).toEqual([
      'agnt: is no filter (did you mean agent:?); searched it as words',
      "in: takes 'question', not 'x'",
    ]);
    expect(f.hits[0].question.length).toBe(600);
    expect(f.hits[0].highlights).toEqual([[0, 3]]);
    expect(f.corrections).toEqual(['lifetime', 'sqlite']);
    expect(f.match).toEqual({ words: ['lifetime'], prefix: 'sql' });
  });
});

describe('the find runtime', () => {
  const WORKER = pathToFileURL(
    fileURLToPath(new URL('../../dist/src/ui/runtime/find-worker.js', import.meta.url)),
  );

  function harness(opts: { findWorkerUrl?: URL; inlineFind?: boolean }) {
    const db = tempDb();
    const s0 = Shard.open(db);
    buildDemo(s0, Date.parse('2026-11-20T00:00:00Z'));
    s0.close();
    const seen: Action[] = [];
    const h = driveRuntime(Shard.open(db), opts, [{ type: 'loadSessions' }], (a) => {
      if (a.type === 'found' || a.type === 'findFailed') seen.push(a);
    });
    return Object.assign(h, { seen });
  }

  for (const [name, opts, thread] of [
    ['in the worker', { findWorkerUrl: WORKER }, 'worker'],
    ['in this thread (inlineFind)', { inlineFind: true }, 'main'],
    [
      'in this thread when the worker cannot start',
      { findWorkerUrl: new URL('file:///nonexistent/find-worker.js') },
      'main',
    ],
  ] as const) {
    it(`answers only the latest of a burst of keystrokes, ${name}`, async () => {
      const h = harness(opts);
      try {
        h.key('/');
        // typed faster than any query: only the one in flight (the empty one) and the last one ever run
        for (const c of 'lifetme') h.key(c);
        await until(() => h.state.overlay?.kind === 'find' && h.state.overlay.shown === h.state.overlay.seq);
        const ov = h.state.overlay as FindOverlay;
        expect(ov.text).toBe('lifetme');
        expect(ov.corrections).toEqual(['lifetime']);
        expect(ov.hits.length).toBeGreaterThan(0);
        expect(ov.hits[0].question).toMatch(/lifetime/i);
        expect(ov.searched).toBe(16);
        // nothing for the keystrokes in between was run or shown
        expect(h.seen.map((a) => (a as { seq: number }).seq)).toEqual([ov.seq]);
        expect(h.rt.findThread()).toBe(thread);
        // Enter reveals the hit in its session
        h.key('enter');
        expect(selectedBates(h.state)).toBe(ov.hits[0].bates);
      } finally {
        h.rt.close();
        h.shard.close();
      }
    });
  }
});
