import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { crashPoint } from '../base/crash.js';
import { ArboristError } from '../base/errors.js';
import { IndexThread } from '../find/fts-build.js';
import { indexAllAtOnce } from '../find/vocabulary.js';
import { dbOf, Shard } from '../shard.js';

/**
 * A new shard built in bulk (docs/import.md, "The bulk path"): `npm run gen`, and an importer filling a shard that
 * does not exist yet. The shard is written under a temporary name beside the real one, `.<name>.build-<pid>-<hex>`,
 * opened with a rollback journal in memory and synchronous=OFF (db/open.ts, `build`): no WAL, so every page is
 * written once, not to the WAL and again by a checkpoint, and no fsync per commit. Bulk writes add no FTS row
 * (bulk.ts, `indexAtEnd`): a thread of their own writes the FTS indexes and the vocabulary into a side file
 * while this one writes the turns (find/fts-build.ts), and `finish` copies them in (or, with no such thread, indexes
 * every turn in one pass here: find/vocabulary.ts, indexAllAtOnce), switches the file to WAL as every shard is,
 * fsyncs it and links it into place under the real name.
 *
 * A crash (kill -9, power) at any point before that link leaves the real name untouched (no file, or whatever was
 * there: a build never replaces a file) and a stray temporary file, which the next build of the same name removes
 * once the process that wrote it is gone. A failed write rolls back as in any shard (the journal is in memory).
 */
export class ShardBuild {
  private done = false;

  /** The thread writing the FTS indexes beside this one (find/fts-build.ts), when there is one. */
  private readonly thread: IndexThread | null;

  private constructor(
    readonly path: string,
    readonly tempPath: string,
    readonly shard: Shard,
  ) {
    this.thread = IndexThread.start(dbOf(shard), `${tempPath}-fts`);
    if (this.thread) shard.onCommit = () => this.thread?.feed(dbOf(shard));
  }

  /** Starts a build of a shard at `path`, which must not exist. */
  static start(path: string): ShardBuild {
    if (existsSync(path))
      throw new ArboristError('shard', `${path} exists; a bulk build only makes a new shard`);
    const dir = dirname(path);
    try {
      if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
      removeStaleBuilds(path);
    } catch (err) {
      // e.g. a folder on the path is a file, no permission: one line, not a stack trace
      throw new ArboristError(
        'shard',
        `${path} cannot be created (${(err as { code?: string }).code ?? err})`,
      );
    }
    const tempPath = join(dir, `${buildPrefix(path)}${process.pid}-${randomBytes(4).toString('hex')}`);
    const shard = Shard.open(tempPath, { build: true });
    shard.indexAtEnd = true;
    return new ShardBuild(path, tempPath, shard);
  }

  /**
   * Indexes every turn, closes the shard and puts it under its real name. Returns the seconds spent indexing.
   * On failure the temporary file is removed and the real name is left as it was.
   */
  finish(): { indexSecs: number; threaded: boolean } {
    if (this.done) throw new Error('this build is already finished');
    try {
      const t0 = performance.now();
      this.shard.onCommit = undefined;
      const threaded = this.thread?.finish(dbOf(this.shard)) ?? false;
      if (!threaded) this.shard.write(() => indexAllAtOnce(dbOf(this.shard)));
      const indexSecs = (performance.now() - t0) / 1000;
      this.shard.indexAtEnd = false;
      // The mode every shard is in on disk (readers open it as it is); closing, the last connection checkpoints.
      dbOf(this.shard).pragma('journal_mode = WAL');
      this.shard.close();
      syncFile(this.tempPath);
      crashPoint('build-link');
      try {
        linkSync(this.tempPath, this.path);
        rmSync(this.tempPath);
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === 'EEXIST')
          throw new ArboristError(
            'shard',
            `${this.path} appeared while it was being built; it was left as it is`,
          );
        if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
        if (existsSync(this.path))
          throw new ArboristError(
            'shard',
            `${this.path} appeared while it was being built; it was left as it is`,
          );
        renameSync(this.tempPath, this.path); // a file system without hard links
      }
      syncFile(dirname(this.path));
      this.done = true;
      return { indexSecs, threaded };
    } catch (err) {
      this.abort();
      throw err;
    }
  }

  /** Drops the build: the shard closed, its temporary file removed. */
  abort(): void {
    this.done = true;
    this.thread?.abort();
    try {
      if (dbOf(this.shard).open) dbOf(this.shard).close();
    } finally {
      for (const f of [this.tempPath, `${this.tempPath}-wal`, `${this.tempPath}-shm`])
        rmSync(f, { force: true });
    }
  }
}

function buildPrefix(path: string): string {
  return `.${basename(path)}.build-`;
}

/** Temporary files of earlier builds of the same shard whose process is gone (a crash). */
function removeStaleBuilds(path: string): void {
  const prefix = buildPrefix(path);
  for (const name of readdirSync(dirname(path))) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    // Ours, or a process still running (a build in progress): left alone.
    if (pid === process.pid || (Number.isInteger(pid) && pid > 0 && isAlive(pid))) continue;
    rmSync(join(dirname(path), name), { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
