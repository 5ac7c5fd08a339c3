import { badInput } from '../base/errors.js';
import type { EventPayloads, SyncHead } from '../chain/events.js';
import { cachedStatement } from '../db/statements.js';
import { hex, nodeContentJson, ZERO_HASH } from '../model/hash.js';
import { NODE_COLUMNS, NODE_FROM, type NodeRow, toTurnNode } from '../model/rows.js';
import { dbOf, type Shard } from '../shard.js';

/**
 * What the shard keeps for sync over git (docs/sync.md): per remote and host, the commit last imported from (or
 * pushed to) that host's branch and the chain head it held (sync_state); per session pulled from another host,
 * whether that host has it archived (sync_marks); and the reads a push needs (the chain's events after a seq, a
 * batch of turns as the exact bytes their node hashes cover). Both tables are written only by recordSync, with the
 * one `sync` event that claims them (verify compares, compare-sources.ts).
 */

export type { SyncHead };

export interface SyncStateRow extends SyncHead {
  remote: string;
  host: string;
  /** The seq of the sync event that wrote the row. */
  event: number;
}

export interface SyncMark {
  host: string;
  archived: boolean;
}

/** The sync_state rows of one remote (all remotes when none is given). */
export function syncStates(shard: Shard, remote?: string): SyncStateRow[] {
  const db = dbOf(shard);
  const rows = (
    remote === undefined
      ? cachedStatement(db, 'SELECT remote, host, commit_id, seq, hash, event FROM sync_state').all()
      : cachedStatement(
          db,
          'SELECT remote, host, commit_id, seq, hash, event FROM sync_state WHERE remote = ?',
        ).all(remote)
  ) as { remote: string; host: string; commit_id: string; seq: number; hash: string; event: number }[];
  return rows.map((r) => ({
    remote: r.remote,
    host: r.host,
    commit: r.commit_id,
    seq: r.seq,
    hash: r.hash,
    event: r.event,
  }));
}

/** Every pulled session's host and archived-there mark, by sid (the TUI shows them; sync never acts on them). */
export function syncMarks(shard: Shard): Map<string, SyncMark> {
  const rows = cachedStatement(dbOf(shard), 'SELECT sid, host, archived FROM sync_marks').all() as {
    sid: string;
    host: string;
    archived: number;
  }[];
  return new Map(rows.map((r) => [r.sid, { host: r.host, archived: r.archived === 1 }]));
}

/** The marks of these sessions only (the browser asks for the sessions it shows). */
export function syncMarksOf(shard: Shard, sids: readonly string[]): Map<string, SyncMark> {
  const out = new Map<string, SyncMark>();
  const stmt = cachedStatement(dbOf(shard), 'SELECT host, archived FROM sync_marks WHERE sid = ?');
  for (const sid of new Set(sids)) {
    const r = stmt.get(sid) as { host: string; archived: number } | undefined;
    if (r) out.set(sid, { host: r.host, archived: r.archived === 1 });
  }
  return out;
}

/** The newest `sync` event's payload and its seq and time, or undefined when this shard never synced. */
export function lastSyncEvent(
  shard: Shard,
  remote?: string,
): { seq: number; ts: string; data: EventPayloads['sync'] } | undefined {
  const db = dbOf(shard);
  // kind is stored beside the body; a scan from the newest end stops at the first sync event.
  const it = cachedStatement(
    db,
    "SELECT seq, ts, body FROM audit_events WHERE kind = 'sync' ORDER BY seq DESC",
  ).iterate() as Iterable<{ seq: number; ts: string; body: Buffer }>;
  for (const r of it) {
    try {
      const ev = JSON.parse(r.body.toString('utf8')) as { data: EventPayloads['sync'] };
      if (remote === undefined || ev.data.remote === remote) return { seq: r.seq, ts: r.ts, data: ev.data };
    } catch {
      // a body that is not JSON is chain-check's and verify's to report
    }
  }
  return undefined;
}

/** Every `sync` event's payload with its seq, oldest first (chain-check --host reads the heads they recorded). */
export function* syncHistory(shard: Shard): Generator<{ seq: number; data: EventPayloads['sync'] }> {
  const it = cachedStatement(
    dbOf(shard),
    "SELECT seq, body FROM audit_events WHERE kind = 'sync' ORDER BY seq",
  ).iterate() as Iterable<{ seq: number; body: Buffer }>;
  for (const r of it) {
    try {
      yield {
        seq: r.seq,
        data: (JSON.parse(r.body.toString('utf8')) as { data: EventPayloads['sync'] }).data,
      };
    } catch {
      // a body that is not JSON is chain-check's to report
    }
  }
}

/** What one sync records: exactly its `sync` event's payload (the registry declares it once). */
export type SyncRecord = EventPayloads['sync'];

const HOST_RE = /^[a-z0-9]{1,32}$/;

/** Writes the sync_state rows and marks of one sync with its `sync` event, in one transaction. Returns its seq. */
export function recordSync(shard: Shard, r: SyncRecord): number {
  if (!HOST_RE.test(r.host)) throw badInput(`host id '${r.host}' must be 1-32 lowercase letters or digits`);
  for (const h of Object.keys(r.hosts))
    if (!HOST_RE.test(h)) throw badInput(`host id '${h}' must be 1-32 lowercase letters or digits`);
  const db = dbOf(shard);
  return shard.write(() => {
    const data: EventPayloads['sync'] = {
      remote: r.remote,
      host: r.host,
      pushed: r.pushed,
      turns_pushed: r.turns_pushed,
      turns_pulled: r.turns_pulled,
      hosts: r.hosts,
      marks: r.marks,
    };
    const { seq } = shard.audit.append('sync', data);
    const put = cachedStatement(
      db,
      'INSERT OR REPLACE INTO sync_state (remote, host, commit_id, seq, hash, event) VALUES (?, ?, ?, ?, ?, ?)',
    );
    if (r.pushed) put.run(r.remote, r.host, r.pushed.commit, r.pushed.seq, r.pushed.hash, seq);
    for (const [host, h] of Object.entries(r.hosts)) put.run(r.remote, host, h.commit, h.seq, h.hash, seq);
    const mark = cachedStatement(
      db,
      'INSERT OR REPLACE INTO sync_marks (sid, host, archived, event) VALUES (?, ?, ?, ?)',
    );
    for (const [sid, m] of Object.entries(r.marks)) mark.run(sid, m.host, m.archived ? 1 : 0, seq);
    return seq;
  });
}

/** One stored event as it travels: its seq, its hash (hex) and its body, the exact bytes hashed (one line). */
export interface RawEvent {
  seq: number;
  kind: string;
  hash: string;
  body: Buffer;
}

/** The chain's events after `afterSeq`, in order, as stored (never re-serialised). */
export function* eventsAfter(shard: Shard, afterSeq: number): Generator<RawEvent> {
  const it = cachedStatement(
    dbOf(shard),
    'SELECT seq, kind, event_hash, body FROM audit_events WHERE seq > ? ORDER BY seq',
  ).iterate(afterSeq) as Iterable<{ seq: number; kind: string; event_hash: Buffer; body: Buffer }>;
  for (const r of it) yield { seq: r.seq, kind: r.kind, hash: r.event_hash.toString('hex'), body: r.body };
}

/**
 * The seq a live session mints next (seqs are never reused), or undefined for no live session: sync holds a pulled
 * turn to it, since the bulk path refuses a seq below it by throwing the whole batch.
 */
export function nextSeqOf(shard: Shard, sid: string): number | undefined {
  return cachedStatement(dbOf(shard), 'SELECT next_seq FROM sessions WHERE sid = ?', 'pluck').get(sid) as
    | number
    | undefined;
}

/** The hash (hex) of event `seq` as stored, or undefined when the chain has no such event. */
export function eventHashAt(shard: Shard, seq: number): string | undefined {
  if (seq === 0) return ZERO_HASH.toString('hex');
  const h = cachedStatement(dbOf(shard), 'SELECT event_hash FROM audit_events WHERE seq = ?', 'pluck').get(
    seq,
  ) as Buffer | undefined;
  return h ? h.toString('hex') : undefined;
}

/** A live turn as sync writes it: the canonical JSON its node hash covers (docs/sessions.md) and that hash. */
export interface TurnBlob {
  bates: string;
  sid: string;
  seq: number;
  blob: string;
  node_hash: string;
}

/** The live turns of these Bates ids (those not live are left out), in the order given. */
export function turnBlobs(shard: Shard, bates: readonly string[]): TurnBlob[] {
  const q = cachedStatement(dbOf(shard), `SELECT ${NODE_COLUMNS} FROM ${NODE_FROM} WHERE n.bates = ?`);
  const out: TurnBlob[] = [];
  for (const b of bates) {
    const r = q.get(b) as NodeRow | undefined;
    if (r) out.push(blobOf(r));
  }
  return out;
}

/** Every live turn of a session with seq > afterSeq, in seq order. */
export function sessionTurnBlobs(shard: Shard, sid: string, afterSeq = 0): TurnBlob[] {
  const rows = cachedStatement(
    dbOf(shard),
    `SELECT ${NODE_COLUMNS} FROM ${NODE_FROM} WHERE n.sid = ? AND n.seq > ? ORDER BY n.seq`,
  ).all(sid, afterSeq) as NodeRow[];
  return rows.map(blobOf);
}

function blobOf(r: NodeRow): TurnBlob {
  const n = toTurnNode(r);
  return {
    bates: n.bates,
    sid: n.sid,
    seq: n.seq,
    blob: nodeContentJson(n),
    node_hash: hex(r.node_hash) ?? '',
  };
}
