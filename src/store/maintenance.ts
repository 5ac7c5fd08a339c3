/**
 * Compatibility path: src/ui still imports `ChangePlan` from here. Everything lives in entries.ts, references.ts,
 * entry-changes.ts, archive.ts, restore.ts, find/archived.ts and retention.ts, and index.ts exports it all; delete
 * this file once nothing imports it.
 */
export type { ChangePlan, ChangeResult } from './entry-changes.js';
