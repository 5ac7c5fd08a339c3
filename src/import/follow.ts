/**
 * `import --follow`'s rounds: the files a reader finds, looked at again and again, each changed one read through
 * the same path as one import (run.ts's importFile), until the signal stops it.
 */
import { statSync } from 'node:fs';
import { ArboristError, type Shard } from '../store/index.js';
import { lastLineEnded } from './files.js';
import { append, type ImportProblem, type SourceReader } from './model.js';
import {
  discoverAll,
  emptyImportSummary,
  type ImportSummary,
  importFile,
  type RunOptions,
  tellFolders,
} from './run.js';

export interface FollowOptions extends RunOptions {
  /** How often files are looked at. */
  pollMs?: number;
  /** How often the paths are searched for new files. */
  discoverMs?: number;
  /** A file unchanged this long is read as it is: a partial last line, an unfinished turn. */
  settleMs?: number;
  /** Called when another process starts (true) and stops (false) holding the shard's write lock past its timeout. */
  onLocked?: (locked: boolean) => void;
  signal: AbortSignal;
}

/**
 * `import --follow`: keeps importing as the tools append. Polls sizes and times (works on every file system,
 * over NFS and in containers, where inotify may say nothing); a file that changed is read again and only its new
 * turns are written (idempotence does the rest). A JSONL file whose last line has no newline yet, and a turn the
 * reader marks unfinished, wait until the file has been quiet for `settleMs`. Another process holding the shard's
 * write lock past the busy timeout (a big import in another terminal) is waited out: the file is read again on
 * the next round. Only the signal stops it.
 *
 * The summary counts each file once however often it was read, the turns already there when a file was first
 * read, and the turns still unfinished at its last reading (not every reading that saw them).
 */
export async function followImport(
  shard: Shard,
  reader: SourceReader,
  paths: string[],
  opts: FollowOptions,
): Promise<ImportSummary> {
  const total = emptyImportSummary();
  const pollMs = opts.pollMs ?? 200;
  const discoverMs = opts.discoverMs ?? 2000;
  const settleMs = opts.settleMs ?? 5000;
  const seen = new Map<
    string,
    { size: number; mtimeMs: number; changedAt: number; settled: boolean; retry: boolean }
  >();
  // Per file read: the turns already there at its first reading, the turns unfinished at its last.
  const counts = new Map<string, { skipped: number; waiting: number }>();
  let locked = false;
  // A folder that cannot be read is told once, however often it is found again.
  const toldFolders = new Set<string>();
  const discover = () => {
    const found: ImportProblem[] = [];
    const out = discoverAll(reader, paths, found);
    const fresh = found.filter((p) => !toldFolders.has(`${p.file}\0${p.reason}`));
    for (const p of fresh) toldFolders.add(`${p.file}\0${p.reason}`);
    tellFolders(fresh, opts, total);
    return out;
  };
  let files = discover();
  let lastDiscover = Date.now();
  // One abort listener per sleep, removed when the sleep ends: a listener left behind each poll grew without
  // bound (Node warned past 10, on stderr, which is the screen of a TUI following a file).
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(t);
        opts.signal.removeEventListener('abort', wake);
        resolve();
      };
      const t = setTimeout(wake, ms);
      opts.signal.addEventListener('abort', wake, { once: true });
    });
  while (!opts.signal.aborted) {
    const now = Date.now();
    if (now - lastDiscover >= discoverMs) {
      try {
        files = discover();
      } catch {
        // a folder that went away for a moment: keep the files known
      }
      lastDiscover = now;
    }
    for (const file of files) {
      let st: { size: number; mtimeMs: number };
      try {
        st = statSync(file);
      } catch {
        continue;
      }
      const prev = seen.get(file);
      const changed = !prev || prev.size !== st.size || prev.mtimeMs !== st.mtimeMs;
      if (changed)
        seen.set(file, { size: st.size, mtimeMs: st.mtimeMs, changedAt: now, settled: false, retry: false });
      const state = seen.get(file)!;
      const quiet = now - state.changedAt >= settleMs;
      if (!changed && !state.retry && (state.settled || !quiet)) continue;
      const jsonl = /\.jsonl(\.|$)/.test(file);
      if (jsonl && !quiet && !lastLineEnded(file, st.size)) continue;
      const one = emptyImportSummary();
      try {
        importFile(shard, reader, file, { ...opts, waitForIncomplete: !quiet }, one);
      } catch (err) {
        if (!(err instanceof ArboristError && err.kind === 'busy')) throw err;
        // Locked past the busy timeout: this file again next round, the rest of this round with it.
        state.retry = true;
        if (!locked) opts.onLocked?.(true);
        locked = true;
        break;
      } finally {
        addFollowed(total, one);
      }
      if (locked) opts.onLocked?.(false);
      locked = false;
      state.retry = false;
      const before = counts.get(file);
      counts.set(file, { skipped: before ? before.skipped : one.turns_skipped, waiting: one.turns_waiting });
      if (quiet) state.settled = true;
    }
    await sleep(pollMs);
  }
  total.files = counts.size;
  total.turns_skipped = 0;
  total.turns_waiting = 0;
  for (const c of counts.values()) {
    total.turns_skipped += c.skipped;
    total.turns_waiting += c.waiting;
  }
  return total;
}

/** What one reading added to the follower's total; files, skipped and waiting are counted per file instead. */
function addFollowed(total: ImportSummary, one: ImportSummary): void {
  // files_unchanged is not kept: a file passed over at its first reading is read at its next change.
  total.sessions += one.sessions;
  total.turns_added += one.turns_added;
  total.archived += one.archived;
  total.restored += one.restored;
  total.entries += one.entries;
  total.errors += one.errors;
  append(total.problems, one.problems);
}
