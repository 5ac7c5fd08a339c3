import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { ArboristError, damaged } from '../base/errors.js';
import { AuditLog } from '../chain/log.js';
import { rebuildVocabulary } from '../find/vocabulary.js';
import { dueMigrations } from './applied.js';
import { MIGRATIONS, type Rebuild, SCHEMA_VERSION } from './migrations.js';
import { createShardFile, describeSqliteError, type OpenOptions, openDatabase } from './open.js';

/** From this many turns on, an upgrade is announced (OpenOptions.onUpgrade): it takes seconds or more. */
const LARGE_UPGRADE = 50_000;

/**
 * The connection Shard.open wraps: the shard created whole when missing (with its `shard.init` event), opened, and
 * brought to the current schema in one transaction with one `shard.migrate` event. Every failure is one
 * ArboristError line, and the connection is closed.
 */
export function openUpgraded(path: string, opts: OpenOptions): Database.Database {
  if (!opts.readonly && !opts.inspect && !existsSync(path)) {
    createShardFile(path, (fresh) =>
      fresh
        .transaction(() => {
          const { from, to } = migrate(fresh, path);
          new AuditLog(fresh).append('shard.init', { from, to });
        })
        .immediate(),
    );
  }
  const db = openDatabase(path, opts);
  try {
    if (!opts.readonly && !opts.inspect) upgrade(db, path, opts);
    return db;
  } catch (err) {
    db.close();
    if (err instanceof ArboristError) throw err;
    throw describeSqliteError(path, err);
  }
}

function upgrade(db: Database.Database, path: string, opts: OpenOptions): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  // openDatabase found the record in agreement, so the count alone says whether one is due; migrate checks it all
  // again under the write lock (another process may have upgraded in between).
  if (version >= SCHEMA_VERSION) return;
  const turns = db.prepare('SELECT count(*) FROM nodes').pluck().get() as number;
  // Migrations 7 and 12 rebuild the search index (a minute or more a million turns); the others are an index each.
  if (turns >= LARGE_UPGRADE)
    opts.onUpgrade?.(
      version < MIGRATIONS.findIndex((m) => m.name === '0012-fts-rowids-only') + 1
        ? `upgrading ${path} from schema ${version} to ${SCHEMA_VERSION}: rebuilding its search index over ` +
            `${turns.toLocaleString('en-US')} turns, once (a few minutes a million turns)`
        : `upgrading ${path} from schema ${version} to ${SCHEMA_VERSION}: indexing its ` +
            `${turns.toLocaleString('en-US')} turns, once (seconds)`,
    );
  db.transaction(() => {
    const { from, to } = migrate(db, path);
    if (from !== to) new AuditLog(db).append(from === 0 ? 'shard.init' : 'shard.migrate', { from, to });
  }).immediate();
}

/** Today's makers of the derived data a migration names in `rebuild` (migrations.ts says why they are not frozen). */
const REBUILDERS: Record<Rebuild, (db: Database.Database) => void> = {
  vocabulary: (db) => rebuildVocabulary(db),
};

/**
 * Runs the pending migrations by name (inside the caller's transaction), records every name in schema_migrations,
 * then rebuilds the derived data they named with today's code. user_version counts them, for older arborists.
 */
export function migrate(db: Database.Database, path = ''): { from: number; to: number } {
  const from = db.pragma('user_version', { simple: true }) as number;
  const pending = dueMigrations(db, path);
  const rebuild = new Set<Rebuild>();
  for (const m of pending) {
    try {
      db.exec(m.sql);
    } catch (err) {
      // dueMigrations found nothing in the way, so SQLite refusing a frozen migration's SQL (SQLITE_ERROR) means the
      // schema is not what the record says; the transaction rolls back. A full disk or a lock is said as such.
      if ((err as { code?: string }).code !== 'SQLITE_ERROR') throw err;
      throw damaged(
        `${path} is damaged: migration ${m.name} failed (${String((err as Error).message).split('\n')[0]}): its schema is not what its record says; it was not changed`,
      );
    }
    for (const r of m.rebuild ?? []) rebuild.add(r);
  }
  const now = new Date().toISOString();
  const record = db.prepare('INSERT OR IGNORE INTO schema_migrations (name, applied_at) VALUES (?, ?)');
  for (const m of MIGRATIONS) record.run(m.name, now);
  db.pragma(`user_version = ${SCHEMA_VERSION}`);
  for (const r of rebuild) REBUILDERS[r](db);
  return { from, to: SCHEMA_VERSION };
}
