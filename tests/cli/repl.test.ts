import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { cli } from '../support/cli.js';
import { tempDb, tempDir } from '../support/tmp.js';

/** The answer command of the TUI tests: "Echo: <question>. The answer streams in two parts." (ANSWER_TEXT overrides). */
const ANSWER = fileURLToPath(new URL('../tui/fixtures/answer.mjs', import.meta.url));
const ANSWER_CMD = `${process.execPath} ${ANSWER}`;

const HOSTILE = 'evil \x1b]52;c;ZXZpbA==\x07clip\x1b[2J board \x9b31mred \x1b]0;pwned\x07zebra crossing';

/**
 * A ("rust lifetimes", older): a1 ─┬ a2
 *                                  └ a3
 * B (newer, so `session` resumes it): b1 (its question is hostile)
 */
function shard(): { db: string; A: string; B: string } {
  const db = tempDb();
  const s = Shard.open(db);
  const A = s.createSession({ label: 'rust lifetimes', created_at: '2026-11-01T10:00:00.000Z' }).sid;
  const a1 = s.addTurn({
    session: A,
    question: 'What is a lifetime in Rust?',
    answer_text: 'The region of code for which a reference is valid.',
  });
  s.addTurn({ parent: a1.bates, question: 'And for structs?', answer_text: 'A lifetime parameter.' });
  s.addTurn({ parent: a1.bates, question: 'And for closures?', answer_text: 'They capture.' });
  const B = s.createSession({ label: 'wal', created_at: '2026-11-02T10:00:00.000Z' }).sid;
  s.addTurn({ session: B, question: HOSTILE, answer_text: `answer with ${HOSTILE}` });
  s.close();
  return { db, A, B };
}

function session(db: string, lines: string[], args: string[] = [], env: NodeJS.ProcessEnv = {}) {
  return cli(['session', '--db', db, '--answer-cmd', ANSWER_CMD, ...args], {
    input: `${lines.join('\n')}\n`,
    env: { ARBORIST_HOME: tempDir('arborist-home-'), ...env },
  });
}

const ESC = /[\x1b\x07\x9b\x9d]/;

describe('arborist session, piped (one block of output per line read, no prompt, no colour)', () => {
  it('asks, /cd to a turn of another session and asks there, /find, /branches; bad lines are said and skipped', () => {
    const { db, A, B } = shard();
    const r = session(db, [
      'first question here', // under B's newest turn (the newest session is resumed)
      `/cd ${A}-000001`, // a turn of another session
      'and in async code?', // lands under it, in its session
      '/find lifetime',
      '/branches',
      '/frobnicate now',
      '/cd zzzz9999-000001',
      '/cd nosuchlabel',
      `/cd ${A}-000099`,
      '/show',
      '/quit',
      'never asked',
    ]);
    // B's newest turn got a child in B; A-000001 got a third child, in A
    const s = Shard.open(db, { readonly: true });
    try {
      expect(s.getNode(`${B}-000002`)).toMatchObject({
        parent_bates: `${B}-000001`,
        question: 'first question here',
      });
      expect(s.getNode(`${A}-000004`)).toMatchObject({
        parent_bates: `${A}-000001`,
        sid: A,
        question: 'and in async code?',
        audit: 'fresh',
      });
      // /quit stopped the script: its last line was never asked
      expect(s.search('never').hits).toHaveLength(0);
      expect(s.getSession(A)!.n_nodes).toBe(4);
      expect(s.getSession(B)!.n_nodes).toBe(2);
    } finally {
      s.close();
    }
    const out = r.stdout;
    // each line's output in the order of the lines
    const at = (x: string) => {
      const i = out.indexOf(x);
      expect(i, `${x} in:\n${out}`).toBeGreaterThanOrEqual(0);
      return i;
    };
    const order = [
      at('Echo: first question here. The answer streams in two parts.\n'),
      at(`[${B}-000002] fresh\n`),
      at(`${A}-000001 manual What is a lifetime in Rust? ⑂2\n`), // /cd says where it went
      at('Echo: and in async code?. The answer streams in two parts.\n'),
      at(`[${A}-000004] fresh\n`),
      at(`[${A}-000001] manual What is a lifetime in Rust?`), // a find hit
      at(`${A}-000001  3`), // the branch point, now with three children
      at('Q and in async code?'), // /show: the current turn, the new one
    ];
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    // the bad lines: one clear line each on stderr, and the REPL went on
    expect(r.stderr).toContain("arborist: unknown command '/frobnicate' (/help lists the commands)\n");
    expect(r.stderr).toContain('arborist: no turn zzzz9999-000001\n');
    expect(r.stderr).toMatch(/^arborist: no session .*nosuchlabel/m);
    expect(r.stderr).toContain(`arborist: no turn ${A}-000099\n`);
    expect(r.stderr.trim().split('\n')).toHaveLength(4);
    // a script learns that some of its lines were refused
    expect(r.code).toBe(2);
    expect(out).not.toMatch(ESC);
  });

  it('--new starts a session (labelled) on the first question; follow-ups chain; /cd .. at a root starts a new tree', () => {
    const { db } = shard();
    const r = session(
      db,
      ['one', 'two', '/cd ..', '/cd ..', 'three', '/tree', '/path'],
      ['--new', '--label', 'fresh'],
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0); // end of input: every line went well
    const s = Shard.open(db, { readonly: true });
    try {
      const ses = s.listSessions().find((x) => x.label === 'fresh')!;
      const sid = ses.sid;
      expect(s.sessionTree(sid).map((n) => [n.bates, n.parent_bates, n.question])).toEqual([
        [`${sid}-000001`, null, 'one'],
        [`${sid}-000002`, `${sid}-000001`, 'two'],
        [`${sid}-000003`, null, 'three'],
      ]);
      expect(r.stdout).toContain(`${sid}: the next question starts a new tree in this session\n`);
      // /path: the root down to the current turn, which is the new root alone
      expect(r.stdout.trimEnd().endsWith(`${sid}-000003 fresh three`)).toBe(true);
    } finally {
      s.close();
    }
  });

  it('resumes SID (or a label) at its newest turn; /help lists the table; no stored text reaches stdout raw', () => {
    const { db, A, B } = shard();
    const r = session(
      db,
      [`/cd ${B}-000001`, '/show', '/tree', '/path', `/find zebra`, '/export', '/help'],
      ['rust lifetimes'],
      {
        ANSWER_TEXT: `streamed ${HOSTILE}`,
      },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(ESC);
    // the hostile text is shown, cleaned
    expect(r.stdout).toContain('clip board');
    expect(r.stdout).toContain('zebra crossing');
    for (const row of [
      '/cd <bates|seq|label>',
      '/find QUERY',
      '/branches [bates|sid]',
      '/tree [bates|sid]',
      '/list',
      '/path [bates]',
      '/show [bates]',
      '/chain-check',
      '/export [bates]',
      '/help',
      '/quit',
    ])
      expect(r.stdout).toMatch(new RegExp(`^  ${row.replace(/[[\]|/]/g, '\\$&')}\\s+\\S`, 'm'));
    // a streamed answer is cleaned too, and resuming by label starts at the session's newest turn
    const q = session(db, ['and then?'], ['rust lifetimes'], { ANSWER_TEXT: `streamed ${HOSTILE}` });
    expect(q.stdout).toMatch(/^streamed evil clip board red zebra crossing\n/);
    expect(q.stdout).not.toMatch(ESC);
    const s = Shard.open(db, { readonly: true });
    expect(s.getNode(`${A}-000004`)!.parent_bates).toBe(`${A}-000003`);
    s.close();
  });

  it('refuses bad start-up arguments in one line, exit 2', () => {
    const { db } = shard();
    const cases: [string[], RegExp][] = [
      [['session', 'nosuch', '--db', db], /^arborist: no session .*nosuch/],
      [['session', 'x', '--new', '--db', db], /^arborist: --new starts a new session: give it no SID\n$/],
      [['session', '--label', 'L', '--db', db], /^arborist: --label names the session --new starts\n$/],
      [['session', '--json', '--db', db], /^arborist: session reads and prints lines: it takes no --json\n$/],
      [['session', 'a', 'b', '--db', db], /^arborist: usage: arborist session/],
      [['session', 'x', '--db', `${tempDir()}/missing.db`], /^arborist: no shard at /],
    ];
    for (const [args, re] of cases) {
      const r = cli(args, { env: { ARBORIST_HOME: tempDir() } });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(re);
    }
  });
});
