import { crashPoint } from '../base/crash.js';
import { notFound } from '../base/errors.js';
import { cachedStatement } from '../db/statements.js';
import { sessionRoot } from '../model/hash.js';
import { dbOf, type Shard } from '../shard.js';
import { type ArchivedSession, archiveGroup } from './archive.js';
import { readEntries, storeEntry } from './entries.js';
import {
  type ArchiveReason,
  describeKeepReason,
  entryRefs,
  type KeptSession,
  type PlannedArchive,
  pinnedByChildren,
  sessionStats,
  summary,
} from './references.js';

/**
 * Reset (the entry moves to a new, empty session) and delete (the entry goes): each archives the family sessions
 * that nothing REMAINING references (references.ts), and is one audit event of its own followed by one
 * `session.archive` event per archived session, all in one transaction.
 */

export interface ChangePlan {
  action: 'reset' | 'delete';
  key: string;
  /** The entry's current session before the change. */
  previous_sid: string;
  family: string[];
  /** What the change archives, in the order it archives them. */
  archive: PlannedArchive[];
  /** Family sessions that stay live, and why. */
  keep: KeptSession[];
  /** Family sessions that are no longer live: already archived, or unknown. */
  gone: { sid: string; state: 'archived' | 'unknown' }[];
}

export interface ChangeResult extends ChangePlan {
  /** The entry's new current session (reset), or null (delete). */
  sid: string | null;
  archived: ArchivedSession[];
}

function computeChangePlan(shard: Shard, action: 'reset' | 'delete', key: string): ChangePlan {
  const entries = readEntries(shard);
  const target = entries.find((e) => e.key === key);
  if (!target) throw notFound(`no entry '${key}'`);
  const refs = entryRefs(entries.filter((e) => e.key !== key));
  const own = entryRefs([target]);
  const stats = new Map(sessionStats(shard, target.family).map((s) => [s.sid, s]));
  const gone: ChangePlan['gone'] = [];
  const candidates: string[] = [];
  for (const sid of target.family) {
    if (!stats.has(sid)) gone.push({ sid, state: shard.isArchivedSid(sid) ? 'archived' : 'unknown' });
    else if (!refs.has(sid)) candidates.push(sid);
  }
  const pinned = pinnedByChildren(shard, candidates);
  const reason: ArchiveReason = action === 'reset' ? 'reset' : 'deleted';
  const archive: PlannedArchive[] = [];
  const keep: KeptSession[] = [];
  for (const sid of target.family) {
    const st = stats.get(sid);
    if (!st) continue;
    const reasons = refs.get(sid) ?? pinned.get(sid);
    if (reasons) keep.push({ ...summary(st), reasons, why: reasons.map(describeKeepReason) });
    else {
      const roles = (own.get(sid) ?? []).map((r) =>
        describeKeepReason(r).replace(/^referenced by /, 'in the family of '),
      );
      archive.push({
        ...summary(st),
        reason,
        why: [...roles, 'nothing that remains references it'],
      });
    }
  }
  return { action, key, previous_sid: target.sessionId, family: target.family, archive, keep, gone };
}

/** What `reset KEY` would archive and keep, and why. Reads only. */
export function planReset(shard: Shard, key: string): ChangePlan {
  return computeChangePlan(shard, 'reset', key);
}

/** What `delete KEY` would archive and keep, and why. Reads only. */
export function planDelete(shard: Shard, key: string): ChangePlan {
  return computeChangePlan(shard, 'delete', key);
}

/**
 * The entry moves to a new, empty session; its checkpoints and usage family are cleared (they described the old
 * sessions). Then every old family session that nothing remaining references is archived with reason `reset`.
 * Audit: one `entry.reset` event (which also records the new session: no separate `session.create`), then one
 * `session.archive` event per archived session, all in one transaction.
 */
export function resetEntry(shard: Shard, key: string): ChangeResult {
  const r = shard.write(() => {
    const plan = computeChangePlan(shard, 'reset', key);
    const now = new Date().toISOString();
    const sid = shard.newSid();
    const root = sessionRoot(sid, []);
    cachedStatement(
      dbOf(shard),
      'INSERT INTO sessions (sid, label, created_at, session_root) VALUES (?, NULL, ?, ?)',
    ).run(sid, now, root);
    storeEntry(shard, key, { sessionId: sid, compactionCheckpoints: [], usageFamilySessionIds: [] }, now);
    shard.audit.append(
      'entry.reset',
      {
        archived: plan.archive.map((a) => a.sid),
        kept: plan.keep.map((k) => k.sid),
        key,
        previous_sid: plan.previous_sid,
        session_root: root.toString('hex'),
        sid,
      },
      now,
    );
    const archived = archiveGroup(shard, plan.archive);
    return { ...plan, sid, archived };
  });
  crashPoint('commit');
  return r;
}

/**
 * The entry is removed; every family session that nothing remaining references is archived with reason
 * `deleted`. Audit: one `entry.delete` event, then one `session.archive` event per archived session.
 */
export function deleteEntry(shard: Shard, key: string): ChangeResult {
  const r = shard.write(() => {
    const plan = computeChangePlan(shard, 'delete', key);
    const now = new Date().toISOString();
    cachedStatement(dbOf(shard), 'DELETE FROM session_entries WHERE key = ?').run(key);
    shard.audit.append(
      'entry.delete',
      {
        archived: plan.archive.map((a) => a.sid),
        kept: plan.keep.map((k) => k.sid),
        key,
        sid: plan.previous_sid,
      },
      now,
    );
    const archived = archiveGroup(shard, plan.archive);
    return { ...plan, sid: null, archived };
  });
  crashPoint('commit');
  return r;
}
