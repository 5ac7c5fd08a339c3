export { CRASH_HOOK_ENV } from './base/crash.js';
export { ArboristError, badInput, damaged, type ErrorKind, notFound } from './base/errors.js';
export { shardFiles } from './base/paths.js';
export type { Problem } from './chain/claims.js';
export type { EventKind, EventPayloads } from './chain/events.js';
export { type HeadState, statePathFor } from './chain/head-state.js';
export { type AuditEvent, type AuditLog, type ChainCheck, formatHead } from './chain/log.js';
export {
  type ChainStatus,
  chainStatus,
  FULL_CHECK_EVERY_MS,
  localDay,
  type StatusOptions,
} from './chain/status.js';
export { SCHEMA_VERSION } from './db/migrations.js';
export { asArboristError, type OpenOptions } from './db/open.js';
export { type ArchivedHit, findArchived } from './find/archived.js';
export type { TurnBrief } from './find/candidates.js';
export {
  ARBORIST_AGENT,
  FILTER_NAMES,
  type ParsedQuery,
  parseQuery,
  type QueryFilters,
} from './find/filters.js';
export { type Postings, postingsOf } from './find/postings.js';
export { termHighlights } from './find/rank.js';
export {
  type MatchField,
  oneEditVariants,
  type SearchHit,
  type SearchMatch,
  type SearchOptions,
  type SearchResult,
} from './find/search.js';
export { foldTerms, matchExpression, queryTerms, quoteTerm } from './find/terms.js';
export { indexTerms } from './find/vocabulary.js';
export {
  type ArchiveContent,
  type ArchiveDocument,
  type ArchivedSession,
  type ArchiveInfo,
  archiveImported,
  archiveSessions,
  listArchives,
  readArchive,
} from './lifecycle/archive.js';
export {
  addCheckpoint,
  addUsageFamily,
  artifactFamily,
  type CheckpointRef,
  type CompactionCheckpoint,
  type EntryInfo,
  getEntry,
  listEntries,
  requireEntry,
  type SessionEntry,
  setEntry,
} from './lifecycle/entries.js';
export {
  type ChangePlan,
  type ChangeResult,
  deleteEntry,
  planDelete,
  planReset,
  resetEntry,
} from './lifecycle/entry-changes.js';
export {
  type ArchiveReason,
  describeKeepReason,
  type KeepReason,
  type KeptSession,
  type PlannedArchive,
  type SessionSummary,
} from './lifecycle/references.js';
export { type RestoredSession, restoreArchives } from './lifecycle/restore.js';
export {
  type MaintainOptions,
  type MaintenancePlan,
  type MaintenanceResult,
  maintain,
  planMaintenance,
} from './lifecycle/retention.js';
export {
  TURN_CONTENT_FIELDS,
  type TurnBody,
  type TurnContent,
  type TurnRecord,
  turnContentOf,
} from './model/content.js';
export * as hashes from './model/hash.js';
export { formatBates, parseBates } from './model/ids.js';
export type { ArchivedNodeRow, Session, TurnNode } from './model/rows.js';
export { parentCycle, type Resolved, Shard, type TurnTarget } from './shard.js';
export { type OutlineNode, outlineOfTurns, type TreeNode } from './tree/outline.js';
export type { NewSession, SessionListing } from './tree/sessions.js';
export { type VerifyProgress, type VerifyReport, verifyShard } from './verify/verify.js';
export type { CachedAnswer } from './write/answer-cache.js';
export { ShardBuild } from './write/build.js';
export type { BulkAdded, BulkEvent, BulkResult, BulkTurn } from './write/bulk.js';
export type { ImportFingerprint } from './write/fingerprints.js';
export { type ResumeRecord, recordResume } from './write/resume.js';
export { agentOf, projectOf, type SessionSource, type SessionSourceInfo } from './write/sources.js';
export {
  eventHashAt,
  eventsAfter,
  lastSyncEvent,
  nextSeqOf,
  type RawEvent,
  recordSync,
  type SyncHead,
  type SyncMark,
  type SyncRecord,
  type SyncStateRow,
  sessionTurnBlobs,
  syncHistory,
  syncMarks,
  syncMarksOf,
  syncStates,
  type TurnBlob,
  turnBlobs,
} from './write/sync.js';
export type { AddedTurn, NewTurn } from './write/turns.js';
export { checkNewTurn } from './write/turns.js';
