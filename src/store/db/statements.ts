import type Database from 'better-sqlite3';

/**
 * How a statement returns its rows. better-sqlite3 keeps the mode on the statement object, so a statement shared
 * through the cache is keyed by its mode too: two callers of the same SQL in different modes never see each
 * other's setting.
 */
export type RowMode = 'object' | 'pluck' | 'raw';

const statementCache = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/**
 * The store's one statement cache: a statement is prepared once per connection and kept (preparing costs more than
 * running most of our queries). Without `mode` the statement is returned as prepared and callers that switch its
 * mode (`.pluck()`, `.raw()`) must do so on every use, as they always have.
 */
export function cachedStatement(db: Database.Database, sql: string, mode?: RowMode): Database.Statement {
  let m = statementCache.get(db);
  if (!m) {
    m = new Map();
    statementCache.set(db, m);
  }
  const key = mode === undefined ? sql : `${mode}\u0000${sql}`;
  let s = m.get(key);
  if (!s) {
    s = db.prepare(sql);
    if (mode === 'pluck') s.pluck();
    else if (mode === 'raw') s.raw(true);
    m.set(key, s);
  }
  return s;
}
