/** What a keeper is given and what it tells (src/keep/keeper.ts runs it, run.ts drives it). */
import type { ImportProblem, SourceKind } from '../import/model.js';

export interface KeeperOptions {
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  sidechains: boolean;
  /** Every file's size and time is looked at this often (the fallback when a notification is missed). */
  pollMs: number;
  /** Files in folders beyond the watch limit are looked at this often. */
  fastPollMs: number;
  /** Every source is discovered again this often (new roots, folders nobody watched). */
  rescanMs: number;
  /** A file unchanged this long is read as it is: a cut last line, an unfinished turn. */
  settleMs: number;
  /** Changes are gathered this long after the last notification before a batch runs. */
  debounceMs: number;
  maxWatches: number;
  batchFiles: number;
  /** Tests only (ARBORIST_KEEP_TEST_DELAY_MS): a pause after each file of a batch, to kill a keeper inside one. */
  delayMs?: number;
  onBatch: (b: BatchReport) => void;
  /** After the first discovery, before the first batch: the watches are set. */
  onReady?: () => void;
  /** Other news worth a line: a source found, a file deleted, the shard locked. */
  onNote: (text: string) => void;
}

export interface BatchReport {
  files: number;
  turns_added: number;
  sessions: number;
  turns_waiting: number;
  /** Turns added per source kind. */
  by_source: Partial<Record<SourceKind, number>>;
  /** Turns added per session (sid): which of them are in the archive tier now is asked of the shard (run.ts). */
  by_session: Map<string, number>;
  /** Problems not reported before. */
  problems: ImportProblem[];
  /** Files found shorter than the keeper last read them (truncated or replaced). */
  truncated: string[];
  /** Followed files that are gone (their turns stay in the shard). */
  gone: string[];
}

/** A batch that has read nothing yet. */
export function emptyBatchReport(): BatchReport {
  return {
    files: 0,
    turns_added: 0,
    sessions: 0,
    turns_waiting: 0,
    by_source: {},
    by_session: new Map(),
    problems: [],
    truncated: [],
    gone: [],
  };
}

export interface KeeperStats {
  batches: number;
  files_read: number;
  turns_added: number;
  sessions: number;
  polls: number;
  poll_cpu_ms: number;
  /** Rediscoveries after the first one (which is `first_discovery_cpu_ms`). */
  rescans: number;
  rescan_cpu_ms: number;
  first_discovery_cpu_ms: number;
}
