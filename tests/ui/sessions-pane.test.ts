/** The sessions pane: agent badges, projects and titles on the rows; grouped by project; filtered by agent or project. */
import { afterEach, describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { layout } from '../../src/ui/core/layout.js';
import { view } from '../../src/ui/core/view.js';
import type { SessionLike } from '../../src/ui/features/tree/model.js';
import { SessionSource } from '../../src/ui/runtime/sessions.js';
import { tempDb } from '../support/tmp.js';
import { Driver, node, ORIGINS } from './fixtures.js';

const AGENTS = {
  claude: { name: 'Claude Code', badge: 'CC' },
  codex: { name: 'Codex CLI', badge: 'CX' },
  arborist: { name: 'arborist export', badge: 'AR' },
};

const day = (d: number) => `2026-11-${String(d).padStart(2, '0')}T10:00:00.000Z`;
/** Newest first, as the store lists them. */
const LIST: SessionLike[] = [
  { sid: 's5', label: null, created_at: day(5), n_nodes: 3 },
  { sid: 's4', label: 'labelled', created_at: day(4), n_nodes: 1 },
  { sid: 's3', label: null, created_at: day(3), n_nodes: 7 },
  { sid: 's2', label: null, created_at: day(2), n_nodes: 2 },
  { sid: 's1', label: null, created_at: day(1), n_nodes: 4 },
];

function driver(cols = 100, rows = 30): Driver {
  ORIGINS.set('s5', { agent: 'claude', project: '/home/me/src/arborist' });
  ORIGINS.set('s4', { agent: 'codex', project: '/srv/shop' });
  ORIGINS.set('s3', { agent: 'codex', project: '/home/me/src/arborist' });
  ORIGINS.set('s2', { agent: 'claude', project: '/srv/mail\x1b[2J' });
  const d = new Driver(cols, rows, AGENTS);
  d.state = { ...d.state, now: Date.parse(day(6)) };
  d.send({ type: 'sessions', sessions: LIST });
  d.send({
    type: 'titles',
    titles: [
      ['s5', 'Fix the parser'],
      ['s3', 'Ship it'],
      ['s2', 'Open ports'],
      ['s1', 'asked here'],
    ],
  });
  return d;
}

const tree = (d: Driver) =>
  view(d.state)
    .lines()
    .map((l) => l.slice(0, layout(d.state.cols, d.state.rows).tree.w));

afterEach(() => ORIGINS.clear());

describe('the rows', () => {
  it('show the agent badge, the project shortened from the left, the title, turns and age', () => {
    const d = driver();
    const t = tree(d);
    expect(t[1]).toMatch(/^│▸ CC {2}…arborist Fix the parser\s+3\s+1d│$/);
    expect(t[2]).toMatch(/^│▸ CX {2}\/srv\/shop labelled\s+1\s+2d│$/);
    // another tool's working directory is untrusted: no escape reaches the frame
    expect(t[4]).toMatch(/^│▸ CC {2}\/srv\/mail Open ports\s+2\s+4d│$/);
    expect(t.join('\n')).not.toContain('\x1b');
    // asked here: AR, no project: its column left blank, so that its title starts where the others do
    expect(t[5]).toMatch(/^│▸ AR {12}asked here\s+4\s+5d│$/);
  });

  it('titles start in one column: a short project, or none, is padded to the widest on screen', () => {
    // Each row's project had its own width: a list of /tmp, /srv/shop and …arborist rows read as a zigzag of titles.
    const d = driver();
    d.send({ type: 'origins', origins: [['s4', { agent: 'codex', project: '/tmp' }]], of: d.state.sessions });
    const t = tree(d);
    expect(t[2]).toMatch(/^│▸ CX {2}\/tmp {6}labelled\s+1\s+2d│$/);
    const starts = ['Fix the parser', 'labelled', 'Ship it', 'Open ports', 'asked here'].map((x, i) =>
      t[i + 1].indexOf(x),
    );
    expect(new Set(starts).size).toBe(1);
  });

  it("the selected session's summary wraps its agent and project: their end (what tells two folders apart) was cut", () => {
    const d = driver(80, 24);
    const project = '/work/scratch-reader-opencode/gen/home-new/shop';
    d.send({ type: 'origins', origins: [['s5', { agent: 'claude', project }]], of: d.state.sessions });
    const l = layout(80, 24).textIn;
    const pane = view(d.state)
      .lines()
      .map((x) => x.slice(l.x, l.x + l.w).trimEnd());
    const at = pane.findIndex((x) => x.startsWith('Claude Code ·'));
    const end = pane.findIndex((x) => x.startsWith('3 turns · created '));
    expect(at).toBeGreaterThan(0);
    expect(pane.slice(at, end).join('')).toBe(`Claude Code ·${project}`);
    // and its title, which the row cuts short at this width, whole
    expect(pane[at - 1]).toBe('session s5 · Fix the parser');
  });

  it('asks for the titles and origins of the rows on screen only, labelled ones included', () => {
    const many: SessionLike[] = Array.from({ length: 60 }, (_, i) => ({
      sid: `m${i}`,
      label: i % 2 ? 'named' : null,
      created_at: day(1),
      n_nodes: 1,
    }));
    const d = new Driver(80, 24);
    const fx = d.send({ type: 'sessions', sessions: many });
    const asked = fx.find((e) => e.type === 'loadTitles');
    expect(asked).toEqual({ type: 'loadTitles', sids: many.slice(0, 21).map((s) => s.sid) });
    expect(fx).not.toContainEqual({ type: 'loadOrigins' });
  });

  it("the help explains the badges, from the agents' table", () => {
    const d = driver();
    const agents = d.state.help.find((g) => g.group.startsWith('Agents'));
    expect(agents).toBeDefined();
    expect(agents!.rows).toContainEqual(['CX', 'Codex CLI']);
    expect(agents!.rows.find(([b]) => b === 'AR')?.[1]).toMatch(/asked here/);
  });
});

describe('grouped by project', () => {
  it('P reads every origin, then lists a heading per project, newest activity first; Left closes one', () => {
    const d = driver();
    const fx = d.key('P');
    expect(fx).toContainEqual({ type: 'loadOrigins' });
    expect(d.state.grouping).toBe('project');
    let t = tree(d);
    expect(t[0]).toContain('sessions 5 · by project');
    // /home/me/src/arborist holds the newest session (s5), then /srv/shop (s4), then s2's project, then none
    expect(t[1]).toMatch(/^│▾ \/home\/me\/src\/arborist\s+2\s+1d│$/);
    expect(t[2]).toMatch(/^│▸ CC {2}Fix the parser/); // the project is the heading's, not repeated
    expect(t[3]).toMatch(/^│▸ CX {2}Ship it/);
    expect(t[4]).toMatch(/^│▾ \/srv\/shop\s+1\s+2d│$/);
    expect(t[6]).toMatch(/^│▾ \/srv\/mail\s+1\s+4d│$/);
    expect(t[8]).toMatch(/^│▾ \(no project\)\s+1\s+5d│$/);
    // the selection stayed on its session; Left goes to its heading, Left again closes it
    expect(d.selKey).toBe('s:s5');
    d.key('left');
    expect(d.selKey).toBe('g:/home/me/src/arborist');
    d.key('left');
    t = tree(d);
    expect(t[1]).toMatch(/^│▸ \/home\/me\/src\/arborist\s+2/);
    expect(t[2]).toMatch(/^│▾ \/srv\/shop\s/);
    // Right opens it again; its heading in the transcript pane says what it is
    d.key('right');
    expect(tree(d)[2]).toMatch(/^│▸ CC {2}Fix the parser/);
    expect(view(d.state).lines().join('\n')).toContain('project /home/me/src/arborist');
    // P again: by age, every session, the selection kept where it can be
    d.key('j', 'P');
    expect(d.state.grouping).toBe('none');
    expect(tree(d)[1]).toMatch(/^│▸ CC {2}…arborist Fix the parser/);
    expect(d.selKey).toBe('s:s5');
  });
});

describe('the filter prompt', () => {
  it('F opens it; Tab completes agents and projects; Enter keeps the matching sessions; the title says so', () => {
    const d = driver();
    d.key('F');
    expect(d.state.overlay?.kind).toBe('filter');
    expect(d.effects).toContainEqual({ type: 'loadOrigins' });
    d.key('c', 'o', 'd', 'tab');
    expect(d.state.overlay).toMatchObject({ text: 'agent:codex' });
    d.key('tab'); // the only candidate: it stays
    expect(d.state.overlay).toMatchObject({ text: 'agent:codex' });
    d.key('enter');
    expect(d.state.overlay).toBeNull();
    let t = tree(d);
    expect(t[0]).toContain('sessions 2 · filter agent:codex');
    expect(t[1]).toMatch(/^│▸ CX {2}\/srv\/shop labelled/);
    expect(t[2]).toMatch(/^│▸ CX {2}…arborist Ship it/);
    expect(t[3]).toMatch(/^│\s+│$/);
    // a project by a part of its path, Tab cycling through the candidates, then grouping on top
    d.key('F', 'C-u', 's', 'r', 'v', 'tab');
    expect(d.state.overlay).toMatchObject({ text: 'project:/srv/mail' });
    expect(view(d.state).lines().join('\n')).toContain('1/2: project:/srv/shop');
    d.key('tab');
    expect(d.state.overlay).toMatchObject({ text: 'project:/srv/shop' });
    d.key('C-w', 'p', 'r', 'o', 'j', 'e', 'c', 't', ':', 's', 'r', 'v', 'enter', 'P');
    t = tree(d);
    // too long for the pane's title in full: the short form keeps the filter in sight
    expect(t[0]).toContain('2 · by proj · project:srv');
    expect(t[1]).toMatch(/^│▾ \/srv\/shop\s+1\s+2d│$/);
    expect(t[2]).toMatch(/^│▸ CX {2}labelled/);
    expect(t[3]).toMatch(/^│▾ \/srv\/mail\s+1\s+4d│$/);
    expect(t[4]).toMatch(/^│▸ CC {2}Open ports/);
    expect(t[5]).toMatch(/^│\s+│$/);
    // an empty filter shows every session again
    d.key('F', 'C-u', 'enter', 'P');
    expect(d.state.filter).toBe('');
    expect(tree(d)[0]).toMatch(/sessions 5 ─/);
  });

  it('a turn revealed in a hidden session (find, a link) opens its heading, or clears the filter, to show it', () => {
    const d = driver();
    d.key('P', 'left', 'left'); // /home/me/src/arborist closed: s5 and s3 hidden
    d.send({ type: 'outline', sid: 's3', nodes: [node('s3', 1, 0)], reveal: 's3-000001' });
    expect(d.selKey).toBe('s3-000001');
    expect(d.state.closedGroups.size).toBe(0);
    d.key('F', 'C-u', 'a', 'g', 'e', 'n', 't', ':', 'c', 'l', 'a', 'u', 'd', 'e', 'enter');
    expect(d.state.list.some((r) => r.session >= 0 && d.state.sessions[r.session].sid === 's3')).toBe(false);
    d.send({ type: 'outline', sid: 's3', nodes: [node('s3', 1, 0)], reveal: 's3-000001' });
    expect(d.selKey).toBe('s3-000001');
    expect(d.state.filter).toBe('');
    expect(d.state.message?.text).toContain('filter agent:claude cleared');
  });

  it('Esc leaves the filter as it was', () => {
    const d = driver();
    d.key('F', 'x', 'escape');
    expect(d.state.overlay).toBeNull();
    expect(d.state.filter).toBe('');
  });
});

describe('the session source', () => {
  it("gives the agent's own title when the source has one, else the first question, and each origin", () => {
    const s = Shard.open(tempDb());
    const a = s.createSession({
      source: { source: 'claude', source_session: 'A', info: { cwd: '/p/a', title: 'Own title' } },
    });
    s.addTurn({ session: a.sid, question: 'first question of a', answer_text: 'x' });
    const b = s.createSession({ source: { source: 'codex', source_session: 'B', info: { cwd: '/p/b' } } });
    s.addTurn({ session: b.sid, question: 'first question of b', answer_text: 'x' });
    const c = s.addTurn({ question: 'asked here', answer_text: 'x' });
    const src = new SessionSource(s, () => false);
    const got = src.titles([a.sid, b.sid, c.sid]);
    expect(got.titles).toEqual([
      [a.sid, 'Own title'],
      [b.sid, 'first question of b'],
      [c.sid, 'asked here'],
    ]);
    expect(got.origins).toEqual([
      [a.sid, { agent: 'claude', project: '/p/a' }],
      [b.sid, { agent: 'codex', project: '/p/b' }],
      [c.sid, { agent: 'arborist', project: '', here: true }],
    ]);
    s.close();
  });
});
