/**
 * Whether a file changed since an import read it whole and found nothing more in it (docs/import.md, "Files that
 * did not change"). A file's fingerprint is a sha256 over, for it and every file read with it (a Claude Code
 * session's subagent files): the path, the device and inode (a file replaced by another), size and mtime (an
 * append, a truncation), ctime (any write, even one that puts mtime back), and its first and last bytes (a rewrite
 * that kept all of those). Reading 32 KiB and a stat a file costs a small part of parsing it.
 *
 * The blind spot, said in docs/import.md: a file rewritten in place that keeps its size, mtime and ctime (a file
 * system that keeps no ctime, a clock set back) and changes only bytes between its head and tail looks unchanged.
 * `arborist import --full` reads every file whatever its fingerprint.
 */
import { createHash } from 'node:crypto';
import { closeSync, readSync, statSync } from 'node:fs';
import { openRegular } from './files.js';

/** Bytes hashed at each end of a file; a file up to twice this is hashed whole. */
export const EDGE_BYTES = 16 * 1024;

/** What a reader says decides `read(file)`: the files it reads for it, under a name for the reader and its options. */
export interface FileInputs {
  /** The reader and the options that change what it reads (`claude`, `claude/no-sidechains`). */
  reader: string;
  /** The file itself first, then every file read with it; a file that is not there counts as such. */
  files: string[];
}

/**
 * Listings of folders, kept for one import (a Claude Code project folder is listed once for all its sessions, not
 * once a session). A long-lived caller (a follower) makes a new one for each round.
 */
export class ListingCache {
  private readonly dirs = new Map<string, string[]>();
  list(dir: string, read: (dir: string) => string[]): string[] {
    let names = this.dirs.get(dir);
    if (names === undefined) {
      names = read(dir);
      this.dirs.set(dir, names);
    }
    return names;
  }
}

function edges(file: string, size: number, h: ReturnType<typeof createHash>): void {
  const { fd } = openRegular(file);
  try {
    const whole = size <= 2 * EDGE_BYTES;
    const buf = Buffer.allocUnsafe(whole ? size : 2 * EDGE_BYTES);
    const read = (at: number, len: number, pos: number) => {
      let have = 0;
      while (have < len) {
        const n = readSync(fd, buf, at + have, len - have, pos + have);
        if (n === 0) break;
        have += n;
      }
      return have;
    };
    const n = whole
      ? read(0, size, 0)
      : read(0, EDGE_BYTES, 0) + read(EDGE_BYTES, EDGE_BYTES, size - EDGE_BYTES);
    h.update(`${n}\0`);
    h.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
}

/**
 * The fingerprint of a list of files, in their order. A file that is not there, or not a regular file, is hashed
 * as such (its appearing later changes the fingerprint); one that cannot be read yields undefined: no fingerprint,
 * so the file is read, and the reader says why.
 */
export function fingerprintOf(files: readonly string[]): Buffer | undefined {
  const h = createHash('sha256');
  h.update('arborist import fingerprint 1\0');
  for (const f of files) {
    h.update(`${f}\0`);
    let st: import('node:fs').BigIntStats;
    try {
      st = statSync(f, { bigint: true });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return undefined;
      h.update('absent\0');
      continue;
    }
    if (!st.isFile()) {
      h.update(`not a file ${st.mode}\0`);
      continue;
    }
    h.update(`${st.dev} ${st.ino} ${st.size} ${st.mtimeNs} ${st.ctimeNs}\0`);
    try {
      edges(f, Number(st.size), h);
    } catch {
      return undefined;
    }
  }
  return h.digest();
}
