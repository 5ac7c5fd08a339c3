export type { CachedAnswer } from './answer-cache.js';
export {
  type ArchiveContent,
  type ArchiveDocument,
  type ArchivedSession,
  type ArchiveInfo,
  archiveImported,
  archiveSessions,
  listArchives,
  readArchive,
} from './archive.js';
export type { Problem } from './audit/claims.js';
export { type HeadState, statePathFor } from './audit/head-state.js';
export { type AuditEvent, AuditLog, type ChainCheck, formatHead } from './audit/log.js';
export { ShardBuild } from './build.js';
export type { BulkAdded, BulkEvent, BulkResult, BulkTurn } from './bulk.js';
export { CRASH_HOOK_ENV } from './crash.js';
export { asArboristError, type OpenOptions, openDatabase } from './db/open.js';
export { SCHEMA_VERSION } from './db/schema.js';
export { cachedStatement, type RowMode } from './db/statements.js';
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
} from './entries.js';
export {
  type ChangePlan,
  type ChangeResult,
  deleteEntry,
  planDelete,
  planReset,
  resetEntry,
} from './entry-changes.js';
export { ArboristError, badInput, damaged, type ErrorKind, notFound } from './errors.js';
export { type ArchivedHit, findArchived } from './find/archived.js';
export {
  maxTurnId,
  newestMatches,
  newestMatchesBefore,
  snippetsFor,
  type TurnBrief,
  turnAnswers,
  turnBriefs,
} from './find/candidates.js';
export { type Candidate, type FindHit, type FindOptions, findTurns } from './find/find.js';
export {
  type MatchField,
  oneEditVariants,
  type SearchHit,
  type SearchOptions,
  type SearchResult,
  search,
  termHighlights,
} from './find/search.js';
export { foldTerms, matchExpression, queryTerms, quoteTerm } from './find/terms.js';
export * as hashes from './hash.js';
export { formatBates, parseBates } from './ids.js';
export { type OutlineNode, outlineOfTurns, type TreeNode } from './outline.js';
export { arboristHome, resolveDbPath, shardFiles } from './paths.js';
export {
  type ArchiveReason,
  describeKeepReason,
  type KeepReason,
  type KeptSession,
  type PlannedArchive,
  type SessionSummary,
} from './references.js';
export { type RestoredSession, restoreArchives } from './restore.js';
export { type ResumeRecord, recordResume } from './resume.js';
export {
  type MaintainOptions,
  type MaintenancePlan,
  type MaintenanceResult,
  maintain,
  planMaintenance,
} from './retention.js';
export type { ArchivedNodeRow, Session, TurnNode } from './rows.js';
export type { NewSession, SessionListing } from './sessions.js';
export { parentCycle, type Resolved, Shard, type TurnTarget } from './shard.js';
export type { SessionSource, SessionSourceInfo } from './sources.js';
export {
  type ChainStatus,
  chainStatus,
  FULL_CHECK_EVERY_MS,
  localDay,
  type StatusOptions,
} from './status.js';
export type { AddedTurn, NewTurn } from './turns.js';
export { type VerifyReport, verifyShard } from './verify.js';
