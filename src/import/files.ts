/**
 * The one way the readers open another tool's files (docs/import.md, "Which files are read"). Only a regular file
 * (links followed) is read: a FIFO would block the open or the read forever, and a device such as /dev/zero never
 * ends. What is read is capped without trusting st_size: a /proc file says 0 and has more, and a file may grow
 * while it is read, so the bytes are read in chunks up to the cap and one byte more, never further.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from 'node:fs';

/** A file a reader will not read; the message is short and names no path (the caller's problem line does). */
export class RefusedFile extends Error {}

/** What a file that is not a regular file is, in words. */
export function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a file';
}

function mib(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MiB` : `${bytes} bytes`;
}

/** Throws unless `st` is a regular file: a folder as EISDIR (as readFileSync says it), anything else refused. */
function mustBeRegular(st: Stats): void {
  if (st.isFile()) return;
  if (st.isDirectory())
    throw Object.assign(new Error('EISDIR: illegal operation on a directory'), { code: 'EISDIR' });
  throw new RefusedFile(`not a regular file (${kindOf(st)}); not read`);
}

/**
 * Opens a regular file for reading. The path is stat'ed first, so a device is never even opened (opening some has
 * effects); the open itself is non-blocking and takes no controlling terminal, and the file actually opened is
 * checked again, so a FIFO swapped in between cannot block it. Errors of the file system (ENOENT, EACCES) are
 * thrown as they are, with their code.
 */
export function openRegular(path: string): { fd: number; st: Stats } {
  mustBeRegular(statSync(path));
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    const st = fstatSync(fd);
    mustBeRegular(st);
    return { fd, st };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** Throws unless `path` is a regular file: for files opened by SQLite, which would block on a FIFO. */
export function checkRegular(path: string): Stats {
  const { fd, st } = openRegular(path);
  closeSync(fd);
  return st;
}

/**
 * Throws unless a database SQLite is about to open, and the -wal, -shm and -journal beside it that exist, are
 * regular files: SQLite's own opens would block on a FIFO. Any other trouble with those is left to SQLite.
 */
export function checkSqliteFiles(path: string): Stats {
  const st = checkRegular(path);
  for (const suffix of ['-wal', '-shm', '-journal']) {
    try {
      checkRegular(path + suffix);
    } catch (e) {
      if (e instanceof RefusedFile) throw new RefusedFile(`its ${suffix} file: ${e.message}`);
    }
  }
  return st;
}

/** Reads at most `max` bytes from the start of a regular file (a sniff of its head). */
export function readHead(path: string, max: number): Buffer {
  const { fd } = openRegular(path);
  try {
    const buf = Buffer.allocUnsafe(max); // only the bytes read are returned
    let have = 0;
    while (have < max) {
      const n = readSync(fd, buf, have, max - have, have);
      if (n === 0) break;
      have += n;
    }
    return buf.subarray(0, have);
  } finally {
    closeSync(fd);
  }
}

const FIRST_CHUNK = 64 * 1024;

/**
 * A regular file's bytes, refused (RefusedFile) past `cap`. The buffer starts at the size the file says and grows
 * by doubling: the size is a hint, never a bound, so at most cap + 1 bytes are ever read.
 */
export function readRegular(path: string, cap: number): { buf: Buffer; st: Stats } {
  const { fd, st } = openRegular(path);
  try {
    // A regular file that says it is larger holds at least that many bytes when read: refused without reading.
    if (st.size > cap) throw new RefusedFile(`larger than ${mib(cap)}; not read`);
    let buf = Buffer.allocUnsafe(Math.min(cap + 1, Math.max(st.size + 1, FIRST_CHUNK)));
    let have = 0;
    for (;;) {
      if (have === buf.length) {
        if (have > cap) break;
        const bigger = Buffer.allocUnsafe(Math.min(cap + 1, buf.length * 2));
        buf.copy(bigger, 0, 0, have);
        buf = bigger;
      }
      const n = readSync(fd, buf, have, buf.length - have, null);
      if (n === 0) break;
      have += n;
    }
    if (have > cap) throw new RefusedFile(`larger than ${mib(cap)}; not read`);
    return { buf: buf.subarray(0, have), st };
  } finally {
    closeSync(fd);
  }
}

/**
 * Why text in another encoding is not read, when it opens with the byte-order mark of UTF-16 or UTF-32 (an editor
 * or a Windows shell saved it so): the readers read UTF-8, and such a file would otherwise be called binary.
 */
export function wideText(buf: Buffer): string | undefined {
  const enc =
    startsWith(buf, [0xff, 0xfe, 0, 0]) || startsWith(buf, [0, 0, 0xfe, 0xff])
      ? 'UTF-32'
      : startsWith(buf, [0xff, 0xfe]) || startsWith(buf, [0xfe, 0xff])
        ? 'UTF-16'
        : undefined;
  return enc && `${enc} text, not UTF-8; not read`;
}

/** The first bytes of the binary formats a history is most often confused with. */
const BINARY_MAGIC: readonly (readonly number[])[] = [
  [0x89, 0x50, 0x4e, 0x47], // PNG
  [0x1f, 0x8b], // gzip
  [0x50, 0x4b, 0x03, 0x04], // zip
  [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], // "SQLite"
];
export const ZSTD_MAGIC: readonly number[] = [0x28, 0xb5, 0x2f, 0xfd];

export function startsWith(buf: Buffer, magic: readonly number[]): boolean {
  return buf.length >= magic.length && magic.every((b, i) => buf[i] === b);
}

/**
 * The bytes open as a PNG, a gzip, a zip, a SQLite database or (unless `zstd` is false: a reader that inflates
 * zstd looks at a frame first) a Zstandard frame.
 */
export function binaryMagic(buf: Buffer, zstd = true): boolean {
  return BINARY_MAGIC.some((m) => startsWith(buf, m)) || (zstd && startsWith(buf, ZSTD_MAGIC));
}

/**
 * True when a text file's last byte is a newline (or it is empty): a partial last line waits for its newline. True
 * too when the file cannot be opened or read: reading it then says why, as the file's problem.
 */
export function lastLineEnded(file: string, size: number): boolean {
  if (size === 0) return true;
  let fd: number;
  try {
    fd = openRegular(file).fd;
  } catch {
    return true; // not a regular file (or gone): read() says why, now
  }
  try {
    const b = Buffer.alloc(1);
    readSync(fd, b, 0, 1, size - 1);
    return b[0] === 0x0a;
  } catch {
    return true;
  } finally {
    closeSync(fd);
  }
}
