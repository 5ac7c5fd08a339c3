/**
 * `S`: sync with every git remote (docs/sync.md), the browser's side, pure. The runtime runs `arborist sync` in a
 * child process (runtime/sync.ts), so the screen keeps answering while git and the import work, and reads its
 * progress lines; the status bar shows the step and its share, and the summary when it ends.
 */
import { thousands } from '../../../text/format.js';

/** One step of a running sync, as `arborist sync --progress-json` reports it (phase: fetch, export, push, ...). */
export interface SyncProgress {
  phase: string;
  done: number;
  total: number;
}

export interface SyncRun {
  progress: SyncProgress | null;
}

export type SyncEffect = { type: 'sync' };

export type SyncAction =
  | { type: 'syncProgress'; progress: SyncProgress }
  /**
   * `summary`: what moved, one line; `error`: why it failed (the summary is then empty). `notSetUp`: the shard has
   * no sync remote, which is no failure: sync is simply not set up (then summary and error are empty).
   */
  | { type: 'syncDone'; summary: string; error: string | null; changed: boolean; notSetUp?: boolean };

/** What `S` says on a shard with no sync remote: information, and how to set one up. */
export const SYNC_NOT_SET_UP = 'sync is not set up: arborist sync remote add NAME URL (docs/sync.md)';

/** The verbs of the phases, as the bar says them. */
const VERBS: Readonly<Record<string, string>> = {
  fetch: 'fetching',
  export: 'preparing',
  push: 'pushing',
  check: 'checking',
  import: 'importing',
};

/** The status bar's text for a running sync: "sync: importing 1,200/4,000 30%…". */
export function syncText(run: SyncRun): string {
  const p = run.progress;
  if (!p) return 'sync: starting…';
  const verb =
    VERBS[p.phase] ??
    p.phase
      .toLowerCase()
      .replace(/[^a-z -]/g, '')
      .slice(0, 20);
  if (p.total <= 0) return `sync: ${verb}…`;
  const done = Math.min(p.done, p.total);
  const pct = Math.floor((done / p.total) * 100);
  return `sync: ${verb} ${thousands(done)}/${thousands(p.total)} ${pct}%…`;
}
