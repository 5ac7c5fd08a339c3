import type Database from 'better-sqlite3';
import { cachedStatement } from '../db/statements.js';

/**
 * The files an import read whole and found nothing more in (migration 11, docs/import.md "Files that did not
 * change"): a reader's file and the digest it had then. The importer computes the digest; the store only keeps it.
 * Nothing here is evidence: the rows are not in the chain, and a row changed with sqlite3 can only make an import
 * read a file again or pass over one. No turn is ever read from, or removed by, this table.
 */

export interface ImportFingerprint {
  digest: Buffer;
  turns: number;
}

/** The digest recorded for `file` read by `reader`, if any; a row of the wrong types counts as none. */
export function importFingerprint(
  db: Database.Database,
  reader: string,
  file: string,
): ImportFingerprint | undefined {
  const r = cachedStatement(
    db,
    'SELECT digest, turns FROM import_fingerprints WHERE reader = ? AND file = ?',
  ).get(reader, file) as { digest: unknown; turns: unknown } | undefined;
  if (!r || !Buffer.isBuffer(r.digest) || typeof r.turns !== 'number') return undefined;
  return { digest: r.digest, turns: Number.isSafeInteger(r.turns) && r.turns >= 0 ? r.turns : 0 };
}

/** Records (or replaces) the digest of a file read whole with nothing left in it to import. */
export function setImportFingerprint(
  db: Database.Database,
  reader: string,
  file: string,
  fp: ImportFingerprint,
): void {
  cachedStatement(
    db,
    `INSERT INTO import_fingerprints (reader, file, digest, turns, done_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (reader, file) DO UPDATE SET digest = excluded.digest, turns = excluded.turns, done_at = excluded.done_at`,
  ).run(reader, file, fp.digest, fp.turns, new Date().toISOString());
}

/** Forgets a file's digest: it is read again next time (it changed, or holds something still to come). */
export function dropImportFingerprint(db: Database.Database, reader: string, file: string): void {
  cachedStatement(db, 'DELETE FROM import_fingerprints WHERE reader = ? AND file = ?').run(reader, file);
}
