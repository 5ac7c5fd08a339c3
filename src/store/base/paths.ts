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
