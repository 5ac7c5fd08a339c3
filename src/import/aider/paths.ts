/**
 * Which aider chat histories a path stands for. aider writes `.aider.chat.history.md` in the project (the git root,
 * else the folder it was started in: Aider-AI/aider aider/args.py `default_chat_history_file`), and
 * `--chat-history-file` can name any other file. There is no home of aider's own to look in, so nothing is guessed:
 * a file is read as given, a folder is walked for files of the default name.
 */
import { join } from 'node:path';
import type { ImportProblem } from '../model.js';
import { statOf, unlessFolder, walkFolders } from '../walk.js';

export const HISTORY_FILE = '.aider.chat.history.md';
/** Folders never walked: dependencies and git's own store hold no chat of the user's, and are large. */
const SKIPPED = new Set(['node_modules', '.git']);

/**
 * A file as it is; a folder walked (not through links to folders, so a link cycle cannot loop) for the histories
 * below it, oldest change first. A folder that cannot be read is a problem.
 */
export function discover(path: string, problems?: ImportProblem[]): string[] {
  const own = unlessFolder(path);
  if (own) return own;
  const found: { f: string; m: number }[] = [];
  walkFolders(path, Number.POSITIVE_INFINITY, problems, (dir, entries) => {
    for (const e of entries) {
      if (e.isDirectory() || e.name !== HISTORY_FILE) continue;
      // A FIFO under the name is listed too, so that read() refuses it and says so.
      const s = statOf(join(dir, e.name));
      if (s && !s.isDirectory()) found.push({ f: join(dir, e.name), m: s.mtimeMs });
    }
    return entries.filter((e) => !SKIPPED.has(e.name));
  });
  found.sort((a, b) => a.m - b.m || (a.f < b.f ? -1 : a.f > b.f ? 1 : 0));
  return found.map((x) => x.f);
}
