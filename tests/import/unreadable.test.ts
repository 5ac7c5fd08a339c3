import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

/**
 * A folder or file the importer may not read is a problem `path:0: reason`, never a silent gap. chmod 000 means
 * nothing to root (tests run as root here), so when we are root the binary runs as nobody (setpriv): the
 * permissions then hold as they do for a user.
 */

const FIX = fileURLToPath(new URL('./fixtures/claude/resume/', import.meta.url));
const SESSION = 'aaaa0000-0000-4000-8000-000000000001.jsonl';
const OTHER = 'bbbb0000-0000-4000-8000-000000000002.jsonl';
const NOBODY = 65534;

interface Problem {
  file: string;
  line: number;
  reason: string;
}

/** The command line that runs the binary as nobody when we are root. */
function asNobody(args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [process.execPath, [BIN, ...args]];
  return [
    'setpriv',
    [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, BIN, ...args],
  ];
}

/** The binary, as nobody when we are root; its JSON summary. */
function importAs(
  args: string[],
  home: string,
): { code: number; s: { turns_added: number; problems: Problem[] } } {
  const [cmd, argv] = asNobody(['import', ...args, '--json']);
  const r = spawnSync(cmd, argv, {
    env: { PATH: process.env.PATH, HOME: home },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.error) throw new Error(`cannot run the binary as an unprivileged user: ${r.error.message}`);
  expect(r.stderr).toBe('');
  return { code: r.status ?? -1, s: JSON.parse(r.stdout) };
}

/** A folder everyone may use (the shard is written by nobody), removed after the test. */
function openDir(): string {
  const dir = tempDir('arb-unreadable-');
  chmodSync(dir, 0o777);
  return dir;
}

function mkdirs(...parts: string[]): string {
  const d = join(...parts);
  mkdirSync(d, { recursive: true, mode: 0o777 });
  return d;
}

describe('what cannot be read is said, the rest imported', () => {
  it('claude: a project folder, a session file and the given folder itself that cannot be read', () => {
    const dir = openDir();
    const projects = mkdirs(dir, 'projects');
    const ok = mkdirs(projects, '-work-ok');
    const locked = mkdirs(projects, '-work-locked');
    copyFileSync(join(FIX, SESSION), join(ok, SESSION));
    copyFileSync(join(FIX, OTHER), join(locked, OTHER));
    const lockedFile = join(ok, 'cccc0000-0000-4000-8000-000000000003.jsonl');
    copyFileSync(join(FIX, OTHER), lockedFile);
    chmodSync(lockedFile, 0o000);
    chmodSync(locked, 0o000);
    const db = join(dir, 'sessions.db');

    const r = importAs(['claude', projects, '--db', db], dir);
    expect(r.code).toBe(1);
    expect(r.s.turns_added).toBe(2);
    expect(r.s.problems).toEqual([
      { file: locked, line: 0, reason: expect.stringMatching(/EACCES/) },
      { file: lockedFile, line: 0, reason: expect.stringMatching(/EACCES/) },
    ]);

    // the folder given is the unreadable one
    const alone = importAs(['claude', locked, '--db', db], dir);
    expect(alone.code).toBe(1);
    expect(alone.s.problems).toEqual([{ file: locked, line: 0, reason: expect.stringMatching(/EACCES/) }]);
  });

  it('openclaw: an agent folder, a sessions folder and a transcript that cannot be read', () => {
    const dir = openDir();
    const home = mkdirs(dir, '.openclaw');
    const sid = 'f0110000-aaaa-4bbb-8ccc-ddddeeeeffff';
    const t = (s: number) => new Date(Date.UTC(2026, 6, 10, 9, 0, s)).toISOString();
    const transcript = [
      { type: 'session', version: 3, id: sid, timestamp: t(0), cwd: '/tmp' },
      {
        type: 'message',
        id: 'u1',
        parentId: null,
        timestamp: t(1),
        message: { role: 'user', content: [{ type: 'text', text: 'q' }] },
      },
      {
        type: 'message',
        id: 'a1',
        parentId: 'u1',
        timestamp: t(2),
        message: { role: 'assistant', content: [{ type: 'text', text: 'a' }], stopReason: 'stop' },
      },
    ]
      .map((o) => JSON.stringify(o))
      .join('\n');
    for (const agent of ['main', 'locked-sessions', 'locked-agent'])
      writeFileSync(join(mkdirs(home, 'agents', agent, 'sessions'), `${sid}.jsonl`), `${transcript}\n`, {
        mode: 0o644,
      });
    const lockedFile = join(home, 'agents', 'main', 'sessions', 'f0220000-aaaa-4bbb-8ccc-ddddeeeeffff.jsonl');
    writeFileSync(lockedFile, `${transcript}\n`, { mode: 0o000 });
    const lockedSessions = join(home, 'agents', 'locked-sessions', 'sessions');
    const lockedAgent = join(home, 'agents', 'locked-agent');
    chmodSync(lockedSessions, 0o000);
    chmodSync(lockedAgent, 0o000);
    const db = join(dir, 'sessions.db');

    const r = importAs(['openclaw', home, '--db', db], dir);
    expect(r.code).toBe(1);
    expect(r.s.turns_added).toBe(1);
    expect(r.s.problems).toEqual([
      { file: lockedAgent, line: 0, reason: expect.stringMatching(/EACCES/) },
      { file: lockedSessions, line: 0, reason: expect.stringMatching(/EACCES/) },
      { file: lockedFile, line: 0, reason: expect.stringMatching(/EACCES/) },
    ]);
  });

  it('--follow: an unreadable file and folder are said once each, and the follower keeps following', async () => {
    const dir = openDir();
    const projects = mkdirs(dir, 'projects');
    const ok = mkdirs(projects, '-work-ok');
    const locked = mkdirs(projects, '-work-locked');
    copyFileSync(join(FIX, SESSION), join(ok, SESSION));
    const lockedFile = join(ok, OTHER);
    copyFileSync(join(FIX, OTHER), lockedFile);
    chmodSync(lockedFile, 0o000);
    chmodSync(locked, 0o000);
    const [cmd, argv] = asNobody([
      'import',
      'claude',
      projects,
      '--follow',
      '--db',
      join(dir, 'sessions.db'),
    ]);
    const child = spawn(cmd, argv, {
      env: { PATH: process.env.PATH, HOME: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    try {
      // the first import, then two more rounds of discovery (every 2 s): each finds the same folder again
      for (let i = 0; i < 50 && !out.includes('+2 turns'); i++) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 4500));
      expect(child.exitCode, out).toBe(null);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(out).toContain('+2 turns');
    expect(out.split(`${locked}:0: cannot read this folder (EACCES)`).length - 1).toBe(2); // as it came, in the summary
    expect(out.split(`${lockedFile}:0: cannot read`).length - 1).toBe(2);
  }, 30_000);
});
