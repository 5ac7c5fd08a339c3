/** `r` in the reducer (features/resume): what opens, what is asked of the runtime, what the answers do. */
import { describe, expect, it } from 'vitest';
import { buildKeymap } from '../../src/keymap/index.js';
import type { Effect } from '../../src/ui/core/effects.js';
import { initialState } from '../../src/ui/core/state.js';
import { update } from '../../src/ui/core/update.js';
import { view } from '../../src/ui/core/view.js';
import type { ResumePreview } from '../../src/ui/features/resume/model.js';
import { Driver } from './fixtures.js';

const PLAN: ResumePreview = {
  bates: 'aaaa-000003',
  agent: 'Claude Code',
  sessionId: '11111111-2222-4333-8444-555555555555',
  project: '-home-me-app',
  projectsDir: '/home/me/.claude/projects',
  file: '/home/me/.claude/projects/-home-me-app/11111111-2222-4333-8444-555555555555.jsonl',
  cwd: '/home/me/app',
  lines: 12,
  turns: 3,
  leftOut: 1,
  command: 'claude --resume 11111111-2222-4333-8444-555555555555',
  program: 'claude',
};

/** Effects other than the reads every step may ask for (the Driver does not answer loadPath). */
const acts = (fx: Effect[]) => fx.filter((e) => e.type !== 'loadPath' && e.type !== 'loadTitles');

function frameText(d: Driver): string {
  const f = view(d.state);
  const rows: string[] = [];
  for (let y = 0; y < f.height; y++) rows.push(f.ch.slice(y * f.width, (y + 1) * f.width).join(''));
  return rows.join('\n');
}

describe('resume (r)', () => {
  it('on a turn: the overlay, planned by the runtime; y runs the session id shown; nothing before', () => {
    const d = new Driver(120, 40);
    d.key('j', 'l', 'l', 'j', 'j');
    const fx = acts(d.key('r'));
    expect(fx).toContainEqual({ type: 'planResume', bates: 'aaaa-000003' });
    expect(d.state.overlay).toMatchObject({ kind: 'resume', bates: 'aaaa-000003', plan: null });
    expect(acts(d.key('y'))).toEqual([]); // not planned yet: y does nothing
    d.send({ type: 'resumePlan', bates: 'aaaa-000003', plan: PLAN });
    const screen = frameText(d);
    expect(screen).toContain('resume aaaa-000003 in Claude Code');
    expect(screen).toContain('project  -home-me-app  (in /home/me/.claude/projects)');
    expect(screen).toContain('session  11111111-2222-4333-8444-555555555555 (new)');
    expect(screen).toContain('writes   12 lines from 3 turns; 1 line of other branches left out');
    expect(screen).toContain('runs     claude --resume 11111111-2222-4333-8444-555555555555');
    expect(screen).toContain('in       /home/me/app');
    expect(acts(d.key('enter'))).toEqual([
      { type: 'runResume', bates: 'aaaa-000003', sessionId: '11111111-2222-4333-8444-555555555555' },
    ]);
    expect(d.state.overlay).toBeNull();
    expect(d.state.busy).toBe('claude is running…');

    const back = d.send({
      type: 'resumeDone',
      bates: 'aaaa-000003',
      program: 'claude',
      exit: 'exit 0',
      added: ['cccc-000001', 'cccc-000002'],
      importError: null,
    });
    expect(d.state.busy).toBeNull();
    expect(d.state.message?.text).toBe('claude exit 0: 2 new turns under aaaa-000003');
    // the tree, the path and the chain are read again
    expect(back).toContainEqual({ type: 'loadSessions' });
    expect(back).toContainEqual({ type: 'syncChain' });
  });

  it('n or Esc cancels without asking the runtime for anything', () => {
    for (const k of ['n', 'escape']) {
      const d = new Driver();
      d.key('j', 'l', 'l', 'j', 'j', 'r');
      d.send({ type: 'resumePlan', bates: 'aaaa-000003', plan: PLAN });
      expect(acts(d.key(k))).toEqual([]);
      expect(d.state.overlay).toBeNull();
    }
  });

  it('a refusal the agent layer can explain (a missing folder) is shown in the overlay', () => {
    const d = new Driver(120, 40);
    d.key('j', 'l', 'l', 'j', 'j', 'r');
    d.send({
      type: 'resumeRefused',
      bates: 'aaaa-000003',
      code: 'cwd_missing',
      error: 'the working directory of aaaa-000003 (/gone) no longer exists: nothing was written',
    });
    const ov = d.state.overlay;
    expect(ov?.kind === 'resume' && ov.refusal).toMatch(/no longer exists: nothing was written$/);
    expect(frameText(d)).toContain('cannot resume aaaa-000003');
    expect(acts(d.key('enter'))).toEqual([]); // closes, runs nothing
    expect(d.state.overlay).toBeNull();
  });

  it('a turn of an agent arborist cannot resume into: one line in the status line, no overlay, nothing run', () => {
    const d = new Driver(120, 40);
    d.key('j', 'l', 'l', 'j', 'j', 'r');
    const why =
      "aaaa-000003 came from OpenCode: OpenCode resumes only sessions in its own database, and arborist never writes another tool's store";
    const [s] = update(d.state, {
      type: 'resumeRefused',
      bates: 'aaaa-000003',
      code: 'not_resumable',
      error: why,
    });
    expect(s.overlay).toBeNull();
    expect(s.message).toMatchObject({ text: why, level: 'error' });
    expect(s.message?.text).not.toContain('\n');

    // a turn asked in arborist is told about ask, by the key the user has
    const km = buildKeymap({ ask: 'A', archived: 'Z' });
    let t = initialState({ cols: 100, rows: 30, keymap: km });
    t = { ...t, overlay: { kind: 'resume', bates: 'x-000001', plan: null, refusal: null, scroll: 0 } };
    const [n] = update(t, {
      type: 'resumeRefused',
      bates: 'x-000001',
      code: 'not_resumable',
      error: 'x-000001 was asked in arborist: there is no agent to resume it in',
    });
    expect(n.overlay).toBeNull();
    expect(n.message?.text).toMatch(/no agent to resume it in; A asks a follow-up$/);
  });

  it('a session row, or a question still running: a message, no overlay', () => {
    const d = new Driver();
    d.key('j');
    expect(acts(d.key('r'))).toEqual([]);
    expect(d.state.message?.text).toBe('select a turn to resume it in its agent');
    d.key('l', 'l', 'j', 'j');
    d.state = { ...d.state, ask: { mode: 'ask', parent: null, session: null, question: 'q', answer: '' } };
    expect(acts(d.key('r'))).toEqual([]);
    expect(d.state.overlay).toBeNull();
    expect(d.state.message?.text).toMatch(/a question is still running/);
  });
});
