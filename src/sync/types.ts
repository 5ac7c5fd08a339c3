import type { Shard } from '../store/index.js';

/** A step of a sync, as `--progress-json` writes it (docs/sync.md, "Progress"). */
export type Phase = 'fetch' | 'export' | 'push' | 'check' | 'import';

export interface Progress {
  phase: Phase;
  done: number;
  total: number;
}

/** What one sync with one remote works with. */
export interface SyncContext {
  shard: Shard;
  dbPath: string;
  mirror: string;
  remote: string;
  /** This shard's host id. */
  host: string;
  progress: (phase: Phase, done: number, total: number) => void;
}
