import { execFileSync } from 'node:child_process';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';

/**
 * One keeper per shard: a lock file beside the shard (`<shard>.keep.lock`) holding the keeper's pid and start time.
 * Made with O_EXCL, so of two keepers starting at once one wins. A lock whose pid is gone, or is no arborist keeper
 * (the pid was reused after a crash or a reboot), is stale: the next keeper takes it over. Node has no flock(2), and
 * a lock held by a kernel file lock would also say nothing to `status` in another process, hence a file and a pid.
 * Only node builtins here: the status bundle reads it.
 */

/** What the keeper calls itself (process.title): `ps` shows it, and the staleness check looks for it. */
export const KEEPER_TITLE = 'arborist-keep';

export interface LockInfo {
  pid: number;
  /** ISO 8601: when the keeper started. */
  started: string;
  shard: string;
}

export function lockPath(dbPath: string): string {
  return `${dbPath}.keep.lock`;
}

/** The lock's content, or undefined when there is none or it is not one of ours (half written, damaged). */
export function readLock(dbPath: string): LockInfo | undefined {
  return readLockFile(lockPath(dbPath));
}

function readLockFile(path: string): LockInfo | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const v = JSON.parse(text) as Partial<LockInfo>;
    if (typeof v.pid !== 'number' || !Number.isInteger(v.pid) || v.pid <= 0) return undefined;
    return { pid: v.pid, started: String(v.started ?? ''), shard: String(v.shard ?? '') };
  } catch {
    return undefined;
  }
}

/** The process's command line, or undefined when this system does not say (then it is taken to be a keeper). */
function commandLine(pid: number): string[] | undefined {
  if (process.platform === 'linux') {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        .split('\0')
        .filter((a) => a !== '');
    } catch {
      return undefined;
    }
  }
  try {
    // No shell: the pid is a number we format ourselves.
    const out = execFileSync('ps', ['-p', String(pid), '-o', 'command='], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 2000,
    });
    return out.trim().split(/\s+/);
  } catch {
    return undefined;
  }
}

/**
 * True when `pid` is a running arborist keeper: the process exists and calls itself so (its title), or was started as
 * `arborist ... keep`. A process that exists but whose command line cannot be read counts as one (never take a lock
 * from a keeper by mistake).
 */
export function isKeeperProcess(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false; // ESRCH: gone
  }
  const argv = commandLine(pid);
  if (argv === undefined) return true;
  if (argv[0] === KEEPER_TITLE || argv.join(' ').startsWith(KEEPER_TITLE)) return true;
  return argv.includes('keep') && argv.some((a) => /arborist|main\.js$/.test(a));
}

export type LockState = { state: 'none' } | { state: 'held' | 'stale'; lock: LockInfo };

/** Whether a keeper holds the shard's lock. An unreadable lock file counts as none (the next keeper rewrites it). */
export function lockState(dbPath: string): LockState {
  const lock = readLock(dbPath);
  if (!lock) return { state: 'none' };
  return { state: isKeeperProcess(lock.pid) ? 'held' : 'stale', lock };
}

/** Another keeper holds the lock: who. */
export class LockHeld extends Error {
  constructor(readonly lock: LockInfo) {
    super(`a keeper already runs on this shard (pid ${lock.pid}, since ${lock.started})`);
  }
}

/**
 * Takes the shard's lock for this process, or throws LockHeld. A stale lock is moved aside under a name of our own
 * first and checked to be the one judged stale, so that two keepers taking over the same stale lock at once cannot
 * both win: the second one moves the first one's fresh lock, sees it is not the stale one, and puts it back.
 */
export function acquireLock(dbPath: string, info: LockInfo): void {
  const path = lockPath(dbPath);
  // Written whole under a name of our own, then linked to the lock's name: link(2) fails when the name exists, and
  // the lock is never seen half written (an empty lock would look damaged, hence stale).
  const mine = `${path}.${process.pid}`;
  writeFileSync(mine, `${JSON.stringify(info)}\n`, { mode: 0o644 });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(mine, path);
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const seen = readLock(dbPath);
      if (seen && isKeeperProcess(seen.pid)) throw new LockHeld(seen);
      const aside = `${path}.stale-${process.pid}`;
      try {
        renameSync(path, aside);
      } catch {
        continue; // gone meanwhile: try again
      }
      const moved = readLockFile(aside);
      if (moved && moved.pid !== seen?.pid) {
        // Not the lock judged stale: another keeper's fresh one. Back it goes, and that keeper holds the shard.
        renameSync(aside, path);
        throw new LockHeld(moved);
      }
      unlinkSync(aside);
    }
    throw new Error(`${path}: could not take the keeper's lock`);
  } finally {
    unlinkSync(mine);
  }
}

/** Removes the lock if it is still ours. */
export function releaseLock(dbPath: string, pid: number): void {
  if (readLock(dbPath)?.pid !== pid) return;
  try {
    unlinkSync(lockPath(dbPath));
  } catch {
    // gone already
  }
}
