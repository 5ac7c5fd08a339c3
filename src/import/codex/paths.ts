/**
 * Where Codex keeps its rollouts and which files a path stands for. CODEX_HOME when set and not empty, else
 * `~/.codex` (openai/codex codex-rs/utils/home-dir/src/lib.rs, `find_codex_home`); below it
 * `sessions/YYYY/MM/DD/rollout-<YYYY-MM-DDThh-mm-ss>-<uuid>.jsonl` and, for archived threads, the same names flat
 * in `archived_sessions/`; a rollout Codex compressed is `….jsonl.zst`, and the plain file wins when both exist
 * (openai/codex codex-rs/rollout/src/compression.rs).
 */
import { type Dirent, existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ImportProblem } from '../model.js';
import { isFileEntry, unlessFolder, userHome, walkFolders } from '../walk.js';

export const SESSIONS = 'sessions';
export const ARCHIVED = 'archived_sessions';

export function codexHome(env: NodeJS.ProcessEnv): string {
  const set = env.CODEX_HOME;
  if (set !== undefined && set !== '') return set;
  return join(userHome(env), '.codex');
}

const NAME = /^rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-(.+)\.jsonl(\.zst)?$/;
const UUID_TAIL = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/** `rollout-<stamp>-<id>.jsonl[.zst]`: its stamp and id (the id Codex finds a thread by), else undefined. */
export function rolloutName(file: string): { stamp: string; id: string; zst: boolean } | undefined {
  const m = NAME.exec(basename(file));
  if (!m) return undefined;
  const id = UUID_TAIL.exec(m[2])?.[1] ?? m[2];
  return { stamp: m[1], id, zst: m[3] !== undefined };
}

/** The Codex home a rollout sits in: the folder above the `sessions` or `archived_sessions` holding it. */
export function homeOf(file: string): string | undefined {
  let d = dirname(file);
  for (let i = 0; i < 6; i++) {
    const b = basename(d);
    if (b === SESSIONS || b === ARCHIVED) return dirname(d);
    const up = dirname(d);
    if (up === d) return undefined;
    d = up;
  }
  return undefined;
}

/** The rollout is under `archived_sessions` (Codex's archive: hidden from its lists, restorable). */
export function isArchivedPath(file: string): boolean {
  let d = dirname(file);
  for (let i = 0; i < 6; i++) {
    if (basename(d) === ARCHIVED) return true;
    const up = dirname(d);
    if (up === d) return false;
    d = up;
  }
  return false;
}

/** Folders below a sessions folder are at most this deep (YYYY/MM/DD). */
const MAX_DEPTH = 6;

/** The rollouts of one folder; every subfolder is walked. */
function rolloutsIn(dir: string, entries: Dirent[], out: string[]): Dirent[] {
  const names = new Set(entries.map((e) => e.name));
  for (const e of entries) {
    // Codex reads the plain file when both exist (compression.rs, `should_skip_compressed_sibling`). A FIFO under
    // a rollout's name is listed, and read() refuses it.
    if (e.isDirectory() || rolloutName(e.name) === undefined) continue;
    if (e.name.endsWith('.zst') && names.has(e.name.slice(0, -'.zst'.length))) continue;
    if (isFileEntry(dir, e)) out.push(join(dir, e.name));
  }
  return entries;
}

/**
 * A file stands for itself; the Codex home for its `sessions` and `archived_sessions`; any other folder for the
 * rollouts below it. Oldest first by the time in the name (the session's start), then by path: a fork is newer
 * than the rollout it copied, so the original's turns are imported first.
 */
export function discover(path: string, problems?: ImportProblem[]): string[] {
  const own = unlessFolder(path);
  if (own) return own;
  const files: string[] = [];
  const roots = [join(path, SESSIONS), join(path, ARCHIVED)].filter((d) => existsSync(d));
  const walk = (root: string) =>
    walkFolders(root, MAX_DEPTH, problems, (dir, es) => rolloutsIn(dir, es, files));
  if (roots.length === 0) walk(path);
  else for (const r of roots) walk(r);
  const key = (f: string) => rolloutName(f)?.stamp ?? '';
  return files.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    return ka < kb ? -1 : ka > kb ? 1 : a < b ? -1 : a > b ? 1 : 0;
  });
}
