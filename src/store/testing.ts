import type { Shard } from './shard.js';

/**
 * The store's internals that its own tests and the benchmarks reach: the raw connection (to tamper with a shard
 * as an attacker with sqlite3 would, and to measure), and the parts whose exact behaviour they pin. Product code
 * never imports this file: the import rules (.dependency-cruiser.js) let src/ outside the store use only index.ts
 * and light.ts, and let tests and benchmarks add this one.
 */
export { chainCheckThreads, chainChunks } from './chain/check.js';
export { ChainClaims } from './chain/claims.js';
export { applyEvent, nodeAddForm, readClaims } from './chain/claims-read.js';
export { claimEvent, EVENTS, eventsMarkdown } from './chain/events.js';
export { CANON_SQL, sqlCanonicalContent } from './db/canon-sql.js';
export { AUDIT_EVENTS_TABLE } from './db/events-table.js';
export { EVENTS_NOT_BYTES, firstGuarded, GUARDS, guardSql, NODES_ODD, SUBTREES_ODD } from './db/guards.js';
export { MIGRATIONS } from './db/migrations.js';
export { integerList } from './db/page-lists.js';
export { newestFilteredMatches } from './find/candidates.js';
export { markedSnippet } from './find/terms.js';
export { indexTerms, rebuildVocabulary, termCounts } from './find/vocabulary.js';
export { dbOf } from './shard.js';
export { inWalkOrder, MERKLE_SQL } from './tree/merkle.js';
export { verifyThreadCount } from './verify/parallel.js';
export { verifyShard } from './verify/verify.js';
export type { BulkTurn } from './write/bulk.js';
export { nodeAddBody } from './write/bulk.js';

/**
 * Appends an event of any kind, unchecked: tests of the chain's checker fill long chains with filler events, and
 * test what verify makes of a kind arborist never writes. The product appends only registered kinds (events.ts).
 */
export function appendUnchecked(shard: Shard, kind: string, data: unknown, ts?: string): void {
  (shard.audit.append as (k: string, d: unknown, t?: string) => unknown)(kind, data, ts);
}
export { AuditLog } from './chain/log.js';
