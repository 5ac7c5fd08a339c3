/**
 * Which aider chat histories a path stands for. aider writes `.aider.chat.history.md` in the project (the git root,
 * else the folder it was started in: Aider-AI/aider aider/args.py `default_chat_history_file`), and
 * `--chat-history-file` can name any other file. There is no home of aider's own to look in, so nothing is guessed:
 * a file is read as given, a folder is walked for files of the default name.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type ImportProblem, unreadableFolder } from '../model.js';

export const HISTORY_FILE = '.aider.chat.history.md';
/** Folders never walked: dependencies and git's own store hold no chat of the user's, and are large. */
const SKIPPED = new Set(['node_modules', '.git']);

function stat(p: string) {
  try {
    return statSync(p);
  } catch {
    return undefined;
  }
}

/**
 * A file as it is; a folder walked (not through links to folders, so a link cycle cannot loop) for the histories
 * below it, oldest change first. A folder that cannot be read is a problem.
 */
export function discover(path: string, problems?: ImportProblem[]): string[] {
  const st = stat(path);
  if (!st) return [];
  if (!st.isDirectory()) return [path];
  const found: { f: string; m: number }[] = [];
  const stack = [path];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      unreadableFolder(dir, e, problems);
      continue;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIPPED.has(e.name)) stack.push(p);
      } else if (e.name === HISTORY_FILE) {
        // A FIFO under the name is listed too, so that read() refuses it and says so.
        const s = stat(p);
        if (s && !s.isDirectory()) found.push({ f: p, m: s.mtimeMs });
      }
    }
  }
  found.sort((a, b) => a.m - b.m || (a.f < b.f ? -1 : a.f > b.f ? 1 : 0));
  return found.map((x) => x.f);
}
