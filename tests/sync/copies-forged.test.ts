import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ask,
  bareRemote,
  expect0,
  host,
  hostIdOf,
  readFileSync,
  run,
  sync,
  tempDir,
  writeFileSync,
} from './helpers.js';

/**
 * The tie of docs/sync.md ("First come"): two branches pushing exactly the same turns of a session new here. Only
 * copies of an export may tie that way honestly; a branch that copies another host's own session, turn for turn,
 * is a remote writer's, and it sees those turns only once their host pushed them: it could never come first. So
 * such a tie must not hand the session to whichever host id sorts first.
 */

/** A whole host's branch republished under another host id, as someone with write access to the remote could. */
function republish(remote: string, from: string, as: string, edit: (dir: string) => void = () => {}): void {
  const dir = join(tempDir('arb-forge-'), 'w');
  const g = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  execFileSync('git', ['clone', '--quiet', '--branch', `hosts/${from}`, remote, dir], { stdio: 'pipe' });
  g('config', 'user.email', 'x@example.com');
  g('config', 'user.name', 'x');
  const head = JSON.parse(readFileSync(join(dir, 'HEAD.json'), 'utf8'));
  writeFileSync(join(dir, 'HEAD.json'), `${JSON.stringify({ ...head, host: as })}\n`);
  edit(dir);
  g('add', '-A');
  g('commit', '--quiet', '-m', 'forged');
  g('push', '--quiet', 'origin', `HEAD:refs/heads/hosts/${as}`);
}

/** The host a session came from on shard `h` (list --json), or null for its own or a session it does not hold. */
function hostOf(h: ReturnType<typeof host>, sid: string): string | null | undefined {
  const rows = expect0(run(h, ['list', '--json'])).json() as { sid: string; host: string | null }[];
  return rows.find((r) => r.sid === sid)?.host;
}

describe('two branches pushing the same turns of a session in one sync', () => {
  it("a branch copying a host's own session under a host id that sorts first does not take it: held back from both, as two claims", () => {
    const remote = bareRemote();
    const a = host('a', remote);
    const s = ask(a, 'honest');
    sync(a);
    // '0' sorts before every minted id (12 characters of a-z0-9).
    republish(remote, hostIdOf(a), '0');
    // a goes on in a session of its own: the forged claim must not keep it out (it had refused a whole).
    const later = ask(a, 'a goes on elsewhere');
    sync(a);
    const c = host('c', remote);
    const r = run(c, ['sync', '--json']);
    const hosts = r.json().remotes[0].pulled.hosts as { host: string; status: string; problems: string[] }[];
    expect(hostOf(c, s.sid)).toBeUndefined();
    const held = (h: string) =>
      `host ${h} pushes session ${s.sid}, which another host pushes too: that session is held back, the rest of ${h} imported`;
    expect(hosts).toEqual([
      { host: '0', status: 'partial', held_back: [s.sid], turns: 0, problems: [held('0')] },
      { host: hostIdOf(a), status: 'partial', held_back: [s.sid], turns: 1, problems: [held(hostIdOf(a))] },
    ]);
    expect(hostOf(c, later.sid)).toBe(hostIdOf(a));
    expect(r.code).toBe(1);
  });

  it("a copy of an export gives way to the session's maker in the same sync, whichever host id sorts first", () => {
    const remote = bareRemote();
    const maker = host('maker', remote);
    const s = ask(maker, 'q one');
    ask(maker, 'q two', ['--session', s.sid]);
    const doc = join(tempDir('arb-doc-'), 'export.json');
    expect0(run(maker, ['export', s.sid, '--format', 'json', '--out', doc]));
    sync(maker);
    const a = host('a', remote);
    expect0(run(a, ['import', 'arborist', doc]));
    sync(a);
    // The copy's branch again under an id that sorts first: an honest copy, only named so.
    republish(remote, hostIdOf(a), '0');
    const c = host('c', remote);
    const hosts = sync(c).remotes[0].pulled.hosts as { host: string; status: string }[];
    expect(hosts.map((h) => h.status)).toEqual(['ok', 'ok', 'ok']);
    expect(hostOf(c, s.sid)).toBe(hostIdOf(maker));
    expect(expect0(run(c, ['show', `${s.sid}-000002`, '--json'])).json().node_hash).toBe(
      expect0(run(maker, ['show', `${s.sid}-000002`, '--json'])).json().node_hash,
    );
    // So the maker's next turn of it comes in, where under the copy's host it refused the maker whole.
    ask(maker, 'q three', ['--session', s.sid]);
    sync(maker);
    const again = sync(c).remotes[0].pulled;
    expect(again.hosts.every((h: { status: string }) => h.status !== 'refused')).toBe(true);
    expect(hostOf(c, s.sid)).toBe(hostIdOf(maker));
    expect(expect0(run(c, ['show', `${s.sid}-000003`])).code).toBe(0);
  });
});
