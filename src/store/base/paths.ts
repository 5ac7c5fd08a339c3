import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `--db PATH`, else `ARBORIST_DB`, else `$ARBORIST_HOME/sessions.db`, else `~/.arborist/sessions.db`. */
export function arboristHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.ARBORIST_HOME && env.ARBORIST_HOME !== '' ? env.ARBORIST_HOME : join(homedir(), '.arborist');
}

export function resolveDbPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag !== undefined && flag !== '') return flag;
  if (env.ARBORIST_DB && env.ARBORIST_DB !== '') return env.ARBORIST_DB;
  return join(arboristHome(env), 'sessions.db');
}

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
