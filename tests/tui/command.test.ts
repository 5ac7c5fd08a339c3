import { describe, expect, it } from 'vitest';
import { demoShard, start } from './helpers.js';

describe('the : command line in the browser', () => {
  it(':cd BATES selects that turn; :find wal shows hits; :branches opens them; Esc closes', async () => {
    const d = demoShard();
    const wal = d.sid['sqlite wal'];
    const t = await start({ db: d.db, cols: 100, rows: 30 });
    t.press(':');
    await t.waitFor('┌ command');
    await t.waitFor('Enter runs · Tab completes · Esc closes · :help lists the commands');
    t.type(`cd ${wal}-000003`);
    // the help of the command being typed, from the command table
    await t.waitFor(':cd <bates|seq|label>  go to a turn');
    t.press('enter');
    await t.waitFor(`${wal}-000003 depth 1`);
    expect(t.screen()).not.toContain('┌ command');
    expect(t.screen()).toContain('Q Can two processes write at the same time?');
    const row = t.find('000003 Can two processes')!;
    expect(t.cell(row.x, row.y)!.getBgColor()).toBe(24); // selected, the tree focused
    // :find opens the find box with the query asked
    t.press(':');
    t.type('find wal');
    t.press('enter');
    await t.waitFor('/ wal▏');
    await t.waitFor(`[${wal}-000001]`);
    t.press('escape');
    await t.waitFor((x) => !x.screen().includes('/ wal▏'));
    // :branches: the selected session's branch points
    t.press(':');
    t.type('branches');
    t.press('enter');
    await t.waitFor(`branch points in ${wal}`);
    await t.waitFor(`${wal}-000001 ⑂2`);
    t.press('escape');
    await t.waitFor((x) => !x.screen().includes('branch points in'));
    // Esc closes the command line without running anything
    t.press(':');
    t.type('quit');
    await t.waitFor(': quit▏');
    t.press('escape');
    await t.waitFor((x) => !x.screen().includes('┌ command'));
    expect(t.screen()).toContain(`${wal}-000003 depth 1`);
  });

  it('Tab completes a command and a Bates id (reading the turns of a closed session); errors are one clear line', async () => {
    const d = demoShard();
    const tmux = d.sid.tmux;
    const t = await start({ db: d.db, cols: 100, rows: 30 });
    t.press(':');
    t.type('ch');
    t.press('tab');
    await t.waitFor(': chain-check▏');
    t.press('C-u');
    t.type(`cd ${tmux}`);
    t.press('tab');
    await t.waitFor(`: cd ${tmux}-▏`);
    // tmux is not expanded: its turns are read, and the same Tab completes as far as they agree
    t.press('tab');
    await t.waitFor(`: cd ${tmux}-00000▏`);
    await t.waitFor(`${tmux}-000001  ${tmux}-000002  ${tmux}-000003`);
    t.type('2');
    t.press('enter');
    await t.waitFor(`${tmux}-000002 depth 1`);
    // an unknown command: said in the box, which stays open to be corrected
    t.press(':');
    t.type('frobnicate');
    t.press('enter');
    await t.waitFor("unknown command ':frobnicate' (:help lists the commands)");
    expect(t.screen()).toContain(': frobnicate▏');
    t.press('C-u');
    t.type('export');
    t.press('enter');
    await t.waitFor(':export: the browser has no stdout to print to');
    // an unknown id: the box closes, the status bar says so, the selection stays
    t.press('C-u');
    t.type('cd zzzz9999-000001');
    t.press('enter');
    await t.waitFor('no turn zzzz9999-000001');
    expect(t.screen()).not.toContain('┌ command');
    t.press(':');
    t.type('cd nolabel');
    t.press('enter');
    await t.waitFor("no session 'nolabel'");
    expect(t.screen()).toContain(`┌ ${tmux}-000002 · grounded`); // the selection stayed
    // :help opens the help, whose last group lists the commands
    t.press(':');
    t.type('help');
    t.press('enter');
    await t.waitFor('┌ keys');
    t.press('end');
    await t.waitFor('Commands (after :)');
    expect(t.screen()).toMatch(/:chain-check\s+check the whole audit chain/);
    t.press('escape');
    t.press(':');
    t.type('quit');
    t.press('enter');
    expect(await t.close()).toMatchObject({ code: 0 });
  });
});
