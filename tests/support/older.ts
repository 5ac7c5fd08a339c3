/**
 * Faking a shard from before migration 0010: tests that need one (an upgrade path, an old arborist's view) drop
 * what 0010 and every later migration made. One list, so a new migration that makes a table or trigger adds it
 * here once instead of in every such test.
 */
import type Database from 'better-sqlite3';

/** What migrations 0010 and later made, newest last: [kind, name]. */
export const MADE_SINCE_0010 = [
  ['TABLE', 'schema_migrations'], // 0010
  ['TABLE', 'import_fingerprints'], // 0011
  ['TRIGGER', 'node_days_insert'], // 0012 (0013 drops it again)
  ['TABLE', 'node_days'], // 0012
  ['TABLE', 'sync_state'], // 0014
  ['TABLE', 'sync_marks'], // 0014
] as const;

/** Drops what migrations 0010 and later made (user_version is left to the caller). */
export function dropSince0010(db: Database.Database): void {
  for (const [kind, name] of MADE_SINCE_0010) db.exec(`DROP ${kind} IF EXISTS ${name}`);
}
