import type Database from 'better-sqlite3';
import { cachedStatement } from './statements.js';

/** The audit chain's table, as migration 1 creates it (schema.ts) and as sqlite_schema then holds it. */
export const AUDIT_EVENTS_TABLE = `CREATE TABLE audit_events (
    seq        INTEGER PRIMARY KEY,
    ts         TEXT NOT NULL,
    kind       TEXT NOT NULL,
    body       BLOB NOT NULL,     -- the canonical JSON bytes exactly as hashed
    prev_hash  BLOB NOT NULL,
    event_hash BLOB NOT NULL
  )`;

/**
 * Whether audit_events is defined exactly as migration 1 made it, so that seq is its rowid: distinct integers, read
 * in seq order, and a range (lo, hi] holding hi - lo rows holds every seq of it once. The chain check's and the
 * claims' fast pages count rows on that (audit/check.ts, audit/claims-read.ts). A table rebuilt behind the store's
 * back with seq as a plain column (duplicates, fractions, rows in another order) is read row by row instead. The
 * text decides, not the b-tree: whatever a record holds, SQLite reads an INTEGER PRIMARY KEY as the rowid.
 */
export function eventsSeqIsRowid(db: Database.Database): boolean {
  try {
    return (
      cachedStatement(
        db,
        "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'audit_events'",
        'pluck',
      ).get() === AUDIT_EVENTS_TABLE
    );
  } catch {
    return false;
  }
}
