/**
 * Where pi keeps its sessions and which files a path stands for (docs/import.md, Pi). The layout:
 * `<agent>/sessions/--<cwd with / \ : as ->--/<ISO stamp with : . as ->_<session id>.jsonl`, `<agent>` being
 * PI_CODING_AGENT_DIR (`~` expanded) or `~/.pi/agent` (badlogic/pi-mono packages/coding-agent/src/config.ts
 * getAgentDir, getSessionsDir; packages/coding-agent/src/core/session-manager.ts getDefaultSessionDir, newSession).
 */
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import type { ImportProblem } from '../model.js';
import { listNames as list, statOf as stat } from '../walk.js';

/** Pi's file name: the session's start (`2025-11-20T23-33-50-805Z`) and its id. */
const NAME_RE = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z_(.+)\.jsonl$/;

/** The agent folder as pi resolves it: PI_CODING_AGENT_DIR (a leading `~` expanded), else `~/.pi/agent`. */
export function agentDir(env: NodeJS.ProcessEnv): string {
  const home = env.HOME?.trim() || homedir();
  const dir = env.PI_CODING_AGENT_DIR;
  if (dir) {
    if (dir === '~') return home;
    if (dir.startsWith('~/')) return home + dir.slice(1);
    return dir;
  }
  return join(home, '.pi', 'agent');
}

/** What a session file's name says: its start time (ISO) and session id, when pi named it. */
export function nameFacts(file: string): { at: string; sessionId: string } | null {
  const m = NAME_RE.exec(basename(file));
  if (!m) return null;
  const at = `${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`;
  return Number.isNaN(Date.parse(at)) ? null : { at, sessionId: m[6] };
}

/**
 * The session files a path stands for, oldest first: a file as it is; an agent folder's `sessions`; a sessions
 * folder's project folders; a project folder (or a `--session-dir`) itself. Oldest by the start in the name (the
 * modification time for a file pi did not name), so that a session forked from another is read after it.
 */
export function discover(path: string, problems?: ImportProblem[]): string[] {
  const st = stat(path);
  if (!st) return [];
  if (!st.isDirectory()) return [path];
  const sessions = join(path, 'sessions');
  const root = stat(sessions)?.isDirectory() ? sessions : path;
  const found: { f: string; key: string }[] = [];
  const take = (f: string, s: ReturnType<typeof stat>) => {
    // Not a folder: a regular file, or a FIFO under a session's name, listed so that read() refuses it and says so.
    const key = nameFacts(f)?.at ?? new Date(s?.mtimeMs ?? 0).toISOString();
    found.push({ f, key });
  };
  for (const name of list(root, problems)) {
    const p = join(root, name);
    const s = stat(p);
    if (s?.isDirectory()) {
      for (const inner of list(p, problems)) {
        if (!inner.endsWith('.jsonl')) continue;
        const f = join(p, inner);
        const fs = stat(f);
        if (fs && !fs.isDirectory()) take(f, fs);
      }
    } else if (s && name.endsWith('.jsonl')) take(p, s);
  }
  found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.f < b.f ? -1 : a.f > b.f ? 1 : 0));
  return found.map((x) => x.f);
}
