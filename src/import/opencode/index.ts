/**
 * The OpenCode reader, both generations: the JSON files under `storage/` (up to 1.1.x) and `opencode.db` (1.2+).
 * Format facts and their public sources: docs/import.md (OpenCode). Nothing OpenCode keeps is ever written.
 */
import { readHead } from '../files.js';
import { emptySource, type ParsedSource, type SourceReader } from '../model.js';
import { readDb } from './db.js';
import { opencodeDefaultPaths, opencodeDiscover } from './paths.js';
import { readStorageSession } from './storage.js';

const SQLITE = 'SQLite format 3\u0000';

/** A database under any name is read as one (its first 16 bytes say so). */
function isSqlite(file: string): boolean {
  try {
    return readHead(file, 16).toString('latin1') === SQLITE;
  } catch {
    return false; // not a regular file, or unreadable: the session reader says why
  }
}

function* read(file: string): Iterable<ParsedSource> {
  if (file.endsWith('.db') || isSqlite(file)) {
    yield* readDb(file);
    return;
  }
  const r = readStorageSession(file);
  if ('problem' in r) yield emptySource('opencode', file, [{ file, line: 0, reason: r.problem }]);
  else yield r;
}

export const opencodeReader: SourceReader = {
  kind: 'opencode',
  defaultPaths: opencodeDefaultPaths,
  discover: opencodeDiscover,
  read,
};
