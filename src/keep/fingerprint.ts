/**
 * What the keeper remembers of a file between looks, cheaply (no byte read): size, time and inode, and for a
 * SQLite file its -wal's too, since its writes land there first, and those of the files its reader reads with it. A change in any of them marks the file for the
 * next batch; the import's own fingerprints (src/import/fingerprint.ts) then decide whether it is parsed again.
 */
import { type Stats, statSync } from 'node:fs';

export interface Fingerprint {
  size: number;
  mtimeMs: number;
  ino: number;
  /** A SQLite file's -wal: its writes land there first. */
  wal: string;
  /** The same of the files read with it (a Claude Code session's subagent files), `-` for one not there. */
  inputs: string;
}

const SQLITE_FILE = /\.(db|sqlite3?)$/;

/**
 * `looked`: the inputs' stats already taken in this round (a poll): older-layout Claude Code subagent files are
 * inputs of every session beside them, so a folder of N sessions and M such files would otherwise cost N x M stats.
 */
export function fingerprint(
  file: string,
  st: Stats,
  inputs: readonly string[] = [],
  looked?: Map<string, string>,
): Fingerprint {
  let wal = '';
  if (SQLITE_FILE.test(file)) {
    try {
      const w = statSync(`${file}-wal`);
      wal = `${w.size}:${w.mtimeMs}:${w.ino}`;
    } catch {
      // no -wal
    }
  }
  const of = (f: string) => {
    const known = looked?.get(f);
    if (known !== undefined) return known;
    const i = statOf(f);
    const v = i ? `${i.size}:${i.mtimeMs}:${i.ino}` : '-';
    looked?.set(f, v);
    return v;
  };
  return { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, wal, inputs: inputs.map(of).join(',') };
}

export function sameFp(a: Fingerprint | undefined, b: Fingerprint): boolean {
  return (
    a !== undefined &&
    a.size === b.size &&
    a.mtimeMs === b.mtimeMs &&
    a.ino === b.ino &&
    a.wal === b.wal &&
    a.inputs === b.inputs
  );
}

export function statOf(p: string): Stats | undefined {
  try {
    return statSync(p);
  } catch {
    return undefined;
  }
}
