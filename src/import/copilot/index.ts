/**
 * The GitHub Copilot CLI reader (`kind: 'copilot'`), both generations: the event logs of `session-state/` (0.0.342
 * and later) and the JSON documents of `history-session-state/` (before). Format facts and their public sources:
 * docs/import.md (GitHub Copilot CLI).
 */
import { dirname, join } from 'node:path';
import type { ParsedSource, SourceReader } from '../model.js';
import { readEventsFile } from './events.js';
import { readLegacyFile } from './legacy.js';
import { copilotDefaultPaths, copilotDiscover } from './paths.js';

/** A `.json` file is a first-generation document; anything else is read as an event log. */
function* read(file: string): Iterable<ParsedSource> {
  yield file.endsWith('.json') ? readLegacyFile(file) : readEventsFile(file);
}

export const copilotReader: SourceReader = {
  kind: 'copilot',
  defaultPaths: copilotDefaultPaths,
  discover: copilotDiscover,
  read,
  // A legacy document alone; an event log and its folder's workspace.yaml (the session's title).
  inputs: (file) => ({
    reader: 'copilot',
    files: file.endsWith('.json') ? [file] : [file, join(dirname(file), 'workspace.yaml')],
  }),
};
