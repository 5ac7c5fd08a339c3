import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

/**
 * Who can read a shard: the folder arborist creates is 0700, the file 0600, and SQLite's -wal and -shm are 0600
 * too, even under a umask of 000 (the modes must come from arborist, not from the user's umask), while a writer
 * holds them open and after a read-only reader of a 0400 shard created them. (That answer commands never see a
 * shell is tests/ask/command.test.ts: "a question full of shell metacharacters reaches the command as data" and
 * "--answer-cmd arguments reach the program literally, without a shell".)
 */
const DIST = pathToFileURL(fileURLToPath(new URL('../../dist/src/store/index.js', import.meta.url))).href;
const mode = (p: string) => statSync(p).mode & 0o777;

/** The CLI as a user with umask 000 runs it. */
function cliUmask0(args: string[]) {
  const r = spawnSync('sh', ['-c', 'umask 000; exec "$0" "$@"', process.execPath, BIN, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    encoding: 'utf8',
  });
  return { code: r.status, stderr: r.stderr, stdout: r.stdout };
}

describe('file modes', () => {
  it('a shard the CLI creates under umask 000: every new folder 0700, the file 0600', () => {
    const root = tempDir();
    const db = join(root, 'a', 'b', 'sessions.db');
    const r = cliUmask0(['ask', 'q', '--answer', 'a', '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(mode(join(root, 'a'))).toBe(0o700);
    expect(mode(join(root, 'a', 'b'))).toBe(0o700);
    expect(mode(db)).toBe(0o600);
  });

  it('-wal and -shm are 0600 while a writer (umask 000) holds them open', async () => {
    const db = join(tempDir(), 'sessions.db');
    expect(cli(['ask', 'q', '--answer', 'a', '--db', db]).code).toBe(0);
    // A writer in its own process: opens the shard, adds a turn, says ready, holds it open until stdin ends.
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `process.umask(0);
         const { Shard } = await import(${JSON.stringify(DIST)});
         const s = Shard.open(${JSON.stringify(db)});
         s.addTurn({ question: 'held open', answer_text: 'x' });
         process.stdout.write('ready\\n');
         process.stdin.resume().on('end', () => { s.close(); process.exit(0); });`,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
      child.on('exit', (c) => reject(new Error(`writer exited early (${c})`)));
    });
    try {
      for (const ext of ['-wal', '-shm']) {
        expect(existsSync(db + ext), ext).toBe(true);
        expect(mode(db + ext), ext).toBe(0o600);
      }
      expect(statSync(`${db}-wal`).size).toBeGreaterThan(0);
    } finally {
      child.stdin.end();
      await new Promise((r) => child.on('close', r));
    }
  });

  it('a read-only reader of a 0400 shard leaves -wal and -shm 0600, and the owner can write again', () => {
    const db = join(tempDir(), 'sessions.db');
    expect(cli(['ask', 'q', '--answer', 'a', '--db', db]).code).toBe(0);
    expect(existsSync(`${db}-shm`)).toBe(false); // the writer's last close removed them
    chmodSync(db, 0o400);
    for (const args of [['list'], ['find', 'q'], ['verify']]) {
      const r = cliUmask0([...args, '--db', db]);
      expect(r.code, r.stderr).toBe(0);
    }
    for (const ext of ['-wal', '-shm']) {
      // SQLite gives them the shard's mode (0400); arborist makes them the owner's alone, read-write
      expect(existsSync(db + ext), ext).toBe(true);
      expect(mode(db + ext), ext).toBe(0o600);
    }
    chmodSync(db, 0o600);
    const w = cli(['ask', 'after', '--answer', 'b', '--db', db]);
    expect(w.code, w.stderr).toBe(0);
  });
});
