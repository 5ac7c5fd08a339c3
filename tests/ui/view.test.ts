import { describe, expect, it } from 'vitest';
import { buildKeymap } from '../../src/keymap/index.js';
import type { ChainCheck } from '../../src/store/index.js';
import { displayWidth } from '../../src/text/width.js';
import { initialState } from '../../src/ui/core/state.js';
import { update } from '../../src/ui/core/update.js';
import { ASCII_GLYPHS, view } from '../../src/ui/core/view.js';
import {
  autoPos,
  maxPos,
  pathDoc,
  scrollBy,
  type Turn,
  windowLines,
} from '../../src/ui/features/transcript/model.js';
import { Frame, Style } from '../../src/ui/term/canvas.js';
import { Driver, node } from './fixtures.js';

function checkBorders(lines: string[]): void {
  for (let y = 1; y < lines.length - 2; y++) {
    expect(lines[y], `row ${y}`).toMatch(/^│.*││.*│$/);
  }
}

const broken: ChainCheck = {
  ok: false,
  events: 1234,
  head: '5:aa',
  first_broken_seq: 6,
  reason: 'event 6 does not match its hash',
  verified: { seq: 5, hash: 'a'.repeat(64) },
};

describe('the frame', () => {
  it('keeps wide characters whole and the rest of the row in place', () => {
    const f = new Frame(10, 1);
    f.text(0, 0, 'a日本語😀bcdef', Style.normal);
    expect(f.lines()[0]).toBe('a日本語😀b');
    expect(f.ch.slice(1, 3)).toEqual(['日', '']);
    // a wide char that does not fit is left out, not cut in half
    const g = new Frame(4, 1);
    g.text(0, 0, 'ab日', Style.normal, 3);
    expect(g.lines()[0]).toBe('ab  ');
    // overwriting half of a wide char blanks the other half
    const h = new Frame(4, 1);
    h.text(0, 0, '日本', Style.normal);
    h.text(1, 0, 'x', Style.normal);
    expect(h.lines()[0]).toBe(' x本');
    // controls never reach a cell
    const k = new Frame(10, 1);
    k.text(0, 0, 'a\x1b[2J\x9b\u202eb', Style.normal);
    expect(k.lines()[0]).toBe('a[2Jb     ');
  });

  it('draws the panes, the status bar and a selection at 80x24', () => {
    const d = new Driver(80, 24);
    d.key('j', 'l');
    d.send({
      type: 'chainDone',
      full: true,
      result: { ...broken, ok: true, first_broken_seq: null, reason: null, head: `1234:${'f'.repeat(64)}` },
    });
    const f = view(d.state);
    const lines = f.lines();
    expect(lines).toHaveLength(24);
    expect(lines[0]).toMatch(/^┌ sessions 2 ─+┐┌ session aaaa ─+┐$/);
    expect(lines[1]).toMatch(/^│▸ AR {2}second\s+2\s+\S+│/);
    expect(lines[2]).toMatch(/^│▾ AR {2}first\s+5\s+\S+│/);
    expect(lines[4]).toContain('000002 question 2 of aaaa');
    expect(lines[4]).toContain('⑂2');
    expect(lines[5]).toContain('├ 000003');
    expect(lines[8]).toContain('↳ bbbb-000001');
    expect(lines[23]).toMatch(/^ chain ✓ 1,234 events · head ffffffff · checked now │ aaaa │ \? help/);
    checkBorders(lines);
    // the selected row (row 2) carries the selection style across the pane
    for (let x = 1; x < 31; x++) expect(f.st[2 * 80 + x]).toBe(Style.selFocus);
  });

  it('says "1 event" for the one event of a new shard', () => {
    const d = new Driver(80, 24);
    d.send({
      type: 'chainDone',
      full: true,
      result: {
        ...broken,
        ok: true,
        events: 1,
        first_broken_seq: null,
        reason: null,
        head: `1:${'f'.repeat(64)}`,
      },
    });
    expect(view(d.state).lines()[23]).toMatch(/^ chain ✓ 1 event · head ffffffff/);
  });

  it('a message that does not fit beside the chain at 80 columns: the chain part shrinks, then the message is cut with …', () => {
    const d = new Driver(80, 24);
    d.send({
      type: 'chainDone',
      full: true,
      result: { ...broken, ok: true, first_broken_seq: null, reason: null, head: `123:${'f'.repeat(64)}` },
    });
    d.send({ type: 'historiesImported', turns: 62, problems: 10, failed: null });
    const bar = view(d.state).lines()[23];
    // What the first start says after i, whole: it tells where the skipped records are listed.
    expect(bar).toContain('imported 62 turns (10 records skipped: arborist import shows them)');
    expect(bar).toMatch(/^ chain ✓/);
    d.send({ type: 'message', text: `import failed: ${'x'.repeat(60)} the end`, level: 'error' });
    const cut = view(d.state).lines()[23];
    expect(displayWidth(cut)).toBe(80);
    expect(cut).toMatch(/import failed: x+… *$/);
  });

  it('the first start offer at 60x20: a long path keeps its tail after …, inside the box with a margin', () => {
    const home = '/home/someone-with-a-long-name/work/clients';
    let s = initialState({
      cols: 60,
      rows: 20,
      keymap: buildKeymap(),
      now: Date.parse('2026-11-03T00:00:00Z'),
      histories: [
        { kind: 'claude', label: 'Claude Code', path: `${home}/.claude/projects`, files: 5 },
        { kind: 'opencode', label: 'OpenCode', path: `${home}/.local/share/opencode`, files: 1 },
      ],
    });
    [s] = update(s, { type: 'sessions', sessions: [] });
    const lines = view(s).lines();
    const row = (what: string) => lines.find((l) => l.includes(what)) ?? '';
    expect(row('Claude Code:')).toMatch(/│ +Claude Code: 5 files in …\S*\/\.claude\/projects +│/);
    expect(row('OpenCode:')).toMatch(/│ +OpenCode: +1 file +in …\S*\/\.local\/share\/opencode +│/);
    // a table: the names start in one column, and so do the counts and the paths (they were centred line by line)
    for (const part of [/Claude Code|OpenCode/, /\d file/, / in /])
      expect(row('Claude Code:').search(part), String(part)).toBe(row('OpenCode:').search(part));
    for (const l of lines) expect(displayWidth(l)).toBe(60);
  });

  it('shows BROKEN in its own style, and checking with a percentage', () => {
    const d = new Driver(100, 20);
    d.send({ type: 'chainDone', full: true, result: broken });
    let f = view(d.state);
    const status = f.lines()[19];
    expect(status).toContain('chain BROKEN at event 6');
    const x = status.indexOf('BROKEN');
    expect(f.st[19 * 100 + x]).toBe(Style.statusBroken);
    d.send({ type: 'chainStart', full: true, total: 400 });
    d.send({ type: 'chainProgress', done: 100 });
    f = view(d.state);
    expect(f.lines()[19]).toContain('chain checking 25%…');
  });

  it('CJK and emoji in labels, questions and answers never move a border', () => {
    const d = new Driver(83, 20);
    d.send({
      type: 'sessions',
      sessions: [{ sid: 'aaaa', label: '日本語ラベル🎉'.repeat(4), created_at: '', n_nodes: 1 }],
    });
    d.send({
      type: 'outline',
      sid: 'aaaa',
      nodes: [node('aaaa', 1, 0, { question: '長い質問😀'.repeat(10) })],
      reveal: 'aaaa-000001',
    });
    const t: Turn = {
      bates: 'aaaa-000001',
      sid: 'aaaa',
      parent_bates: null,
      is_top: true,
      question: '長い質問😀'.repeat(10),
      answer_text: '漢字👍🏽とかな e\u0301 '.repeat(30),
      cited_titles: ['本 📚'],
      audit: 'manual',
      created_at: '2026-11-01T10:00:00Z',
      node_hash: 'a'.repeat(64),
      subtree_hash: 'b'.repeat(64),
      n_children: 0,
      depth: 0,
    };
    d.send({ type: 'path', bates: 'aaaa-000001', turns: [t] });
    const lines = view(d.state).lines();
    for (const l of lines) expect(displayWidth(l)).toBe(83);
    checkBorders(lines);
  });

  it('the empty shard, the help overlay, a too small terminal, ASCII glyphs', () => {
    const d = new Driver(80, 24);
    d.send({ type: 'sessions', sessions: [] });
    expect(view(d.state).lines().join('\n')).toContain('Press d to load a demo, q to quit');
    const e = new Driver(80, 24);
    e.key('?');
    const help = view(e.state).lines().join('\n');
    expect(help).toContain('┌ keys');
    expect(help).toMatch(/↓ j\s+Next row/);
    e.send({ type: 'resize', cols: 30, rows: 8 });
    const small = view(e.state).lines().join('\n');
    expect(small).toContain('terminal too small');
    expect(small).toContain('30x8, needs 40x10');
    const a = new Driver(80, 24);
    a.key('j', 'l');
    const ascii = view(a.state, { glyphs: ASCII_GLYPHS }).lines();
    expect(ascii[2]).toMatch(/^│v AR {2}first/);
    expect(ascii[4]).toContain('Y2');
  });

  it('an unlabelled session shows its first question, loaded for the rows on screen only', () => {
    const d = new Driver(80, 24);
    const fx = d.send({
      type: 'sessions',
      sessions: [{ sid: 'cccc', label: null, created_at: '', n_nodes: 3 }],
    });
    expect(fx).toContainEqual({ type: 'loadTitles', sids: ['cccc'] });
    d.send({ type: 'titles', titles: [['cccc', 'how do I \x1b[31mfix this']] });
    expect(view(d.state).lines()[1]).toMatch(/^│▸ AR {2}how do I fix this\s+3/);
    expect(d.send({ type: 'key', key: 'j', action: 'move.down' })).not.toContainEqual(
      expect.objectContaining({ type: 'loadTitles' }),
    );
  });

  it('the question box shows the tail of long input and where it will land', () => {
    const d = new Driver(80, 24);
    d.key('j', 'l', 'l', 'a');
    for (const c of 'a long question '.repeat(10)) d.key(c === ' ' ? 'space' : c);
    const lines = view(d.state).lines().join('\n');
    expect(lines).toContain('ask under aaaa-000001');
    expect(lines).toMatch(/> .*question ▏/);
    expect(lines).toContain('Enter asks · Esc cancels');
  });
});

describe('transcript layout', () => {
  const mk = (i: number, sid = 'aaaa'): Turn => ({
    bates: `${sid}-${String(i).padStart(6, '0')}`,
    sid,
    parent_bates: null,
    is_top: i === 1,
    question: `question ${i}`,
    answer_text: 'line\n'.repeat(i * 3).trim(),
    cited_titles: i === 2 ? ['A title'] : [],
    audit: 'grounded',
    created_at: '2026-11-01T10:00:00Z',
    node_hash: '1'.repeat(64),
    subtree_hash: '2'.repeat(64),
    n_children: 1,
    depth: i - 1,
  });

  it('marks the session at the root and where the path crosses into another session', () => {
    const doc = pathDoc([mk(1), mk(2), mk(3, 'bbbb')], 60, (sid) => (sid === 'bbbb' ? 'other' : null));
    expect(doc.block(0)[0]).toEqual({ role: 'session', text: 'session aaaa' });
    expect(doc.block(1).some((l) => l.role === 'cross')).toBe(false);
    expect(doc.block(1).find((l) => l.role === 'cite')?.text).toBe('  cited: A title');
    expect(doc.block(2)[0].role).toBe('cross');
    expect(doc.block(2)[0].text).toContain('crosses into session bbbb · other, forked from aaaa-000002');
    const header = doc.block(2).find((l) => l.role === 'header')!.text;
    // Issue 10: times carry their zone, the same string as the CLI prints for the turn.
    expect(header).toMatch(/^bbbb-000003 · grounded · 2026-11-01 \d\d:\d\d (UTC|[+-]\d\d:\d\d) · 1 child$/);
    expect(doc.block(2).find((l) => l.role === 'meta')!.text).toBe(
      'node 111111111111 · subtree 222222222222',
    );
  });

  it('scrolls line by line across blocks, clamped at both ends', () => {
    const doc = pathDoc([mk(1), mk(2), mk(3)], 40, () => null);
    const total = [0, 1, 2].reduce((n, i) => n + doc.block(i).length, 0);
    const h = 10;
    const max = maxPos(doc, h);
    expect(windowLines(doc, max, h)).toHaveLength(h);
    let p = { turn: 0, line: 0 };
    let steps = 0;
    for (;;) {
      const n = scrollBy(doc, p, 1, h);
      if (n.turn === p.turn && n.line === p.line) break;
      p = n;
      steps++;
    }
    expect(steps).toBe(total - h);
    expect(p).toEqual(max);
    expect(scrollBy(doc, max, -1000, h)).toEqual({ turn: 0, line: 0 });
    // automatic position: the end of the path, or the start of a selected turn too long to fit
    expect(autoPos(doc, h, false)).toEqual({ turn: 2, line: 0 });
    expect(autoPos(doc, 100, false)).toEqual({ turn: 0, line: 0 });
  });
});
