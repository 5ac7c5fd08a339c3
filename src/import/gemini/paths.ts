/**
 * Where Gemini CLI keeps its chats and which files under a path are chats, oldest first; and the project folder a
 * chat was recorded in, when a file of the tool's says so (docs/import.md, "Gemini CLI", "Where chats live").
 */
import { createHash } from 'node:crypto';
import { type Dirent, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { readRegular } from '../files.js';
import { type ImportProblem, unreadableFolder } from '../model.js';
import { isFileEntry, statOf, unlessFolder, userHome, walkFolders } from '../walk.js';
import { obj } from './parts.js';

/** `~/.gemini`, or `$GEMINI_CLI_HOME/.gemini` (gemini-cli `utils/paths.ts`, `homedir()`). */
export function geminiDir(env: NodeJS.ProcessEnv): string {
  const home = env.GEMINI_CLI_HOME || userHome(env);
  return join(home, '.gemini');
}

/** The per-project folders live under `tmp` (gemini-cli `config/storage.ts`, `getProjectTempDir`). */
export function geminiDefaultPaths(env: NodeJS.ProcessEnv): string[] {
  return [join(geminiDir(env), 'tmp')];
}

/** A main session's chat file: `session-<time>-<id8>.json` or `.jsonl` directly in a `chats` folder. */
export function isChatFile(name: string): boolean {
  return name.startsWith('session-') && (name.endsWith('.json') || name.endsWith('.jsonl'));
}

/** `.gemini/tmp/<project>/chats/<file>` from `.gemini`: nothing deeper is a main chat. */
const MAX_DEPTH = 4;

/** The chats of one folder; the subfolders to walk next. */
function chatsIn(dir: string, entries: Dirent[], out: string[]): Dirent[] {
  // A chats folder's subfolders hold subagent chats, read with their session; links to folders are not followed.
  if (basename(dir) === 'chats') {
    for (const e of entries) if (isChatFile(e.name) && isFileEntry(dir, e)) out.push(join(dir, e.name));
    return [];
  }
  // A project's temp folder (it has `chats`) holds tool output, logs and plans too: only `chats` is looked into.
  const project = entries.some((e) => e.name === 'chats' && e.isDirectory());
  return entries.filter((e) => !e.name.startsWith('.') && (!project || e.name === 'chats'));
}

/** The time in a chat file's name: `session-2026-04-23T12-52-…` (UTC, to the minute) or `session-<epoch ms>-…`. */
export function nameTime(name: string): number {
  const iso = /^session-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-/.exec(name);
  if (iso) return Date.parse(`${iso[1]}T${iso[2]}:${iso[3]}:00Z`);
  const ms = /^session-(\d{12,14})-/.exec(name);
  return ms ? Number(ms[1]) : Number.NaN;
}

/**
 * A file stands for itself; a folder for every main chat below it (`chats/session-*.json[l]`), oldest first by the
 * time in the name (the file's time when none), a `.json` before the `.jsonl` the CLI migrated it to on resume.
 */
export function geminiDiscover(path: string, problems?: ImportProblem[]): string[] {
  const own = unlessFolder(path);
  if (own) return own;
  const files: string[] = [];
  walkFolders(path, MAX_DEPTH, problems, (dir, entries) => chatsIn(dir, entries, files));
  const keyed = files.map((f) => {
    // a file gone since the walk sorts last, and read() says so
    const m = statOf(f)?.mtimeMs ?? Number.POSITIVE_INFINITY;
    const t = nameTime(basename(f));
    return { f, t: Number.isNaN(t) ? m : t, m, l: f.endsWith('.jsonl') ? 1 : 0 };
  });
  keyed.sort((a, b) => a.t - b.t || a.f.replace(/l$/, '').localeCompare(b.f.replace(/l$/, '')) || a.l - b.l);
  return keyed.map((k) => k.f);
}

/** A small file of the tool's (a marker, the registry), or undefined when it is not there or not readable. */
function small(path: string): string | undefined {
  try {
    return readRegular(path, 1024 * 1024).buf.toString('utf8');
  } catch {
    return undefined;
  }
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * The project folder of a project temp folder (`.gemini/tmp/<id>`), from what the CLI wrote, never guessed:
 * `<id>/.project_root` (v0.29+: the folder that owns a short id), else the `projects.json` registry beside `tmp`
 * (path -> short id) for an entry whose short id is `<id>`, or whose SHA-256 is `<id>` or the chat's `projectHash`
 * (the older folder name and the chat's own field are both that hash: gemini-cli `utils/paths.ts`, `getProjectHash`).
 */
export function projectCwd(projectDir: string, projectHash: unknown): string | undefined {
  const [markerFile, projectsFile] = projectCwdFiles(projectDir);
  const marker = small(markerFile)?.trim();
  if (marker) return marker;
  if (projectsFile === undefined) return undefined;
  const text = small(projectsFile);
  if (text === undefined) return undefined;
  let projects: Record<string, unknown> | null = null;
  try {
    projects = obj(obj(JSON.parse(text))?.projects);
  } catch {
    return undefined;
  }
  if (!projects) return undefined;
  const id = basename(projectDir);
  for (const [p, slug] of Object.entries(projects)) {
    if (slug === id) return p;
    const h = sha256(p);
    if (h === id || h === projectHash) return p;
  }
  return undefined;
}

/** The files projectCwd reads: the folder's `.project_root`, then `~/.gemini/projects.json` when under `tmp`. */
export function projectCwdFiles(projectDir: string): [string, string | undefined] {
  const tmp = dirname(projectDir);
  return [
    join(projectDir, '.project_root'),
    basename(tmp) === 'tmp' ? join(dirname(tmp), 'projects.json') : undefined,
  ];
}

/** A chat file's project temp folder: `<project>/chats/<file>`, or `<project>/chats/<parent>/<file>` (subagents). */
export function projectDirOf(file: string): string | undefined {
  const dir = dirname(file);
  if (basename(dir) === 'chats') return dirname(dir);
  if (basename(dirname(dir)) === 'chats') return dirname(dirname(dir));
  return undefined;
}

/** gemini-cli `utils/fileUtils.ts`, `sanitizeFilenamePart`: how a session id becomes a folder name. */
export const safeSessionId = (id: string): string => id.replace(/[^a-zA-Z0-9_-]/g, '_');

/** The subagent chats of a session: `chats/<sessionId>/*.json[l]` (gemini-cli `ChatRecordingService.initialize`). */
export function subagentFiles(chatsDir: string, safeId: string, problems: ImportProblem[]): string[] {
  const dir = join(chatsDir, safeId);
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOTDIR') unreadableFolder(dir, e, problems);
    return [];
  }
  return entries
    .filter((e) => !e.isDirectory() && (e.name.endsWith('.json') || e.name.endsWith('.jsonl')))
    .map((e) => join(dir, e.name))
    .sort();
}
