/**
 * The Codex CLI reader (`kind: 'codex'`): rollouts under `$CODEX_HOME/sessions` and `archived_sessions`, plain or
 * zstd-compressed, every generation of the format. Format facts and their public sources: docs/import.md (Codex CLI).
 */
import type { ParsedSource, SourceReader } from '../model.js';
import { codexHome, discover } from './paths.js';
import { readCodex } from './read.js';

export { readCodex };

export const codexReader: SourceReader = {
  kind: 'codex',
  defaultPaths: (env) => [codexHome(env)],
  discover,
  *read(file: string): Iterable<ParsedSource> {
    yield readCodex(file);
  },
};
