import type Database from 'better-sqlite3';

/**
 * The guard that lets the chain check's fast path skip storage classes (docs/benchmarks-chain.md). The chain binds
 * the bytes of every event; a value stored as TEXT (or a number) with the same bytes changes none of them, yet the
 * store only ever writes blobs, so the check still names one ("not stored as bytes"). Asking typeof() of three
 * columns of every event cost the fast path about a third of its reading; instead a partial index holds exactly the
 * events with such a value. SQLite keeps it on every write, whoever writes; on a healthy shard it is empty, and the
 * check asks it for its smallest seq in one lookup.
 *
 * What could still slip past: an index whose rows were made to lie without changing its definition (its b-tree
 * swapped for another's through writable_schema). Only a storage class could hide that way; every byte of every
 * event is still hashed. An index that is missing or defined differently is not trusted: the check then asks
 * typeof() row by row as before.
 */
export const NOT_BYTES_WHERE =
  "typeof(body) <> 'blob' OR typeof(prev_hash) <> 'blob' OR typeof(event_hash) <> 'blob'";

export const NOT_BYTES_INDEX = 'audit_events_not_bytes';

/** Exactly as migration 9 creates it and as sqlite_schema must hold it. */
export const NOT_BYTES_INDEX_SQL = `CREATE INDEX ${NOT_BYTES_INDEX} ON audit_events(seq) WHERE ${NOT_BYTES_WHERE}`;

/**
 * The smallest seq of an event with a value that is not a blob: a number, null when there is none, or undefined
 * when the guard cannot be trusted (missing, defined differently, unusable), so the caller checks types itself.
 */
export function firstNotBytes(db: Database.Database): number | null | undefined {
  try {
    const sql = db
      .prepare(
        "SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ? AND tbl_name = 'audit_events'",
      )
      .pluck()
      .get(NOT_BYTES_INDEX);
    if (sql !== NOT_BYTES_INDEX_SQL) return undefined;
    const low = db
      .prepare(`SELECT min(seq) FROM audit_events INDEXED BY ${NOT_BYTES_INDEX} WHERE ${NOT_BYTES_WHERE}`)
      .pluck()
      .get();
    return typeof low === 'number' ? low : low === null ? null : undefined;
  } catch {
    return undefined;
  }
}
