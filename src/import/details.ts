/**
 * The one entry to the readers' details (src/import/details-model.ts): a turn's thinking, whole call inputs and
 * results, read back from its source records by the reader of the source that wrote them. The browser reaches the
 * import layer here and only here (.dependency-cruiser.js, `ui-details-only`); it loads this module lazily, so the
 * first screen never runs a reader.
 *
 * Sources whose records carry no more than the answer keeps, or that are not read here yet, give null and the
 * transcript shows the answer alone: llm (its rows hold no thinking; calls are in the answer whole), arborist
 * exports (the answer is all).
 */
import { aiderDetails } from './aider/details.js';
import { claudeDetails } from './claude/details.js';
import { codexDetails } from './codex/details.js';
import { copilotDetails } from './copilot/details.js';
import type { TurnDetails } from './details-model.js';
import { geminiDetails } from './gemini/details.js';
import { opencodeDetails } from './opencode/details.js';
import { piDetails } from './pi-format/details.js';

export type { CallDetail, Edit, Thinking, TurnDetails } from './details-model.js';

const READERS: Readonly<Record<string, (records: Buffer) => TurnDetails>> = {
  aider: aiderDetails,
  claude: claudeDetails,
  codex: codexDetails,
  copilot: copilotDetails,
  gemini: geminiDetails,
  pi: piDetails,
  openclaw: piDetails,
  opencode: opencodeDetails,
};

/** The sources that have a details reader. */
export const DETAIL_SOURCES: readonly string[] = Object.keys(READERS);

/** A turn's details from its records, or null when its source has no details reader. Never throws on bad records. */
export function turnDetails(source: string, records: Buffer): TurnDetails | null {
  const read = READERS[source];
  if (!read) return null;
  try {
    return read(records);
  } catch {
    return null; // records no reader could follow: the answer still shows what the import kept
  }
}
