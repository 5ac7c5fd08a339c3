/**
 * Bringing what the agent appended into the shard: the import layer's one-shot and follow loops with the Claude
 * Code reader, on the written files only. The replayed lines keep their uuids, so the importer skips them as known
 * and the new prompts hang under the turn resumed from (a cross-session child, in a new arborist session).
 */
import { makeClaudeReader } from '../import/claude/index.js';
import { followImport, type ImportSummary, runImport } from '../import/run.js';
import type { UnitSummary } from '../import/writer.js';
import type { Shard } from '../store/index.js';

export type { ImportSummary, UnitSummary };

const reader = makeClaudeReader({ sidechains: true });

/** Imports one written transcript as it is now (an unfinished last turn included: the agent has exited). */
export function importTranscript(shard: Shard, file: string): ImportSummary & { added: string[] } {
  const added: string[] = [];
  const summary = runImport(shard, reader, [file], { onUnit: (u) => added.push(...u.added) });
  return { ...summary, added };
}

/**
 * Follows written transcripts until `signal` aborts (`import --follow` on these files): a finished turn is
 * imported within a poll of being appended; `onUnit` hears of each file read.
 */
export function followTranscripts(
  shard: Shard,
  files: readonly string[],
  signal: AbortSignal,
  onUnit: (u: UnitSummary) => void,
  opts: { pollMs?: number; settleMs?: number } = {},
): Promise<ImportSummary> {
  return followImport(shard, reader, [...files], { signal, onUnit, ...opts });
}
