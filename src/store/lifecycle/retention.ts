import { formatBytes, thousands } from '../../text/format.js';
import { crashPoint } from '../base/crash.js';
import { badInput } from '../base/errors.js';
import { dbOf, type Shard } from '../shard.js';
import { type ArchivedSession, archiveGroup } from './archive.js';
import { readEntries } from './entries.js';
import {
  describeKeepReason,
  entryRefs,
  type KeepReason,
  type KeptSession,
  type PlannedArchive,
  pinnedByChildren,
  sessionStats,
  summary,
} from './references.js';

/** Retention (`arborist maintain`): archive old sessions by the same rule as reset and delete (references.ts). */

export interface MaintainOptions {
  /** Archive sessions whose last activity is older than this (ms). */
  olderThanMs?: number;
  /** Archive the oldest sessions until at most this many are live. */
  maxSessions?: number;
  /** Archive the oldest sessions until the live turns' estimated size is at most this (bytes). */
  maxBytes?: number;
  /** Reference time for --older-than (ms since the epoch). Default: now. */
  now?: number;
}

export interface MaintenancePlan {
  criteria: { older_than_ms: number | null; max_sessions: number | null; max_bytes: number | null };
  now: string;
  live: { sessions: number; bytes: number };
  /** Oldest first: what would be archived, and why. */
  archive: PlannedArchive[];
  /** Sessions a rule picked that are referenced, and therefore kept. */
  kept: KeptSession[];
  /** The estimated size of what would be archived. */
  estimated_bytes: number;
  after: { sessions: number; bytes: number };
}

export interface MaintenanceResult extends MaintenancePlan {
  applied: boolean;
  archived: ArchivedSession[];
  /** Pages no longer in use after the archive, times the page size (null without apply). */
  freed_bytes: number | null;
}

function checkOptions(o: MaintainOptions): void {
  // Zero is a duration: --older-than 0d means every session.
  if (o.olderThanMs !== undefined && !(Number.isFinite(o.olderThanMs) && o.olderThanMs >= 0)) {
    throw badInput('older-than must be a duration of zero or more');
  }
  if (o.maxSessions !== undefined && !(Number.isInteger(o.maxSessions) && o.maxSessions >= 0)) {
    throw badInput('max-sessions must be a whole number >= 0');
  }
  if (o.maxBytes !== undefined && !(Number.isFinite(o.maxBytes) && o.maxBytes >= 0)) {
    throw badInput('max-bytes must be a size >= 0');
  }
}

/**
 * What retention would archive and why. Reads only: it never writes, so a preview leaves the file byte-identical.
 * Sessions are taken oldest first (by last activity: the newest of the session's creation and its turns). A
 * session is picked when its last activity is older than `olderThanMs`, or while more than `maxSessions` sessions
 * or more than `maxBytes` estimated bytes of turns would stay live. A referenced session is never picked: named by
 * any entry's family, or holding the parent of a turn that stays live (found to a fixed point, like reset).
 */
export function planMaintenance(shard: Shard, opts: MaintainOptions = {}): MaintenancePlan {
  checkOptions(opts);
  const nowMs = opts.now ?? Date.now();
  const stats = sessionStats(shard);
  const refs = entryRefs(readEntries(shard));
  const totalBytes = stats.reduce((a, s) => a + s.bytes, 0);
  const selected = new Map<string, string[]>();
  const blocked = new Map<string, KeepReason[]>();
  const ageLimit = opts.olderThanMs === undefined ? undefined : nowMs - opts.olderThanMs;
  for (;;) {
    let liveCount = stats.length - selected.size;
    let liveBytes = totalBytes - stats.filter((s) => selected.has(s.sid)).reduce((a, s) => a + s.bytes, 0);
    for (const s of stats) {
      if (selected.has(s.sid) || blocked.has(s.sid)) continue;
      const why: string[] = [];
      const last = Date.parse(s.last_activity);
      if (ageLimit !== undefined && Number.isFinite(last) && last < ageLimit) {
        why.push(
          `no activity for ${span(nowMs - last)}, more than the ${span(opts.olderThanMs ?? 0)} of --older-than`,
        );
      }
      if (opts.maxSessions !== undefined && liveCount > opts.maxSessions) {
        why.push(`${liveCount} live sessions, more than the maximum of ${opts.maxSessions}`);
      }
      if (opts.maxBytes !== undefined && liveBytes > opts.maxBytes) {
        why.push(
          `${sizeOf(liveBytes, opts.maxBytes)} of live turns, more than the maximum of ${sizeOf(opts.maxBytes, liveBytes)}`,
        );
      }
      if (why.length === 0) continue;
      const r = refs.get(s.sid);
      if (r) {
        blocked.set(s.sid, r);
        continue;
      }
      selected.set(s.sid, why);
      liveCount--;
      liveBytes -= s.bytes;
    }
    const pinned = pinnedByChildren(shard, selected.keys());
    if (pinned.size === 0) break;
    for (const [sid, reasons] of pinned) {
      selected.delete(sid);
      blocked.set(sid, reasons);
    }
  }
  const archive: PlannedArchive[] = stats
    .filter((s) => selected.has(s.sid))
    .map((s) => ({ ...summary(s), reason: 'retention' as const, why: selected.get(s.sid)! }));
  const kept: KeptSession[] = stats
    .filter((s) => blocked.has(s.sid))
    .map((s) => {
      const reasons = blocked.get(s.sid)!;
      return { ...summary(s), reasons, why: reasons.map(describeKeepReason) };
    });
  const estimated = archive.reduce((a, s) => a + s.bytes, 0);
  return {
    criteria: {
      older_than_ms: opts.olderThanMs ?? null,
      max_sessions: opts.maxSessions ?? null,
      max_bytes: opts.maxBytes ?? null,
    },
    now: new Date(nowMs).toISOString(),
    live: { sessions: stats.length, bytes: totalBytes },
    archive,
    kept,
    estimated_bytes: estimated,
    after: { sessions: stats.length - archive.length, bytes: totalBytes - estimated },
  };
}

/**
 * A span of time for the reasons, in whole units ("541 days", "12 hours"): the session's line beside it says when it
 * was last active, so the reason need not repeat two raw ISO times (it did: "... 2025-06-14T10:03:00.000Z is older
 * than 2026-09-08T08:35:37.182Z").
 */
function span(ms: number): string {
  const units: [number, string][] = [
    [86400e3, 'day'],
    [3600e3, 'hour'],
    [60e3, 'minute'],
    [1e3, 'second'],
  ];
  for (const [size, name] of units) {
    const n = Math.floor(ms / size);
    if (n >= 1 || size === 1e3) return `${n} ${name}${n === 1 ? '' : 's'}`;
  }
  return '0 seconds';
}

/** A size with its unit ("49.2 MiB"), its bytes too when it reads the same as the one it is compared with. */
function sizeOf(bytes: number, other: number): string {
  const s = formatBytes(bytes);
  return s === formatBytes(other) ? `${s} (${thousands(bytes)} bytes)` : s;
}

function usedBytes(shard: Shard): number {
  const pages = dbOf(shard).pragma('page_count', { simple: true }) as number;
  const free = dbOf(shard).pragma('freelist_count', { simple: true }) as number;
  const size = dbOf(shard).pragma('page_size', { simple: true }) as number;
  return (pages - free) * size;
}

/**
 * Retention. Without `apply` this is planMaintenance (nothing is written). With `apply` the plan is recomputed
 * inside one write transaction and carried out: one `session.archive` event (reason `retention`) per session.
 * `freed_bytes` is the drop in pages in use (the archive bodies, compressed, stay in the file; the file itself only
 * shrinks on VACUUM).
 */
export function maintain(shard: Shard, opts: MaintainOptions & { apply?: boolean } = {}): MaintenanceResult {
  const now = opts.now ?? Date.now();
  if (!opts.apply) {
    return { ...planMaintenance(shard, { ...opts, now }), applied: false, archived: [], freed_bytes: null };
  }
  const r = shard.write(() => {
    const plan = planMaintenance(shard, { ...opts, now });
    const before = usedBytes(shard);
    const archived = archiveGroup(shard, plan.archive);
    return { ...plan, applied: true, archived, freed_bytes: before - usedBytes(shard) };
  });
  crashPoint('commit');
  return r;
}
