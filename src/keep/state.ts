import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { lockState } from './lock.js';

/**
 * What a keeper tells the rest of arborist: a small JSON file beside the shard (`<shard>.keep.json`), rewritten
 * (whole, by rename) after each batch that did something. `keep --status`, `status --json` and the status line read
 * it with the lock (lock.ts). Only node builtins here: the status bundle reads it.
 */

export interface KeeperProblem {
  /** A file or folder the keeper could not read (or a record in it). */
  file: string;
  reason: string;
}

export interface KeeperState {
  pid: number;
  started: string;
  /** When the state was last written. */
  updated: string;
  /** When a batch last added turns (null: none yet). */
  last_import: string | null;
  /** The local day `turns_today` counts (YYYY-MM-DD). */
  day: string;
  turns_today: number;
  /** Of turns_today, those that went to the archive tier with their session (its agent had reset or deleted it). */
  turns_today_archived: number;
  /** Turns added since the keeper started. */
  turns_added: number;
  files: number;
  /** Folders under fs.watch, and folders beyond the watch limit (polled). */
  watched: number;
  unwatched: number;
  sources: { kind: string; paths: string[]; files: number }[];
  /** Files and folders whose last reading had problems, the first few of them, and how many in all. */
  problems: KeeperProblem[];
  problem_count: number;
  /** Turns waiting until their files have been quiet for `settle_ms` (unfinished, or a cut last line). */
  turns_waiting: number;
  settle_ms: number;
  /** Why the keeper cannot write the shard now (locked past the busy timeout, full, read-only), and since when. */
  trouble: string | null;
  trouble_since: string | null;
  /** When the keeper ended cleanly (null while it runs, or after a crash). */
  stopped: string | null;
}

/** What status says about the keeper. */
export interface KeeperStatus {
  running: boolean;
  /** The lock is there but its keeper is gone (a crash, a reboot): the next keeper takes it over. */
  stale: boolean;
  pid: number | null;
  since: string | null;
  last_import: string | null;
  /** Turns the keeper added today, wherever they went: live, or archived with their session. */
  turns_today: number;
  /** Of turns_today, those in the archive tier (`arborist verify` counts live turns only). */
  turns_today_archived: number;
  problem_count: number;
  problems: KeeperProblem[];
  /** Turns the running keeper holds back until their files are quiet for `settle_ms` (0 while none runs). */
  turns_waiting: number;
  settle_ms: number | null;
  /** Why the running keeper cannot write the shard now, and since when (null while it can, or none runs). */
  trouble: string | null;
  trouble_since: string | null;
}

export function statePath(dbPath: string): string {
  return `${dbPath}.keep.json`;
}

/** The local day of `d`, YYYY-MM-DD (the day status's "today" counts). */
export function localDay(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

export function writeState(dbPath: string, s: KeeperState): void {
  const path = statePath(dbPath);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(s, null, 1)}\n`);
  renameSync(tmp, path);
}

export function readState(dbPath: string): KeeperState | undefined {
  try {
    const v = JSON.parse(readFileSync(statePath(dbPath), 'utf8'));
    return v !== null && typeof v === 'object' ? (v as KeeperState) : undefined;
  } catch {
    return undefined;
  }
}

/** The keeper's status for this shard: from the lock (is one running) and its last state (what it did). */
export function keeperStatus(dbPath: string, now = new Date()): KeeperStatus {
  const lock = lockState(dbPath);
  const running = lock.state === 'held';
  const s = readState(dbPath);
  // The state of the keeper holding the lock, or the last one's when none runs.
  const own = s !== undefined && (!running || (lock.state === 'held' && s.pid === lock.lock.pid));
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    running,
    stale: lock.state === 'stale',
    pid: lock.state === 'none' ? null : lock.lock.pid,
    since: running ? lock.lock.started : null,
    last_import: own ? str(s.last_import) : null,
    turns_today: own && s.day === localDay(now) ? num(s.turns_today) : 0,
    turns_today_archived: own && s.day === localDay(now) ? num(s.turns_today_archived) : 0,
    problem_count: own ? num(s.problem_count) : 0,
    problems:
      own && Array.isArray(s.problems)
        ? s.problems
            .filter((p) => p && typeof p.file === 'string' && typeof p.reason === 'string')
            .map((p) => ({ file: p.file, reason: p.reason }))
        : [],
    turns_waiting: running && own ? num(s.turns_waiting) : 0,
    settle_ms: running && own && typeof s.settle_ms === 'number' ? s.settle_ms : null,
    trouble: running && own ? str(s.trouble) : null,
    trouble_since: running && own ? str(s.trouble_since) : null,
  };
}
