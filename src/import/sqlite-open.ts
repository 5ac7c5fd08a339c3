/**
 * Opening llm's logs.db without ever writing to it or beside it.
 *
 * A read-only connection leaves the database file alone, with one catch: a database in WAL mode needs its `-wal`
 * and `-shm` files, and when they are missing (the usual state after llm closed it cleanly) SQLite creates them
 * next to the database even on a read-only connection, and leaves them there. So a WAL database without both files,
 * and any open that SQLite refuses for lack of write access (SQLITE_CANTOPEN, SQLITE_READONLY_*: a read-only
 * folder, a hot journal to roll back), is read from a private copy (the database plus its `-wal` or `-journal`) in a
 * temporary folder instead, removed when the read ends.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { checkSqliteFiles, RefusedFile, readHead } from './files.js';
import { oneLine } from './sql-rows.js';

export interface OpenedDb {
  db: Database.Database;
  /** True when the connection reads a private copy, not the file itself. */
  copied: boolean;
  close(): void;
}

export type OpenResult = { ok: true; opened: OpenedDb } | { ok: false; reason: string };

const MAGIC = 'SQLite format 3\u0000';

function header(file: string): Buffer | string {
  try {
    return readHead(file, 100);
  } catch (e) {
    if (e instanceof RefusedFile) return e.message;
    return `cannot read: ${(e as NodeJS.ErrnoException).code ?? oneLine(String(e))}`;
  }
}

function needsWrite(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return (
    typeof code === 'string' && (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_READONLY'))
  );
}

function probe(db: Database.Database): void {
  db.prepare('SELECT count(*) FROM sqlite_master').get();
}

function openCopy(file: string): OpenResult {
  const dir = mkdtempSync(join(tmpdir(), 'arborist-llm-'));
  const copy = join(dir, 'logs.db');
  try {
    copyFileSync(file, copy);
    for (const suffix of ['-wal', '-journal'])
      if (existsSync(file + suffix)) copyFileSync(file + suffix, copy + suffix);
    // Our own copy: opened read-write so SQLite may replay its WAL or roll back its journal. Nothing is written
    // to it by this reader, and it is deleted afterwards.
    const db = new Database(copy, { fileMustExist: true });
    probe(db);
    return {
      ok: true,
      opened: {
        db,
        copied: true,
        close() {
          try {
            db.close();
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
      },
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    return { ok: false, reason: `cannot read: ${oneLine((e as Error).message ?? String(e))}` };
  }
}

/**
 * Opens `file` for reading only, or says in one line why it cannot be read as SQLite. `what` names the database
 * the reader expects (an empty file is an empty database: none of that tool's tables).
 */
export function openReadOnlyDb(file: string, what: string): OpenResult {
  let size: number;
  try {
    size = checkSqliteFiles(file).size; // the copy, too, would block on a FIFO -wal
  } catch (e) {
    if (e instanceof RefusedFile) return { ok: false, reason: e.message };
    const code = (e as NodeJS.ErrnoException).code;
    return {
      ok: false,
      reason: code === 'EISDIR' ? 'not a file' : `cannot open: ${code ?? oneLine(String(e))}`,
    };
  }
  // An empty file is an empty SQLite database: no llm tables.
  if (size === 0) return { ok: false, reason: `not ${what}` };
  const head = header(file);
  if (typeof head === 'string') return { ok: false, reason: head };
  if (head.length < 100 || head.subarray(0, 16).toString('latin1') !== MAGIC)
    return { ok: false, reason: 'not a SQLite database' };
  // Bytes 18 and 19 of the header are the read and write format versions: 2 means WAL.
  const wal = head[18] === 2 || head[19] === 2;
  if (wal && !(existsSync(`${file}-wal`) && existsSync(`${file}-shm`))) return openCopy(file);

  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    probe(db);
    const opened = db;
    return { ok: true, opened: { db: opened, copied: false, close: () => opened.close() } };
  } catch (e) {
    db?.close();
    if (needsWrite(e)) return openCopy(file);
    return { ok: false, reason: `cannot read: ${oneLine((e as Error).message ?? String(e))}` };
  }
}
