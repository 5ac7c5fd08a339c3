/**
 * Compatibility path: src/ui still imports `SearchResult` from here. Search lives in find/search.ts and index.ts
 * exports it; delete this file once nothing imports it.
 */
export type { MatchField, SearchHit, SearchOptions, SearchResult } from './find/search.js';
