import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Shard, syncMarks } from '../../src/store/index.js';
import {
  archive,
  ask,
  bareRemote,
  clean,
  expect0,
  gitIn,
  host,
  hostIdOf,
  readFileSync,
  run,
  stateOf,
  sync,
  syncAsync,
  tamper,
  tempDir,
  turnsOf,
  writeFileSync,
} from './helpers.js';

describe('arborist sync over git', () => {
  it('two hosts: every turn everywhere with the same Bates ids and hashes, a fork under the other host, a second sync moves nothing', () => {
    const remote = bareRemote();
    const a = host('a', remote);
    const b = host('b', remote);
    const a1 = ask(a, 'what is a rope');
    const a2 = ask(a, 'and a gap buffer', ['--parent', a1.bates]);
    const rb1 = ask(b, 'what is a piece table');

    const ra = sync(a).remotes[0];
    expect([ra.pushed.turns, ra.pulled.turns]).toEqual([2, 0]);
    const rb = sync(b).remotes[0];
    expect([rb.pushed.turns, rb.pulled.turns]).toEqual([1, 2]);
    expect(rb.pulled.hosts).toEqual([
      { host: hostIdOf(a), status: 'ok', held_back: [], turns: 2, problems: [] },
    ]);

    // b asks under a's turn: a new session of b's, whose first turn hangs under a's.
    const fork = ask(b, 'and a rope in a browser', ['--parent', a1.bates]);
    expect(fork.sid).not.toBe(a1.sid);
    expect(fork.parent_bates).toBe(a1.bates);
    // Appending to a's session from b would mint a's Bates ids here: refused, one line.
    const refused = run(b, ['ask', 'x', '--answer', 'y', '--session', a1.sid]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/pulled from another host/);

    // a goes on in its session, which b already holds: the new turn joins it there, under the same Bates id.
    const a3 = ask(a, 'and a rope in an editor', ['--parent', a2.bates]);
    expect(a3.bates).toBe(`${a1.sid}-000003`);

    sync(b);
    const ra2 = sync(a).remotes[0];
    expect(ra2.pulled.turns).toBe(2);
    expect(sync(b).remotes[0].pulled.turns).toBe(1);
    expect(turnsOf(a)).toEqual(turnsOf(b));
    expect(turnsOf(a).size).toBe(5);
    expect(turnsOf(b).has(a3.bates)).toBe(true);
    for (const h of [a, b]) clean(h);

    // Quiet now: no turn moves either way (events of the imports travel once, then nothing).
    sync(b);
    sync(a);
    for (const h of [a, b]) {
      const r = sync(h).remotes[0];
      expect([h.name, r.pushed.turns, r.pulled.turns, r.pushed.commit, r.event]).toEqual([
        h.name,
        0,
        0,
        null,
        null,
      ]);
    }
    // Each branch holds its own host's sessions only: b's holds its two, never a's it pulled.
    const sessionsOn = (h: typeof a) =>
      new Set(
        gitIn(remote, 'ls-tree', '-r', '--name-only', `refs/heads/hosts/${hostIdOf(h)}`, '--', 'sessions/')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => l.split('/')[2]),
      );
    expect([...sessionsOn(b)].sort()).toEqual([rb1.sid, fork.sid].sort());
    expect([...sessionsOn(a)]).toEqual([a1.sid]);
    // Each shard checks the other's chain from its mirror, and the heads it imported lie on it.
    const hc = expect0(run(a, ['chain-check', '--host', hostIdOf(b), '--json'])).json();
    expect(hc.ok).toBe(true);
    expect(hc.heads_checked).toBeGreaterThan(0);
    expect(expect0(run(b, ['check', '--remote', 'origin'])).stdout).toMatch(/remote agrees/);
  });

  it('three hosts syncing at the same time all end with every turn', async () => {
    const remote = bareRemote();
    const hosts = ['a', 'b', 'c'].map((n) => host(n, remote));
    for (const h of hosts) {
      const t = ask(h, `first of ${h.name}`);
      ask(h, `second of ${h.name}`, ['--parent', t.bates]);
    }
    const runs = await Promise.all(hosts.map(syncAsync));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    // The same shard twice at once: the second waits for the first (a lock), neither fails.
    ask(hosts[0], 'third of a');
    const twice = await Promise.all([syncAsync(hosts[0]), syncAsync(hosts[0])]);
    for (const r of twice) expect(r.code, r.stderr).toBe(0);
    for (const h of hosts) sync(h);
    for (const h of hosts) sync(h);
    const want = turnsOf(hosts[0]);
    expect(want.size).toBe(7);
    for (const h of hosts) {
      expect(turnsOf(h)).toEqual(want);
      clean(h);
    }
  });

  it('a turn edited on the remote (its file rewritten in a new commit) is named and nothing of that host is imported', () => {
    const remote = bareRemote();
    const a = host('a', remote);
    const b = host('b', remote);
    const t = ask(a, 'the secret is 42');
    sync(a);
    sync(b);
    ask(a, 'one more from a');
    sync(a);
    const id = hostIdOf(a);
    const before = stateOf(b);
    tamper(remote, id, (dir) => {
      const f = join(dir, 'sessions', t.sid.slice(0, 2), t.sid, '000001.json');
      writeFileSync(f, readFileSync(f, 'utf8').replace('42', '43'));
    });
    const r = run(b, ['sync', '--json']);
    expect(r.code).toBe(1);
    const h = r.json().remotes[0].pulled.hosts[0];
    expect(h.status).toBe('refused');
    expect(h.problems[0]).toBe(`host ${id} rewrote its history at turn ${t.bates} (changed)`);
    expect(stateOf(b)).toBe(before);
  });

  it('a turn whose file was edited before anyone pulled it fails its chain claim, named', () => {
    const remote = bareRemote();
    const a = host('a', remote);
    const b = host('b', remote);
    sync(b); // b's shard and branch exist, and it has nothing of its own to push later
    const t = ask(a, 'the secret is 42');
    sync(a);
    const id = hostIdOf(a);
    // Rewritten and force-pushed before b ever pulled: a canonical turn, but not the node hash a's chain recorded.
    tamper(
      remote,
      id,
      (dir) => {
        const f = join(dir, 'sessions', t.sid.slice(0, 2), t.sid, '000001.json');
        writeFileSync(f, readFileSync(f, 'utf8').replace('42', '43'));
      },
      { force: true },
    );
    const before = stateOf(b);
    const r = run(b, ['sync']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `host ${id}'s turn ${t.bates} does not match the node hash its chain recorded (edited)`,
    );
    expect(stateOf(b)).toBe(before);
  });

  it('a turn file copied under a second name (seven digits, the same Bates id) is refused, named', () => {
    const remote = bareRemote();
    const a = host('a', remote);
    const b = host('b', remote);
    sync(b); // b's shard exists; its first pull of a is the one below
    const t = ask(a, 'one');
    sync(a);
    const id = hostIdOf(a);
    // Both names parse to seq 1: the pull keeps one record per Bates id, so two files of one is a forged branch.
    tamper(remote, id, (dir) => {
      const d = join(dir, 'sessions', t.sid.slice(0, 2), t.sid);
      writeFileSync(join(d, '0000001.json'), readFileSync(join(d, '000001.json')));
    });
    const before = stateOf(b);
    const r = run(b, ['sync']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`host ${id}'s turn ${t.bates} is in two files`);
    expect(stateOf(b)).toBe(before);
  });

  it("a host's branch force-rewritten, or an event line removed, is named; the local shard is unchanged", () => {
    const remote = bareRemote();
    const a = host('a', remote);
    const b = host('b', remote);
    ask(a, 'one');
    sync(a);
    sync(b);
    ask(a, 'two');
    sync(a);
    const id = hostIdOf(a);
    const clone = join(tempDir(), 'c');
    gitIn(tempDir(), 'clone', '--quiet', '--bare', remote, clone);

    // An event line removed from the newest chunk, HEAD.json left alone.
    tamper(remote, id, (dir) => {
      const f = join(dir, 'events', '000000.txt');
      const lines = readFileSync(f, 'utf8').split('\n');
      lines.splice(lines.length - 3, 1);
      writeFileSync(f, lines.join('\n'));
    });
    let before = stateOf(b);
    let r = run(b, ['sync', '--json']);
    expect(r.code).toBe(1);
    expect(r.json().remotes[0].pulled.hosts[0].problems[0]).toMatch(
      new RegExp(`^host ${id}'s chain skips from event \\d+ to \\d+ \\(an event removed\\)$`),
    );
    expect(stateOf(b)).toBe(before);

    // The branch rewritten: the same files in a commit with no history, so it no longer holds what b imported.
    const tree = gitIn(clone, 'rev-parse', `refs/heads/hosts/${id}^{tree}`).trim();
    const rewritten = gitIn(
      remote,
      '-c',
      'user.name=x',
      '-c',
      'user.email=x@example.com',
      'commit-tree',
      tree,
      '-m',
      'rewritten',
    ).trim();
    gitIn(remote, 'update-ref', `refs/heads/hosts/${id}`, rewritten);
    before = stateOf(b);
    r = run(b, ['sync', '--json']);
    expect(r.code).toBe(1);
    expect(r.json().remotes[0].pulled.hosts[0].problems[0]).toMatch(
      new RegExp(
        `^host ${id} rewrote its history: its branch no longer holds commit [0-9a-f]{12} \\(event \\d+\\) imported before$`,
      ),
    );
    expect(stateOf(b)).toBe(before);
  });

  it('check --remote catches a shard rolled back after a sync', () => {
    const remote = bareRemote();
    const a = host('a', remote);
    ask(a, 'one');
    sync(a);
    const saved = join(tempDir(), 'saved.db');
    copyFileSync(a.db, saved);
    ask(a, 'two');
    sync(a);
    expect0(run(a, ['check', '--remote', 'origin']));
    copyFileSync(saved, a.db);
    for (const ext of ['-wal', '-shm']) rmSync(`${a.db}${ext}`, { force: true });
    const r = run(a, ['check', '--remote', 'origin']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /REMOTE: the local chain ends at event \d+, but this host pushed event \d+ to origin: the shard was rolled back or replaced/,
    );
    // A sync refuses to push over it too (the remote's head is not on the local chain).
    const s = run(a, ['sync']);
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(/does not hold the head this host pushed/);
  });

  it('unreachable remote, a folder that is not a repository, git missing, an unknown remote: one line, exit 2, nothing changed', () => {
    const a = host('a');
    ask(a, 'one');
    const before = stateOf(a);
    const notRepo = tempDir();
    const cases: [string, string[], NodeJS.ProcessEnv, RegExp][] = [
      ['unreachable', ['https://127.0.0.1:9/x.git'], {}, /^arborist: cannot fetch from remote r: .+\n$/],
      [
        'not a repo',
        [notRepo],
        {},
        /^arborist: cannot fetch from remote r: .*not appear to be a git repository.*\n$/,
      ],
      [
        'no git',
        [notRepo],
        { PATH: '/nonexistent' },
        /^arborist: git is not installed or not on PATH; sync needs the git command\n$/,
      ],
    ];
    for (const [what, [url], env, want] of cases) {
      expect0(run(a, ['sync', 'remote', 'add', 'r', url]));
      const r = run({ ...a, env: { ...a.env, ...env } }, ['sync', 'r']);
      expect([what, r.code]).toEqual([what, 2]);
      expect(r.stderr).toMatch(want);
      expect(stateOf(a)).toBe(before);
      expect0(run(a, ['sync', 'remote', 'remove', 'r']));
    }
    const u = run(a, ['sync', 'nope']);
    expect([u.code, u.stderr]).toEqual([
      2,
      'arborist: no sync remote named nope (add one: arborist sync remote add NAME URL)\n',
    ]);
    const bad = run(a, ['sync', 'remote', 'add', '--x', 'u']);
    expect(bad.code).toBe(2);
    const badUrl = run(a, ['sync', 'remote', 'add', 'x', '--', '-u']);
    expect(badUrl.code).toBe(2);
  });

  it('--dry-run says what would move and writes neither the shard nor the remote', () => {
    const remote = bareRemote();
    const a = host('a', remote);
    const b = host('b', remote);
    ask(a, 'one');
    sync(a);
    ask(b, 'two');
    const before = stateOf(b);
    const refs = gitIn(remote, 'for-each-ref');
    const r = sync(b, ['--dry-run']).remotes[0];
    expect([r.dry_run, r.pushed.turns, r.pulled.turns, r.event]).toEqual([true, 1, 1, null]);
    expect(stateOf(b)).toBe(before);
    expect(gitIn(remote, 'for-each-ref')).toBe(refs);
  });

  it('an archive travels as a mark: the other host shows it archived there and keeps the turns', () => {
    const remote = bareRemote();
    const a = host('a', remote);
    const b = host('b', remote);
    const t = ask(a, 'to be archived');
    sync(a);
    sync(b);
    // The archive tier's own path (maintain and the browser archive through it).
    archive(a, t.sid);
    sync(a);
    sync(b);
    const sb = Shard.open(b.db, { readonly: true });
    try {
      expect(syncMarks(sb).get(t.sid)).toEqual({ host: hostIdOf(a), archived: true });
      expect(sb.getSession(t.sid)).toBeDefined();
    } finally {
      sb.close();
    }
    clean(b);
    // Restored on a, and gone on: the mark clears, and the new turn arrives.
    archive(a, t.sid, true);
    const t2 = ask(a, 'after the restore', ['--parent', t.bates]);
    sync(a);
    expect(sync(b).remotes[0].pulled.turns).toBe(1);
    const sb2 = Shard.open(b.db, { readonly: true });
    try {
      expect(syncMarks(sb2).get(t.sid)).toEqual({ host: hostIdOf(a), archived: false });
      expect(sb2.getNode(t2.bates)?.node_hash).toBe(t2.node_hash);
    } finally {
      sb2.close();
    }
    clean(b);
  });

  it('a turn pushed late (its session archived before the first push, then restored) is claimed from older events', () => {
    const remote = bareRemote();
    const a = host('a', remote);
    const b = host('b', remote);
    const t = ask(a, 'archived before any sync');
    archive(a, t.sid);
    expect(sync(a).remotes[0].pushed.turns).toBe(0);
    sync(b); // b now holds a's events, node.add of t among them, but no file of t
    archive(a, t.sid, true);
    expect(sync(a).remotes[0].pushed.turns).toBe(1);
    const r = sync(b).remotes[0];
    expect(r.pulled.hosts[0]).toEqual({
      host: hostIdOf(a),
      status: 'ok',
      held_back: [],
      turns: 1,
      problems: [],
    });
    expect(turnsOf(b).get(t.bates)).toBe(t.node_hash);
    clean(b);
  });

  it('--progress-json writes one JSON line per step on stderr', () => {
    const remote = bareRemote();
    const a = host('a', remote);
    ask(a, 'one');
    const r = expect0(run(a, ['sync', '--json', '--progress-json']));
    const steps = r.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // Each phase's lines together, in the documented order.
    const phases = steps
      .map((p: { phase: string }) => p.phase)
      .filter((p: string, k: number, all: string[]) => p !== all[k - 1]);
    expect(phases).toEqual(['fetch', 'check', 'export', 'push']);
    for (const p of steps) expect(Object.keys(p)).toEqual(['phase', 'done', 'total']);
    const st = expect0(run(a, ['status', '--json'])).json();
    expect(st.sync.origin.age_s).toBeGreaterThanOrEqual(0);
  });

  it('the host id survives the mirror being deleted (taken back from the chain)', () => {
    const remote = bareRemote();
    const a = host('a', remote);
    ask(a, 'one');
    sync(a);
    const id = hostIdOf(a);
    rmSync(`${a.db}.sync`, { recursive: true });
    expect0(run(a, ['sync', 'remote', 'add', 'origin', remote]));
    ask(a, 'two');
    const r = sync(a).remotes[0];
    expect(r.host).toBe(id);
    expect(r.pushed.turns).toBe(1);
  });
});
