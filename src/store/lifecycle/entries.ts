import { badInput, notFound } from '../base/errors.js';
import { cachedStatement } from '../db/statements.js';
import { canon } from '../model/hash.js';
import { parseBates, randomId } from '../model/ids.js';
import { dbOf, type Shard } from '../shard.js';

/**
 * Session entries (docs/sessions.md, "Entries, archiving and retention"). An entry is a named handle ("main") on a
 * current session, with compaction checkpoints and a usage family; its artifact family is every session it names.
 * Every entry change is exactly one audit event, in the same BEGIN IMMEDIATE transaction as the change.
 */

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

const KEY_RE = /^[A-Za-z0-9][A-Za-z0-9._:@/+-]{0,127}$/;
const REASON_RE = /^[a-z][a-z0-9_-]{0,31}$/;

function checkKey(key: string): string {
  if (typeof key !== 'string' || !KEY_RE.test(key)) {
    throw badInput(
      `entry key '${key}' must be 1-128 letters, digits or . _ : @ / + - (starting with a letter or digit)`,
    );
  }
  return key;
}

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

export function readEntries(shard: Shard): EntryInfo[] {
  const rows = cachedStatement(
    dbOf(shard),
    'SELECT key, entry_json, updated_at FROM session_entries ORDER BY key',
  ).all() as {
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
  const r = cachedStatement(
    dbOf(shard),
    'SELECT key, entry_json, updated_at FROM session_entries WHERE key = ?',
  ).get(key) as { key: string; entry_json: string; updated_at: string } | undefined;
  return r ? parseEntry(r.key, r.entry_json, r.updated_at) : undefined;
}

export function requireEntry(shard: Shard, key: string): EntryInfo {
  const e = getEntry(shard, key);
  if (!e) throw notFound(`no entry '${key}'`);
  return e;
}

export function storeEntry(shard: Shard, key: string, entry: SessionEntry, now: string): EntryInfo {
  const doc: SessionEntry = {
    sessionId: entry.sessionId,
    compactionCheckpoints: entry.compactionCheckpoints,
    usageFamilySessionIds: entry.usageFamilySessionIds,
  };
  cachedStatement(
    dbOf(shard),
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
  opts: {
    pre: string;
    post: string;
    summary?: string;
    reason?: string;
    /** An imported checkpoint keeps its source's id and time (and is not added twice). */
    checkpointId?: string;
    createdAt?: string;
  },
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
    if (opts.checkpointId !== undefined && typeof opts.checkpointId !== 'string')
      throw badInput('checkpoint id must be text');
    if (opts.createdAt !== undefined && typeof opts.createdAt !== 'string')
      throw badInput('checkpoint time must be text');
    const checkpoint: CompactionCheckpoint = {
      checkpointId: opts.checkpointId ?? randomId(),
      reason,
      createdAt: opts.createdAt ?? now,
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
