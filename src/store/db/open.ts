import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import type DatabaseType from 'better-sqlite3';
import { ArboristError, damaged } from '../base/errors.js';
import { dueMigrations } from './applied.js';
import { SCHEMA_VERSION } from './migrations.js';

export interface OpenOptions {
  /** Open without writing anything: no migration, no creation. */
  readonly?: boolean;
  /**
   * For the checks: never upgrade, create or write the shard (the Shard refuses writes and indexes nothing), but on a
   * writable connection when the file allows one, so that closing it removes the `-wal` and `-shm` files as any
   * writer's close does (a read-only connection leaves them behind). A shard due an upgrade is refused.
   */
  inspect?: boolean;
  /**
   * synchronous=FULL instead of NORMAL: every commit reaches the disk before it returns. Default: FULL when
   * ARBORIST_SYNC=full, else NORMAL (docs/sessions.md, "Durability").
   */
  durable?: boolean;
  /** How long a writer waits for another writer's lock before giving up (ms). */
  busyTimeoutMs?: number;
  /**
   * Told, in one line, before an upgrade of a large shard's schema starts: some migrations rebuild derived data
   * over every turn (schema 7 rebuilds the search index), which takes minutes on a million turns, and a command
   * that says nothing for that long looks hung.
   */
  onUpgrade?: (note: string) => void;
  /**
   * A fresh build under a temporary name (../build.ts): no WAL, a rollback journal in memory and no fsync. A crash
   * loses the whole file, which nothing else has seen yet; a failed write still rolls back.
   */
  build?: boolean;
  /** The page cache in KiB (default 64 MiB): a streaming pass that touches each page once wants a small one. */
  cacheKib?: number;
}

// better-sqlite3 is CommonJS. Loaded with require, Node does not lex its sources for named exports as it does for an
// ES import of it: 3-13 ms less start-up in interleaved medians of `arborist status` (noisy; never more).
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof DatabaseType;

const SQLITE_MAGIC = 'SQLite format 3\0';

/** Refuse anything that is not a usable shard before SQLite touches it, so a wrong path changes nothing. */
function preflight(path: string, readonly: boolean): 'missing' | 'sqlite' {
  if (!existsSync(path)) return 'missing';
  const st = statSync(path);
  if (st.isDirectory()) throw new ArboristError('shard', `${path} is a directory, not a shard file`);
  if (!st.isFile()) throw new ArboristError('shard', `${path} is not a regular file`);
  // Mode bits, not access(2): root passes access checks on read-only files, and we want the owner's intent.
  if (!readonly && (st.mode & 0o200) === 0) {
    throw new ArboristError('shard', `${path} is read-only; refusing to write to it`);
  }
  // A shard is never 0 bytes (createShardFile puts a whole one in place at once): this one was truncated.
  if (st.size === 0) {
    throw damaged(
      `${path} is empty (0 bytes), not a shard: if it held one, it was truncated; remove it to start a new shard`,
    );
  }
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
    return damaged(`${path} is corrupt (${code}); it was not changed`);
  }
  // A shard in WAL mode is read through its -shm index, which SQLite makes beside it: no reader, not even a
  // read-only one (the browser's checks, `arborist mcp`), gets past a folder it cannot write.
  if (code === 'SQLITE_READONLY_DIRECTORY')
    return new ArboristError(
      'shard',
      `${path} is in a folder this process cannot write: SQLite makes its -shm file beside a shard, even to read it (copy the shard to a folder you can write)`,
    );
  if (code.startsWith('SQLITE_READONLY'))
    return new ArboristError('shard', `${path} cannot be written (${code})`);
  if (code.startsWith('SQLITE_CANTOPEN')) return new ArboristError('shard', `${path} cannot be opened`);
  if (code.startsWith('SQLITE_FULL')) return new ArboristError('shard', `the disk holding ${path} is full`);
  // SQLite cannot grow the -shm index (unix VFS, xShmMap): on a full disk this comes before any SQLITE_FULL.
  if (code === 'SQLITE_IOERR_SHMSIZE')
    return new ArboristError('shard', `the disk holding ${path} is full (no room for its -shm index)`);
  return new ArboristError('shard', `${path}: ${(e.message ?? String(err)).split('\n')[0]}`);
}

/**
 * Any error as the one-line ArboristError a person is shown: ours as they are, SQLite's (a corrupt page met in
 * the middle of a query, a full disk, a lock) described; anything else is left to the caller (a bug).
 */
export function asArboristError(path: string, err: unknown): ArboristError | undefined {
  if (err instanceof ArboristError) return err;
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'string' && code.startsWith('SQLITE_')) return describeSqliteError(path, err);
  return undefined;
}

export function openDatabase(path: string, opts: OpenOptions = {}): DatabaseType.Database {
  const readonly = opts.readonly ?? false;
  const state = preflight(path, readonly);
  if (state === 'missing') throw new ArboristError('shard', `no shard at ${path}`);
  let db: DatabaseType.Database;
  try {
    db = new Database(path, { readonly, fileMustExist: true });
  } catch (err) {
    throw describeSqliteError(path, err);
  }
  try {
    db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new ArboristError(
        'shard',
        `${path} has schema version ${version}, newer than this arborist understands (${SCHEMA_VERSION}); upgrade arborist`,
      );
    }
    // Version 0 with tables already in it is some other program's database: never add ours to it (nor switch it to
    // WAL). With arborist's own tables it is a shard whose user_version was cleared: dueMigrations says so.
    if (version === 0) {
      if ((db.prepare('SELECT count(*) FROM sqlite_schema').pluck().get() as number) > 0) {
        dueMigrations(db, path);
        throw new ArboristError('shard', `${path} is an SQLite database but not an arborist shard`);
      }
      // No tables at all: never a shard this code made (createShardFile), so one whose schema was taken away.
      throw damaged(
        `${path} holds no tables, not a shard: if it held one, it was emptied; remove it to start anew`,
      );
    }
    // The record of the schema is checked on every open, read-only ones too: a shard whose record was changed is
    // damage (the checks say so), never a shard that "needs an upgrade".
    if (dueMigrations(db, path).length > 0 && (readonly || opts.inspect))
      throw new ArboristError(
        'shard',
        `${path} needs a schema upgrade (schema ${version}, this arborist's is ${SCHEMA_VERSION}), which a read-only open does not make; open it once for writing (any command but the checks and status)`,
      );
    if (!readonly && opts.build) {
      db.pragma('journal_mode = MEMORY');
      db.pragma('synchronous = OFF');
    } else if (!readonly) {
      db.pragma('journal_mode = WAL');
      // ARBORIST_SYNC=full makes FULL the default for every process on the shard (the TUI, the CLI, importers).
      const durable = opts.durable ?? process.env.ARBORIST_SYNC === 'full';
      db.pragma(`synchronous = ${durable ? 'FULL' : 'NORMAL'}`);
      // Checkpoints happen off the commit path (Shard.idle, Shard.afterCommit, close): see ../shard.ts.
      db.pragma('wal_autocheckpoint = 0');
      // After a checkpoint the WAL is reused from its start; this truncates it back to 16 MiB, so its file size
      // says roughly how much is waiting to be checkpointed (Shard.afterCommit and idle read it).
      db.pragma('journal_size_limit = 16777216');
    }
    db.pragma('foreign_keys = ON');
    // Large-ish page cache: tree walks and find touch many pages on a 1M-node shard.
    db.pragma(`cache_size = -${Math.max(1, Math.floor(opts.cacheKib ?? 65536))}`);
    db.pragma('temp_store = MEMORY');
    ownerOnlySidecars(path);
    return db;
  } catch (err) {
    db.close();
    if (err instanceof ArboristError) throw err;
    throw describeSqliteError(path, err);
  }
}

/**
 * Creates a new shard file at `path`, whole or not at all: the file is built under a temporary name in the same
 * folder (born 0600, the folder 0700), `init` creates the schema, and only then is it linked into place. A crash
 * leaves a stray temporary file, never a 0-byte or schema-less file at `path`, so such a file there is always
 * damage (openDatabase says so). When another process creates the shard first, its file wins and this one is
 * dropped.
 */
export function createShardFile(path: string, init: (db: DatabaseType.Database) => void): void {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.new-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
    closeSync(openSync(tmp, 'wx', 0o600));
    const db = new Database(tmp, { fileMustExist: true });
    try {
      db.pragma('journal_mode = WAL');
      init(db);
    } finally {
      db.close(); // the last connection: checkpoints and removes the -wal and -shm files
    }
    try {
      linkSync(tmp, path);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'EEXIST') return;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
      renameSync(tmp, path); // a file system without hard links
    }
  } catch (err) {
    if (err instanceof ArboristError) throw err;
    // e.g. a folder on the path is a file, a dangling symlink, no permission: one line, not a stack trace.
    const code = (err as { code?: string }).code ?? String(err);
    throw new ArboristError('shard', `${path} cannot be created (${code})`);
  } finally {
    for (const f of [tmp, `${tmp}-wal`, `${tmp}-shm`]) {
      try {
        rmSync(f, { force: true });
      } catch {
        // the folder itself could not be made (ENOTDIR): there is nothing to remove
      }
    }
  }
}

/**
 * SQLite gives a new -wal or -shm file the mode of the shard file, so a reader of a 0400 shard leaves a 0400 -shm
 * behind, and the owner's next write, after restoring 0600 to the shard, fails with SQLITE_READONLY. Ours are
 * always 0600 (the folder is 0700): readable and writable by the owner alone, whatever the shard's own mode.
 */
function ownerOnlySidecars(path: string): void {
  for (const f of [`${path}-wal`, `${path}-shm`]) {
    try {
      const st = statSync(f);
      if ((st.mode & 0o777) !== 0o600 && st.uid === process.getuid?.()) chmodSync(f, 0o600);
    } catch {
      // absent, or not ours to change: SQLite reports what it cannot use
    }
  }
}
