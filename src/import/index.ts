import { arboristReader } from './arborist/index.js';
import { makeClaudeReader } from './claude/index.js';
import { llmReader } from './llm/index.js';
import type { SourceKind, SourceReader } from './model.js';
import { openclawReader } from './openclaw/index.js';

/** The readers `arborist import` knows, by the word that names them on the command line. */
export const READER_KINDS: readonly SourceKind[] = ['claude', 'openclaw', 'llm', 'arborist'];

export interface ReaderOptions {
  /** Claude Code: import subagent and sidechain branches (default) or leave them out. */
  sidechains: boolean;
}

export function readerFor(kind: string, opts: ReaderOptions): SourceReader | undefined {
  switch (kind) {
    case 'claude':
      return makeClaudeReader({ sidechains: opts.sidechains });
    case 'openclaw':
      return openclawReader;
    case 'llm':
      return llmReader;
    case 'arborist':
      return arboristReader;
    default:
      return undefined;
  }
}
