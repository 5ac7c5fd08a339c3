import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { ArboristError } from '../base/errors.js';
import { AuditLog } from '../chain/log.js';
import { rebuildVocabulary } from '../find/vocabulary.js';
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
  if (!opts.readonly && !existsSync(path)) {
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
    if (!opts.readonly) upgrade(db, path, opts);
    return db;
  } catch (err) {
    db.close();
    if (err instanceof ArboristError) throw err;
    throw describeSqliteError(path, err);
  }
}

function upgrade(db: Database.Database, path: string, opts: OpenOptions): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version >= SCHEMA_VERSION && pendingMigrations(db, path).length === 0) return;
  const turns = db.prepare('SELECT count(*) FROM nodes').pluck().get() as number;
  // Migration 7 rebuilds the search index (minutes a million turns); the later ones are an index each (seconds).
  if (turns >= LARGE_UPGRADE)
    opts.onUpgrade?.(
      version < 7
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
 * The names of the migrations that ran: schema_migrations when the shard has it (0010 on), else the first
 * user_version names of the list, which is all an older shard recorded.
 */
function appliedNames(db: Database.Database): string[] {
  const hasTable = db
    .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'")
    .get();
  if (hasTable) return db.prepare('SELECT name FROM schema_migrations').pluck().all() as string[];
  const version = db.pragma('user_version', { simple: true }) as number;
  return MIGRATIONS.slice(0, version).map((m) => m.name);
}

/** The migrations this shard has not run, in order; a name this arborist does not know is refused. */
function pendingMigrations(db: Database.Database, path: string) {
  const applied = new Set(appliedNames(db));
  const known = new Set(MIGRATIONS.map((m) => m.name));
  const foreign = [...applied].filter((n) => !known.has(n));
  if (foreign.length > 0)
    throw new ArboristError(
      'shard',
      `${path} was upgraded by a newer arborist (migration ${foreign.sort()[0]}); upgrade arborist`,
    );
  return MIGRATIONS.filter((m) => !applied.has(m.name));
}

/**
 * Runs the pending migrations by name (inside the caller's transaction), records every name in schema_migrations,
 * then rebuilds the derived data they named with today's code. user_version counts them, for older arborists.
 */
export function migrate(db: Database.Database, path = ''): { from: number; to: number } {
  const from = db.pragma('user_version', { simple: true }) as number;
  const pending = pendingMigrations(db, path);
  const rebuild = new Set<Rebuild>();
  for (const m of pending) {
    db.exec(m.sql);
    for (const r of m.rebuild ?? []) rebuild.add(r);
  }
  const now = new Date().toISOString();
  const record = db.prepare('INSERT OR IGNORE INTO schema_migrations (name, applied_at) VALUES (?, ?)');
  for (const m of MIGRATIONS) record.run(m.name, now);
  db.pragma(`user_version = ${SCHEMA_VERSION}`);
  for (const r of rebuild) REBUILDERS[r](db);
  return { from, to: SCHEMA_VERSION };
}
