import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { RefusedFile, readRegular } from '../../src/import/files.js';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

/**
 * Every reader reads only regular files, and never more than its cap: a FIFO would block the open (or the read)
 * forever, a link to /dev/zero never ends (it grew to 3.7 GB before). Anything that could hang runs in a child
 * process with a timeout, so a regression fails the test instead of stalling the suite.
 */

const FIX = fileURLToPath(new URL('./fixtures/', import.meta.url));
const READER = fileURLToPath(new URL('../../dist/src/import/index.js', import.meta.url));
/** Far below the 60 s default: a refusal is immediate; a hang or a read of /dev/zero is killed here. */
const QUICK = { timeoutMs: 20_000 };

function mkfifo(path: string): string {
  expect(spawnSync('mkfifo', [path]).status).toBe(0);
  return path;
}

type Problem = { file: string; line: number; reason: string };
const named = (problems: Problem[]) => problems.map((p) => `${p.file.split('/').pop()}: ${p.reason}`);

/** A reader's read() of one file in a child process (the built code): its problems, or what it threw. */
function readInChild(kind: string, file: string): { problems: string[]; threw?: string } {
  const script = `
    const { readerFor } = await import(${JSON.stringify(READER)});
    const out = { problems: [] };
    try {
      for (const u of readerFor(${JSON.stringify(kind)}, { sidechains: true }).read(${JSON.stringify(file)}))
        out.problems.push(...u.problems.map((p) => p.reason));
    } catch (e) { out.threw = e.message; }
    process.stdout.write(JSON.stringify(out));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: QUICK.timeoutMs,
    killSignal: 'SIGKILL',
  });
  expect(r.status, `${kind} ${file}: ${r.signal ?? ''} ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
}

describe('the shared reader (src/import/files.ts)', () => {
  it('refuses a FIFO, a device and a folder; refuses past the cap; does not trust st_size', () => {
    const dir = tempDir();
    const fifo = mkfifo(join(dir, 'pipe'));
    symlinkSync('/dev/zero', join(dir, 'zero'));
    expect(() => readRegular(fifo, 1024)).toThrow(RefusedFile);
    expect(() => readRegular(fifo, 1024)).toThrow(/not a regular file \(a FIFO\)/);
    expect(() => readRegular(join(dir, 'zero'), 1024)).toThrow(/not a regular file \(a character device\)/);
    expect(() => readRegular(dir, 1024)).toThrow(/EISDIR/);
    expect(() => readRegular(join(dir, 'missing'), 1024)).toThrow(/ENOENT/);

    const file = join(dir, 'hundred');
    writeFileSync(file, 'x'.repeat(100));
    expect(readRegular(file, 100).buf.length).toBe(100);
    expect(() => readRegular(file, 99)).toThrow(/larger than 99 bytes; not read/);

    // A /proc file says it is 0 bytes long and is not: it is read whole, and capped all the same.
    const proc = '/proc/self/status';
    const whole = readRegular(proc, 1 << 20).buf.toString('utf8');
    expect(whole).toMatch(/^Name:/);
    expect(() => readRegular(proc, 16)).toThrow(/larger than 16 bytes/);
  });
});

describe('import arborist: only a regular file, capped', () => {
  it('a FIFO or a link to /dev/zero on the command line: one line, exit 2, at once', () => {
    const dir = tempDir();
    const db = join(dir, 'sessions.db');
    const fifo = mkfifo(join(dir, 'export.json'));
    symlinkSync('/dev/zero', join(dir, 'zero.json'));
    for (const [file, what] of [
      [fifo, 'a FIFO'],
      [join(dir, 'zero.json'), 'a character device'],
    ]) {
      const r = cli(['import', 'arborist', file, '--db', db], QUICK);
      expect([r.code, r.stdout], file).toEqual([2, '']);
      expect(r.stderr.trim().split('\n'), file).toHaveLength(1);
      expect(r.stderr, file).toContain(`not a regular file or a folder (${what})`);
    }
    expect(cli(['list', '--db', db, '--json']).json()).toEqual([]);
  });

  it("the reader itself refuses them as a problem (what --follow and a folder's files go through)", () => {
    const dir = tempDir();
    const fifo = mkfifo(join(dir, 'export.json'));
    symlinkSync('/dev/zero', join(dir, 'zero.json'));
    expect(readInChild('arborist', fifo).problems).toEqual(['not a regular file (a FIFO); not read']);
    expect(readInChild('arborist', join(dir, 'zero.json')).problems).toEqual([
      'not a regular file (a character device); not read',
    ]);
  });
});

describe('import claude, openclaw, llm: a FIFO or a device among the files', () => {
  it('claude: a FIFO x.jsonl, a link to /dev/zero, a FIFO subagent and meta: each a problem, the rest imported', () => {
    const dir = tempDir();
    const projects = join(dir, 'projects');
    mkdirSync(projects);
    cpSync(join(FIX, 'claude', 'newagents'), join(projects, 'app'), { recursive: true });
    const subagents = join(projects, 'app', 'eeee0000-0000-4000-8000-000000000005', 'subagents');
    mkfifo(join(subagents, 'agent-x9.jsonl'));
    mkfifo(join(subagents, 'agent-x9.meta.json'));
    mkfifo(join(projects, 'app', 'x.jsonl'));
    symlinkSync('/dev/zero', join(projects, 'app', 'zero.jsonl'));
    const db = join(dir, 'sessions.db');
    const r = cli(['import', 'claude', projects, '--db', db, '--json'], QUICK);
    expect(r.code, r.stderr).toBe(1);
    const s = r.json();
    expect(s.turns_added).toBeGreaterThan(0);
    const problems = named(s.problems);
    for (const [name, what] of [
      ['x.jsonl', 'a FIFO'],
      ['zero.jsonl', 'a character device'],
      ['agent-x9.jsonl', 'a FIFO'],
    ])
      expect(problems, name).toContainEqual(
        expect.stringMatching(`^${name}: .*not a regular file \\(${what}\\)`),
      );
    expect(problems).toContainEqual(
      'agent-x9.meta.json: subagent meta not a regular file (a FIFO); not read',
    );
    expect(cli(['verify', '--db', db]).code).toBe(0);
  });

  it('openclaw: a FIFO transcript, archive and sessions.json, a database linked to /dev/zero', () => {
    const dir = tempDir();
    const home = join(dir, 'openclaw');
    cpSync(join(FIX, 'openclaw', 'home'), home, { recursive: true });
    const sessions = join(home, 'agents', 'main', 'sessions');
    mkfifo(join(sessions, 'ffff.jsonl'));
    mkfifo(join(sessions, 'eeee.jsonl.reset.2026-07-09T18-00-00.000Z'));
    mkdirSync(join(home, 'agents', 'main', 'agent'));
    symlinkSync('/dev/zero', join(home, 'agents', 'main', 'agent', 'openclaw-agent.sqlite'));
    const other = join(home, 'agents', 'other', 'sessions');
    mkdirSync(other, { recursive: true });
    mkfifo(join(other, 'sessions.json'));
    const db = join(dir, 'sessions.db');
    const r = cli(['import', 'openclaw', home, '--db', db, '--json'], QUICK);
    expect(r.code, r.stderr).toBe(1);
    const s = r.json();
    expect(s.turns_added).toBe(11); // everything the fixture holds (tests/import/cli.test.ts)
    const problems = named(s.problems);
    for (const name of [
      'ffff.jsonl',
      'eeee.jsonl.reset.2026-07-09T18-00-00.000Z',
      'sessions.json',
      'openclaw-agent.sqlite',
    ])
      expect(problems, name).toContainEqual(expect.stringMatching(`^${name}: .*not a regular file`));
  });

  it('llm: a FIFO logs.db in a folder is a problem; on the command line, exit 2', () => {
    const dir = tempDir();
    mkfifo(join(dir, 'logs.db'));
    const db = join(dir, 'sessions.db');
    const r = cli(['import', 'llm', dir, '--db', db, '--json'], QUICK);
    expect(r.code, r.stderr).toBe(1);
    expect(named(r.json().problems)).toEqual(['logs.db: not a regular file (a FIFO); not read']);
    const named2 = cli(['import', 'llm', join(dir, 'logs.db'), '--db', db], QUICK);
    expect([named2.code, named2.stderr.trim()]).toEqual([
      2,
      `arborist: ${join(dir, 'logs.db')}: not a regular file or a folder (a FIFO)`,
    ]);
    // a real database beside a FIFO -wal: SQLite (or the private copy) would block on it
    const real = new Database(join(dir, 'real.db'));
    real.exec(readFileSync(join(FIX, 'llm', 'legacy-0.31.sql'), 'utf8'));
    real.close();
    mkfifo(join(dir, 'real.db-wal'));
    expect(readInChild('llm', join(dir, 'real.db')).problems).toEqual([
      'its -wal file: not a regular file (a FIFO); not read',
    ]);
  });
});
