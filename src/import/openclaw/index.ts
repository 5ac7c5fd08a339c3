/**
 * The OpenClaw reader, both generations: JSONL transcripts with sessions.json (up to 2026.7.x) and the per-agent
 * SQLite database (2026.7.2+). Format facts and their public sources: docs/import.md (OpenClaw).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type { ParsedSource, SourceReader } from '../model.js';
import { readTranscriptFile } from './files.js';
import { classify, discover, stateDir } from './paths.js';
import { readSqlite } from './sqlite.js';
import { readStoreFile } from './store.js';

/** A database given under another name is still read as one (its first 16 bytes say so). */
function isSqlite(file: string): boolean {
  const head = Buffer.alloc(16);
  let fd: number | null = null;
  try {
    fd = openSync(file, 'r');
    return readSync(fd, head, 0, 16, 0) === 16 && head.toString('latin1') === 'SQLite format 3\0';
  } catch {
    return false;
  } finally {
    if (fd !== null) closeSync(fd);
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
};
