import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { cli } from '../support/cli.js';
import { tempDb } from '../support/tmp.js';

/** A claude session in project "shop", a codex one in /home/ana/garden, one asked here; all mention "lifetime". */
function shard(): string {
  const db = tempDb();
  const s = Shard.open(db);
  s.createSession({
    sid: 'cccc',
    source: { source: 'claude', source_session: 'C1', info: { cwd: '/home/ana/shop', project: 'shop' } },
  });
  s.createSession({
    sid: 'xxxx',
    source: { source: 'codex', source_session: 'X1', info: { cwd: '/home/ana/garden' } },
  });
  s.createSession({ sid: 'aaaa' });
  const add = (session: string, day: string, question: string, answer: string) =>
    s.addTurn({ session, question, answer_text: answer, created_at: `${day}T12:00:00.000Z` });
  add('cccc', '2026-10-15', 'lifetime of a cart', 'carts expire');
  add('xxxx', '2026-11-02', 'codex question', 'the lifetime is bound by the borrow');
  add('aaaa', '2026-11-20', 'lifetime in arborist', 'asked here');
  s.close();
  return db;
}

const questions = (db: string, ...q: string[]) =>
  (cli(['find', ...q, '--db', db, '--json']).json() as { question: string }[]).map((h) => h.question).sort();

describe('arborist find with filters', () => {
  it('agent:, project:, after:, before:, in: narrow the search', () => {
    const db = shard();
    expect(questions(db, 'lifetime')).toHaveLength(3);
    expect(questions(db, 'lifetime', 'agent:codex')).toEqual(['codex question']);
    expect(questions(db, 'lifetime agent:arborist')).toEqual(['lifetime in arborist']);
    expect(questions(db, 'lifetime', 'project:shop')).toEqual(['lifetime of a cart']);
    expect(questions(db, 'lifetime', 'after:2026-11-01', 'before:2026-11-10')).toEqual(['codex question']);
    expect(questions(db, 'lifetime', 'in:question')).toEqual(['lifetime in arborist', 'lifetime of a cart']);
  });

  it('says each hit’s agent, project and date, in text and JSON', () => {
    const db = shard();
    const [hit] = cli(['find', 'borrow', '--db', db, '--json']).json() as Record<string, string>[];
    expect(hit).toMatchObject({ agent: 'codex', project: '/home/ana/garden', question: 'codex question' });
    expect(hit.created_at).toMatch(/^2026-11-02/);
    const text = cli(['find', 'cart', '--db', db]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/claude · \/home\/ana\/shop · 2026-10-15 · /);
  });

  it('names a session’s project the same in find, list and show: its working directory, else its own name', () => {
    const db = shard();
    const s = Shard.open(db);
    s.createSession({
      sid: 'nnnn',
      source: { source: 'claude', source_session: 'N1', info: { project: 'named-only' } },
    });
    s.addTurn({
      session: 'nnnn',
      question: 'walnut',
      answer_text: 'a walnut',
      created_at: '2026-11-21T12:00:00.000Z',
    });
    s.close();
    const projectIn = (sid: string) => {
      const listed = (cli(['list', '--db', db, '--json']).json() as { sid: string; project: string }[]).find(
        (r) => r.sid === sid,
      );
      const shown = cli(['show', `${sid}-000001`, '--db', db, '--json']).json() as { project?: string };
      return [listed?.project, shown.project];
    };
    const [cart] = cli(['find', 'cart', '--db', db, '--json']).json() as { project: string }[];
    expect(cart.project).toBe('/home/ana/shop');
    expect(projectIn('cccc')).toEqual(['/home/ana/shop', '/home/ana/shop']);
    const [walnut] = cli(['find', 'walnut', '--db', db, '--json']).json() as { project: string }[];
    expect(walnut.project).toBe('named-only');
    expect(projectIn('nnnn')).toEqual(['named-only', 'named-only']);
  });

  it('refuses a filter it cannot use, in one line, and notes an unknown one', () => {
    const db = shard();
    const bad = cli(['find', 'lifetime', 'after:soon', '--db', db]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/after: wants a date like 2026-11-01, not 'soon'/);
    const agent = cli(['find', 'lifetime', 'agent:gemini', '--db', db]);
    expect(agent.code).not.toBe(0);
    expect(agent.stderr).toMatch(/no agent 'gemini' in this shard \(agents: arborist, claude, codex\)/);
    const unknown = cli(['find', 'lifetime', 'colour:red', '--db', db]);
    expect(unknown.code).toBe(0);
    expect(unknown.stderr).toBe(
      'arborist: colour: is no filter (filters: agent: project: after: before: in:); searched it as words\n',
    );
    // a range no day is in: said, exit 2 (it was "no turns match (searched the turns in the dates asked)", exit 0)
    for (const range of [
      ['after:2026-08', 'before:2026-01'],
      ['after:2026-11-01', 'before:2026-11-01'],
    ]) {
      const empty = cli(['find', 'lifetime', ...range, '--db', db]);
      expect(empty.code, range.join(' ')).toBe(2);
      expect(empty.stderr, range.join(' ')).toMatch(
        /^arborist: after:\S+ is not before before:\S+: no day is in both\n$/,
      );
    }
    expect(cli(['find', 'lifetime', 'after:2026-10', 'before:2026-12', '--db', db]).code).toBe(0);
  });

  it('a mistyped filter name: one note with the filter meant, not a note of its spelling as a word', () => {
    const db = shard();
    const s = Shard.open(db);
    s.addTurn({ session: 'aaaa', question: 'which agent wrote this', answer_text: 'an agent did' });
    s.close();
    // The shard has the word "agent": `agnt` was searched as it too, and said as "(no 'agnt'; also searched agent)"
    // after "unknown filter 'agnt:' (searched as text; ...)".
    for (const args of [['agnt:x'], ['agnt:x', 'agent'], ['proj:shop', 'lifetime']]) {
      const r = cli(['find', ...args, '--db', db]);
      expect(r.code, args.join(' ')).toBe(0);
      const meant = args[0].startsWith('agnt')
        ? 'agnt: is no filter (did you mean agent:?)'
        : 'proj: is no filter (did you mean project:?)';
      expect(r.stderr, args.join(' ')).toBe(`arborist: ${meant}; searched it as words\n`);
    }
    const json = cli(['find', 'agnt:x', '--db', db, '--json']);
    expect(json.stderr).toBe('arborist: agnt: is no filter (did you mean agent:?); searched it as words\n');
    expect(Array.isArray(json.json())).toBe(true);
  });

  it('"searched N turns" counts the turns the filters leave, and gives no number a date filter would make wrong', () => {
    // It counted the whole shard whatever the filter: "agent:codex" over 1 codex turn said "searched 5 turns".
    const db = shard();
    const s = Shard.open(db);
    s.addTurn({
      session: 'cccc',
      question: 'more cart',
      answer_text: 'x',
      created_at: '2026-10-16T12:00:00.000Z',
    });
    s.addTurn({
      session: 'cccc',
      question: 'last cart',
      answer_text: 'y',
      created_at: '2026-10-17T12:00:00.000Z',
    });
    s.close();
    const none = (...q: string[]) => {
      const r = cli(['find', 'zeppelin', ...q, '--db', db]);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    };
    expect(none()).toBe('no turns match (searched 5 turns)\n');
    expect(none('agent:claude')).toBe('no turns match (searched 3 turns)\n');
    expect(none('agent:codex')).toBe('no turns match (searched 1 turn)\n');
    expect(none('agent:arborist')).toBe('no turns match (searched 1 turn)\n');
    expect(none('project:shop')).toBe('no turns match (searched 3 turns)\n');
    expect(none('agent:codex', 'project:shop')).toBe('no turns match (searched 0 turns)\n');
    expect(none('--scope', 'cccc')).toBe('no turns match (searched 3 turns)\n');
    expect(none('agent:codex', '--scope', 'cccc')).toBe('no turns match (searched 0 turns)\n');
    expect(none('in:question')).toBe('no turns match (searched 5 turns)\n');
    // The days hold no counts (node_days keeps id bounds): the turns of those days, said without a number.
    expect(none('after:2026-10-17')).toBe('no turns match (searched the turns in the dates asked)\n');
    expect(none('agent:claude', 'before:2026-10-16')).toBe(
      'no turns match (searched the turns in the dates asked)\n',
    );
  });
});
