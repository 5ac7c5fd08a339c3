import { describe, expect, it } from 'vitest';
import { ask, bareRemote, expect0, host, hostIdOf, run, sync } from '../sync/helpers.js';
import { start } from './helpers.js';

describe('S: sync from the browser', () => {
  it('pulls another host’s session with progress, says what moved, and names the host in the transcript', async () => {
    const remote = bareRemote();
    const laptop = host('laptop', remote);
    const server = host('server', remote);
    const theirs = ask(laptop, 'how do I rotate the logs on the laptop');
    sync(laptop);
    ask(server, 'a question asked on the server');
    const t = await start({ db: server.db, cols: 120, rows: 30, env: server.env as Record<string, string> });
    await t.waitFor('sessions 1');
    t.press('S');
    await t.waitFor(/origin: pushed 1 turn, pulled 1 turn from 1 host/, 20_000);
    await t.waitFor('sessions 2');
    // The pulled session is the newest by its first turn? Either way: find it by its Bates id and go there.
    t.press(':');
    t.type(`cd ${theirs.bates}`);
    t.press('enter');
    await t.waitFor('how do I rotate the logs on the laptop');
    expect(t.screen()).toContain(`from host ${hostIdOf(laptop)}`);
    // A second S moves nothing, and says so.
    t.press('S');
    await t.waitFor('origin: pushed 0 turns, pulled 0 turns from 0 hosts', 20_000);
    expect(await t.quit()).toMatchObject({ code: 0 });
    expect0(run(server, ['check']));
  }, 60_000);

  it('a sync with no remote says, as information in an 80-column bar, that sync is not set up and how to set it up', async () => {
    const lone = host('lone');
    ask(lone, 'nothing to sync with');
    const t = await start({ db: lone.db, cols: 80, rows: 24, env: lone.env as Record<string, string> });
    await t.waitFor('sessions 1');
    t.press('S');
    await t.waitFor('sync is not set up: arborist sync remote add NAME URL (docs/sync.md)', 20_000);
    expect(t.screen()).not.toContain('failed');
    t.press('j');
    expect(await t.quit()).toMatchObject({ code: 0 });
  }, 60_000);
});
