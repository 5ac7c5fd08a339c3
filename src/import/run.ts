import { type Stats, statSync } from 'node:fs';
import { ArboristError, type Shard } from '../store/index.js';
import { kindOf } from './files.js';
import { fingerprintOf, ListingCache } from './fingerprint.js';
import { append, type ImportProblem, type SourceReader } from './model.js';
import { emptyUnitSummary, recordFileRead, stopsImport, type UnitSummary, writeUnit } from './writer.js';

/** Runs a reader over paths and writes what it reads: one import (the rounds of `--follow` are follow.ts). */

export interface ImportSummary {
  files: number;
  /** Files passed over: unchanged since an import read them whole and left nothing in them (importFile). */
  files_unchanged: number;
  sessions: number;
  turns_added: number;
  turns_skipped: number;
  turns_waiting: number;
  turns_refused: number;
  archived: number;
  restored: number;
  entries: number;
  errors: number;
  problems: ImportProblem[];
}

export interface Progress {
  file: string;
  filesDone: number;
  filesTotal: number;
  /** Bytes of the files done, and of all of them (as discovered). */
  bytesDone: number;
  bytesTotal: number;
  turns: number;
  elapsedMs: number;
}

export interface RunOptions {
  waitForIncomplete?: boolean;
  onProgress?: (p: Progress) => void;
  /** Called after each unit is written (the CLI prints new problems as they come in follow mode). */
  onUnit?: (u: UnitSummary) => void;
  /** Read every file, whatever its fingerprint says (`import --full`); the fingerprints are recorded again. */
  full?: boolean;
}

export function emptyImportSummary(): ImportSummary {
  return {
    files: 0,
    files_unchanged: 0,
    sessions: 0,
    turns_added: 0,
    turns_skipped: 0,
    turns_waiting: 0,
    turns_refused: 0,
    archived: 0,
    restored: 0,
    entries: 0,
    errors: 0,
    problems: [],
  };
}

function add(total: ImportSummary, u: UnitSummary): void {
  if (u.unchanged) total.files_unchanged++;
  total.sessions += u.sessions;
  total.turns_added += u.turns_added;
  total.turns_skipped += u.turns_skipped;
  total.turns_waiting += u.turns_waiting;
  total.turns_refused += u.turns_refused;
  total.archived += u.archived;
  total.restored += u.restored;
  total.entries += u.entries;
  total.errors += u.problems.length;
  append(total.problems, u.problems);
}

/**
 * The files below the paths, each once, in the reader's order per path. A path that is not there is an error; a
 * folder below one that cannot be read is a problem in `problems`.
 */
export function discoverAll(reader: SourceReader, paths: string[], problems?: ImportProblem[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const p of paths) {
    let st: Stats;
    try {
      st = statSync(p);
    } catch {
      throw new ArboristError('not_found', `${p}: no such file or folder`);
    }
    // A path named on the command line that is a FIFO or a device: reading it would hang or never end.
    if (!st.isFile() && !st.isDirectory())
      throw new ArboristError('input', `${p}: not a regular file or a folder (${kindOf(st)})`);
    for (const f of reader.discover(p, problems))
      if (!seen.has(f)) {
        seen.add(f);
        out.push(f);
      }
  }
  return out;
}

/** Folders that could not be read, each a problem of its own (they hold no turns, and are no file read). */
export function tellFolders(found: ImportProblem[], opts: RunOptions, total: ImportSummary): void {
  for (const p of found) {
    const u = emptyUnitSummary(p.file);
    u.problems.push(p);
    add(total, u);
    opts.onUnit?.(u);
  }
}

/**
 * A file that ends in the middle of a record and changed this recently is still being written: its cut turn waits
 * for the next import. One quiet for longer was left so by a tool that stopped (a crash): its turn is taken as it is.
 */
const CUT_GRACE_MS = 60_000;

function changedWithin(file: string, ms: number): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs < ms;
  } catch {
    return false; // unreadable: the reader says why
  }
}

/** A file's fingerprint now and the one recorded for it, when its reader names its inputs. */
interface FileState {
  reader: string;
  files: string[];
  /** Undefined when a file could not be read for it: the file is read, and its reader says why. */
  digest: Buffer | undefined;
  recorded: { digest: Buffer; turns: number } | undefined;
}

function fileState(
  shard: Shard,
  reader: SourceReader,
  file: string,
  listings: ListingCache,
): FileState | undefined {
  const inputs = reader.inputs?.(file, listings);
  if (inputs === undefined) return undefined;
  return {
    ...inputs,
    digest: fingerprintOf(inputs.files),
    recorded: shard.importFingerprint(inputs.reader, file),
  };
}

/**
 * True when `file` has not changed since an import read it whole and left nothing in it to import (its reader's
 * inputs have the fingerprint recorded then): importing it again would add nothing. For a follower or a keeper
 * that wants to know before importing; importFile passes such a file over by itself.
 */
export function unchangedSinceImport(
  shard: Shard,
  reader: SourceReader,
  file: string,
  listings = new ListingCache(),
): boolean {
  const st = fileState(shard, reader, file, listings);
  return st?.digest !== undefined && st.recorded?.digest.equals(st.digest) === true;
}

/**
 * Reads and writes one file; a reader's or writer's failure on the content is a problem of that file.
 *
 * A file whose reader names its inputs is passed over when their fingerprint is the one recorded the last time it
 * was read whole and settled (nothing waiting, refused, held back or reported): its turns count as already there.
 * A file read and settled gets its fingerprint recorded, taken before the read and checked again after it (a file
 * that changed while read is not recorded), in the same transaction as its turns when the caller holds one
 * (runImport's groups); one not settled has its record dropped. `full` reads the file whatever its record says.
 */
export function importFile(
  shard: Shard,
  reader: SourceReader,
  file: string,
  opts: RunOptions & { strict?: boolean; listings?: ListingCache },
  total: ImportSummary,
): void {
  const listings = opts.listings ?? new ListingCache();
  let state: FileState | undefined;
  try {
    state = fileState(shard, reader, file, listings);
    if (!opts.full && state?.digest && state.recorded?.digest.equals(state.digest)) {
      const u = emptyUnitSummary(file);
      u.turns_skipped = state.recorded.turns;
      u.settled = true;
      u.unchanged = true;
      add(total, u);
      opts.onUnit?.(u);
      total.files++;
      return;
    }
    const waitForCut = changedWithin(file, CUT_GRACE_MS);
    let settled = true;
    let turns = 0;
    for (const unit of reader.read(file)) {
      const u = writeUnit(shard, unit, { waitForIncomplete: opts.waitForIncomplete, waitForCut });
      settled &&= u.settled;
      turns += u.turns_added + u.turns_skipped;
      add(total, u);
      opts.onUnit?.(u);
    }
    if (state) {
      const digest = state.digest;
      // Taken again after the read: a file appended to (or replaced) meanwhile is read again next time.
      const same = settled && digest !== undefined && fingerprintOf(state.files)?.equals(digest) === true;
      if (same) recordFileRead(shard, state.reader, file, { digest, turns });
      else if (state.recorded) recordFileRead(shard, state.reader, file, null);
    }
  } catch (err) {
    // The shard failing (locked, full, read-only) stops the import; anything about this file's content does not.
    if (stopsImport(err)) throw err;
    // Inside a group a store refusal may have doomed the transaction: the caller writes the group again, file by file.
    if (opts.strict && err instanceof ArboristError) throw err;
    const u = emptyUnitSummary(file);
    u.problems.push({ file, line: 0, reason: (err as Error).message?.split('\n')[0] || String(err) });
    add(total, u);
    opts.onUnit?.(u);
    if (state?.recorded) recordFileRead(shard, state.reader, file, null);
  }
  total.files++;
}

/** Files written in one transaction, up to this many bytes of source (or GROUP_FILES files). */
const GROUP_BYTES = 64 * 1024 * 1024;
const GROUP_FILES = 500;

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * One import of everything below `paths`. Files are committed in groups (each file whole, several per commit):
 * FTS5 writes its pending index at every commit, and one commit per small transcript cost a sixth of the import.
 * Should a file fail inside a group (content the store refuses), the group is rolled back and written again one
 * file per commit, so only that file is reported and nothing else is lost.
 */
export function runImport(
  shard: Shard,
  reader: SourceReader,
  paths: string[],
  opts: RunOptions = {},
): ImportSummary {
  const unreadable: ImportProblem[] = [];
  const files = discoverAll(reader, paths, unreadable);
  // One listing of each folder for the whole import (a project folder's subagent files, for every session in it).
  const listings = new ListingCache();
  const total = emptyImportSummary();
  tellFolders(unreadable, opts, total);
  const t0 = performance.now();
  const sizes = files.map(sizeOf);
  const bytesTotal = sizes.reduce((a, b) => a + b, 0);
  let bytesDone = 0;
  const progress = (file: string) =>
    opts.onProgress?.({
      file,
      filesDone: total.files,
      filesTotal: files.length,
      bytesDone,
      bytesTotal,
      turns: total.turns_added,
      elapsedMs: performance.now() - t0,
    });
  for (let i = 0; i < files.length; ) {
    let bytes = 0;
    let end = i;
    while (end < files.length && end - i < GROUP_FILES && (end === i || bytes < GROUP_BYTES))
      bytes += sizes[end++];
    const group = files.slice(i, end);
    const before = { ...total, problems: [...total.problems] };
    const doneBefore = bytesDone;
    const oneByOne = (write: (file: string) => void) =>
      group.forEach((file, k) => {
        progress(file);
        write(file);
        bytesDone += sizes[i + k];
      });
    try {
      shard.write(() =>
        oneByOne((file) => importFile(shard, reader, file, { ...opts, strict: true, listings }, total)),
      );
    } catch (err) {
      if (stopsImport(err)) throw err;
      Object.assign(total, before);
      bytesDone = doneBefore;
      oneByOne((file) => importFile(shard, reader, file, { ...opts, listings }, total));
    }
    shard.idle(); // the WAL is checkpointed between groups, never inside a commit
    i = end;
  }
  progress('');
  return total;
}
