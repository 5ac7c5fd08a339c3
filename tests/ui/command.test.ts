import { describe, expect, it } from 'vitest';
import { COMMANDS_GROUP } from '../../src/keymap/index.js';
import type { Effect } from '../../src/ui/core/effects.js';
import { selectedBates } from '../../src/ui/core/selectors.js';
import { view } from '../../src/ui/core/view.js';
import { A, Driver } from './fixtures.js';

/** Opens the command line and types `text` (without Enter). */
function typed(d: Driver, text: string): Effect[] {
  return d.key(':', ...[...text].map((c) => (c === ' ' ? 'space' : c)));
}

/** Answers a goto effect as the runtime does for a Bates id of the fixtures: reveal, then `arrived`. */
function land(d: Driver, fx: Effect[]): void {
  const g = fx.find((e) => e.type === 'goto');
  if (g?.type !== 'goto') throw new Error(`no goto in ${JSON.stringify(fx)}`);
  d.send({ type: 'outline', sid: g.target.slice(0, 4), nodes: A, reveal: g.target });
  d.send({ type: 'arrived', bates: g.target, follow: g.follow });
}

describe('the : command line', () => {
  it(': opens it; Tab completes a command, a session id, then (after reading them) its Bates ids; Enter runs :cd', () => {
    const d = new Driver();
    d.key(':');
    expect(d.state.overlay).toEqual({ kind: 'command', text: '', matches: [], note: null });
    d.key('escape');
    typed(d, 'c');
    d.key('tab');
    // two commands start with c: the line stays, the matches are shown
    expect(d.state.overlay).toMatchObject({ text: 'c', matches: ['cd', 'chain-check'] });
    d.key('d', 'tab');
    expect(d.state.overlay).toMatchObject({ text: 'cd ', matches: [] });
    d.key('a', 'tab');
    expect(d.state.overlay).toMatchObject({ text: 'cd aaaa-' });
    // aaaa's turns are not loaded: the Tab asks for them and completes when they arrive
    const fx = d.key('tab');
    expect(fx).toContainEqual({ type: 'loadOutline', sid: 'aaaa' });
    expect(d.state.overlay).toMatchObject({
      text: 'cd aaaa-00000',
      matches: ['aaaa-000001', 'aaaa-000002', 'aaaa-000003', 'aaaa-000004', 'aaaa-000005'],
    });
    const run = d.key('3', 'enter');
    expect(d.state.overlay).toBeNull();
    expect(run).toContainEqual({
      type: 'goto',
      target: 'aaaa-000003',
      sid: 'bbbb',
      from: null,
      follow: null,
    });
    land(d, run);
    expect(selectedBates(d.state)).toBe('aaaa-000003');
    expect(d.state.focus).toBe('tree');
  });

  it(':find opens the find box with the query asked; :branches opens the branch points (of a target too)', () => {
    const d = new Driver();
    const fx = typed(d, 'find wal');
    expect(fx).toEqual([]);
    const run = d.key('enter');
    expect(d.state.overlay).toMatchObject({ kind: 'find', text: 'wal' });
    expect(run).toContainEqual(expect.objectContaining({ type: 'search', query: 'wal' }));
    d.key('escape');
    typed(d, 'branches');
    expect(d.key('enter')).toContainEqual({ type: 'loadBranches', sid: 'bbbb' });
    expect(d.state.overlay).toMatchObject({ kind: 'branches', sid: 'bbbb' });
    d.key('escape');
    typed(d, 'branches aaaa-000002');
    const go = d.key('enter');
    expect(go).toContainEqual(expect.objectContaining({ type: 'goto', follow: 'branches' }));
    land(d, go);
    expect(d.state.overlay).toMatchObject({ kind: 'branches', sid: 'aaaa' });
  });

  it(':path and :show focus the transcript; :chain-check checks; :help shows the commands; :quit quits', () => {
    const d = new Driver();
    typed(d, 'path aaaa-000004');
    land(d, d.key('enter'));
    expect(d.state).toMatchObject({ focus: 'transcript', tpos: { turn: 0, line: 0 } });
    expect(selectedBates(d.state)).toBe('aaaa-000004');
    typed(d, 'chain-check');
    expect(d.key('enter')).toContainEqual({ type: 'checkChain', full: true });
    typed(d, 'help');
    d.key('enter');
    expect(d.state.overlay?.kind).toBe('help');
    const cmds = d.state.help.find((g) => g.group === COMMANDS_GROUP)!;
    expect(cmds.rows[0]).toEqual([':cd', expect.stringMatching(/^<bates\|seq\|label>: go to a turn/)]);
    expect(cmds.rows.map(([k]) => k)).not.toContain(':export');
    d.key('escape');
    typed(d, 'q');
    expect(d.key('enter')).toContainEqual({ type: 'quit' });
    expect(d.state.quitting).toBe(true);
  });

  it('an unknown command, a missing argument, a REPL-only command: a note in the box, which stays open; Esc closes', () => {
    const d = new Driver();
    typed(d, 'frob now');
    expect(d.key('enter')).toEqual([]);
    expect(d.state.overlay).toMatchObject({
      kind: 'command',
      text: 'frob now',
      note: { level: 'error', text: "unknown command ':frob' (:help lists the commands)" },
    });
    d.key('C-u', 'c', 'd', 'enter');
    expect(d.state.overlay).toMatchObject({ note: { text: 'usage: :cd <bates|seq|label>' } });
    d.key('C-u', ...'export'.split(''), 'enter');
    expect(d.state.overlay).toMatchObject({
      note: { text: expect.stringContaining('arborist export BATES') },
    });
    // typing clears the note; the box shows the help of the command being typed
    d.key('C-u', 'f', 'i', 'n', 'd');
    expect(d.state.overlay).toMatchObject({ note: null });
    expect(view(d.state).lines().join('\n')).toContain(':find QUERY  find turns of every session');
    d.key('escape');
    expect(d.state.overlay).toBeNull();
  });
});
