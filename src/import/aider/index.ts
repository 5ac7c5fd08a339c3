/**
 * The aider reader: a chat history file (`.aider.chat.history.md`, or the file `--chat-history-file` named) into one
 * ParsedSource of its sessions. aider keeps no history of its own outside projects, so there are no default paths
 * and the source is not looked for (src/import/sources.ts `findable: false`): `import aider PATH...`.
 */
import { dirname, resolve } from 'node:path';
import type { ImportProblem, ParsedSource, SourceReader } from '../model.js';
import { readChat } from './chat.js';
import { readLines } from './lines.js';
import { discover } from './paths.js';

export function readAiderFile(file: string): ParsedSource {
  const problems: ImportProblem[] = [];
  const read = readLines(file, problems);
  const chat = read
    ? readChat({ file, lines: read.lines, openEnded: read.openEnded, cwd: dirname(resolve(file)), problems })
    : { sessions: [], turns: [] };
  return {
    kind: 'aider',
    file,
    sessions: chat.sessions,
    turns: chat.turns,
    entries: [],
    problems: problems.sort((a, b) => a.line - b.line),
  };
}

export const aiderReader: SourceReader = {
  kind: 'aider',
  defaultPaths: () => [],
  discover,
  read: (file) => [readAiderFile(file)],
};
