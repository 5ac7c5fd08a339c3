import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ArboristError } from '../errors.js';
import { currentVersion, SCHEMA_VERSION } from './schema.js';

export interface OpenOptions {
  /** Open without writing anything: no migration, no creation. */
  readonly?: boolean;
  /** synchronous=FULL instead of NORMAL: every commit reaches the disk before it returns. */
  durable?: boolean;
  /** How long a writer waits for another writer's lock before giving up (ms). */
  busyTimeoutMs?: number;
}

const SQLITE_MAGIC = 'SQLite format 3\0';

/** Refuse anything that is not a usable shard before SQLite touches it, so a wrong path changes nothing. */
function preflight(path: string, readonly: boolean): 'missing' | 'empty' | 'sqlite' {
  if (!existsSync(path)) return 'missing';
  const st = statSync(path);
  if (st.isDirectory()) throw new ArboristError('shard', `${path} is a directory, not a shard file`);
  if (!st.isFile()) throw new ArboristError('shard', `${path} is not a regular file`);
  // Mode bits, not access(2): root passes access checks on read-only files, and we want the owner's intent.
  if (!readonly && (st.mode & 0o200) === 0) {
    throw new ArboristError('shard', `${path} is read-only; refusing to write to it`);
  }
  if (st.size === 0) return 'empty';
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(16);
    const n = readSync(fd, head, 0, 16, 0);
    if (n < 16 || head.toString('latin1') !== SQLITE_MAGIC) {
      throw new ArboristError('shard', `${path} is not an SQLite database`);
    }
  } finally {
    closeSync(fd);
  }
  return 'sqlite';
}

export function describeSqliteError(path: string, err: unknown): ArboristError {
  const e = err as { code?: string; message?: string };
  const code = e.code ?? '';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new ArboristError('busy', `${path} is locked by another process; try again`);
  }
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new ArboristError('shard', `${path} is corrupt (${code}); it was not changed`);
  }
  if (code.startsWith('SQLITE_READONLY'))
    return new ArboristError('shard', `${path} cannot be written (${code})`);
  if (code.startsWith('SQLITE_CANTOPEN')) return new ArboristError('shard', `${path} cannot be opened`);
  if (code.startsWith('SQLITE_FULL')) return new ArboristError('shard', `the disk holding ${path} is full`);
  return new ArboristError('shard', `${path}: ${(e.message ?? String(err)).split('\n')[0]}`);
}

export function openDatabase(path: string, opts: OpenOptions = {}): Database.Database {
  const readonly = opts.readonly ?? false;
  const state = preflight(path, readonly);
  if (state === 'missing') {
    if (readonly) throw new ArboristError('shard', `no shard at ${path}`);
    const dir = dirname(path);
    try {
      if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
      // Create the file ourselves so it is born 0600; SQLite gives the -wal and -shm files the same mode.
      closeSync(openSync(path, 'wx', 0o600));
    } catch (err) {
      // e.g. a folder on the path is a file, a dangling symlink, no permission: one line, not a stack trace.
      const code = (err as { code?: string }).code ?? String(err);
      throw new ArboristError('shard', `${path} cannot be created (${code})`);
    }
  }
  let db: Database.Database;
  try {
    db = new Database(path, { readonly, fileMustExist: true });
  } catch (err) {
    throw describeSqliteError(path, err);
  }
  try {
    db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
    const version = currentVersion(db);
    if (version > SCHEMA_VERSION) {
      throw new ArboristError(
        'shard',
        `${path} has schema version ${version}, newer than this arborist understands (${SCHEMA_VERSION}); upgrade arborist`,
      );
    }
    // Version 0 with tables already in it is some other program's database: never add ours to it (nor switch it to WAL).
    if (version === 0 && (db.prepare('SELECT count(*) FROM sqlite_schema').pluck().get() as number) > 0) {
      throw new ArboristError('shard', `${path} is an SQLite database but not an arborist shard`);
    }
    if (!readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${opts.durable ? 'FULL' : 'NORMAL'}`);
      // Checkpoints happen off the commit path (Shard.idle, Shard.afterCommit, close): see ../shard.ts.
      db.pragma('wal_autocheckpoint = 0');
      // After a checkpoint the WAL is reused from its start; this truncates it back to 16 MiB, so its file size
      // says roughly how much is waiting to be checkpointed (Shard.afterCommit and idle read it).
      db.pragma('journal_size_limit = 16777216');
    } else if (version < SCHEMA_VERSION) {
      throw new ArboristError('shard', `${path} needs a schema upgrade; open it once without read-only mode`);
    }
    db.pragma('foreign_keys = ON');
    // Large-ish page cache: tree walks and find touch many pages on a 1M-node shard.
    db.pragma('cache_size = -65536');
    db.pragma('temp_store = MEMORY');
    return db;
  } catch (err) {
    db.close();
    if (err instanceof ArboristError) throw err;
    throw describeSqliteError(path, err);
  }
}
