/**
 * Where Claude Code keeps its transcripts and which files under a path are sessions, oldest first.
 */
import type { Dirent } from 'node:fs';
import { join } from 'node:path';
import { readHead } from '../files.js';
import { firstTimestamp } from '../jsonl.js';
import type { ImportProblem } from '../model.js';
import { isFileEntry, oldestFirst, unlessFolder, userHome, walkFolders } from '../walk.js';

/**
 * `$CLAUDE_CONFIG_DIR/projects` when set (Claude Code moves every ~/.claude path under it), else
 * `~/.claude/projects`, and `~/.config/claude/projects` (where some installs keep it).
 */
export function claudeDefaultPaths(env: NodeJS.ProcessEnv): string[] {
  const configDir = env.CLAUDE_CONFIG_DIR;
  if (configDir !== undefined && configDir.trim() !== '') return [join(configDir, 'projects')];
  const home = userHome(env);
  return [join(home, '.claude', 'projects'), join(home, '.config', 'claude', 'projects')];
}

/** A subagent transcript, read with its session rather than on its own. */
export function isAgentFile(name: string): boolean {
  return name.startsWith('agent-') && name.endsWith('.jsonl');
}

/** Folders below a projects folder are at most this deep (projects/<project>/<session>/subagents/...). */
const MAX_DEPTH = 8;

/**
 * The transcripts of one folder; its subfolders to walk next. A transcript's name on a FIFO or a device is listed
 * too: read() refuses it, and the import says so.
 */
function transcriptsIn(dir: string, entries: Dirent[], out: string[]): Dirent[] {
  const agents: string[] = [];
  const sessions = new Set<string>();
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isFile() && isAgentFile(e.name)) agents.push(p);
    else if (e.name.endsWith('.jsonl')) sessions.add(e.name.slice(0, -'.jsonl'.length));
    if (e.name.endsWith('.jsonl') && !isAgentFile(e.name) && isFileEntry(dir, e)) out.push(p);
  }
  // An old-layout subagent file is read with its session (subagents.ts); one whose session file is not beside it
  // (deleted by Claude Code's cleanup, or copied alone) is a transcript of its own, not something to pass over.
  for (const a of agents) if (!sessions.has(sessionIdOf(a) ?? '')) out.push(a);
  return entries.filter((e) => e.name !== 'subagents');
}

/** The sessionId of a transcript's first line, if it has one. */
function sessionIdOf(file: string): string | undefined {
  try {
    const head = readHead(file, 64 * 1024).toString('utf8');
    const first = head.slice(0, head.indexOf('\n') === -1 ? head.length : head.indexOf('\n'));
    const v = JSON.parse(first) as { sessionId?: unknown };
    return typeof v.sessionId === 'string' ? v.sessionId : undefined;
  } catch {
    return undefined; // unreadable or not JSON: listed, and read() says why
  }
}

/**
 * A file stands for itself; a folder for every session transcript below it (not the subagent files, which are
 * read with their session), oldest first by the first timestamp in each (the file's time when there is none),
 * so that a session is imported before a later one that resumed it.
 */
export function claudeDiscover(path: string, problems?: ImportProblem[]): string[] {
  const own = unlessFolder(path);
  if (own) return own;
  const files: string[] = [];
  walkFolders(path, MAX_DEPTH, problems, (dir, entries) => transcriptsIn(dir, entries, files));
  // A resumed session replays the earlier lines with their times: equal first times, the older file first.
  return oldestFirst(files, firstTimestamp);
}
