/**
 * Where OpenCode keeps its history and which files a path stands for. Its data folder is `$XDG_DATA_HOME/opencode`,
 * `~/.local/share/opencode` when XDG_DATA_HOME is unset or empty, on every platform (anomalyco/opencode
 * packages/opencode/src/global/index.ts, through sindresorhus/xdg-basedir). It holds `storage/` (up to 1.1.x) and
 * `opencode.db` (1.2+; `opencode-<channel>.db` for other release channels; `OPENCODE_DB` names another file:
 * packages/opencode/src/storage/db.ts). After the upgrade both may be there, holding the same sessions under the
 * same ids (OpenCode copies storage/ into the database and leaves it): the storage files are read first and the
 * database adds what is new.
 */
import { isAbsolute, join } from 'node:path';
import { append, type ImportProblem } from '../model.js';
import { listFolder as list, statOf, unlessFolder, userHome } from '../walk.js';

/** OpenCode's data folder for this environment. */
export function dataDir(env: NodeJS.ProcessEnv): string {
  const home = userHome(env);
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'opencode');
}

/** The data folder, and the database OPENCODE_DB names when it lies elsewhere. */
export function opencodeDefaultPaths(env: NodeJS.ProcessEnv): string[] {
  const data = dataDir(env);
  const db = env.OPENCODE_DB;
  if (db === undefined || db === '' || db === ':memory:') return [data];
  const path = isAbsolute(db) ? db : join(data, db);
  return path.startsWith(`${data}/`) ? [data] : [data, path];
}

/** A database file of the data folder: `opencode.db`, `opencode-<channel>.db` (not its -wal, -shm, -journal). */
export function isDbName(name: string): boolean {
  return /^opencode(-[A-Za-z0-9._-]+)?\.db$/.test(name);
}

function isDir(p: string): boolean {
  return statOf(p)?.isDirectory() === true;
}

/**
 * The session files of a storage folder, oldest first: session ids are descending (newer sorts first:
 * anomalyco/opencode packages/opencode/src/id/id.ts), so by name from the last.
 */
function sessionFiles(storage: string, problems?: ImportProblem[]): string[] {
  const out: { name: string; path: string }[] = [];
  const sessions = join(storage, 'session');
  for (const project of list(sessions, problems)) {
    if (!project.isDirectory()) continue;
    const dir = join(sessions, project.name);
    for (const f of list(dir, problems))
      if (f.name.endsWith('.json') && !f.name.startsWith('.') && !f.isDirectory())
        out.push({ name: f.name, path: join(dir, f.name) });
  }
  out.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : a.path < b.path ? -1 : 1));
  return out.map((o) => o.path);
}

/**
 * A file stands for itself. A folder is a data folder (its `storage/` sessions, then its databases), a storage
 * folder (it holds `session/`), or a folder of either below it one level (a copied home's `opencode/`).
 */
export function opencodeDiscover(path: string, problems?: ImportProblem[]): string[] {
  const own = unlessFolder(path);
  if (own) return own;
  if (isDir(join(path, 'session')) && isDir(join(path, 'message'))) return sessionFiles(path, problems);
  const entries = list(path, problems);
  const out: string[] = [];
  if (isDir(join(path, 'storage'))) append(out, sessionFiles(join(path, 'storage'), problems));
  for (const e of entries.filter((x) => isDbName(x.name)).sort((a, b) => (a.name < b.name ? -1 : 1)))
    if (!e.isDirectory()) out.push(join(path, e.name));
  if (out.length === 0 && isDir(join(path, 'opencode')))
    return opencodeDiscover(join(path, 'opencode'), problems);
  return out;
}
