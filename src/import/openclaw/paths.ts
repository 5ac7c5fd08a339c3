/**
 * Where OpenClaw keeps its histories and which files a path stands for. The layout (docs/import.md (OpenClaw)):
 * `<state>/agents/<agent>/sessions/{sessions.json, <sessionId>.jsonl, <sessionId>-topic-<thread>.jsonl,
 * <sessionId>.jsonl.reset.<stamp>, <sessionId>.jsonl.deleted.<stamp>}` and `<state>/agents/<agent>/agent/
 * openclaw-agent.sqlite`; `<state>` is OPENCLAW_STATE_DIR, else `<home>/.openclaw` with home = OPENCLAW_HOME or HOME.
 */
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { type ImportProblem, unreadableFolder } from '../model.js';
import { listNames as list, statOf } from '../walk.js';

export const STORE_FILE = 'sessions.json';
export const AGENT_DB = 'openclaw-agent.sqlite';

/** OpenClaw's archive stamp: an ISO time with the colons made dashes (`2026-07-01T12-30-45.123Z`). */
const STAMP = '\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}(?:\\.\\d{3})?Z';
const ARCHIVE_RE = new RegExp(`^(.+)\\.jsonl\\.(reset|deleted)\\.(${STAMP})$`);
const TOPIC_RE = /^(.+?)-topic-(.+)\.jsonl$/;
const CHECKPOINT_RE = /\.checkpoint\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;

export type FileKind =
  | { kind: 'transcript'; sessionId: string; topic?: string }
  | { kind: 'archive'; sessionId: string; reason: 'reset' | 'deleted'; at: string }
  | { kind: 'store' }
  | { kind: 'sqlite' }
  | { kind: 'other' };

/** `2026-07-01T12-30-45.123Z` -> `2026-07-01T12:30:45.123Z`. */
export function stampToIso(stamp: string): string | null {
  const [date, time] = stamp.split('T');
  if (!date || !time) return null;
  const d = new Date(`${date}T${time.replace(/-/g, ':')}`);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

export function classify(file: string): FileKind {
  const name = basename(file);
  if (name === STORE_FILE) return { kind: 'store' };
  if (name.endsWith('.sqlite')) return { kind: 'sqlite' };
  const a = ARCHIVE_RE.exec(name);
  if (a) {
    const at = stampToIso(a[3]);
    if (at) return { kind: 'archive', sessionId: a[1], reason: a[2] as 'reset' | 'deleted', at };
  }
  if (!name.endsWith('.jsonl') || name.endsWith('.trajectory.jsonl') || CHECKPOINT_RE.test(name))
    return { kind: 'other' };
  const t = TOPIC_RE.exec(name);
  if (t) return { kind: 'transcript', sessionId: t[1], topic: t[2] };
  return { kind: 'transcript', sessionId: name.slice(0, -'.jsonl'.length) };
}

function expandHome(p: string, home: string): string {
  return p === '~' || p.startsWith('~/') ? join(home, p.slice(1)) : p;
}

/** OpenClaw's own resolution of its state folder (openclaw/openclaw src/config/paths.ts resolveStateDir; openclaw/openclaw src/infra/home-dir.ts). */
export function stateDir(env: NodeJS.ProcessEnv): string {
  const envHome = env.HOME?.trim() || env.USERPROFILE?.trim() || homedir();
  const explicit = env.OPENCLAW_HOME?.trim();
  const home = explicit ? expandHome(explicit, envHome) : envHome;
  const override = env.OPENCLAW_STATE_DIR?.trim() || env.CLAWDBOT_STATE_DIR?.trim();
  if (override) return resolve(expandHome(override, home));
  const current = join(home, '.openclaw');
  if (existsSync(current)) return current;
  for (const legacy of ['.clawdbot', '.moldbot', '.moltbot']) {
    const d = join(home, legacy);
    if (existsSync(d)) return d;
  }
  return current;
}

function isDir(p: string): boolean {
  return statOf(p)?.isDirectory() === true;
}

function isFile(p: string): boolean {
  return statOf(p)?.isFile() === true;
}

/**
 * There and not a folder: a regular file, or a FIFO or device under a history's name, listed so that read()
 * refuses it and the import says so rather than passing over it.
 */
function isEntry(p: string): boolean {
  return statOf(p)?.isDirectory() === false;
}

function mtime(p: string): number {
  return statOf(p)?.mtimeMs ?? 0;
}

/** A sessions folder: archives (oldest stamp first), then live transcripts (oldest first), then sessions.json. */
export function discoverSessions(dir: string, problems?: ImportProblem[]): string[] {
  const archives: { f: string; at: string }[] = [];
  const live: { f: string; m: number }[] = [];
  let store: string | null = null;
  for (const name of list(dir, problems)) {
    const f = join(dir, name);
    const k = classify(f);
    if (k.kind === 'archive') archives.push({ f, at: k.at });
    else if (k.kind === 'transcript' && isEntry(f)) live.push({ f, m: mtime(f) });
    else if (k.kind === 'store' && isEntry(f)) store = f;
  }
  archives.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.f < b.f ? -1 : 1));
  live.sort((a, b) => a.m - b.m || (a.f < b.f ? -1 : 1));
  const out = [...archives.map((x) => x.f), ...live.map((x) => x.f)];
  if (store) out.push(store);
  return out;
}

/** An agent folder: its sessions folder, then its SQLite file. */
export function discoverAgent(dir: string, problems?: ImportProblem[]): string[] {
  // The agent folder itself first: when it cannot be read, that is the one problem, not each folder below it.
  if (!readable(dir, problems)) return [];
  const out = discoverSessions(join(dir, 'sessions'), problems);
  const agent = join(dir, 'agent');
  if (isDir(agent) && readable(agent, problems) && isEntry(join(agent, AGENT_DB)))
    out.push(join(agent, AGENT_DB));
  return out;
}

/** The files a path stands for: the OpenClaw home, an agent, a sessions folder, one transcript or one database. */
export function discover(path: string, problems?: ImportProblem[]): string[] {
  if (isEntry(path)) return [path];
  if (!isDir(path)) return [];
  if (isDir(join(path, 'agents')))
    return list(join(path, 'agents'), problems).flatMap((a) =>
      discoverAgentIfDir(join(path, 'agents', a), problems),
    );
  if (isDir(join(path, 'sessions')) || isFile(join(path, 'agent', AGENT_DB)))
    return discoverAgent(path, problems);
  if (basename(path) === 'agents')
    return list(path, problems).flatMap((a) => discoverAgentIfDir(join(path, a), problems));
  if (isFile(join(path, AGENT_DB))) return [join(path, AGENT_DB)];
  return discoverSessions(path, problems);
}

function discoverAgentIfDir(dir: string, problems: ImportProblem[] | undefined): string[] {
  return isDir(dir) ? discoverAgent(dir, problems) : [];
}

/** True when a folder can be listed; a problem when it cannot. */
function readable(dir: string, problems: ImportProblem[] | undefined): boolean {
  try {
    readdirSync(dir);
    return true;
  } catch (e) {
    unreadableFolder(dir, e, problems);
    return false;
  }
}
