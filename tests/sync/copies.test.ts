import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ask, bareRemote, expect0, exportedSession, host, run, sync, tempDir, turnsOf } from './helpers.js';

/**
 * One export imported on two machines (docs/export.md, "A copy stays a copy"): both hold the same session under its
 * exporting sid, both push it, and neither may add to it. Until this was handled, each host refused the other whole
 * on every sync from then on.
 */
describe('sync between shards holding copies of one export', () => {
  it('pulls each host whole, takes the shared session once, and forks what is asked under it', () => {
    const { maker, first, doc } = exportedSession(['q one', 'q two']);

    const remote = bareRemote();
    const [a, b, c] = ['a', 'b', 'c'].map((n) => host(n, remote));
    for (const h of [a, b]) expect0(run(h, ['import', 'arborist', doc]));
    const fromA = ask(a, 'only on a');
    const fromB = ask(b, 'only on b');

    sync(a);
    const rb = sync(b).remotes[0];
    expect(rb.pulled.hosts).toEqual([expect.objectContaining({ status: 'ok', turns: 1, problems: [] })]);
    const ra = sync(a).remotes[0];
    expect(ra.pulled.hosts).toEqual([expect.objectContaining({ status: 'ok', turns: 1, problems: [] })]);
    // A third machine gets the copy once, from whichever host comes first, and each host's own turn.
    const rc = sync(c).remotes[0];
    expect(rc.pulled.hosts.map((h: { status: string }) => h.status)).toEqual(['ok', 'ok']);
    for (const h of [a, b, c]) {
      const turns = [...turnsOf(h).keys()];
      expect(turns).toEqual(
        expect.arrayContaining([first.bates, `${first.sid}-000002`, fromA.bates, fromB.bates]),
      );
      expect(turns).toHaveLength(4);
      expect(run(h, ['verify']).code).toBe(0);
    }
    expect(turnsOf(c).get(first.bates)).toBe(turnsOf(maker).get(first.bates));

    // Nobody but its maker adds to the copy: asked into it, one line and exit 2; asked under its turn, a fork.
    const into = run(a, ['ask', 'more', '--answer', 'x', '--session', first.sid]);
    expect(into.code).toBe(2);
    expect(into.stderr.trim().split('\n')).toHaveLength(1);
    expect(into.stderr).toContain(`session ${first.sid} was imported from an arborist export`);
    const fork = ask(a, 'continued on a', ['--parent', `${first.sid}-000002`]);
    expect(fork.sid).not.toBe(first.sid);
    expect(fork.parent_bates).toBe(`${first.sid}-000002`);
    sync(a);
    const again = sync(b).remotes[0].pulled;
    expect(again.turns).toBe(1);
    expect(again.hosts.map((h: { status: string }) => h.status)).toEqual(['ok', 'ok']);
    expect(turnsOf(b).has(fork.bates)).toBe(true);
  });

  it("a copy follows its maker: the maker's new turns come into it, and a third shard takes the session from the maker", () => {
    const { maker, first, doc } = exportedSession();
    const remote = bareRemote();
    const [a, c] = ['a', 'c'].map((n) => host(n, remote));
    expect0(run(a, ['import', 'arborist', doc]));
    // The maker, syncing too, goes on in its own session, and has another one besides.
    expect0(run(maker, ['sync', 'remote', 'add', 'origin', remote]));
    const second = ask(maker, 'q two', ['--session', first.sid]);
    const other = ask(maker, 'another session');
    sync(a);
    sync(maker);
    const got = sync(a).remotes[0].pulled;
    expect(got.hosts).toEqual([expect.objectContaining({ status: 'ok', turns: 2, problems: [] })]);
    expect(turnsOf(a).get(second.bates)).toBe(turnsOf(maker).get(second.bates));
    expect(turnsOf(a).has(other.bates)).toBe(true);
    expect(run(a, ['verify']).code).toBe(0);
    // Still a copy on a: only its maker adds to it.
    expect(run(a, ['ask', 'more', '--answer', 'x', '--session', first.sid]).code).toBe(2);
    sync(a);
    // A third shard pulls the maker's branch and a's copy in one sync: the session is the maker's, whole.
    const rc = sync(c).remotes[0].pulled;
    expect(rc.hosts.map((h: { status: string }) => h.status)).toEqual(['ok', 'ok']);
    expect(turnsOf(c).get(second.bates)).toBe(turnsOf(maker).get(second.bates));
    expect(run(c, ['verify']).code).toBe(0);
  });

  it('holds back a session a host adds to while its own is a copy too (two versions of one export), and takes the rest of the host', () => {
    const maker = host('maker');
    const first = ask(maker, 'q one');
    const dir = tempDir('arb-doc-');
    expect0(run(maker, ['export', first.sid, '--format', 'json', '--out', join(dir, 'v1.json')]));
    ask(maker, 'q two', ['--session', first.sid]);
    expect0(run(maker, ['export', first.sid, '--format', 'json', '--out', join(dir, 'v2.json')]));
    const remote = bareRemote();
    const [a, b] = ['a', 'b'].map((n) => host(n, remote));
    expect0(run(a, ['import', 'arborist', join(dir, 'v1.json')]));
    expect0(run(b, ['import', 'arborist', join(dir, 'v2.json')]));
    const onB = ask(b, 'b has its own sessions too');
    sync(b);
    const r = run(a, ['sync', '--json']);
    // Before, b was refused whole, its own session with it, on every sync until the copies agreed.
    expect(r.code, r.stderr).toBe(1);
    const bId = r.json().remotes[0].pulled.hosts[0].host;
    const line = `host ${bId} pushes session ${first.sid}, which here is a copy imported from an arborist export: that session is held back, the rest of ${bId} imported`;
    expect(r.json().remotes[0].pulled.hosts).toEqual([
      { host: bId, status: 'partial', held_back: [first.sid], turns: 1, problems: [line] },
    ]);
    expect(turnsOf(a).has(`${first.sid}-000002`)).toBe(false);
    expect(turnsOf(a).has(onB.bates)).toBe(true);
    expect(run(a, ['verify']).code).toBe(0);
    // Said at a terminal too, and again at the next sync: b's head is not recorded while a session of it waits.
    const again = run(a, ['sync']);
    expect(again.code).toBe(1);
    expect(again.stderr.trim().split('\n')).toEqual([`held back ${line}`]);
    // The newer export brings a's copy up to date, and the next sync takes the rest of b.
    expect0(run(a, ['import', 'arborist', join(dir, 'v2.json')]));
    expect(sync(a).remotes[0].pulled.hosts).toEqual([
      expect.objectContaining({ status: 'ok', held_back: [], problems: [] }),
    ]);
    expect(turnsOf(a).get(`${first.sid}-000002`)).toBe(turnsOf(b).get(`${first.sid}-000002`));
    expect(sync(a).remotes[0].pulled.hosts).toEqual([expect.objectContaining({ status: 'unchanged' })]);
  });
});
