import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  linkSync,
  openSync,
  renameSync,
  rmSync,
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
 */
export function writeFileAtomic(path: string, text: string | Buffer, opts: { force?: boolean } = {}): void {
  const existing = statOf(path);
  if (existing?.isDirectory()) throw fileError(path, 'is a folder');
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

function fileError(path: string, what: string): ArboristError {
  return new ArboristError('input', `${path} ${what}`);
}
