import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDb, tempDir } from '../support/tmp.js';

const KINDS = 'claude, openclaw, llm, codex, gemini, copilot, opencode, pi, aider, arborist';

/**
 * `arborist import WORD` where WORD is no source answered with the whole usage line: it did not say the word was
 * the problem, nor, for a path given without its source (`arborist import ~/.claude/projects`), what was missing.
 */
describe('import with an unknown source', () => {
  it('names the word and the sources; a path is told to come after its source; exit 2', () => {
    const db = tempDb();
    const bogus = cli(['import', 'bogus', '--db', db]);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toBe(`arborist: unknown source 'bogus' (${KINDS})\n`);
    const dir = tempDir();
    const path = cli(['import', dir, '--db', db]);
    expect(path.code).toBe(2);
    expect(path.stderr).toBe(
      `arborist: unknown source '${dir}': give the source before the path (arborist import claude ${dir}); sources: ${KINDS}\n`,
    );
  });
});
