/**
 * The Codex CLI reader (`kind: 'codex'`): rollouts under `$CODEX_HOME/sessions` and `archived_sessions`, plain or
 * zstd-compressed, every generation of the format. Format facts and their public sources: docs/import.md (Codex CLI).
 */
import type { ParsedSource, SourceReader } from '../model.js';
import { codexHome, discover, homeOf } from './paths.js';
import { readCodex } from './read.js';
import { indexOf } from './titles.js';

export { readCodex };

export const codexReader: SourceReader = {
  kind: 'codex',
  defaultPaths: (env) => [codexHome(env)],
  discover,
  *read(file: string): Iterable<ParsedSource> {
    yield readCodex(file);
  },
  // The rollout, and its home's thread names (a session's title): nothing else decides what it yields.
  inputs: (file) => {
    const home = homeOf(file);
    return { reader: 'codex', files: home === undefined ? [file] : [file, indexOf(home)] };
  },
};
