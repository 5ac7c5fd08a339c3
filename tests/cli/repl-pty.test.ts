import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { tempDb } from '../support/tmp.js';
import { answerHome, start, withShard } from '../tui/helpers.js';

const HOSTILE = 'evil \x1b]52;c;ZXZpbA==\x07clip\x1b[2J board \x9b31mred \x1b]0;pwned\x07zebra crossing';

/** A: a1 ─┬ a2, a1 └ a3; B (newer): b1, whose question is hostile. */
function shard(): { db: string; A: string; B: string } {
  const db = tempDb();
  const s = Shard.open(db);
  const A = s.createSession({ label: 'rust', created_at: '2026-11-01T10:00:00.000Z' }).sid;
  const a1 = s.addTurn({ session: A, question: 'What is a lifetime?', answer_text: 'A region of code.' });
  s.addTurn({ parent: a1.bates, question: 'And for structs?', answer_text: 'A parameter.' });
  s.addTurn({ parent: a1.bates, question: 'And for closures?', answer_text: 'They capture.' });
  const B = s.createSession({ label: 'wal', created_at: '2026-11-02T10:00:00.000Z' }).sid;
  s.addTurn({ session: B, question: HOSTILE, answer_text: 'nothing to see' });
  s.close();
  return { db, A, B };
}

/** The last line on screen that holds something: where the prompt is. */
function lastLine(lines: string[]): string {
  return ([...lines].reverse().find((l) => l.trim() !== '') ?? '').trimEnd();
}

describe('arborist session at a terminal (pty)', () => {
  it('prompt with the Bates id; Tab completes a command and a Bates id; Ctrl-C cancels an answer, then hints; Ctrl-D exits 0', async () => {
    const { db, A, B } = shard();
    const t = await start({
      db,
      command: ['session'],
      cols: 100,
      rows: 30,
      env: { ARBORIST_HOME: answerHome(), ANSWER_TEXT: 'first half, second half', ANSWER_DELAY_MS: '10000' },
      ready: `${B}-000001> `,
    });
    // the newest session, at its newest turn; the prompt is coloured (cyan), the rest is not
    const at = t.find(`${B}-000001> `)!;
    expect(t.cell(at.x, at.y)!.getFgColor()).toBe(6);
    // Tab completes a command name...
    t.type('/ch');
    t.press('tab');
    await t.waitFor(`${B}-000001> /chain-check`);
    t.press('enter');
    await t.waitFor(/chain intact: 7 events, head 7:[0-9a-f]{64}/);
    // ...and a Bates id: the sid to `<sid>-`, then as far as its turns agree
    t.type(`/cd ${A}`);
    t.press('tab');
    await t.waitFor(`> /cd ${A}-`);
    t.press('tab');
    await t.waitFor(`> /cd ${A}-00000`);
    t.type('2');
    t.press('enter');
    await t.waitFor(`${A}-000002> `);
    // a slow answer streams; Ctrl-C cancels it: no turn is written, the prompt stays where it was
    t.type('slow one');
    t.press('enter');
    await t.waitFor('first half,');
    t.press('C-c');
    await t.waitFor('answer cancelled; no turn was added');
    await t.waitFor((x) => lastLine(x.lines()) === `${A}-000002>`);
    withShard(db, (s) => {
      expect(s.getSession(A)!.n_nodes).toBe(3);
      expect(s.children(`${A}-000002`)).toHaveLength(0);
    });
    // Ctrl-C at an empty prompt does not leave: it says how to
    t.press('C-c');
    await t.waitFor('(Ctrl-D or /quit leaves; Ctrl-C cancels a running answer)');
    // an unknown command: one line, and the REPL goes on
    t.type('/frob');
    t.press('enter');
    await t.waitFor("arborist: unknown command '/frob' (/help lists the commands)");
    await t.waitFor((x) => lastLine(x.lines()) === `${A}-000002>`);
    t.press('\x04'); // Ctrl-D
    expect(await t.close()).toMatchObject({ code: 0 });
  });

  it('asks: the answer streams below, the new turn becomes current; stored hostile text never reaches the terminal raw', async () => {
    const { db, A, B } = shard();
    const t = await start({
      db,
      command: ['session', A],
      cols: 100,
      rows: 30,
      env: { ARBORIST_HOME: answerHome() },
      ready: `${A}-000003> `,
    });
    t.type('does it stream?');
    t.press('enter');
    await t.waitFor('Echo: does it stream?. The answer streams in two parts.');
    await t.waitFor(`[${A}-000004] fresh`);
    await t.waitFor(`${A}-000004> `);
    withShard(db, (s) => expect(s.getNode(`${A}-000004`)!.parent_bates).toBe(`${A}-000003`));
    t.type(`/show ${B}-000001`);
    t.press('enter');
    await t.waitFor('zebra crossing');
    t.type('/find zebra');
    t.press('enter');
    await t.waitFor(`[${B}-000001] manual evil clip board red zebra crossing`);
    await t.settle();
    expect(t.clipboard).toEqual([]);
    expect(t.oscTitles).toEqual([]);
    expect(t.raw).not.toContain('\x1b]');
    expect(t.raw).not.toContain('\x9b');
    t.type('/quit');
    t.press('enter');
    expect(await t.close()).toMatchObject({ code: 0 });
  });

  it('TERM=dumb: no prompt and no escape sequence at all, one block per line', async () => {
    const { db, A } = shard();
    const t = await start({
      db,
      command: ['session', A],
      cols: 100,
      rows: 30,
      env: { TERM: 'dumb' },
      ready: null,
    });
    t.type('/path\r');
    await t.waitFor(`${A}-000003 manual And for closures?`);
    t.type('/nope\r');
    await t.waitFor("arborist: unknown command '/nope'");
    t.press('\x04');
    const exit = await t.close();
    expect(t.raw).not.toMatch(/[\x1b\x9b]/);
    expect(t.raw).not.toContain('> ');
    // a line was refused: the exit code says so, as for a script
    expect(exit.code).toBe(2);
  });
});
