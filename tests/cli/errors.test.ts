import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDb } from '../support/tmp.js';

/**
 * The one error policy of the entry points (src/cli/report.ts): a user's mistake is one line and exit 2; a
 * bug in arborist is told apart, with exit 70 and a line saying so, so that scripts and people can tell them apart.
 */
const ENTRIES: { entry: string; args: string[] }[] = [
  { entry: 'main', args: ['list'] },
  { entry: 'browser', args: [] },
  { entry: 'status', args: ['status'] },
  { entry: 'mcp', args: ['mcp'] },
];

describe('one error policy for every entry point', () => {
  for (const { entry, args } of ENTRIES) {
    it(`${entry}: a bug is exit 70 with a line saying it is one; --json says kind "internal"`, () => {
      const db = tempDb();
      const r = cli([...args, '--db', db], { env: { ARBORIST_TEST_INTERNAL_ERROR: entry } });
      expect(r.code).toBe(70);
      expect(r.stderr.split('\n').filter(Boolean)).toEqual([
        `arborist: internal error: test fault in the ${entry} entry`,
        'arborist: this is a bug in arborist, not a mistake of yours. Please report it with the output of the same ' +
          'command run with ARBORIST_DEBUG=1.',
      ]);
      if (entry !== 'browser') {
        const j = cli([...args, '--db', db, '--json'], { env: { ARBORIST_TEST_INTERNAL_ERROR: entry } });
        expect(j.json()).toEqual({
          error: `internal error: test fault in the ${entry} entry`,
          kind: 'internal',
        });
      }
    });

    it(`${entry}: a user's mistake is one line and exit 2`, () => {
      const r = cli([...args, '--db', '']);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe('arborist: --db needs a path (it was given an empty one)\n');
    });
  }
});
