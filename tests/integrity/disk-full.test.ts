import { execFileSync } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';

/**
 * A full disk, for real: a 2 MiB tmpfs, a shard on it, a filler file eating the space, then an ask whose answer
 * (~770 KB, from an answer command, since one argv string is capped at 128 KiB) cannot fit. It must fail as the
 * README promises: exit 2, one line on stderr that says the disk is full, nothing half written; once the space is
 * freed `arborist check` is clean and every earlier turn is there. Needs root (mount); without it the suite is
 * skipped with a warning saying why.
 */
const dir = mkdtempSync(join(tmpdir(), 'arb-df-'));
const mnt = join(dir, 'mnt');
const scripts = join(dir, 'scripts');
let mounted = false;
let why = '';
try {
  execFileSync('mkdir', ['-p', mnt, scripts]);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mnt], { stdio: 'pipe' });
  mounted = true;
} catch (e) {
  why = String((e as { stderr?: Buffer }).stderr ?? e).trim();
  console.warn(
    `disk-full tests SKIPPED: cannot mount a tmpfs at ${mnt} (${why || 'mount failed'}); they need root`,
  );
}

afterEach(() => {
  if (mounted) for (const f of readdirSync(mnt)) rmSync(join(mnt, f), { force: true });
});
afterAll(() => {
  if (mounted) {
    try {
      execFileSync('umount', [mnt], { stdio: 'pipe' });
    } catch (e) {
      // a lazy unmount still frees it once whatever holds it lets go
      execFileSync('umount', ['-l', mnt], { stdio: 'pipe' });
      console.warn(`umount ${mnt} needed -l: ${e}`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

const BIG = join(scripts, 'big-answer.mjs');
writeFileSync(
  BIG,
  "process.stdin.resume().on('end', () => process.stdout.write('a long answer '.repeat(55000)));\n",
);

/** Fills the file system with one file, then gives back `slack` bytes. */
function fill(slack: number): string {
  const filler = join(mnt, 'filler');
  const fd = openSync(filler, 'w');
  const chunk = Buffer.alloc(16384, 0x5a);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (e) {
    if ((e as { code?: string }).code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
  truncateSync(filler, Math.max(0, statSync(filler).size - slack));
  return filler;
}

describe.skipIf(!mounted)('a full disk', () => {
  for (const [name, slack] of [
    ['completely full (no room even for the -shm index)', 0],
    ['room to open the shard, not for the answer', 64 * 1024],
  ] as const) {
    it(`${name}: exit 2, one line saying the disk is full; afterwards clean, nothing lost`, () => {
      const db = join(mnt, 'sessions.db');
      const earlier: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = cli(['ask', `question ${i}`, '--answer', `answer ${i}`, '--db', db, '--json']);
        expect(r.code, r.stderr).toBe(0);
        earlier.push(r.json().bates);
      }
      const filler = fill(slack);
      const r = cli(['ask', 'one too many', '--answer-cmd', `${process.execPath} ${BIG}`, '--db', db]);
      expect(r.code, r.stderr).toBe(2);
      const lines = r.stderr.split('\n').filter(Boolean);
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toContain(db);
      // the words, not the path (a folder name could say "full" too)
      expect(lines[0].replaceAll(db, '<shard>')).toMatch(/\bfull\b/i);

      rmSync(filler);
      const check = cli(['check', '--db', db, '--json']);
      expect(check.code, check.stdout + check.stderr).toBe(0);
      const turns = cli(['find', 'question', '--db', db, '--json']).json();
      expect(turns.map((t: { bates: string }) => t.bates).sort()).toEqual([...earlier].sort());
      expect(cli(['find', 'one too many', '--db', db, '--json']).json()).toEqual([]);
      // and it takes a write again
      expect(cli(['ask', 'after', '--answer', 'room again', '--db', db]).code).toBe(0);
    });
  }
});
