/**
 * The Claude Code transcript reader (`kind: 'claude'`): ~/.claude/projects/<project>/<session>.jsonl, each read
 * with its subagent files. Format notes and their public sources: docs/import.md (Claude Code).
 */
import type { ParsedSource, SourceReader } from '../model.js';
import { claudeDefaultPaths, claudeDiscover } from './discover.js';
import { type ClaudeOptions, readClaude } from './read.js';
import { agentInputs } from './subagents.js';

export type { ClaudeOptions };
export { readClaude };

/** A Claude Code reader; `sidechains: false` leaves subagent and sidechain turns out. */
export function makeClaudeReader(opts: Partial<ClaudeOptions> = {}): SourceReader {
  const options: ClaudeOptions = { sidechains: opts.sidechains ?? true };
  return {
    kind: 'claude',
    defaultPaths: claudeDefaultPaths,
    discover: claudeDiscover,
    *read(file: string): Iterable<ParsedSource> {
      yield readClaude(file, options);
    },
    // The session file and, when sidechains are read, its subagent files: nothing else decides what it yields.
    inputs: (file, listings) =>
      options.sidechains
        ? { reader: 'claude', files: [file, ...agentInputs(file, listings)] }
        : { reader: 'claude/no-sidechains', files: [file] },
  };
}

export const claudeReader: SourceReader = makeClaudeReader();
