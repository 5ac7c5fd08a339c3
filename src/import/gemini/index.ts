/**
 * The Gemini CLI reader (`kind: 'gemini'`): `~/.gemini/tmp/<project>/chats/session-*.json[l]`, both generations
 * (one JSON document up to v0.38, JSONL since v0.39), each read with its subagent chats; and a project's
 * `logs.json` (prompts only) when named. Format facts and their public sources: docs/import.md (Gemini CLI).
 */
import { basename } from 'node:path';
import type { ParsedSource, SourceReader } from '../model.js';
import { readChatFile } from './chat.js';
import { geminiInputs } from './inputs.js';
import { readLogsFile } from './logs.js';
import { geminiDefaultPaths, geminiDiscover } from './paths.js';

function* read(file: string): Iterable<ParsedSource> {
  if (basename(file) === 'logs.json') yield* readLogsFile(file);
  else yield readChatFile(file);
}

export const geminiReader: SourceReader = {
  kind: 'gemini',
  defaultPaths: geminiDefaultPaths,
  discover: geminiDiscover,
  read,
  inputs: geminiInputs,
};
