import type Database from 'better-sqlite3';
import { ArboristError, damaged } from '../base/errors.js';
import { MIGRATIONS, type Migration } from './migrations.js';

/**
 * A shard's record of its own schema, and the migrations it says are due. The record is two things that must agree:
 * PRAGMA user_version, the count of migrations that ran (what older arborists read), and, from 0010 on, the table
 * schema_migrations naming them. Either can be changed with sqlite3; re-running a migration the record wrongly says
 * is due fails half-way with SQLite's own error (or, with only the count lowered, "upgrades" a current shard). So
 * a record that disagrees with itself, or with the objects the due migrations create, is damage: one line, before
 * anything is written. Reads only.
 */

const NAMES_TABLE = '0010-migration-names';
const NAMES_AT = MIGRATIONS.findIndex((m) => m.name === NAMES_TABLE);

function disagrees(path: string, what: string): ArboristError {
  return damaged(
    `${path} is damaged: its schema record disagrees: ${what} (changed outside arborist); it was not changed`,
  );
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

function tableExists(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

/** First of a list, and how many more: a line, never a list of hundreds. */
function firstOf(names: readonly string[]): string {
  return names.length > 1 ? `${names[0]} and ${names.length - 1} more` : names[0];
}

/**
 * The names schema_migrations holds, or null when the shard has no such table. A name this arborist does not know
 * was written by a newer one: refused as such (not as damage), before anything else is asked.
 */
function recordedNames(db: Database.Database, path: string): Set<string> | null {
  if (!tableExists(db, 'schema_migrations')) return null;
  const names = new Set(db.prepare('SELECT name FROM schema_migrations').pluck().all() as string[]);
  const known = new Set(MIGRATIONS.map((m) => m.name));
  const foreign = [...names].filter((n) => !known.has(n)).sort();
  if (foreign.length > 0)
    throw new ArboristError(
      'shard',
      `${path} was upgraded by a newer arborist (migration ${foreign[0]}); upgrade arborist`,
    );
  return names;
}

/** The tables and indexes a migration's SQL creates and drops, in order (our own frozen SQL: simple statements). */
function objectsOf(sql: string): { op: 'create' | 'drop'; type: string; name: string; ifClause: boolean }[] {
  const text = sql.replace(/--[^\n]*/g, '');
  const re =
    /\b(CREATE|DROP)\s+(?:UNIQUE\s+|VIRTUAL\s+)?(TABLE|INDEX|VIEW|TRIGGER)\s+(IF\s+(?:NOT\s+)?EXISTS\s+)?(\w+)/gi;
  return [...text.matchAll(re)].map((m) => ({
    op: m[1].toLowerCase() as 'create' | 'drop',
    type: m[2].toLowerCase(),
    name: m[4],
    ifClause: m[3] !== undefined,
  }));
}

/**
 * The first object a due migration creates (without IF NOT EXISTS) that is already there, counting what the due
 * migrations before it create and drop: such a migration has run, whatever the record says.
 */
function alreadyMade(
  db: Database.Database,
  due: readonly Migration[],
): { m: Migration; type: string; name: string } | undefined {
  const present = new Set(db.prepare('SELECT name FROM sqlite_schema').pluck().all() as string[]);
  for (const m of due) {
    for (const o of objectsOf(m.sql)) {
      if (o.op === 'drop') present.delete(o.name);
      else if (!present.has(o.name)) present.add(o.name);
      else if (!o.ifClause) return { m, type: o.type, name: o.name };
    }
  }
  return undefined;
}

/**
 * The migrations this shard has not run, in order, after checking that its record agrees with itself and with the
 * objects they create. Throws a `damaged` ArboristError when it does not, a `shard` one for a newer arborist's
 * shard. A new, empty database (user_version 0, no tables) has every migration due.
 */
export function dueMigrations(db: Database.Database, path: string): readonly Migration[] {
  // One snapshot: the count and the names read apart could straddle another process's upgrade.
  return db.transaction(() => due(db, path))();
}

function due(db: Database.Database, path: string): readonly Migration[] {
  const version = db.pragma('user_version', { simple: true }) as number;
  const names = recordedNames(db, path);
  if (version === 0) {
    if (names !== null || tableExists(db, 'audit_events'))
      throw disagrees(path, "user_version says no migration ran, but arborist's tables are there");
    // A new database (or another program's, which the caller refuses): nothing of ours to be in the way.
    return MIGRATIONS;
  }
  if (names === null) {
    if (version > NAMES_AT)
      throw disagrees(
        path,
        `user_version says the first ${version} migrations ran, but schema_migrations, which the ${ordinal(NAMES_AT + 1)} makes, is missing`,
      );
  } else {
    const missing = MIGRATIONS.slice(0, version)
      .map((m) => m.name)
      .filter((n) => !names.has(n));
    const beyond = MIGRATIONS.slice(version)
      .map((m) => m.name)
      .filter((n) => names.has(n));
    if (missing.length > 0)
      throw disagrees(
        path,
        `user_version says the first ${version} migrations ran, but schema_migrations lacks ${firstOf(missing)}`,
      );
    if (beyond.length > 0)
      throw disagrees(
        path,
        `user_version says the first ${version} migrations ran, but schema_migrations also names ${firstOf(beyond)}`,
      );
    if (!names.has(NAMES_TABLE))
      throw disagrees(path, `schema_migrations is there, but does not name ${NAMES_TABLE}, which makes it`);
  }
  const pending = MIGRATIONS.slice(version);
  if (pending.length === 0) return pending;
  const made = alreadyMade(db, pending);
  if (made)
    throw damaged(
      `${path} is damaged: migration ${made.m.name} is not recorded as run, but ${made.type} ${made.name}, which it creates, is already there (its schema record was changed outside arborist); it was not changed`,
    );
  return pending;
}
