/**
 * Where GitHub Copilot CLI keeps its sessions, and which files under a path are sessions, oldest first. Its home is
 * `$COPILOT_HOME`, else `~/.copilot`; before 1.0 the state half of it lived in `$XDG_STATE_HOME/.copilot` when that
 * was set (1.0 moves it into `~/.copilot` and leaves links behind). Below the home: `session-state/<id>/events.jsonl`
 * (early event-log versions: `session-state/<id>.jsonl`) and the first generation's
 * `history-session-state/session_<id>_<startMs>.json`. Sources: docs/import.md (GitHub Copilot CLI).
 */
import { lstatSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { firstTimestamp } from '../jsonl.js';
import { type ImportProblem, unreadableFolder } from '../model.js';
import { isFileEntry, listFolder, oldestFirst, statOf, unlessFolder, userHome } from '../walk.js';

export function copilotDefaultPaths(env: NodeJS.ProcessEnv): string[] {
  const home = userHome(env);
  const main =
    env.COPILOT_HOME !== undefined && env.COPILOT_HOME.trim() !== ''
      ? env.COPILOT_HOME
      : join(home, '.copilot');
  const out = [main];
  const state = env.XDG_STATE_HOME;
  if (state !== undefined && state.trim() !== '' && join(state, '.copilot') !== main)
    out.push(join(state, '.copilot'));
  return out;
}

/** A real folder below the path given (a link to one is not followed, as below: 1.0 leaves such links behind). */
function isFolder(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The sessions of a `session-state` folder: `<id>/events.jsonl` in each session folder (symbolic links to folders
 * are not followed: a link loop must not hang discovery) and the flat `<id>.jsonl` files of early versions.
 */
function sessionState(dir: string, out: string[], problems: ImportProblem[] | undefined): void {
  for (const e of listFolder(dir, problems)) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      const events = join(p, 'events.jsonl');
      try {
        statSync(events);
        out.push(events);
      } catch (err) {
        // no log (a session that never got a prompt) is nothing lost; a folder that cannot be read is
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') unreadableFolder(p, err, problems);
      }
    } else if (e.name.endsWith('.jsonl') && isFileEntry(dir, e)) out.push(p);
  }
}

/** The first generation's documents: every `.json` file of a `history-session-state` folder, as the CLI lists it. */
function historyState(dir: string, out: string[], problems: ImportProblem[] | undefined): void {
  for (const e of listFolder(dir, problems))
    if (e.name.endsWith('.json') && isFileEntry(dir, e)) out.push(join(dir, e.name));
}

/** A legacy file's start, from its name (`session_<id>_<startMs>.json`); NaN when the name does not say. */
function legacyStart(file: string): number {
  const m = /^session_.+_(\d+)\.json$/.exec(basename(file));
  return m ? Number(m[1]) : Number.NaN;
}

/**
 * A file stands for itself. A folder is a Copilot home (its `session-state` and `history-session-state`), one of
 * those two folders, a session folder (holding `events.jsonl`), or else a folder of session folders (a copied
 * `session-state` under another name). Sessions are ordered by their start (an event log's first timestamp, a
 * legacy file's name), then file time, then path, so that a session comes before its forks and a legacy session
 * before the event log that imported it.
 */
export function copilotDiscover(path: string, problems?: ImportProblem[]): string[] {
  const own = unlessFolder(path);
  if (own) return own;
  const files: string[] = [];
  const name = basename(path);
  if (name === 'history-session-state') historyState(path, files, problems);
  else if (name === 'session-state') sessionState(path, files, problems);
  else if (statOf(join(path, 'events.jsonl'))?.isDirectory() === false)
    files.push(join(path, 'events.jsonl'));
  else {
    const ss = isFolder(join(path, 'session-state'));
    const hs = isFolder(join(path, 'history-session-state'));
    if (ss) sessionState(join(path, 'session-state'), files, problems);
    if (hs) historyState(join(path, 'history-session-state'), files, problems);
    if (!ss && !hs) sessionState(path, files, problems);
  }
  return oldestFirst(files, (f) => (f.endsWith('.json') ? legacyStart(f) : firstTimestamp(f)));
}
