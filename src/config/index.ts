import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ArboristError } from '../store/light.js';

/**
 * Where arborist keeps what is the user's, and reading it: the one home of the shard's default path, config.json
 * and keys.json. Each module that owns a section of config.json (answer in src/ask, resume in src/agent) parses its
 * section of the document read here; the keymap parses keys.json's text. A leaf: it imports only the store's light
 * entry (for the error type), so any layer, and the small status bundle, may use it.
 */

/** `$ARBORIST_HOME`, else `~/.arborist`. */
export function arboristHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.ARBORIST_HOME && env.ARBORIST_HOME !== '' ? env.ARBORIST_HOME : join(homedir(), '.arborist');
}

/** `--db PATH`, else `ARBORIST_DB`, else `$ARBORIST_HOME/sessions.db`, else `~/.arborist/sessions.db`. */
export function resolveDbPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag !== undefined && flag !== '') return flag;
  if (env.ARBORIST_DB && env.ARBORIST_DB !== '') return env.ARBORIST_DB;
  return join(arboristHome(env), 'sessions.db');
}

/** The shard a command's `--db` value names (resolveDbPath); an empty one is a mistake, not the default shard. */
export function shardPathFromFlag(flag: unknown, env: NodeJS.ProcessEnv = process.env): string {
  if (flag === '') throw new ArboristError('usage', '--db needs a path (it was given an empty one)');
  return resolveDbPath(typeof flag === 'string' ? flag : undefined, env);
}

/** The demo shard the browser opens when the user has none (README's quick start). */
export function demoDbPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(arboristHome(env), 'demo.db');
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(arboristHome(env), 'config.json');
}

export function keysPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(arboristHome(env), 'keys.json');
}

/**
 * config.json as one JSON object, shared by every module with a section in it. A missing file is an empty object;
 * an unreadable or malformed one is a one-line error (kind 'usage').
 */
export function readConfigFile(env: NodeJS.ProcessEnv = process.env): {
  path: string;
  doc: Record<string, unknown>;
} {
  const path = configPath(env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ENOENT') return { path, doc: {} };
    throw new ArboristError('usage', `${path} cannot be read (${code ?? 'error'})`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new ArboristError('usage', `${path} is not valid JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new ArboristError('usage', `${path} must hold a JSON object`);
  }
  return { path, doc: doc as Record<string, unknown> };
}

/** keys.json's text, or undefined when there is none (the defaults); an unreadable file is a one-line error. */
export function readKeysFile(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new ArboristError('usage', `${path}: cannot be read (${(err as { code?: string }).code ?? err})`);
  }
}
