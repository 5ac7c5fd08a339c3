import { realpathSync } from 'node:fs';

/**
 * The files that are the shard at `dbPath`: the file and SQLite's -wal, -shm and -journal beside it, named both as
 * given and beside its real path (SQLite resolves a symlinked database and keeps those files beside the target).
 * Writers of other files (an export's --out) refuse these, whether they exist yet or not.
 */
export function shardFiles(dbPath: string): string[] {
  const bases = [dbPath];
  try {
    const real = realpathSync(dbPath);
    if (real !== dbPath) bases.push(real);
  } catch {
    // no shard there yet: the name as given is all there is
  }
  return bases.flatMap((b) => [b, `${b}-wal`, `${b}-shm`, `${b}-journal`]);
}
