import { randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type Database from 'better-sqlite3';
import { CRASH_HOOK_ENV, crashPoint } from './crash.js';
import { cachedStatement, type RowMode } from './db/statements.js';
import { ArboristError, badInput, notFound } from './errors.js';
import { queryTerms } from './find.js';
import { canon, sessionRoot, sha256 } from './hash.js';
import {
  type ArchivedNodeRow,
  archivedToTurnNode,
  NODE_COLUMNS,
  NODE_FROM,
  type NodeRow,
  type TurnNode,
  toArchivedRow,
} from './rows.js';
import { parseBates, type Shard } from './shard.js';

export { type ArchivedNodeRow, CRASH_HOOK_ENV };

/**
 * Session entries, the archive tier and retention (DESIGN.md section 7, docs/sessions.md "Entries, archiving and
 * retention").
 *
 * An entry is a named handle ("main") on a current session, with compaction checkpoints and a usage family. Its
 * artifact family is every session it names. Reset (the entry moves to a new, empty session) and delete (the entry
 * goes) archive the family sessions that nothing REMAINING references: no other entry's family names them, and none
 * of their turns is an ancestor of a surviving turn (a turn of X under a turn of S keeps S). Retention (`maintain`)
 * archives old sessions by the same rule. Archiving moves a session's rows into one compressed, hashed record and
 * ripples the hashes of the live parents its turns hung under; restoring puts every row back with the same ids,
 * Bates ids, content and hashes, and ripples those parents back.
 *
 * Every reset, delete, archive, restore and entry change is exactly one audit event, in the same BEGIN IMMEDIATE
 * transaction as the change. A reset or delete that archives sessions appends its own event and then one
 * `session.archive` event per archived session, all in one transaction.
 *
 * Test hook: ARBORIST_TEST_CRASH_AFTER=POINT[:N] makes the process SIGKILL itself the N-th time (default 1st) it
 * reaches POINT, to prove that a crash leaves the before or the after state, never half. Points inside the
 * archive transaction: serialise, delete-fts, delete-nodes, delete-session, ripple, archive-record, audit; inside a
 * restore: insert-nodes, ripple; after any maintenance transaction committed: commit. Unset, it costs one
 * environment lookup per point.
 */

// ---- types ---------------------------------------------------------------------------------------------------

export interface CheckpointRef {
  sessionId: string;
  /** The Bates id of the last turn before (pre) or the first after (post) the compaction, when known. */
  leafId?: string;
}

export interface CompactionCheckpoint {
  checkpointId: string;
  reason: string;
  createdAt: string;
  summary?: string;
  preCompaction: CheckpointRef;
  postCompaction: CheckpointRef;
}

/** The stored document (session_entries.entry_json). */
export interface SessionEntry {
  sessionId: string;
  compactionCheckpoints: CompactionCheckpoint[];
  usageFamilySessionIds: string[];
}

export interface EntryInfo extends SessionEntry {
  key: string;
  updated_at: string;
  /** The artifact family: current session, each checkpoint's pre and post session, the usage family. */
  family: string[];
}

export type ArchiveReason = 'reset' | 'deleted' | 'retention';

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

export interface ArchivedSession extends ArchiveInfo {
  /** Roots of the live sessions whose turns' subtree hashes changed (the archived turns hung under them). */
  session_roots: Record<string, string>;
}

export interface ChangeResult extends ChangePlan {
  /** The entry's new current session (reset), or null (delete). */
  sid: string | null;
  archived: ArchivedSession[];
}

export interface ArchiveInfo {
  sid: string;
  label: string | null;
  n_nodes: number;
  reason: ArchiveReason;
  archived_at: string;
  /** Length of the canonical JSON document. */
  bytes: number;
  /** Length of the stored (compressed) body. */
  stored_bytes: number;
  sha256: string;
}

/** The archive document: canon() of this, gzipped, is session_archives.body. */
export interface ArchiveDocument {
  format: 'arborist-archive/1';
  archive: { reason: ArchiveReason; archived_at: string; why: string[] };
  session: {
    sid: string;
    label: string | null;
    created_at: string;
    next_seq: number;
    n_nodes: number;
    session_root: string;
  };
  nodes: ArchivedNodeRow[];
}

export interface ArchiveContent extends ArchiveInfo {
  /** The body still hashes to its sha256. */
  intact: boolean;
  why: string[];
  session: ArchiveDocument['session'];
  nodes: TurnNode[];
}

export interface RestoredSession {
  sid: string;
  label: string | null;
  n_nodes: number;
  sha256: string;
  session_root: string;
  /**
   * Every restored hash and child count equals the archived one. False when the surroundings differ from those at
   * archive time: a session that hung under this one was archived before it and is restored with it (or is still
   * archived while this one was not): the hashes are then recomputed to match what is live, so verify still holds.
   */
  identical: boolean;
  session_roots: Record<string, string>;
}

export interface ArchivedHit {
  bates: string;
  sid: string;
  seq: number;
  audit: string;
  question: string;
  snippet: string;
  created_at: string;
  archived_at: string;
  reason: ArchiveReason;
  field: 'question' | 'answer';
}

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

// ---- small helpers -------------------------------------------------------------------------------------------

const KEY_RE = /^[A-Za-z0-9][A-Za-z0-9._:@/+-]{0,127}$/;
const REASON_RE = /^[a-z][a-z0-9_-]{0,31}$/;
const ARCHIVE_FORMAT = 'arborist-archive/1';

function checkKey(key: string): string {
  if (typeof key !== 'string' || !KEY_RE.test(key)) {
    throw badInput(
      `entry key '${key}' must be 1-128 letters, digits or . _ : @ / + - (starting with a letter or digit)`,
    );
  }
  return key;
}

/** Maintenance runs on the shard's connection and shares its statement cache. */
function q(shard: Shard, sql: string, mode?: RowMode): Database.Statement {
  return cachedStatement(shard.db, sql, mode);
}

const list = (xs: Iterable<string | number>) => JSON.stringify([...xs]);

/** Estimated bytes of a node row: its text in UTF-8, ids and dates, two 32-byte hashes, and a fixed overhead. */
const ROW_BYTES = `(length(CAST(n.question AS BLOB)) + length(CAST(n.answer_text AS BLOB))
  + length(CAST(n.cited_titles_json AS BLOB)) + length(n.bates) + length(n.audit) + length(n.created_at)
  + coalesce(length(CAST(n.cache_key AS BLOB)), 0) + coalesce(length(CAST(n.source AS BLOB)), 0)
  + coalesce(length(CAST(n.source_id AS BLOB)), 0) + 112)`;
const SESSION_ROW_BYTES = 96;

// ---- entries -------------------------------------------------------------------------------------------------

/** The artifact family: current session, then each checkpoint's pre and post session, then the usage family. */
export function artifactFamily(entry: SessionEntry): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (sid: unknown) => {
    if (typeof sid !== 'string' || sid.trim() === '' || seen.has(sid)) return;
    seen.add(sid);
    out.push(sid);
  };
  add(entry.sessionId);
  for (const c of entry.compactionCheckpoints) {
    add(c.preCompaction?.sessionId);
    add(c.postCompaction?.sessionId);
  }
  for (const s of entry.usageFamilySessionIds) add(s);
  return out;
}

function parseEntry(key: string, json: string, updated_at: string): EntryInfo {
  const raw = JSON.parse(json) as Partial<SessionEntry>;
  const entry: SessionEntry = {
    sessionId: raw.sessionId ?? '',
    compactionCheckpoints: Array.isArray(raw.compactionCheckpoints) ? raw.compactionCheckpoints : [],
    usageFamilySessionIds: Array.isArray(raw.usageFamilySessionIds) ? raw.usageFamilySessionIds : [],
  };
  return { key, ...entry, updated_at, family: artifactFamily(entry) };
}

function readEntries(shard: Shard): EntryInfo[] {
  const rows = q(shard, 'SELECT key, entry_json, updated_at FROM session_entries ORDER BY key').all() as {
    key: string;
    entry_json: string;
    updated_at: string;
  }[];
  return rows.map((r) => parseEntry(r.key, r.entry_json, r.updated_at));
}

export function listEntries(shard: Shard): EntryInfo[] {
  return readEntries(shard);
}

export function getEntry(shard: Shard, key: string): EntryInfo | undefined {
  const r = q(shard, 'SELECT key, entry_json, updated_at FROM session_entries WHERE key = ?').get(key) as
    | { key: string; entry_json: string; updated_at: string }
    | undefined;
  return r ? parseEntry(r.key, r.entry_json, r.updated_at) : undefined;
}

export function requireEntry(shard: Shard, key: string): EntryInfo {
  const e = getEntry(shard, key);
  if (!e) throw notFound(`no entry '${key}'`);
  return e;
}

function storeEntry(shard: Shard, key: string, entry: SessionEntry, now: string): EntryInfo {
  const doc: SessionEntry = {
    sessionId: entry.sessionId,
    compactionCheckpoints: entry.compactionCheckpoints,
    usageFamilySessionIds: entry.usageFamilySessionIds,
  };
  q(
    shard,
    `INSERT INTO session_entries (key, sid, entry_json, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(key) DO UPDATE SET sid = excluded.sid, entry_json = excluded.entry_json, updated_at = excluded.updated_at`,
  ).run(key, doc.sessionId, canon(doc), now);
  return { key, ...doc, updated_at: now, family: artifactFamily(doc) };
}

/** A live session by sid or label, or a live turn's Bates id (then the ref carries it as leafId). */
function resolveRef(shard: Shard, x: string): CheckpointRef {
  if (parseBates(x)) {
    const n = shard.requireNode(x);
    return { sessionId: n.sid, leafId: n.bates };
  }
  return { sessionId: shard.resolveSession(x).sid };
}

/**
 * Points KEY at a live session (creating the entry when new). When the entry already pointed at another session,
 * that session joins the usage family, so it stays in the family (and is archived with it on reset or delete)
 * instead of silently losing its last reference. Setting the same session again changes nothing and logs nothing.
 */
export function setEntry(
  shard: Shard,
  key: string,
  session: string,
): { entry: EntryInfo; previous_sid: string | null; changed: boolean } {
  checkKey(key);
  return shard.write(() => {
    const sid = shard.resolveSession(session).sid;
    const old = getEntry(shard, key);
    if (old && old.sessionId === sid) return { entry: old, previous_sid: sid, changed: false };
    const now = new Date().toISOString();
    const usage = old ? [...old.usageFamilySessionIds] : [];
    if (old && old.sessionId !== '' && !usage.includes(old.sessionId)) usage.push(old.sessionId);
    const entry = storeEntry(
      shard,
      key,
      {
        sessionId: sid,
        compactionCheckpoints: old?.compactionCheckpoints ?? [],
        usageFamilySessionIds: usage,
      },
      now,
    );
    shard.audit.append('entry.set', { key, previous_sid: old?.sessionId ?? null, sid }, now);
    return { entry, previous_sid: old?.sessionId ?? null, changed: true };
  });
}

/** Records a compaction checkpoint. `pre` and `post` are live sessions (sid or label) or turns (Bates id). */
export function addCheckpoint(
  shard: Shard,
  key: string,
  opts: { pre: string; post: string; summary?: string; reason?: string },
): { entry: EntryInfo; checkpoint: CompactionCheckpoint } {
  const reason = opts.reason ?? 'compaction';
  if (!REASON_RE.test(reason)) throw badInput(`checkpoint reason '${reason}' is not a short lowercase word`);
  let summary: string | undefined;
  if (opts.summary !== undefined) {
    if (typeof opts.summary !== 'string') throw badInput('summary must be text');
    if (opts.summary.length > 65536) throw badInput('summary is longer than 64 KiB');
    summary = opts.summary.toWellFormed();
  }
  return shard.write(() => {
    const old = requireEntry(shard, key);
    const now = new Date().toISOString();
    const checkpoint: CompactionCheckpoint = {
      checkpointId: randomId(),
      reason,
      createdAt: now,
      ...(summary !== undefined ? { summary } : {}),
      preCompaction: resolveRef(shard, opts.pre),
      postCompaction: resolveRef(shard, opts.post),
    };
    const entry = storeEntry(
      shard,
      key,
      { ...old, compactionCheckpoints: [...old.compactionCheckpoints, checkpoint] },
      now,
    );
    shard.audit.append('entry.checkpoint', { checkpoint, key }, now);
    return { entry, checkpoint };
  });
}

/** Adds a live session to the entry's usage family. Already in the family: nothing changes, nothing is logged. */
export function addUsageFamily(
  shard: Shard,
  key: string,
  session: string,
): { entry: EntryInfo; changed: boolean } {
  return shard.write(() => {
    const old = requireEntry(shard, key);
    const sid = shard.resolveSession(session).sid;
    if (old.usageFamilySessionIds.includes(sid)) return { entry: old, changed: false };
    const now = new Date().toISOString();
    const entry = storeEntry(
      shard,
      key,
      { ...old, usageFamilySessionIds: [...old.usageFamilySessionIds, sid] },
      now,
    );
    shard.audit.append('entry.usage_family', { key, sid }, now);
    return { entry, changed: true };
  });
}

function randomId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (const b of randomBytes(8)) s += alphabet[b % 36];
  return s;
}

// ---- references ----------------------------------------------------------------------------------------------

function entryRefs(entries: EntryInfo[]): Map<string, KeepReason[]> {
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
function pinnedByChildren(shard: Shard, candidates: Iterable<string>): Map<string, KeepReason[]> {
  const left = new Set(candidates);
  const pinned = new Map<string, KeepReason[]>();
  const st = q(
    shard,
    `SELECT p.sid AS psid, p.bates AS pbates, c.bates AS cbates, c.sid AS csid
     FROM nodes p JOIN nodes c ON c.parent_id = p.id
     WHERE p.sid IN (SELECT value FROM json_each(@ids)) AND c.sid NOT IN (SELECT value FROM json_each(@ids))
     ORDER BY p.sid, p.seq, c.sid, c.seq`,
  );
  while (left.size > 0) {
    const rows = st.all({ ids: list(left) }) as {
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

interface Stat extends SessionSummary {
  created_at: string;
}

/** Live sessions with their size estimate and last activity (all, or those named). */
function sessionStats(shard: Shard, sids?: string[]): Stat[] {
  const filter = sids ? 'WHERE s.sid IN (SELECT value FROM json_each(?))' : '';
  const rows = q(
    shard,
    `SELECT s.sid, s.label, s.created_at, s.n_nodes,
       max(s.created_at, coalesce(max(n.created_at), s.created_at)) AS last_activity,
       ${SESSION_ROW_BYTES} + coalesce(sum(${ROW_BYTES}), 0) AS bytes
     FROM sessions s LEFT JOIN nodes n ON n.sid = s.sid ${filter}
     GROUP BY s.sid ORDER BY last_activity, s.sid`,
  ).all(...(sids ? [list(sids)] : [])) as Stat[];
  return rows;
}

const summary = (s: Stat): SessionSummary => ({
  sid: s.sid,
  label: s.label,
  n_nodes: s.n_nodes,
  bytes: s.bytes,
  last_activity: s.last_activity,
});

function isArchived(shard: Shard, sid: string): boolean {
  return shard.isArchivedSid(sid);
}

// ---- reset and delete ----------------------------------------------------------------------------------------

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
    if (!stats.has(sid)) gone.push({ sid, state: isArchived(shard, sid) ? 'archived' : 'unknown' });
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
    q(shard, 'INSERT INTO sessions (sid, label, created_at, session_root) VALUES (?, NULL, ?, ?)').run(
      sid,
      now,
      root,
    );
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
    q(shard, 'DELETE FROM session_entries WHERE key = ?').run(key);
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

// ---- archive -------------------------------------------------------------------------------------------------

interface ToArchive {
  sid: string;
  reason: ArchiveReason;
  why: string[];
}

/**
 * Archives a set of sessions inside the caller's transaction. Children first: a session whose turns have
 * children in another session of the set waits until that session is archived, so each archive body is a
 * consistent snapshot (its hashes are those of the tree without the sessions archived before it). A cycle (S under
 * X and X under S) is archived with foreign keys deferred to the commit, which still checks them.
 */
function archiveGroup(shard: Shard, items: ToArchive[]): ArchivedSession[] {
  if (items.length === 0) return [];
  const inSet = new Set(items.map((i) => i.sid));
  const edges = q(
    shard,
    `SELECT DISTINCT p.sid AS psid, c.sid AS csid FROM nodes p JOIN nodes c ON c.parent_id = p.id
     WHERE p.sid IN (SELECT value FROM json_each(@ids)) AND c.sid IN (SELECT value FROM json_each(@ids))
       AND c.sid <> p.sid`,
  ).all({ ids: list(inSet) }) as { psid: string; csid: string }[];
  const childSessions = new Map<string, Set<string>>();
  for (const e of edges) {
    const s = childSessions.get(e.psid);
    if (s) s.add(e.csid);
    else childSessions.set(e.psid, new Set([e.csid]));
  }
  const left = [...items];
  const done = new Set<string>();
  const goneBates = new Map<number, string>();
  const archived_at = new Date().toISOString();
  const out: ArchivedSession[] = [];
  while (left.length > 0) {
    let i = left.findIndex((it) => [...(childSessions.get(it.sid) ?? [])].every((c) => done.has(c)));
    if (i < 0) {
      shard.db.pragma('defer_foreign_keys = ON');
      i = 0;
    }
    const it = left.splice(i, 1)[0];
    const allowed = new Set([...inSet].filter((s) => !done.has(s) && s !== it.sid));
    out.push(archiveOne(shard, it, archived_at, allowed, goneBates));
    done.add(it.sid);
  }
  return out;
}

function archiveOne(
  shard: Shard,
  it: ToArchive,
  archived_at: string,
  alsoGoing: Set<string>,
  goneBates: Map<number, string>,
): ArchivedSession {
  const { sid, reason } = it;
  // Archiving removes the session's FTS rows with FTS5's 'delete', which must only name rows that are indexed.
  shard.flushIndex();
  const s = q(
    shard,
    'SELECT sid, label, created_at, next_seq, n_nodes, session_root FROM sessions WHERE sid = ?',
  ).get(sid) as
    | {
        sid: string;
        label: string | null;
        created_at: string;
        next_seq: number;
        n_nodes: number;
        session_root: Buffer;
      }
    | undefined;
  if (!s) throw notFound(`no session '${sid}'`);
  // Never orphan a live turn: the plan already excluded such sessions; this guards the invariant.
  const live = q(
    shard,
    `SELECT c.bates AS child, c.sid AS csid, p.id AS pid, p.bates AS parent FROM nodes p
     JOIN nodes c ON c.parent_id = p.id WHERE p.sid = ? AND c.sid <> p.sid`,
  ).all(sid) as { child: string; csid: string; pid: number; parent: string }[];
  for (const r of live) {
    if (!alsoGoing.has(r.csid)) {
      throw new ArboristError(
        'input',
        `session ${sid} holds ${r.parent}, the parent of live turn ${r.child}; it cannot be archived`,
      );
    }
    goneBates.set(r.pid, r.parent);
  }
  const rows = q(shard, `SELECT ${NODE_COLUMNS} FROM ${NODE_FROM} WHERE n.sid = ? ORDER BY n.id`).all(
    sid,
  ) as NodeRow[];
  const externalParents = new Set<number>();
  const nodes: ArchivedNodeRow[] = rows.map((r) => {
    let parent_bates = r.parent_bates;
    if (r.parent_id !== null && parent_bates === null) {
      parent_bates = goneBates.get(r.parent_id) ?? null;
      if (parent_bates === null) throw new ArboristError('shard', `turn ${r.bates} has a missing parent`);
    }
    if (r.is_top === 1 && r.parent_id !== null && !goneBates.has(r.parent_id))
      externalParents.add(r.parent_id);
    return toArchivedRow(r, parent_bates);
  });
  const doc: ArchiveDocument = {
    format: ARCHIVE_FORMAT,
    archive: { reason, archived_at, why: it.why },
    session: {
      sid: s.sid,
      label: s.label,
      created_at: s.created_at,
      next_seq: s.next_seq,
      n_nodes: s.n_nodes,
      session_root: s.session_root.toString('hex'),
    },
    nodes,
  };
  const json = Buffer.from(canon(doc), 'utf8');
  const body = gzipSync(json, { level: 9 });
  const digest = sha256(body);
  crashPoint('serialise');

  q(
    shard,
    `INSERT INTO nodes_fts (nodes_fts, rowid, question, answer_text, cited_titles_json)
     SELECT 'delete', id, question, answer_text, cited_titles_json FROM nodes WHERE sid = ?`,
  ).run(sid);
  crashPoint('delete-fts');
  q(shard, 'DELETE FROM node_subtree WHERE id IN (SELECT id FROM nodes WHERE sid = ?)').run(sid);
  q(shard, 'DELETE FROM nodes WHERE sid = ?').run(sid);
  crashPoint('delete-nodes');
  q(shard, 'DELETE FROM sessions WHERE sid = ?').run(sid);
  crashPoint('delete-session');
  const session_roots = shard.merkle.fold([...externalParents]);
  crashPoint('ripple');
  q(
    shard,
    `INSERT INTO session_archives (sid, reason, archived_at, label, n_nodes, bytes, body, sha256)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(sid, reason, archived_at, s.label, nodes.length, json.length, body, digest);
  crashPoint('archive-record');
  shard.audit.append(
    'session.archive',
    {
      bytes: json.length,
      n_nodes: nodes.length,
      reason,
      session_root: doc.session.session_root,
      session_roots,
      sha256: digest.toString('hex'),
      sid,
    },
    archived_at,
  );
  crashPoint('audit');
  return {
    sid,
    label: s.label,
    n_nodes: nodes.length,
    reason,
    archived_at,
    bytes: json.length,
    stored_bytes: body.length,
    sha256: digest.toString('hex'),
    session_roots,
  };
}

/**
 * Archives sessions by hand (reason `retention`), refusing any that is referenced: named by an entry's family or
 * holding the parent of a turn that would survive. One `session.archive` event each, one transaction.
 */
export function archiveSessions(
  shard: Shard,
  sessions: string[],
  why = 'archived by hand',
): ArchivedSession[] {
  const r = shard.write(() => {
    const sids = [...new Set(sessions.map((x) => shard.resolveSession(x).sid))];
    const refs = entryRefs(readEntries(shard));
    const pinned = pinnedByChildren(shard, sids);
    for (const sid of sids) {
      const reasons = refs.get(sid) ?? pinned.get(sid);
      if (reasons)
        throw badInput(
          `session ${sid} is kept: it ${describeKeepReason(reasons[0]).replace(/^referenced/, 'is referenced')}`,
        );
    }
    return archiveGroup(
      shard,
      sids.map((sid) => ({ sid, reason: 'retention' as const, why: [why] })),
    );
  });
  crashPoint('commit');
  return r;
}

interface ArchiveRowRaw {
  sid: string;
  reason: ArchiveReason;
  archived_at: string;
  label: string | null;
  n_nodes: number;
  bytes: number;
  stored_bytes: number;
  sha256: Buffer;
}

const ARCHIVE_COLS = 'sid, reason, archived_at, label, n_nodes, bytes, length(body) AS stored_bytes, sha256';

function toInfo(r: ArchiveRowRaw): ArchiveInfo {
  return { ...r, sha256: r.sha256.toString('hex') };
}

/** Every archived session, oldest archive first. */
export function listArchives(shard: Shard): ArchiveInfo[] {
  return (
    q(
      shard,
      `SELECT ${ARCHIVE_COLS} FROM session_archives ORDER BY archived_at, sid`,
    ).all() as ArchiveRowRaw[]
  ).map(toInfo);
}

function decodeBody(sid: string, body: Buffer): ArchiveDocument {
  let doc: ArchiveDocument;
  try {
    doc = JSON.parse(gunzipSync(body).toString('utf8')) as ArchiveDocument;
  } catch {
    throw new ArboristError('shard', `archive ${sid} is damaged: its body cannot be read`);
  }
  if (doc.format !== ARCHIVE_FORMAT || doc.session?.sid !== sid || !Array.isArray(doc.nodes)) {
    throw new ArboristError('shard', `archive ${sid} is damaged: its body is not an archive of ${sid}`);
  }
  return doc;
}

function loadArchive(shard: Shard, sid: string): { info: ArchiveInfo; body: Buffer; intact: boolean } {
  const r = q(shard, `SELECT ${ARCHIVE_COLS}, body FROM session_archives WHERE sid = ?`).get(sid) as
    | (ArchiveRowRaw & { body: Buffer })
    | undefined;
  if (!r) {
    if (shard.getSession(sid)) throw badInput(`session ${sid} is live, not archived`);
    throw notFound(`no archived session '${sid}'`);
  }
  const { body, ...rest } = r;
  return { info: toInfo(rest), body, intact: sha256(body).equals(r.sha256) };
}

/** An archived session, read back (read-only): its record, its session row and its turns by seq. */
export function readArchive(shard: Shard, sid: string): ArchiveContent {
  const { info, body, intact } = loadArchive(shard, sid);
  const doc = decodeBody(sid, body);
  const nodes = doc.nodes.map((n) => archivedToTurnNode(sid, n)).sort((a, b) => a.seq - b.seq);
  return { ...info, intact, why: doc.archive?.why ?? [], session: doc.session, nodes };
}

/**
 * Restores archived sessions (several at once when they hang under each other): every row comes back with its
 * id, Bates id, content and hashes, the FTS rows are re-added, and the live parents' subtree hashes and session
 * roots are rippled back. A session whose turns hang under a turn that is still archived elsewhere must be restored
 * together with that session. A body that no longer matches its sha256 is refused. One `session.restore` event
 * per session.
 */
export function restoreArchives(shard: Shard, sids: string[]): RestoredSession[] {
  if (sids.length === 0) throw badInput('nothing to restore');
  const r = shard.write(() => {
    const group = [...new Set(sids)];
    const docs = group.map((sid) => {
      const { info, body, intact } = loadArchive(shard, sid);
      if (!intact) {
        throw new ArboristError(
          'shard',
          `archive ${sid} is damaged: its body does not match its sha256; not restored`,
        );
      }
      return { info, doc: decodeBody(sid, body) };
    });
    const restoringIds = new Set<number>();
    for (const { doc } of docs) for (const n of doc.nodes) restoringIds.add(n.id);
    const parentBates = q(shard, 'SELECT bates FROM nodes WHERE id = ?', 'pluck');
    for (const { doc } of docs) {
      for (const n of doc.nodes) {
        if (n.parent_id === null || restoringIds.has(n.parent_id)) continue;
        if (parentBates.get(n.parent_id) === n.parent_bates) continue;
        const psid = n.parent_bates ? parseBates(n.parent_bates)?.sid : undefined;
        if (psid && isArchived(shard, psid)) {
          throw badInput(
            `${n.bates} hangs under ${n.parent_bates}, archived in session ${psid}: restore both (archive restore ${doc.session.sid} ${psid})`,
          );
        }
        throw new ArboristError('shard', `${n.bates} hangs under ${n.parent_bates}, which no longer exists`);
      }
    }
    const insSession = q(
      shard,
      'INSERT INTO sessions (sid, label, created_at, next_seq, n_nodes, session_root) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const insNode = q(
      shard,
      `INSERT INTO nodes (id, bates, sid, seq, parent_id, is_top, depth, n_children, question, answer_text,
        cited_titles_json, n_cited_sources, audit, cache_key, source, source_id, created_at, node_hash)
       VALUES (@id, @bates, @sid, @seq, @parent_id, @is_top, @depth, @n_children, @question, @answer_text,
        @cited_titles_json, @n_cited_sources, @audit, @cache_key, @source, @source_id, @created_at, @node_hash)`,
    );
    const insSubtree = q(shard, 'INSERT INTO node_subtree (id, subtree_hash) VALUES (?, ?)');
    const insFts = q(
      shard,
      'INSERT INTO nodes_fts (rowid, question, answer_text, cited_titles_json) VALUES (?, ?, ?, ?)',
    );
    for (const { doc } of docs) {
      const s = doc.session;
      insSession.run(s.sid, s.label, s.created_at, s.next_seq, s.n_nodes, Buffer.from(s.session_root, 'hex'));
    }
    // By id: a parent always has a smaller id than its child, in any session, so parents go in first.
    const all = docs.flatMap(({ doc }) => doc.nodes.map((n) => ({ sid: doc.session.sid, n })));
    all.sort((a, b) => a.n.id - b.n.id);
    for (const { sid, n } of all) {
      const { parent_bates: _pb, subtree_hash, ...row } = n;
      insNode.run({ ...row, sid, node_hash: Buffer.from(n.node_hash, 'hex') });
      insSubtree.run(n.id, Buffer.from(subtree_hash, 'hex'));
      insFts.run(n.id, n.question, n.answer_text, n.cited_titles_json);
    }
    crashPoint('insert-nodes');
    const roots = shard.merkle.fold(all.map((x) => x.n.id));
    // Sessions without turns are not reached by the ripple.
    for (const { doc } of docs) {
      if (!(doc.session.sid in roots))
        roots[doc.session.sid] = sessionRoot(doc.session.sid, []).toString('hex');
    }
    crashPoint('ripple');
    const now = q(
      shard,
      'SELECT n.n_children, h.subtree_hash FROM nodes n JOIN node_subtree h ON h.id = n.id WHERE n.id = ?',
    );
    const out: RestoredSession[] = [];
    for (const { info, doc } of docs) {
      const sid = doc.session.sid;
      let identical = roots[sid] === doc.session.session_root;
      for (const n of doc.nodes) {
        const cur = now.get(n.id) as { n_children: number; subtree_hash: Buffer };
        if (cur.n_children !== n.n_children || cur.subtree_hash.toString('hex') !== n.subtree_hash)
          identical = false;
      }
      q(shard, 'DELETE FROM session_archives WHERE sid = ?').run(sid);
      const others = Object.fromEntries(Object.entries(roots).filter(([k]) => k !== sid));
      shard.audit.append('session.restore', {
        identical,
        n_nodes: doc.nodes.length,
        session_root: roots[sid],
        session_roots: others,
        sha256: info.sha256,
        sid,
      });
      out.push({
        sid,
        label: doc.session.label,
        n_nodes: doc.nodes.length,
        sha256: info.sha256,
        session_root: roots[sid],
        identical,
        session_roots: others,
      });
    }
    return out;
  });
  crashPoint('commit');
  return r;
}

// ---- find in archives ----------------------------------------------------------------------------------------

/** Case and diacritics folded as the FTS tokenizer does (unicode61 remove_diacritics 2), then split into terms. */
function foldTerms(s: string): string[] {
  return queryTerms(s.normalize('NFKD').replace(/\p{M}/gu, ''));
}

function snippetOf(text: string, term: string): string {
  const flat = text.replace(/\s+/g, ' ');
  // Fold character by character, remembering where each folded character came from, to mark the original text.
  let folded = '';
  const from: number[] = [];
  for (let i = 0; i < flat.length; ) {
    const ch = String.fromCodePoint(flat.codePointAt(i)!);
    const f = ch.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
    for (let k = 0; k < f.length; k++) from.push(i);
    folded += f;
    i += ch.length;
  }
  from.push(flat.length);
  const hit = folded.indexOf(term);
  if (hit < 0) return flat.length > 90 ? `${flat.slice(0, 90)}…` : flat;
  const at = from[hit];
  const end = hit + term.length < from.length - 1 ? from[hit + term.length] : flat.length;
  const lo = Math.max(0, at - 30);
  const hi = Math.min(flat.length, end + 60);
  return `${lo > 0 ? '…' : ''}${flat.slice(lo, at)}«${flat.slice(at, end)}»${flat.slice(end, hi)}${hi < flat.length ? '…' : ''}`;
}

/**
 * Searches the turns of archived sessions. A plain scan: every archive body is decompressed and every turn's
 * question, answer and cited titles are tokenised the way the FTS index would; a turn matches when it holds
 * every term (the last one as a prefix when `prefix`). Question matches first, then newest. Fine for archives
 * of thousands of turns; it is not indexed. An archive whose body cannot be read is skipped (verify names it).
 */
export function findArchived(
  shard: Shard,
  query: string,
  opts: { limit?: number; prefix?: boolean } = {},
): ArchivedHit[] {
  const limit = Math.max(1, Math.min(opts.limit ?? 20, 1000));
  const terms = foldTerms(query);
  if (terms.length === 0) return [];
  const prefix = opts.prefix ?? false;
  const has = (words: Set<string>, t: string, last: boolean) =>
    words.has(t) || (last && prefix && [...words].some((w) => w.startsWith(t)));
  const hits: (ArchivedHit & { id: number })[] = [];
  const rows = q(shard, 'SELECT sid, reason, archived_at, body FROM session_archives ORDER BY sid').all() as {
    sid: string;
    reason: ArchiveReason;
    archived_at: string;
    body: Buffer;
  }[];
  for (const a of rows) {
    let doc: ArchiveDocument;
    try {
      doc = decodeBody(a.sid, a.body);
    } catch {
      continue;
    }
    for (const n of doc.nodes) {
      let cited: string[] = [];
      try {
        cited = JSON.parse(n.cited_titles_json) as string[];
      } catch {}
      const qWords = new Set(foldTerms(n.question));
      const all = new Set([...qWords, ...foldTerms(n.answer_text), ...foldTerms(cited.join(' '))]);
      const last = terms.length - 1;
      if (!terms.every((t, i) => has(all, t, i === last))) continue;
      const inQuestion = terms.every((t, i) => has(qWords, t, i === last));
      hits.push({
        id: n.id,
        bates: n.bates,
        sid: a.sid,
        seq: n.seq,
        audit: n.audit,
        question: n.question,
        snippet: snippetOf(inQuestion ? n.question : `${n.answer_text} ${cited.join(' · ')}`, terms[0]),
        created_at: n.created_at,
        archived_at: a.archived_at,
        reason: a.reason,
        field: inQuestion ? 'question' : 'answer',
      });
    }
  }
  hits.sort((x, y) => (x.field === y.field ? y.id - x.id : x.field === 'question' ? -1 : 1));
  return hits.slice(0, limit).map(({ id: _id, ...h }) => h);
}

// ---- retention -----------------------------------------------------------------------------------------------

function checkOptions(o: MaintainOptions): void {
  if (o.olderThanMs !== undefined && !(Number.isFinite(o.olderThanMs) && o.olderThanMs > 0)) {
    throw badInput('older-than must be a positive duration');
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
        why.push(`last activity ${s.last_activity} is older than ${new Date(ageLimit).toISOString()}`);
      }
      if (opts.maxSessions !== undefined && liveCount > opts.maxSessions) {
        why.push(`${liveCount} live sessions, more than the maximum of ${opts.maxSessions}`);
      }
      if (opts.maxBytes !== undefined && liveBytes > opts.maxBytes) {
        why.push(`${liveBytes} bytes of live turns, more than the maximum of ${opts.maxBytes}`);
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

function usedBytes(shard: Shard): number {
  const pages = shard.db.pragma('page_count', { simple: true }) as number;
  const free = shard.db.pragma('freelist_count', { simple: true }) as number;
  const size = shard.db.pragma('page_size', { simple: true }) as number;
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
