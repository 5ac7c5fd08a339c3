export { type AuditEvent, AuditLog, type ChainCheck, formatHead } from './audit.js';
export { type OpenOptions, openDatabase } from './db/open.js';
export { SCHEMA_VERSION } from './db/schema.js';
export { cachedStatement, type RowMode } from './db/statements.js';
export { ArboristError, badInput, type ErrorKind, notFound } from './errors.js';
export { type FindHit, type FindOptions, findTurns, matchExpression, queryTerms } from './find.js';
export * as hashes from './hash.js';
export {
  type ArchiveContent,
  type ArchiveDocument,
  type ArchivedHit,
  type ArchivedNodeRow,
  type ArchivedSession,
  type ArchiveInfo,
  type ArchiveReason,
  addCheckpoint,
  addUsageFamily,
  archiveSessions,
  artifactFamily,
  type ChangePlan,
  type ChangeResult,
  type CheckpointRef,
  type CompactionCheckpoint,
  CRASH_HOOK_ENV,
  deleteEntry,
  describeKeepReason,
  type EntryInfo,
  findArchived,
  getEntry,
  type KeepReason,
  type KeptSession,
  listArchives,
  listEntries,
  type MaintainOptions,
  type MaintenancePlan,
  type MaintenanceResult,
  maintain,
  type PlannedArchive,
  planDelete,
  planMaintenance,
  planReset,
  type RestoredSession,
  readArchive,
  requireEntry,
  resetEntry,
  restoreArchives,
  type SessionEntry,
  type SessionSummary,
  setEntry,
} from './maintenance.js';
export { arboristHome, resolveDbPath } from './paths.js';
export {
  type MatchField,
  oneEditVariants,
  type SearchHit,
  type SearchOptions,
  type SearchResult,
  search,
  termHighlights,
} from './search.js';
export {
  type AddedTurn,
  formatBates,
  type NewTurn,
  parseBates,
  type Resolved,
  type Session,
  Shard,
  type TreeNode,
  type TurnNode,
} from './shard.js';
export { type VerifyReport, verifyShard } from './verify.js';
