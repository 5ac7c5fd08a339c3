/**
 * The pieces of discovery the readers share: the user's home, a folder's entries (a folder that cannot be read is
 * a problem, not an error), bounded walks that never follow a link to a folder (a link loop must not hang
 * discovery), and the oldest-first order a session's history is imported in.
 */
import { type Dirent, readdirSync, type Stats, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { type ImportProblem, unreadableFolder } from './model.js';

/** The home folder the tools resolve theirs under: HOME, else USERPROFILE (Windows), else the OS's. */
export function userHome(env: NodeJS.ProcessEnv): string {
  return env.HOME || env.USERPROFILE || homedir();
}

/** The path's Stats (following links), or undefined when it is not there or cannot be looked at. */
export function statOf(p: string): Stats | undefined {
  try {
    return statSync(p);
  } catch {
    return undefined;
  }
}

/** A folder's entries; none when it cannot be listed, with a problem saying so (not for one that is not there). */
export function listFolder(dir: string, problems: ImportProblem[] | undefined): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    unreadableFolder(dir, e, problems);
    return [];
  }
}

/** A folder's names, sorted, as listFolder lists them. */
export function listNames(dir: string, problems: ImportProblem[] | undefined): string[] {
  try {
    return readdirSync(dir).sort();
  } catch (e) {
    unreadableFolder(dir, e, problems);
    return [];
  }
}

/**
 * An entry of `dir` that is not a folder: a file, a link to one, or a FIFO or device under a history's name (listed
 * so that read() refuses it and the import says so). A dangling link is nothing.
 */
export function isFileEntry(dir: string, e: Dirent): boolean {
  if (e.isDirectory()) return false;
  if (!e.isSymbolicLink()) return true;
  return statOf(join(dir, e.name))?.isDirectory() === false;
}

/**
 * What a path stands for when it is not a folder: nothing when it is not there, itself otherwise (a FIFO or a
 * device too: read() refuses it). Undefined for a folder, which the reader looks into.
 */
export function unlessFolder(path: string): string[] | undefined {
  const st = statOf(path);
  if (!st) return [];
  return st.isDirectory() ? undefined : [path];
}

/**
 * Each folder from `root` down to `maxDepth` folders below it, listed once and handed to `visit` with its entries;
 * `visit` says which of its subfolders (entries that are folders, never links to them) to go into.
 */
export function walkFolders(
  root: string,
  maxDepth: number,
  problems: ImportProblem[] | undefined,
  visit: (dir: string, entries: Dirent[], depth: number) => Iterable<Dirent>,
): void {
  // A stack, not recursion: a deep tree costs memory, not the call stack. The order folders are met in is no
  // order of the result (every discovery sorts what it found).
  const stack: [string, number][] = [[root, 0]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [dir, depth] = next;
    for (const sub of visit(dir, listFolder(dir, problems), depth))
      if (sub.isDirectory() && depth < maxDepth) stack.push([join(dir, sub.name), depth + 1]);
  }
}

/**
 * Files oldest first: by `stampOf` (a session's start, NaN when unknown: then the file's modification time), then
 * the file's time, then path. A file gone since it was listed sorts last, and read() says so.
 */
export function oldestFirst(files: string[], stampOf: (f: string) => number): string[] {
  const keyed = files.map((f) => {
    const m = statOf(f)?.mtimeMs ?? Number.POSITIVE_INFINITY;
    const t = stampOf(f);
    return { f, t: Number.isNaN(t) ? m : t, m };
  });
  keyed.sort((a, b) => a.t - b.t || a.m - b.m || (a.f < b.f ? -1 : a.f > b.f ? 1 : 0));
  return keyed.map((k) => k.f);
}
