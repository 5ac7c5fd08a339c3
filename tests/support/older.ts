/**
 * Faking a shard from before migration 0010: tests that need one (an upgrade path, an old arborist's view) drop
 * what 0010 and every later migration made. One list, so a new migration that makes a table adds it here once
 * instead of in every such test.
 */
import type Database from 'better-sqlite3';

/** The tables made by migrations 0010 and later, in order. */
export const TABLES_SINCE_0010 = ['schema_migrations', 'import_fingerprints'] as const;

/** Drops what migrations 0010 and later made (user_version is left to the caller). */
export function dropSince0010(db: Database.Database): void {
  for (const t of TABLES_SINCE_0010) db.exec(`DROP TABLE IF EXISTS ${t}`);
}
