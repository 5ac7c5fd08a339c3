import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashes } from '../../src/store/index.js';
import { forgedTurn, honestTurn, plant } from './forge.js';
import {
  ask,
  bareRemote,
  expect0,
  gitIn,
  host,
  hostIdOf,
  readFileSync,
  run,
  stateOf,
  sync,
  tamper,
  turnsOf,
  writeFileSync,
} from './helpers.js';

/**
 * An attacker's review of sync (docs/sync.md, "Trust"): someone who can write to the remote, or to this host's
 * files. Each case is one way in that was open, or one that holds.
 */

describe('sync under attack', () => {
  it("an events chunk changed while HEAD.json stays put cannot claim a forged turn as the host's", () => {
    const remote = bareRemote();
    const a = host('a', remote);
    const b = host('b', remote);
    const h = ask(a, 'honest');
    sync(a);
    sync(b);
    const id = hostIdOf(a);
    const sid = 'zzforged0001';
    const honest = honestTurn(remote, id, h.sid);
    const t = forgedTurn(honest, sid, 'forged as a');
    // A node.add line slipped into the chunk (before the last line, so even a's next push keeps it), HEAD.json as
    // it was: the head did not move, so before the fix the chunk went unchecked and the line's claim was believed.
    tamper(remote, id, (dir) => {
      plant(dir, sid, t);
      const f = join(dir, 'events', '000000.txt');
      const lines = readFileSync(f, 'utf8').split('\n');
      const body = `{"data":{"bates":"${t.bates}","node_hash":"${t.node_hash}"},"kind":"node.add"}`;
      lines.splice(lines.length - 2, 0, `2 ${'0'.repeat(64)} ${body}`);
      writeFileSync(f, lines.join('\n'));
    });
    const before = stateOf(b);
    const r = run(b, ['sync', '--json']);
    expect(r.code, r.stderr + r.stdout).toBe(1);
    expect(r.json().remotes[0].pulled.hosts[0].problems[0]).toMatch(
      new RegExp(`^host ${id} rewrote its history at event \\d+ or before$`),
    );
    expect(turnsOf(b).has(t.bates)).toBe(false);
    expect(stateOf(b)).toBe(before);
  });

  it('a turn file of gigabytes that compress to nothing refuses its host before a byte is read; the others come in', () => {
    const remote = bareRemote();
    const a = host('a', remote);
    const c = host('c', remote);
    const b = host('b', remote);
    const h = ask(a, 'honest');
    sync(a);
    const fromC = ask(c, 'from c');
    sync(c);
    const id = hostIdOf(a);
    // 257 MiB of spaces: a few hundred KiB on the wire, over the most sync reads of one object.
    tamper(remote, id, (dir) => {
      writeFileSync(
        join(dir, 'sessions', h.sid.slice(0, 2), h.sid, '000002.json'),
        Buffer.alloc(257 * 1024 * 1024, 0x20),
      );
    });
    const r = run(b, ['sync', '--json']);
    expect(r.code, r.stderr + r.stdout).toBe(1);
    const hosts = r.json().remotes[0].pulled.hosts as { host: string; status: string; problems: string[] }[];
    expect(hosts.find((x) => x.host === id)).toMatchObject({ status: 'refused' });
    // Turn files are read by their blob ids.
    expect(hosts.find((x) => x.host === id)!.problems[0]).toMatch(
      new RegExp(
        `^host ${id}'s object [0-9a-f]{12} is 269,484,032 bytes, more than sync reads \\(256 MiB\\); nothing of ${id} imported$`,
      ),
    );
    expect(turnsOf(b).has(h.bates)).toBe(false);
    expect(turnsOf(b).has(fromC.bates)).toBe(true);
  }, 60_000);

  it('HEAD.json naming another hash for the same event is a rewrite, not a quiet new head', () => {
    const remote = bareRemote();
    const a = host('a', remote);
    const b = host('b', remote);
    ask(a, 'honest');
    sync(a);
    sync(b);
    const id = hostIdOf(a);
    tamper(remote, id, (dir) => {
      const f = join(dir, 'HEAD.json');
      const h = JSON.parse(readFileSync(f, 'utf8'));
      h.events.hash = 'f'.repeat(64);
      writeFileSync(f, `${hashes.canon(h)}\n`);
    });
    const before = stateOf(b);
    const r = run(b, ['sync', '--json']);
    expect(r.code).toBe(1);
    expect(r.json().remotes[0].pulled.hosts[0].problems[0]).toMatch(
      new RegExp(`^host ${id} rewrote its history at event \\d+$`),
    );
    expect(stateOf(b)).toBe(before);
  });

  it("this host's own branch set back on the remote: check --remote says so, and sync will not build on it", () => {
    const remote = bareRemote();
    const a = host('a', remote);
    ask(a, 'one');
    sync(a);
    const id = hostIdOf(a);
    const first = gitIn(remote, 'rev-parse', `refs/heads/hosts/${id}`).trim();
    ask(a, 'two');
    sync(a);
    // The remote serves the older commit (a forced reset by whoever can write there). Its HEAD.json names an event
    // the local chain does hold, so the old check passed and a sync pushed on top of it, losing a's newer commit.
    gitIn(remote, 'update-ref', `refs/heads/hosts/${id}`, first);
    const c = run(a, ['check', '--remote', 'origin']);
    expect(c.code).toBe(1);
    expect(c.stdout).toMatch(
      /REMOTE: this host's branch on origin no longer holds commit [0-9a-f]{12} \(event \d+\) this host pushed: the remote was set back or rewritten/,
    );
    ask(a, 'three');
    const before = stateOf(a);
    const s = run(a, ['sync']);
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(/^arborist: this host's branch on origin no longer holds commit [0-9a-f]{12}/);
    expect(stateOf(a)).toBe(before);
    expect(gitIn(remote, 'rev-parse', `refs/heads/hosts/${id}`).trim()).toBe(first);
  });

  it('holds: a branch that is not a host id, a tree with odd entries, a label with escapes', () => {
    const remote = bareRemote();
    const a = host('a', remote);
    const b = host('b', remote);
    const t = ask(a, 'honest');
    sync(a);
    const id = hostIdOf(a);
    // A branch whose name is no host id is never read.
    gitIn(
      remote,
      'update-ref',
      'refs/heads/hosts/NOT-A-HOST',
      gitIn(remote, 'rev-parse', `hosts/${id}`).trim(),
    );
    // Odd entries in a's tree: a symlink, paths that mean nothing here, a label with terminal escapes.
    tamper(remote, id, (dir) => {
      execFileSync('ln', ['-s', '/etc/passwd', join(dir, 'link')]);
      execFileSync('mkdir', ['-p', join(dir, 'sessions', '..x')]);
      writeFileSync(join(dir, 'sessions', '..x', 'a.json'), '{}');
      const f = join(dir, 'sessions', t.sid.slice(0, 2), t.sid, 'session.json');
      const s = JSON.parse(readFileSync(f, 'utf8'));
      s.label = '\u001b]0;owned\u0007\u001b[2Jlabel';
      writeFileSync(f, `${hashes.canon(s)}\n`);
    });
    const r = expect0(run(b, ['sync', '--json'])).json().remotes[0];
    expect(r.pulled.hosts.map((h: { host: string }) => h.host)).toEqual([id]);
    expect(r.pulled.turns).toBe(1);
    const list = expect0(run(b, ['list'])).stdout;
    expect(list).not.toMatch(/[\u001b\u0007]/);
    expect0(run(b, ['check']));
  });
});
