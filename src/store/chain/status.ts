import type Database from 'better-sqlite3';
import { openDatabase } from '../db/open.js';
import { cachedStatement } from '../db/statements.js';
import { canon, eventHash, ZERO_HASH } from '../model/hash.js';
import {
  type HeadState,
  readHeadState,
  sameMarks,
  shardIdentity,
  shardMarks,
  statePathFor,
  type TodayCount,
  writeHeadState,
} from './head-state.js';
import { AuditLog, type ChainCheck } from './log.js';

/**
 * `arborist status`: the chain's state in one cheap look, for a tmux status line or a shell prompt
 * (docs/ssh-tmux.md). It opens the shard read-only, checks only the events after the head a previous status
 * verified (remembered in the state file, audit/head-state.ts), and counts today's turns incrementally. Whenever
 * the state file cannot be trusted it checks every event: it may be slow, never wrongly "intact".
 */

/** A full check at least this often even when everything looks unchanged (bounds what an incremental check trusts). */
export const FULL_CHECK_EVERY_MS = 60 * 60 * 1000;

export interface StatusOptions {
  /** Check every event whatever the state file says. */
  full?: boolean;
  /** Where the state file is (default: beside the shard, statePathFor). */
  statePath?: string;
  /** The head kept elsewhere: the chain must still hold event `seq` with this hash, verified. */
  expectHead?: { seq: number; hash: string };
}

export interface ChainStatus {
  /** The chain is intact (and, with expectHead, still holds that head). */
  ok: boolean;
  events: number;
  /** `seq:hash` of the last verified event (the head itself when intact). */
  head: string;
  first_broken_seq: number | null;
  reason: string | null;
  turns_today: number;
  checked: 'incremental' | 'full';
  /** Why every event was checked (null when only new ones were). */
  full_reason: string | null;
  state_file: { path: string; trusted: boolean; saved: boolean };
  expected_head?: string;
  /** With expectHead: the verified chain holds that event with that hash. */
  holds_expected_head?: boolean;
}

/** Events that take turns out of `nodes` or put them back: today's count is redone after one. */
const REMOVING_KINDS = ['session.archive', 'session.restore', 'entry.reset', 'entry.delete'];
/** created_at may carry any zone offset: rows are fetched over a window this much wider, then compared exactly. */
const ZONE_SLACK_MS = 15 * 60 * 60 * 1000;

/** The verified event still stored with its hash, and its stored bytes still hash to it. */
function stillVerified(db: Database.Database, v: { seq: number; hash: string }): boolean {
  const row = cachedStatement(
    db,
    'SELECT prev_hash, body, event_hash FROM audit_events WHERE seq = ?',
    'raw',
  ).get(v.seq) as [unknown, unknown, unknown] | undefined;
  if (!row) return false;
  const [prev, body, stored] = row;
  if (!Buffer.isBuffer(prev) || !Buffer.isBuffer(body) || !Buffer.isBuffer(stored)) return false;
  const want = Buffer.from(v.hash, 'hex');
  return stored.equals(want) && eventHash(prev, body).equals(want);
}

/** The local day of `now` as [lo, hi). */
export function localDay(now: Date): { lo: Date; hi: Date } {
  const lo = new Date(now);
  lo.setHours(0, 0, 0, 0);
  const hi = new Date(lo);
  hi.setDate(hi.getDate() + 1);
  return { lo, hi };
}

/**
 * Turns whose created_at falls in today's local day. Without an index on created_at a count scans every row
 * (~1.2 s on 1M turns, as long again as the chain check), so it is kept in the state file and carried forward by
 * node id (ids grow with each insert and are never reused): only turns added since the last status are read. A
 * new day starts from the last count's id (everything up to it was stored, so created, before that day began);
 * events that removed or restored turns today make it count today's part again; with no usable count it starts
 * from storedBefore(). All of it assumes what the chain does of time: a turn is not created after it is stored,
 * and the clock does not run backwards.
 */
/**
 * A node id such that every turn up to it was stored before `lo`, read from the chain instead of from every turn:
 * the newest event stamped before `lo` by the clock when it was appended (any kind but node.add, whose time is the
 * turn's created_at when the caller gave one), then the newest turn added before that event. Costs a backward
 * walk over the events since; 0 when there is no such event or turn (then every turn is read).
 */
function storedBefore(db: Database.Database, lo: Date): number {
  const clocked = cachedStatement(
    db,
    "SELECT seq, ts FROM audit_events WHERE kind != 'node.add' ORDER BY seq DESC",
    'raw',
  );
  let before: number | null = null;
  for (const [seq, ts] of clocked.iterate() as IterableIterator<[number, unknown]>) {
    if (typeof ts === 'string' && Date.parse(ts) < lo.getTime()) {
      before = seq;
      break;
    }
  }
  if (before === null) return 0;
  const lastAdd = cachedStatement(
    db,
    "SELECT body FROM audit_events WHERE seq < ? AND kind = 'node.add' ORDER BY seq DESC LIMIT 1",
    'pluck',
  ).get(before);
  let bates: unknown;
  try {
    bates = Buffer.isBuffer(lastAdd) ? JSON.parse(lastAdd.toString('utf8'))?.data?.bates : undefined;
  } catch {
    return 0;
  }
  if (typeof bates !== 'string') return 0;
  // Its turn archived since: then every turn is read.
  const id = cachedStatement(db, 'SELECT id FROM nodes WHERE bates = ?', 'pluck').get(bates);
  return typeof id === 'number' ? id : 0;
}

function countToday(db: Database.Database, prior: TodayCount | null, now: Date): TodayCount {
  const { lo, hi } = localDay(now);
  const loIso = lo.toISOString();
  const hiIso = hi.toISOString();
  const rowsIn = cachedStatement(
    db,
    'SELECT id, created_at FROM nodes WHERE id > ? AND id <= ? AND created_at >= ? AND created_at < ?',
    'raw',
  );
  const maxIdStmt = cachedStatement(db, 'SELECT coalesce(max(id), 0) FROM nodes', 'pluck');
  const headStmt = cachedStatement(db, 'SELECT coalesce(max(seq), 0) FROM audit_events', 'pluck');
  const removed = cachedStatement(
    db,
    `SELECT 1 FROM audit_events WHERE seq > ? AND kind IN (${REMOVING_KINDS.map(() => '?').join(',')}) LIMIT 1`,
    'pluck',
  );
  const wideLo = new Date(lo.getTime() - ZONE_SLACK_MS).toISOString();
  const wideHi = new Date(hi.getTime() + ZONE_SLACK_MS).toISOString();
  const count = (afterId: number, maxId: number) => {
    let n = 0;
    let minId = Number.POSITIVE_INFINITY;
    for (const [id, created] of rowsIn.all(afterId, maxId, wideLo, wideHi) as [number, unknown][]) {
      const t = typeof created === 'string' ? Date.parse(created) : Number.NaN;
      if (t >= lo.getTime() && t < hi.getTime()) {
        n++;
        if (id < minId) minId = id;
      }
    }
    return { n, minId };
  };
  // One read transaction: the highest id and the rows counted come from the same snapshot.
  return db.transaction((): TodayCount => {
    const maxId = maxIdStmt.get() as number;
    const headSeq = headStmt.get() as number;
    const base = { lo: loIso, hi: hiIso, through_id: maxId, event_seq: headSeq };
    const usable = prior !== null && prior.through_id <= maxId && prior.event_seq <= headSeq;
    if (usable && prior.lo === loIso && prior.hi === hiIso) {
      if (removed.get(prior.event_seq, ...REMOVING_KINDS) === undefined) {
        const add = count(prior.through_id, maxId).n;
        return { ...base, from_id: prior.from_id, count: prior.count + add, at: '' };
      }
      return { ...base, from_id: prior.from_id, count: count(prior.from_id, maxId).n, at: '' };
    }
    if (usable && Date.parse(prior.at) < lo.getTime()) {
      // The last count was taken before today began: no turn up to its id was created today.
      return { ...base, from_id: prior.through_id, count: count(prior.through_id, maxId).n, at: '' };
    }
    const start = Math.min(storedBefore(db, lo), maxId);
    const all = count(start, maxId);
    const from = all.n > 0 ? all.minId - 1 : maxId;
    return { ...base, from_id: from, count: all.n, at: '' };
  })();
}

/** The status of the shard at `dbPath`, reading it only; the state file beside it is the one thing written. */
export function chainStatus(dbPath: string, opts: StatusOptions = {}): ChainStatus {
  const statePath = opts.statePath ?? statePathFor(dbPath);
  const db = openDatabase(dbPath, { readonly: true });
  try {
    const identity = shardIdentity(dbPath);
    // After the open (which may have made an empty WAL), before any event is read.
    const marks = shardMarks(dbPath);
    const read = readHeadState(statePath, identity);
    const prior = read.state;
    const log = new AuditLog(db);
    const head = log.head();
    const startedAt = new Date();

    let from: { seq: number; hash: Buffer } | undefined;
    let fullReason: string | null = null;
    if (opts.full) fullReason = 'asked for (--full)';
    else if (!prior) fullReason = read.problem;
    else if (prior.verified.seq === 0) fullReason = 'no event was verified yet';
    else if (!(startedAt.getTime() - Date.parse(prior.full_at) < FULL_CHECK_EVERY_MS))
      fullReason = 'the last full check is more than an hour old';
    else if (!stillVerified(db, prior.verified))
      fullReason = `event ${prior.verified.seq} is no longer the one verified`;
    else if (sameMarks(prior.marks, marks) || head.seq > prior.verified.seq)
      from = { seq: prior.verified.seq, hash: Buffer.from(prior.verified.hash, 'hex') };
    // Written to, yet no new event: the only writes that add none are housekeeping (the FTS index, checkpoints)
    // and edits behind arborist's back. They cannot be told apart without reading the chain.
    else fullReason = 'the shard was written without new events';

    let r: ChainCheck = from ? log.check(from) : log.check();
    if (from && !r.ok && r.first_broken_seq === from.seq) {
      // The verified event itself changed between the look above and the check: find where, from the start.
      fullReason = `event ${from.seq} changed after it was verified`;
      from = undefined;
      r = log.check();
    }
    const checked = from ? 'incremental' : 'full';

    const today = countToday(db, prior?.today ?? null, new Date());
    today.at = new Date().toISOString();

    let holds: boolean | undefined;
    if (opts.expectHead) {
      const e = opts.expectHead;
      if (e.seq === 0) holds = e.hash === ZERO_HASH.toString('hex');
      else if (e.seq > r.verified.seq) holds = false;
      else {
        const stored = cachedStatement(db, 'SELECT event_hash FROM audit_events WHERE seq = ?', 'pluck').get(
          e.seq,
        );
        holds = Buffer.isBuffer(stored) && stored.toString('hex') === e.hash;
      }
    }

    const next: HeadState = {
      v: 1,
      shard: identity,
      verified: r.verified,
      marks,
      full_at: checked === 'full' ? startedAt.toISOString() : prior!.full_at,
      today,
    };
    // Unchanged (nothing new, the same day, the same count): leave the file alone.
    const same =
      prior !== null &&
      canon({ ...prior, today: { ...prior.today, at: '' } }) ===
        canon({ ...next, today: { ...today, at: '' } });
    const saved = same ? true : writeHeadState(statePath, next);

    return {
      ok: r.ok && holds !== false,
      events: r.events,
      head: r.head,
      first_broken_seq: r.first_broken_seq,
      reason: r.reason,
      turns_today: today.count,
      checked,
      full_reason: fullReason,
      state_file: { path: statePath, trusted: checked === 'incremental', saved },
      ...(opts.expectHead
        ? { expected_head: `${opts.expectHead.seq}:${opts.expectHead.hash}`, holds_expected_head: holds }
        : {}),
    };
  } finally {
    db.close();
  }
}
