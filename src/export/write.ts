import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  linkSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ArboristError } from '../store/index.js';

/**
 * Writes an export to a file whole or not at all: the text goes to a temporary file in the same folder (mode
 * 0600: an export holds every question and answer), is synced, and only then takes the file's name. Without
 * `force` the name is taken with link(2), which fails when the file exists, so an existing file is never
 * replaced, even by a race; with `force`, rename(2) replaces it atomically. A reader never sees half a file.
 * `protect` names files never to be replaced under any name (the shard being read and its -wal and -shm), and
 * only a regular file (or a link to one) is ever replaced: not a FIFO or a device a link points at.
 */
export function writeFileAtomic(
  path: string,
  text: string | Buffer,
  opts: { force?: boolean; protect?: readonly string[] } = {},
): void {
  for (const p of opts.protect ?? [])
    if (sameFile(path, p))
      throw fileError(path, `is the shard being read (${p}): an export never replaces it`);
  const existing = statOf(path);
  if (existing?.isDirectory()) throw fileError(path, 'is a folder');
  if (existing && !existing.isFile())
    throw fileError(path, `is not a regular file (${kindOf(existing)}): an export never replaces it`);
  if (existing && !opts.force) throw fileError(path, 'exists (use --force to replace it)');
  const tmp = join(
    dirname(path),
    `.${basename(path)}.export-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx', 0o600);
    fchmodSync(fd, 0o600); // whatever the umask
    const buf = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    if (opts.force) renameSync(tmp, path);
    else placeNew(tmp, path);
  } catch (err) {
    if (err instanceof ArboristError) throw err;
    throw fileError(path, `cannot be written (${(err as { code?: string }).code ?? String(err)})`);
  } finally {
    if (fd !== undefined) closeSync(fd);
    try {
      rmSync(tmp, { force: true });
    } catch {
      // the folder is not there (or not a folder): there is no temporary file to remove
    }
  }
}

/** link(2) the new file into place, refusing an existing one; rename(2) where the file system has no links. */
function placeNew(tmp: string, path: string): void {
  try {
    linkSync(tmp, path);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'EEXIST') throw fileError(path, 'exists (use --force to replace it)');
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw err;
    if (statOf(path)) throw fileError(path, 'exists (use --force to replace it)');
    renameSync(tmp, path);
  }
}

function statOf(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The names a path stands for, by real identity rather than spelling: its real path (links followed), the name
 * itself in its folder's real path (what rename(2) would replace; also for a file not there yet, such as a -wal),
 * and its device and inode when it exists (a hard link).
 */
function identity(path: string): { names: string[]; node?: string } {
  const names: string[] = [];
  try {
    names.push(realpathSync(path));
  } catch {
    // not there (or a dangling link): its name in its folder is what counts
  }
  try {
    names.push(join(realpathSync(dirname(path)), basename(path)));
  } catch {
    // no such folder: nothing can be written there either
  }
  const st = statOf(path);
  return { names, node: st ? `${st.dev}:${st.ino}` : undefined };
}

function sameFile(a: string, b: string): boolean {
  const x = identity(a);
  const y = identity(b);
  if (x.node !== undefined && x.node === y.node) return true;
  return x.names.some((n) => y.names.includes(n));
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a file';
}

function fileError(path: string, what: string): ArboristError {
  return new ArboristError('input', `${path} ${what}`);
}
