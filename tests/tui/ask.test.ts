import { describe, expect, it } from 'vitest';
import { answerHome, demoShard, start, withShard } from './helpers.js';

describe('asking from the browser', () => {
  it('a asks a follow-up under the selected turn: the answer streams in, the new turn is selected', async () => {
    const d = demoShard();
    const tmux = d.sid.tmux;
    const t = await start({ db: d.db, cols: 100, rows: 30, env: { ARBORIST_HOME: answerHome() } });
    t.press('down', 'right', 'right', 'down', 'down');
    await t.waitFor(`${tmux}-000003 depth 2`);
    t.press('a');
    await t.waitFor(`ask under ${tmux}-000003`);
    t.type('does mosh need this too?');
    await t.waitFor('> does mosh need this too?');
    t.press('enter');
    await t.waitFor(`added ${tmux}-000004`);
    t.press('right'); // any key clears the message (Right on a leaf does nothing else)
    await t.waitFor(`${tmux}-000004 depth 3`);
    const screen = t.screen();
    expect(screen).toContain('Q does mosh need this too?');
    expect(screen).toContain('A Echo: does mosh need this too?. The answer streams in');
    expect(screen).toContain(`${tmux}-000004 · fresh`);
    // it sits under its parent in the tree, selected
    const row = t.find('000004 does mosh need this too?')!;
    expect(row).not.toBeNull();
    expect(t.cell(row.x, row.y)!.getBgColor()).toBe(24);
    // stored with its parent, and the chain stays intact (re-checked incrementally)
    withShard(d.db, (s) => expect(s.getNode(`${tmux}-000004`)!.parent_bates).toBe(`${tmux}-000003`));
    await t.waitFor(/chain ✓ 22 events/);
  });

  it('f forks into a new session whose first turn hangs under the selected turn', async () => {
    const d = demoShard();
    const wal = d.sid['sqlite wal'];
    const t = await start({ db: d.db, cols: 100, rows: 30, env: { ARBORIST_HOME: answerHome() } });
    t.press('down', 'down', 'right', 'right');
    await t.waitFor(`${wal}-000001 depth 0`);
    t.press('f');
    await t.waitFor(`fork: a new session under ${wal}-000001`);
    t.type('and on NFS?');
    t.press('enter');
    await t.waitFor(/forked into ([a-z0-9]+)-000001 \(new session\)/);
    const sid = /forked into ([a-z0-9]+)-/.exec(t.screen())![1];
    await t.waitFor('sessions 5');
    t.press('right'); // clears the message (a leaf: nothing else happens)
    await t.waitFor(`${sid}-000001 depth 1`);
    const screen = t.screen();
    expect(screen).toContain('▾ AR  and on NFS?');
    expect(screen).toContain(`⇢ crosses into session ${sid}`);
    // the parent now shows the new child as a link under it, in its own session
    expect(screen).toContain(`↳ ${sid}-000001 and on NFS?`);
    withShard(d.db, (s) => {
      const n = s.getNode(`${sid}-000001`)!;
      expect(n.parent_bates).toBe(`${wal}-000001`);
      expect(n.is_top).toBe(true);
    });
  });

  it('streams the answer into the transcript, and Esc cancels it: nothing is added', async () => {
    const d = demoShard();
    const tmux = d.sid.tmux;
    const t = await start({
      db: d.db,
      cols: 100,
      rows: 30,
      env: { ARBORIST_HOME: answerHome(), ANSWER_TEXT: 'first half, second half', ANSWER_DELAY_MS: '10000' },
    });
    t.press('down', 'right', 'right', 'a');
    await t.waitFor('ask under');
    t.type('slow one');
    t.press('enter');
    await t.waitFor(`asking under ${tmux}-000001… (Esc cancels)`);
    await t.waitFor('A first half,▍');
    expect(t.screen()).toContain('Q slow one');
    t.press('escape');
    await t.waitFor('question cancelled; nothing was added');
    expect(t.screen()).not.toContain('A first half');
    withShard(d.db, (s) => expect(s.getSession(tmux)!.n_nodes).toBe(3));
  });
});
