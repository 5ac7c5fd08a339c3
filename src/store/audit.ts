/**
 * Compatibility path: src/ui and tests/ui still import `ChainCheck` from here. The audit log lives in audit/ and
 * index.ts exports it; delete this file once nothing imports it.
 */
export type { AuditEvent, ChainCheck } from './audit/log.js';
