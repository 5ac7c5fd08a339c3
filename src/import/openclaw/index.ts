/**
 * The OpenClaw reader, both generations: JSONL transcripts with sessions.json (up to 2026.7.x) and the per-agent
 * SQLite database (2026.7.2+). Format facts and their public sources: docs/import.md (OpenClaw).
 */
import { readHead } from '../files.js';
import type { ParsedSource, SourceReader } from '../model.js';
import { readTranscriptFile } from './files.js';
import { classify, discover, stateDir } from './paths.js';
import { readSqlite } from './sqlite.js';
import { readStoreFile } from './store.js';

/** A database given under another name is still read as one (its first 16 bytes say so). */
function isSqlite(file: string): boolean {
  try {
    return readHead(file, 16).toString('latin1') === 'SQLite format 3\0';
  } catch {
    return false; // not a regular file (or unreadable): read as a transcript, which says why
  }
}

function* read(file: string): Iterable<ParsedSource> {
  const k = classify(file);
  if (k.kind === 'store') yield readStoreFile(file);
  else if (k.kind === 'sqlite' || (k.kind === 'other' && isSqlite(file))) yield* readSqlite(file);
  else yield readTranscriptFile(file);
}

export const openclawReader: SourceReader = {
  kind: 'openclaw',
  defaultPaths: (env) => [stateDir(env)],
  discover,
  read,
  // A transcript (live, topic or archived copy) is read alone; sessions.json reads the transcripts it names, and a
  // database has its WAL beside it: those are read every time.
  inputs: (file) => {
    const k = classify(file).kind;
    return k === 'transcript' || k === 'archive' ? { reader: 'openclaw', files: [file] } : undefined;
  },
};
