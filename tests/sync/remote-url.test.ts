import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { ask, bareRemote, expect0, host, run, stateOf, sync, tempDir } from './helpers.js';

/**
 * `sync remote add NAME URL` as an attacker and a clumsy user type it (docs/sync.md, "Remote URLs"): only git's
 * ssh, https, file and local-path forms are stored, the rest refused with one line and exit 2, nothing contacted;
 * and a remote put into the mirror's config by other means is held to the same rules before git is run with it.
 */

const ACCEPTED = 'use host:path, ssh://, https://, file:/// or a local path';

/** `sync remote add` with `--db` first: after a `--`, run()'s trailing `--db` would be one more positional. */
function add(h: ReturnType<typeof host>, ...args: string[]) {
  return cli(['--db', h.db, 'sync', 'remote', 'add', ...args], { env: h.env });
}

function remotes(h: ReturnType<typeof host>): { name: string; url: string }[] {
  return expect0(run(h, ['sync', 'remote', 'list', '--json'])).json();
}

describe('sync remote add', () => {
  it('refuses what is not a git URL it accepts: one line, exit 2, nothing stored', () => {
    const a = host('a');
    const marker = join(tempDir(), 'ran');
    const cases: [string, RegExp][] = [
      ['', /is empty/],
      ['--upload-pack=touch /tmp/x', /starts with '-'/],
      ['-c core.sshCommand=touch /tmp/x', /starts with '-'/],
      [`ext::sh -c touch% ${marker}`, /runs a command \(git's ext:: transport\)/],
      ['gcrypt::/srv/x.git', /names a git remote helper \(gcrypt::\)/],
      ['fd::3', /names a git remote helper \(fd::\)/],
      ['a\nb', /holds a control character/],
      ['/tmp/a\rb', /holds a control character/],
      ['host:x\x1b[31m', /holds a control character/],
      ['/tmp/\u202eexe.git', /holds a control character/],
      ['http://example.com/x.git', /is not encrypted/],
      ['git://example.com/x.git', /is not encrypted/],
      ['svn://example.com/x', /uses transport svn:\/\/, which is not one arborist uses/],
      ['ssh://-oProxyCommand=touch%20x/y', /host starts with '-'/],
      ['ssh://user@-oProxyCommand=x/y', /host starts with '-'/],
      ['ssh:///x.git', /has no host/],
      ['https://', /has no host|is not a valid URL/],
      ['file://relative/x.git', /file:\/\/ needs an absolute path/],
      [':x.git', /has no host/],
      ['host:', /has no path/],
      ['host:-x', /path starts with '-'/],
      [join(tempDir(), 'missing.git'), /is not an existing folder/],
      [`file://${join(tempDir(), 'missing.git')}`, /is not an existing folder/],
    ];
    for (const [url, why] of cases) {
      const r = add(a, 'r', '--', url);
      expect([url, r.code]).toEqual([url, 2]);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')).toHaveLength(2); // one line, then the final newline
      expect([url, r.stderr]).toEqual([url, expect.stringMatching(why)]);
      expect(r.stderr).toContain(ACCEPTED);
      // Nothing of the URL reaches the terminal raw.
      expect(r.stderr).not.toMatch(/[\r\x1b\u202e]/);
      expect(remotes(a)).toEqual([]);
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses remote names git would take as an option or refuse itself, in one line of its own', () => {
    const a = host('a');
    for (const name of ['-x', '.hidden', 'a.lock', 'a..b', 'a/b', 'a b', '']) {
      const r = add(a, '--', name, bareRemote());
      expect([name, r.code]).toEqual([name, 2]);
      expect(r.stderr).toMatch(/^arborist: remote name '.*' must be 1-64 of A-Z a-z 0-9 \. _ -/);
    }
    expect(remotes(a)).toEqual([]);
  });

  it("stores git's URL forms without contacting them; a local path as an absolute one", () => {
    const a = host('a');
    const bare = bareRemote();
    const cwd = tempDir();
    mkdirSync(join(cwd, 'sub', 'r.git'), { recursive: true });
    // host.invalid never resolves: an add that contacted it would fail.
    const cases: [string, string][] = [
      ['host.invalid:history.git', 'host.invalid:history.git'],
      ['me@host.invalid:~/history.git', 'me@host.invalid:~/history.git'],
      ['[::1]:history.git', '[::1]:history.git'],
      ['ssh://me@host.invalid:2222/~/history.git', 'ssh://me@host.invalid:2222/~/history.git'],
      ['https://host.invalid/me/history.git', 'https://host.invalid/me/history.git'],
      [`file://${bare}`, `file://${bare}`],
      [bare, bare],
      ['sub/r.git', join(cwd, 'sub', 'r.git')],
      ['./sub/r.git', join(cwd, 'sub', 'r.git')],
      ['sub/r.git/', join(cwd, 'sub', 'r.git')],
    ];
    for (const [i, [url]] of cases.entries())
      expect0(cli(['sync', 'remote', 'add', `r${i}`, url, '--db', a.db], { env: a.env, cwd }));
    const stored = new Map(remotes(a).map((x) => [x.name, x.url]));
    expect(cases.map((_, i) => stored.get(`r${i}`))).toEqual(cases.map(([, want]) => want));
  });

  it('a relative local path syncs from any folder (git read it from the folder sync ran in)', () => {
    const parent = tempDir();
    execFileSync('git', ['init', '--bare', '--quiet', join(parent, 'history.git')]);
    const a = host('a');
    ask(a, 'one');
    expect0(
      cli(['sync', 'remote', 'add', 'origin', 'history.git', '--db', a.db], { env: a.env, cwd: parent }),
    );
    // From another folder (the TUI's `S` runs wherever arborist was started).
    expect(sync(a).remotes[0].pushed.turns).toBe(1);
  });
});

describe('a remote in the mirror that arborist did not add', () => {
  it('a name that reads as an option never reaches git as one: refused, one line, the other remotes synced', () => {
    const good = bareRemote();
    const a = host('a', good);
    ask(a, 'one');
    const dir = tempDir();
    const marker = join(dir, 'ran');
    // What a hand edit (or anyone who can write the mirror) puts there: git itself would run this as upload-pack.
    execFileSync('git', [
      '--git-dir',
      `${a.db}.sync`,
      'config',
      `remote.--upload-pack=touch ${marker};git-upload-pack.url`,
      bareRemote(),
    ]);
    const r = run(a, ['sync']);
    expect(existsSync(marker)).toBe(false);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('origin: pushed 1 turn, pulled 0 turns from 0 hosts\n');
    expect(r.stderr).toMatch(/^arborist: remote name '--upload-pack=touch .*' must be 1-64 of .*\n$/);
    // It can be taken away by its exact name.
    const name = `--upload-pack=touch ${marker};git-upload-pack`;
    expect0(cli(['--db', a.db, 'sync', 'remote', 'remove', '--', name], { env: a.env }));
    expect(remotes(a).map((x) => x.name)).toEqual(['origin']);
    expect(existsSync(marker)).toBe(false);
    expect(expect0(run(a, ['sync'])).stdout).toBe('origin: pushed 0 turns, pulled 0 turns from 0 hosts\n');
  });

  it('an ext:: URL runs no command even when git is told to allow it; refused before git runs, exit 2', () => {
    const a = host('a');
    ask(a, 'one');
    const dir = tempDir();
    const marker = join(dir, 'ran');
    // A user's git config that allows ext (protocol.ext.allow=always): git would then run the command.
    const gitconfig = join(dir, 'gitconfig');
    writeFileSync(gitconfig, '[protocol "ext"]\n\tallow = always\n');
    expect0(run(a, ['sync', 'remote', 'add', 'origin', bareRemote()]));
    execFileSync('git', [
      '--git-dir',
      `${a.db}.sync`,
      'config',
      'remote.origin.url',
      `ext::sh -c touch% ${marker}`,
    ]);
    const before = stateOf(a);
    for (const args of [['sync'], ['sync', 'origin'], ['check', '--remote', 'origin']]) {
      const r = run({ ...a, env: { ...a.env, GIT_CONFIG_GLOBAL: gitconfig } }, args);
      expect([args, r.code]).toEqual([args, 2]);
      expect(r.stderr).toMatch(/^arborist: sync remote origin: remote URL 'ext::sh .*' runs a command/);
      expect(existsSync(marker)).toBe(false);
    }
    expect(stateOf(a)).toBe(before);
  });

  it('a relative path stored by an older arborist is refused with what to do, not read from the current folder', () => {
    const a = host('a');
    expect0(run(a, ['sync', 'remote', 'add', 'origin', bareRemote()]));
    execFileSync('git', ['--git-dir', `${a.db}.sync`, 'config', 'remote.origin.url', 'history.git']);
    const r = run(a, ['sync', 'origin']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^arborist: sync remote origin: remote URL 'history.git' is a relative path, .*remove the remote and add it again \(arborist stores the absolute path\)\n$/,
    );
  });

  it('one whose URL holds a line break is listed (it was dropped from the list) and refused by sync', () => {
    const a = host('a');
    expect0(run(a, ['sync', 'remote', 'add', 'origin', bareRemote()]));
    execFileSync('git', ['--git-dir', `${a.db}.sync`, 'config', 'remote.origin.url', '/tmp/a\rb\nc']);
    expect(remotes(a)).toEqual([{ name: 'origin', url: '/tmp/a\rb\nc' }]);
    expect(expect0(run(a, ['sync', 'remote', 'list'])).stdout).not.toMatch(/\r/);
    const r = run(a, ['sync', 'origin']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^arborist: sync remote origin: remote URL '.*' holds a control character/);
  });
});

describe('a secret in a remote URL', () => {
  it('is never shown: remote list and its --json hide a password and an https user (a token); git keeps the URL', () => {
    const a = host('a');
    expect0(add(a, 'gh', 'https://ghp_SECRET123@host.invalid/me/history.git'));
    expect0(add(a, 'pw', 'https://me:hunter2@host.invalid/me/history.git'));
    expect0(add(a, 'ssh', 'ssh://git:sshpass@host.invalid/history.git'));
    expect0(add(a, 'plain', 'ssh://git@host.invalid/history.git'));
    const listed = expect0(run(a, ['sync', 'remote', 'list'])).stdout;
    const json = expect0(run(a, ['sync', 'remote', 'list', '--json'])).stdout;
    for (const out of [listed, json]) {
      expect(out).not.toMatch(/SECRET123|hunter2|sshpass/);
      expect(out).toContain('https://***@host.invalid/me/history.git');
      expect(out).toContain('ssh://git:***@host.invalid/history.git');
      expect(out).toContain('ssh://git@host.invalid/history.git');
    }
    // git is given the URL as stored: its own message about the unreachable host is cleaned too.
    const r = run(a, ['sync', 'gh']);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).not.toContain('SECRET123');
  });
});
