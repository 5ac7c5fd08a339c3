import { cachedStatement } from '../db/statements.js';
import { canon } from '../model/hash.js';
import { dbOf, type Shard } from '../shard.js';
import type { EntryInfo } from './entries.js';

/**
 * Why a session may go or must stay (docs/sessions.md, "Entries, archiving and retention"). A session is referenced
 * when an entry's family names it, or when one of its turns is an ancestor of a surviving turn (a turn of X under a
 * turn of S keeps S). Reset, delete, archive-by-hand and retention all archive only what nothing references.
 */

import type { ArchiveReason } from './archive-body.js';

export type { ArchiveReason };

/** Why a session is kept. */
export type KeepReason =
  | {
      kind: 'entry';
      key: string;
      role: 'current' | 'pre-compaction' | 'post-compaction' | 'usage-family';
      checkpoint_id?: string;
    }
  | {
      kind: 'parent';
      /** A turn of the kept session ... */
      bates: string;
      /** ... that is the parent of this surviving turn of another session. */
      child: string;
      child_sid: string;
      /** How many surviving turns of other sessions hang directly under the kept session's turns. */
      children: number;
    };

export interface SessionSummary {
  sid: string;
  label: string | null;
  n_nodes: number;
  /** Estimated size of its rows: text, ids and hashes plus a fixed overhead a turn; indexes not counted. */
  bytes: number;
  last_activity: string;
}

export interface PlannedArchive extends SessionSummary {
  reason: ArchiveReason;
  why: string[];
}

export interface KeptSession extends SessionSummary {
  reasons: KeepReason[];
  why: string[];
}

export const jsonList = (xs: Iterable<string | number>) => JSON.stringify([...xs]);

/** Estimated bytes of a node row: its text in UTF-8, ids and dates, two 32-byte hashes, and a fixed overhead. */
const ROW_BYTES = `(length(CAST(n.question AS BLOB)) + length(CAST(n.answer_text AS BLOB))
  + length(CAST(n.cited_titles_json AS BLOB)) + length(n.bates) + length(n.audit) + length(n.created_at)
  + coalesce(length(CAST(n.cache_key AS BLOB)), 0) + coalesce(length(CAST(n.source AS BLOB)), 0)
  + coalesce(length(CAST(n.source_id AS BLOB)), 0) + 112)`;
const SESSION_ROW_BYTES = 96;

export function entryRefs(entries: EntryInfo[]): Map<string, KeepReason[]> {
  const refs = new Map<string, KeepReason[]>();
  const add = (sid: string | undefined, r: KeepReason) => {
    if (!sid) return;
    const l = refs.get(sid);
    if (!l) refs.set(sid, [r]);
    else if (!l.some((x) => canon(x) === canon(r))) l.push(r);
  };
  for (const e of entries) {
    add(e.sessionId, { kind: 'entry', key: e.key, role: 'current' });
    for (const c of e.compactionCheckpoints) {
      const id = c.checkpointId;
      add(c.preCompaction?.sessionId, {
        kind: 'entry',
        key: e.key,
        role: 'pre-compaction',
        checkpoint_id: id,
      });
      add(c.postCompaction?.sessionId, {
        kind: 'entry',
        key: e.key,
        role: 'post-compaction',
        checkpoint_id: id,
      });
    }
    for (const s of e.usageFamilySessionIds) add(s, { kind: 'entry', key: e.key, role: 'usage-family' });
  }
  return refs;
}

export function describeKeepReason(r: KeepReason): string {
  if (r.kind === 'parent') {
    const more = r.children > 1 ? ` (and ${r.children - 1} more)` : '';
    return `holds ${r.bates}, the parent of surviving turn ${r.child} of session ${r.child_sid}${more}`;
  }
  const role =
    r.role === 'current'
      ? 'its current session'
      : r.role === 'usage-family'
        ? 'in its usage family'
        : `${r.role} session of checkpoint ${r.checkpoint_id}`;
  return `referenced by entry '${r.key}' (${role})`;
}

/**
 * Of `candidates` (sessions that would be archived), those that must stay because one of their turns is an
 * ancestor of a surviving turn. A candidate that stays makes its own turns survive, which may pin further
 * candidates: repeated to a fixed point. It is enough to look at direct children: walking up from a surviving
 * turn, the first candidate turn met has a surviving child.
 */
export function pinnedByChildren(shard: Shard, candidates: Iterable<string>): Map<string, KeepReason[]> {
  const left = new Set(candidates);
  const pinned = new Map<string, KeepReason[]>();
  const st = cachedStatement(
    dbOf(shard),
    `SELECT p.sid AS psid, p.bates AS pbates, c.bates AS cbates, c.sid AS csid
     FROM nodes p JOIN nodes c ON c.parent_id = p.id
     WHERE p.sid IN (SELECT value FROM json_each(@ids)) AND c.sid NOT IN (SELECT value FROM json_each(@ids))
     ORDER BY p.sid, p.seq, c.sid, c.seq`,
  );
  while (left.size > 0) {
    const rows = st.all({ ids: jsonList(left) }) as {
      psid: string;
      pbates: string;
      cbates: string;
      csid: string;
    }[];
    if (rows.length === 0) break;
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(r.psid, (counts.get(r.psid) ?? 0) + 1);
    for (const r of rows) {
      if (pinned.has(r.psid)) continue;
      pinned.set(r.psid, [
        {
          kind: 'parent',
          bates: r.pbates,
          child: r.cbates,
          child_sid: r.csid,
          children: counts.get(r.psid)!,
        },
      ]);
      left.delete(r.psid);
    }
  }
  return pinned;
}

export interface Stat extends SessionSummary {
  created_at: string;
}

/** Live sessions with their size estimate and last activity (all, or those named). */
export function sessionStats(shard: Shard, sids?: string[]): Stat[] {
  const filter = sids ? 'WHERE s.sid IN (SELECT value FROM json_each(?))' : '';
  const rows = cachedStatement(
    dbOf(shard),
    `SELECT s.sid, s.label, s.created_at, s.n_nodes,
       max(s.created_at, coalesce(max(n.created_at), s.created_at)) AS last_activity,
       ${SESSION_ROW_BYTES} + coalesce(sum(${ROW_BYTES}), 0) AS bytes
     FROM sessions s LEFT JOIN nodes n ON n.sid = s.sid ${filter}
     GROUP BY s.sid ORDER BY last_activity, s.sid`,
  ).all(...(sids ? [jsonList(sids)] : [])) as Stat[];
  return rows;
}

export const summary = (s: Stat): SessionSummary => ({
  sid: s.sid,
  label: s.label,
  n_nodes: s.n_nodes,
  bytes: s.bytes,
  last_activity: s.last_activity,
});
