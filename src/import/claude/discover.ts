/**
 * Where Claude Code keeps its transcripts and which files under a path are sessions, oldest first.
 */
import { readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { readHead } from '../files.js';
import { firstTimestamp } from '../jsonl.js';
import { type ImportProblem, unreadableFolder } from '../model.js';

/**
 * `$CLAUDE_CONFIG_DIR/projects` when set (Claude Code moves every ~/.claude path under it), else
 * `~/.claude/projects`, and `~/.config/claude/projects` (where some installs keep it).
 */
export function claudeDefaultPaths(env: NodeJS.ProcessEnv): string[] {
  const configDir = env.CLAUDE_CONFIG_DIR;
  if (configDir !== undefined && configDir.trim() !== '') return [join(configDir, 'projects')];
  const home = env.HOME || env.USERPROFILE || homedir();
  return [join(home, '.claude', 'projects'), join(home, '.config', 'claude', 'projects')];
}

/** A subagent transcript, read with its session rather than on its own. */
export function isAgentFile(name: string): boolean {
  return name.startsWith('agent-') && name.endsWith('.jsonl');
}

/** Folders below a projects folder are at most this deep (projects/<project>/<session>/subagents/...). */
const MAX_DEPTH = 8;

function walk(dir: string, depth: number, out: string[], problems: ImportProblem[] | undefined): void {
  if (depth > MAX_DEPTH) return;
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    unreadableFolder(dir, e, problems);
    return;
  }
  const agents: string[] = [];
  const sessions = new Set<string>();
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isFile() && isAgentFile(e.name)) agents.push(p);
    else if (e.name.endsWith('.jsonl')) sessions.add(e.name.slice(0, -'.jsonl'.length));
    // Symbolic links to folders are not followed (a link loop must not hang discovery); links to files are. A
    // transcript's name on a FIFO or a device is listed too: read() refuses it, and the import says so.
    if (e.isDirectory()) {
      if (e.name !== 'subagents') walk(p, depth + 1, out, problems);
    } else if (e.name.endsWith('.jsonl') && !isAgentFile(e.name)) {
      if (!e.isSymbolicLink()) out.push(p);
      else {
        try {
          if (!statSync(p).isDirectory()) out.push(p);
        } catch {
          // a dangling link: not a transcript
        }
      }
    }
  }
  // An old-layout subagent file is read with its session (subagents.ts); one whose session file is not beside it
  // (deleted by Claude Code's cleanup, or copied alone) is a transcript of its own, not something to pass over.
  for (const a of agents) if (!sessions.has(sessionIdOf(a) ?? '')) out.push(a);
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
  let st: import('node:fs').Stats;
  try {
    st = statSync(path);
  } catch {
    return [];
  }
  if (!st.isDirectory()) return [path]; // a FIFO or a device too: read() refuses it
  const files: string[] = [];
  walk(path, 0, files, problems);
  const keyed = files.map((f) => {
    let m = Number.POSITIVE_INFINITY;
    try {
      m = statSync(f).mtimeMs;
    } catch {
      // gone since the walk: sorted last, read() will say so
    }
    const t = firstTimestamp(f);
    return { f, t: Number.isNaN(t) ? m : t, m };
  });
  // A resumed session replays the earlier lines with their times: equal first times, the older file first.
  keyed.sort((a, b) => a.t - b.t || a.m - b.m || (a.f < b.f ? -1 : a.f > b.f ? 1 : 0));
  return keyed.map((k) => k.f);
}
