/**
 * Bringing what the agent appended into the shard: the import layer's one-shot and follow loops with the Claude
 * Code reader, on the written files only. The replayed lines keep their uuids, so the importer skips them as known
 * and the new prompts hang under the turn resumed from (a cross-session child, in a new arborist session).
 *
 * The reader and the import loop are loaded on first use: the browser imports this module, and its start-up
 * (the first screen) should not parse the Claude Code reader and the writer it may never use (scripts/bundle.mjs
 * puts them in a chunk of their own).
 */

import type { SourceReader } from '../import/model.js';
import type { ImportSummary } from '../import/run.js';
import type { UnitSummary } from '../import/writer.js';
import type { Shard } from '../store/index.js';

export type { ImportSummary, UnitSummary };

interface Loaded {
  reader: SourceReader;
  run: typeof import('../import/run.js');
}

let loading: Promise<Loaded> | null = null;

function load(): Promise<Loaded> {
  loading ??= Promise.all([import('../import/claude/index.js'), import('../import/run.js')]).then(
    ([claude, run]) => ({ reader: claude.makeClaudeReader({ sidechains: true }), run }),
  );
  return loading;
}

/** Imports one written transcript as it is now (an unfinished last turn included: the agent has exited). */
export async function importTranscript(
  shard: Shard,
  file: string,
): Promise<ImportSummary & { added: string[] }> {
  const { reader, run } = await load();
  const added: string[] = [];
  const summary = run.runImport(shard, reader, [file], { onUnit: (u) => added.push(...u.added) });
  return { ...summary, added };
}

/**
 * Follows written transcripts until `signal` aborts (`import --follow` on these files): a finished turn is
 * imported within a poll of being appended; `onUnit` hears of each file read.
 */
export async function followTranscripts(
  shard: Shard,
  files: readonly string[],
  signal: AbortSignal,
  onUnit: (u: UnitSummary) => void,
  opts: { pollMs?: number; settleMs?: number } = {},
): Promise<ImportSummary> {
  const { reader, run } = await load();
  return run.followImport(shard, reader, [...files], { signal, onUnit, ...opts });
}
