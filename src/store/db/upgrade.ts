import { existsSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { ArboristError } from '../base/errors.js';
import { AuditLog } from '../chain/log.js';
import { createShardFile, describeSqliteError, type OpenOptions, openDatabase } from './open.js';
import { migrate, SCHEMA_VERSION } from './schema.js';

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
          const { from, to } = migrate(fresh);
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
  if (version >= SCHEMA_VERSION) return;
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
    const { from, to } = migrate(db);
    if (from !== to) new AuditLog(db).append(from === 0 ? 'shard.init' : 'shard.migrate', { from, to });
  }).immediate();
}
