import { spawnSync } from 'node:child_process';
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

/** The binary, as nobody when we are root; its JSON summary. */
function importAs(
  args: string[],
  home: string,
): { code: number; s: { turns_added: number; problems: Problem[] } } {
  const asRoot = process.getuid?.() === 0;
  const cmd = asRoot ? 'setpriv' : process.execPath;
  const pre = asRoot ? [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath] : [];
  const r = spawnSync(cmd, [...pre, BIN, 'import', ...args, '--json'], {
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
});
