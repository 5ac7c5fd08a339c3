export { type AuditEvent, AuditLog, type ChainCheck, formatHead } from './audit.js';
export { type OpenOptions, openDatabase } from './db.js';
export { ArboristError, badInput, type ErrorKind, notFound } from './errors.js';
export { type FindHit, type FindOptions, findTurns, matchExpression, queryTerms } from './find.js';
export * as hashes from './hash.js';
export { arboristHome, resolveDbPath } from './paths.js';
export { SCHEMA_VERSION } from './schema.js';
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
