import { randomBytes } from 'node:crypto';
import {
  type BigIntStats,
  closeSync,
  openSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { canon, sha256 } from '../model/hash.js';

/**
 * The verified-head state file of `arborist status` (docs/ssh-tmux.md, "What the state file is"): a small JSON
 * document next to the shard that remembers the last event a check verified, so the next status checks only what
 * came after it. It is a hint, never a proof: anything wrong with it (missing, unreadable, truncated, garbled, of
 * another shard, pointing at an event that no longer has the recorded hash) means a full check, never "intact".
 *
 * It binds:
 * - the shard: its real path, device and inode (a state file copied beside another shard, or a shard replaced by
 *   another file, is not trusted);
 * - the verified event: seq and event hash (status confirms the stored event still has it and still hashes to it);
 * - the shard's files as they were when it was verified (`marks`): any write to the shard or its WAL since then
 *   changes them, so "nothing was written" is known without reading the chain;
 * - a digest over all of the above, so a torn or hand-edited file is noticed. It is not a keyed MAC: whoever can
 *   rewrite the shard can rewrite this file consistently too (only a head kept elsewhere, `--expect-head`, catches
 *   that).
 */

export const STATE_VERSION = 1;
/** Larger than any state file this code writes: a bigger one is not read at all. */
const MAX_STATE_BYTES = 64 * 1024;
const DOMAIN = 'arborist status state v1\n';

/** One file of the shard as stat(2) and its first bytes describe it. Decimal strings: inodes and ns times are 64-bit. */
export interface FileMark {
  ino: string;
  size: string;
  mtime_ns: string;
  /** The main file only. A WAL's ctime moves on every read when running as root (SQLite fchowns it). */
  ctime_ns?: string;
  /** The WAL only: its 32-byte header (salts and checkpoint number change when a writer restarts the WAL). */
  header?: string;
}

/** The shard file and its WAL. An absent or empty WAL is `null`: it holds nothing, so it cannot hide a change. */
export interface ShardMarks {
  db: FileMark;
  wal: FileMark | null;
}

/** Turns created today, counted incrementally by node id (ids are never reused and grow with each insert). */
export interface TodayCount {
  /** The local day as ISO bounds [lo, hi). */
  lo: string;
  hi: string;
  /** No turn with an id above this had been counted. */
  through_id: number;
  /** Every turn with created_at in the day has an id above this (a recount starts here). */
  from_id: number;
  count: number;
  /** When `through_id` was read; a previous day's count says that nothing up to it belongs to a later day. */
  at: string;
  /** The chain's head seq when counted: later events that remove or restore turns force a recount. */
  event_seq: number;
}

export interface HeadState {
  v: number;
  shard: { path: string; dev: string; ino: string };
  verified: { seq: number; hash: string };
  marks: ShardMarks;
  /** When the last full check (of every event) ran. */
  full_at: string;
  today: TodayCount | null;
}

/** Where the state file of the shard at `dbPath` lives: beside it. */
export function statePathFor(dbPath: string): string {
  return `${dbPath}.status.json`;
}

/** The shard's identity: its real path and the device and inode of the file there. */
export function shardIdentity(dbPath: string): HeadState['shard'] {
  const st = statSync(dbPath, { bigint: true });
  return { path: realpathSync(dbPath), dev: String(st.dev), ino: String(st.ino) };
}

function statOrNull(path: string): BigIntStats | null {
  try {
    return statSync(path, { bigint: true });
  } catch {
    return null;
  }
}

function readHead(path: string, n: number): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(n);
    const got = readSync(fd, buf, 0, n, 0);
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/**
 * The shard's files now. Take this after the connection is open (opening may create an empty WAL) and before the
 * chain is read: a write that lands after it then shows as a change next time, one before it is in what was read.
 */
export function shardMarks(dbPath: string): ShardMarks {
  const db = statSync(dbPath, { bigint: true });
  const mark: FileMark = {
    ino: String(db.ino),
    size: String(db.size),
    mtime_ns: String(db.mtimeNs),
    ctime_ns: String(db.ctimeNs),
  };
  const walPath = `${dbPath}-wal`;
  const w = statOrNull(walPath);
  let wal: FileMark | null = null;
  if (w && w.size > 0n) {
    wal = {
      ino: String(w.ino),
      size: String(w.size),
      mtime_ns: String(w.mtimeNs),
      header: (readHead(walPath, 32) ?? Buffer.alloc(0)).toString('hex'),
    };
  }
  return { db: mark, wal };
}

export function sameMarks(a: ShardMarks, b: ShardMarks): boolean {
  return canon(a) === canon(b);
}

function digest(body: HeadState): string {
  return sha256(DOMAIN + canon(body)).toString('hex');
}

export type StateRead = { state: HeadState; problem: null } | { state: null; problem: string };

const DEC = /^\d{1,20}$/;
const HEX64 = /^[0-9a-f]{64}$/;
const isInt = (x: unknown, min = 0): x is number => Number.isSafeInteger(x) && (x as number) >= min;
const isIso = (x: unknown): x is string => typeof x === 'string' && !Number.isNaN(Date.parse(x));

function validMark(m: unknown, wal: boolean): boolean {
  if (typeof m !== 'object' || m === null) return false;
  const f = m as Record<string, unknown>;
  const keys = Object.keys(f).sort().join(',');
  if (keys !== (wal ? 'header,ino,mtime_ns,size' : 'ctime_ns,ino,mtime_ns,size')) return false;
  if (![f.ino, f.size, f.mtime_ns].every((x) => typeof x === 'string' && DEC.test(x))) return false;
  return wal
    ? typeof f.header === 'string' && /^[0-9a-f]{0,64}$/.test(f.header)
    : typeof f.ctime_ns === 'string' && DEC.test(f.ctime_ns);
}

function validToday(t: unknown): t is TodayCount {
  if (t === null) return true;
  if (typeof t !== 'object') return false;
  const d = t as Record<string, unknown>;
  return (
    isIso(d.lo) &&
    isIso(d.hi) &&
    isIso(d.at) &&
    isInt(d.through_id) &&
    isInt(d.from_id) &&
    isInt(d.count) &&
    isInt(d.event_seq) &&
    Object.keys(d).sort().join(',') === 'at,count,event_seq,from_id,hi,lo,through_id'
  );
}

/** The shape, every field checked: a document that parses but is not exactly ours is a problem, not a state. */
function validState(x: unknown): x is HeadState & { sum: string } {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return false;
  const o = x as Record<string, unknown>;
  if (Object.keys(o).sort().join(',') !== 'full_at,marks,shard,sum,today,v,verified') return false;
  const shard = o.shard as Record<string, unknown> | null;
  const verified = o.verified as Record<string, unknown> | null;
  const marks = o.marks as Record<string, unknown> | null;
  return (
    o.v === STATE_VERSION &&
    typeof o.sum === 'string' &&
    HEX64.test(o.sum) &&
    typeof shard === 'object' &&
    shard !== null &&
    typeof shard.path === 'string' &&
    typeof shard.dev === 'string' &&
    DEC.test(shard.dev) &&
    typeof shard.ino === 'string' &&
    DEC.test(shard.ino) &&
    typeof verified === 'object' &&
    verified !== null &&
    isInt(verified.seq) &&
    typeof verified.hash === 'string' &&
    HEX64.test(verified.hash) &&
    typeof marks === 'object' &&
    marks !== null &&
    validMark(marks.db, false) &&
    (marks.wal === null || validMark(marks.wal, true)) &&
    isIso(o.full_at) &&
    validToday(o.today)
  );
}

/**
 * Reads the state file and checks it: size, JSON, shape, digest, and that it describes the shard at `shard`
 * (same real path, device and inode). Never throws: every failure is a `problem`, said in a few words.
 */
export function readHeadState(statePath: string, shard: HeadState['shard']): StateRead {
  const st = statOrNull(statePath);
  if (!st) return { state: null, problem: 'no state file' };
  if (!st.isFile()) return { state: null, problem: 'the state file is not a file' };
  if (st.size > BigInt(MAX_STATE_BYTES)) return { state: null, problem: 'the state file is too large' };
  const raw = readHead(statePath, MAX_STATE_BYTES);
  if (raw === null) return { state: null, problem: 'the state file cannot be read' };
  let doc: unknown;
  try {
    doc = JSON.parse(raw.toString('utf8'));
  } catch {
    return { state: null, problem: 'the state file is damaged (not JSON)' };
  }
  if (!validState(doc)) return { state: null, problem: 'the state file is damaged (not its format)' };
  const { sum, ...body } = doc;
  if (digest(body) !== sum) return { state: null, problem: 'the state file is damaged (its digest differs)' };
  if (body.shard.path !== shard.path || body.shard.dev !== shard.dev || body.shard.ino !== shard.ino)
    return { state: null, problem: 'the state file describes another shard file' };
  return { state: body, problem: null };
}

/**
 * Writes the state file whole or not at all: a new file (0600, never through an existing name or symlink) in the
 * same folder, renamed over the old one. No fsync: a file torn by a crash fails its digest, which means a full
 * check, never a wrong answer. Returns false (quietly) when the folder cannot be written.
 */
export function writeHeadState(statePath: string, state: HeadState): boolean {
  const dir = dirname(statePath);
  const tmp = join(dir, `.${basename(statePath)}.${process.pid}-${randomBytes(4).toString('hex')}`);
  const text = `${JSON.stringify({ ...state, sum: digest(state) })}\n`;
  let fd: number | null = null;
  try {
    fd = openSync(tmp, 'wx', 0o600);
    writeSync(fd, text);
    closeSync(fd);
    fd = null;
    renameSync(tmp, statePath);
    return true;
  } catch {
    try {
      if (fd !== null) closeSync(fd);
      rmSync(tmp, { force: true });
    } catch {
      // nothing was made, or it cannot be removed either: the next write uses another name
    }
    return false;
  }
}
