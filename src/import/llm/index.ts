/**
 * The reader of Simon Willison's `llm` CLI log database (logs.db): the legacy `conversations` / `responses` tables
 * and 0.32's content-addressed `messages` / `parts` / `turns` / `threads`, both in one file after an upgrade.
 * Never writes to the database or beside it (../sqlite-open.ts). Format notes with citations: docs/import.md (llm).
 */
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, posix, win32 } from 'node:path';
import { append, emptySource, type ImportProblem, type ParsedSource, type SourceReader } from '../model.js';
import { openReadOnlyDb } from '../sqlite-open.js';
import { buildSession } from './build.js';
import { legacySources } from './legacy.js';
import { planMessages } from './plan.js';
import { oneLine } from './rows.js';
import { detectSchema } from './schema.js';

const APP = 'io.datasette.llm';

/**
 * Where llm keeps logs.db: `$LLM_USER_PATH` when set and not empty, else `click.get_app_dir("io.datasette.llm")`:
 * `%APPDATA%` (or the home folder) on Windows, `~/Library/Application Support` on macOS, `$XDG_CONFIG_HOME` (default
 * `~/.config`) elsewhere.
 */
export function llmLogsPath(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  const path = platform === 'win32' ? win32 : posix;
  if (env.LLM_USER_PATH) return path.join(env.LLM_USER_PATH, 'logs.db');
  if (platform === 'win32') return path.join(env.APPDATA ?? env.USERPROFILE ?? homedir(), APP, 'logs.db');
  const home = env.HOME ?? homedir();
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', APP, 'logs.db');
  return path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), APP, 'logs.db');
}

function only(file: string, reason: string): ParsedSource {
  return emptySource('llm', file, [{ file, line: 0, reason }]);
}

function* readLogs(file: string): Generator<ParsedSource> {
  const open = openReadOnlyDb(file, 'an llm logs database');
  if (!open.ok) {
    yield only(file, open.reason);
    return;
  }
  const { db } = open.opened;
  let legacy: Generator<ParsedSource> | null = null;
  // Problems about the whole file ride on the first source yielded (or on one of their own at the end).
  let pending: ImportProblem[] = [];
  const withPending = (s: ParsedSource): ParsedSource => {
    if (pending.length > 0) {
      s.problems.unshift(...pending);
      pending = [];
    }
    return s;
  };
  try {
    const schema = detectSchema(db);
    if (!schema.legacy && !schema.modern) {
      yield only(file, 'not an llm logs database');
      return;
    }
    if (schema.oldLogRows > 0)
      pending.push({
        file,
        line: 0,
        reason: `${schema.oldLogRows} rows in the pre-0.5 \`logs\` table are not imported`,
      });
    if (schema.preRelease)
      pending.push({ file, line: 0, reason: 'messages table of an llm pre-release layout: not read' });
    if (schema.legacy)
      for (const rowid of db.prepare('SELECT rowid FROM responses WHERE id IS NULL').pluck().iterate())
        pending.push({ file, line: Number(rowid), reason: 'responses row without an id: skipped' });
    const plan = schema.modern ? planMessages(db, file, schema) : null;
    if (plan !== null) append(pending, plan.problems);
    legacy = schema.legacy
      ? legacySources(db, file, schema, { threads: schema.modern, turns: schema.modern })
      : null;
    // Merge the two streams by each session's first time: the legacy one is already in that order.
    const modern = plan?.sessions ?? [];
    let m = 0;
    let next = legacy?.next();
    while (m < modern.length || (next !== undefined && !next.done)) {
      const l = next !== undefined && !next.done ? next.value : null;
      const lFirst = l?.sessions[0]?.createdAt ?? '';
      if (m < modern.length && (l === null || modern[m].first <= lFirst)) {
        const s = buildSession(db, file, schema, plan!, modern[m++]);
        if (s.turns.length > 0 || s.problems.length > 0) yield withPending(s);
      } else if (l !== null) {
        if (l.turns.length > 0 || l.problems.length > 0) yield withPending(l);
        next = legacy!.next();
      }
    }
    if (pending.length > 0) yield withPending(emptySource('llm', file));
  } catch (e) {
    // A file that opens but breaks while read (a corrupt page, a truncated copy): report, do not throw.
    yield withPending(only(file, `cannot read: ${oneLine((e as Error).message ?? String(e))}`));
  } finally {
    legacy?.return(undefined);
    open.opened.close();
  }
}

export const llmReader: SourceReader = {
  kind: 'llm',
  defaultPaths(env) {
    return [llmLogsPath(env)];
  },
  discover(path) {
    try {
      if (statSync(path).isDirectory()) {
        const db = join(path, 'logs.db');
        return existsSync(db) ? [db] : [];
      }
      return [path];
    } catch {
      return [];
    }
  },
  read(file) {
    return readLogs(file);
  },
};
