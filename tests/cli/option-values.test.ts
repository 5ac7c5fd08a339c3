import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDb } from '../support/tmp.js';

/**
 * An option left without its value, or given one that starts with '-', was Node's "Option '--label' argument is
 * ambiguous." (its first line only, so without the hint that followed it): a user could not tell what was wrong.
 */
describe('an option without its value', () => {
  it('says the option needs a value, and how to give one starting with a dash; exit 2', () => {
    const db = tempDb();
    const cases: [string[], string][] = [
      [
        ['new', '--label', '--db', db],
        "arborist: --label needs a value (one starting with '-' is written --label=-X)\n",
      ],
      [
        ['maintain', '--max-sessions', '-1', '--db', db],
        "arborist: --max-sessions needs a value (one starting with '-' is written --max-sessions=-X)\n",
      ],
      [['new', '--db', db, '--label'], 'arborist: --label needs a value\n'],
    ];
    for (const [args, stderr] of cases) {
      const r = cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(stderr);
    }
  });
});
