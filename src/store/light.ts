/**
 * The second public entry of the store, for `arborist status` alone (src/cli/status-main.ts, its own bundle): it
 * runs every few seconds from a status line, and through index.ts its bundle would keep every store module and
 * fuse.js (index.ts re-exports modules with top-level state the bundler cannot drop). Only what status needs.
 */
export { ArboristError } from './base/errors.js';
export { type ChainStatus, chainStatus } from './chain/status.js';
export { asArboristError } from './db/open.js';
