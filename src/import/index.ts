import type { SourceReader } from './model.js';
import { isSourceKind, type ReaderOptions, SOURCE_KINDS, SOURCES } from './sources.js';

export type { SourceKind } from './model.js';
export { type ReaderOptions, SOURCE_KINDS, SOURCES, type SourceInfo, sourcesMarkdown } from './sources.js';

/** The readers `arborist import` knows, by the word that names them on the command line (sources.ts). */
export const READER_KINDS = SOURCE_KINDS;

export function readerFor(kind: string, opts: ReaderOptions): SourceReader | undefined {
  return isSourceKind(kind) ? SOURCES[kind].reader(opts) : undefined;
}
