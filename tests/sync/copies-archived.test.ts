import { describe, expect, it } from 'vitest';
import { archive, ask, bareRemote, expect0, exportedSession, host, run, sync, turnsOf } from './helpers.js';

/**
 * Two shards that imported one export (docs/export.md, "A copy stays a copy"), one of which archived its copy (by
 * hand, or maintain --max-bytes): the other still pushes the copy, turn for turn as the archive holds it.
 */
describe('a copy of an export archived on one shard', () => {
  it('does not make that shard refuse the other host whole for pushing the same copy', () => {
    const { first, doc } = exportedSession();
    const remote = bareRemote();
    const [a, b] = ['a', 'b'].map((n) => host(n, remote));
    for (const h of [a, b]) expect0(run(h, ['import', 'arborist', doc]));
    archive(a, first.sid);
    const fromB = ask(b, 'only on b');
    sync(b);
    const r = run(a, ['sync', '--json']);
    const hosts = r.json().remotes[0].pulled.hosts;
    expect(hosts).toEqual([expect.objectContaining({ status: 'ok', problems: [] })]);
    expect(turnsOf(a).has(fromB.bates)).toBe(true);
    // The copy stays archived here: nothing of it was imported live.
    expect(turnsOf(a).has(first.bates)).toBe(false);
    expect(run(a, ['verify']).code).toBe(0);
    // And b takes a's push (the copy's archive travels as a's session file): a's shard is not refused there either.
    const rb = sync(b).remotes[0].pulled.hosts;
    expect(rb).toEqual([expect.objectContaining({ status: 'ok', problems: [] })]);
  });
});
