/**
 * Bringing what the agent appended into the shard: the import layer's one-shot and follow loops with the agent's
 * reader (adapters.ts), on the written files only. The copied records keep their ids (Claude Code's uuids,
 * Codex's turn ids), so the importer skips them as known and the new prompts hang under the turn resumed from
 * (a cross-session child, in a new arborist session).
 *
 * The reader and the import loop are loaded on first use: the browser imports this module, and its start-up
 * (the first screen) should not parse readers and the writer it may never use (scripts/bundle.mjs puts them in a
 * chunk of their own).
 */

import type { SourceKind } from '../import/model.js';
import type { ImportSummary } from '../import/run.js';
import type { UnitSummary } from '../import/writer.js';
import type { Shard } from '../store/index.js';
import { adapterOf } from './adapters.js';

export type { ImportSummary, UnitSummary };

async function load(agent: SourceKind) {
  const adapter = adapterOf(agent);
  if (adapter === undefined) throw new Error(`arborist does not resume into ${agent}`);
  const [reader, run] = await Promise.all([adapter.reader(), import('../import/run.js')]);
  return { reader, run };
}

/** Imports one written session file as it is now (an unfinished last turn included: the agent has exited). */
export async function importTranscript(
  shard: Shard,
  file: string,
  agent: SourceKind = 'claude',
): Promise<ImportSummary & { added: string[] }> {
  const { reader, run } = await load(agent);
  const added: string[] = [];
  const summary = run.runImport(shard, reader, [file], { onUnit: (u) => added.push(...u.added) });
  return { ...summary, added };
}

/**
 * Follows written session files of one agent until `signal` aborts (`import --follow` on these files): a
 * finished turn is imported within a poll of being appended; `onUnit` hears of each file read.
 */
export async function followTranscripts(
  shard: Shard,
  files: readonly string[],
  signal: AbortSignal,
  onUnit: (u: UnitSummary) => void,
  opts: { pollMs?: number; settleMs?: number } = {},
  agent: SourceKind = 'claude',
): Promise<ImportSummary> {
  const [{ reader }, { followImport }] = await Promise.all([load(agent), import('../import/follow.js')]);
  return followImport(shard, reader, [...files], { signal, onUnit, ...opts });
}
