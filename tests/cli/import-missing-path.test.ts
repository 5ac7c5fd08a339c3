import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

/**
 * A PATH that is not there: `import ... --follow` said "following PATH (Ctrl-C stops)" and then that PATH was not
 * there (two lines, the first untrue), and every import created the shard it was to write to, empty.
 */
describe('import of a path that is not there', () => {
  it('one line, exit 2, and no shard created, with or without --follow', () => {
    const dir = tempDir();
    const missing = join(dir, 'nope');
    for (const args of [
      ['import', 'claude', missing, '--follow'],
      ['import', 'claude', missing],
      ['import', 'arborist', missing],
    ]) {
      const db = join(dir, `${args.length}-${args[1]}.db`);
      const r = cli([...args, '--db', db], { timeoutMs: 20_000 });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(`arborist: ${missing}: no such file or folder\n`);
      expect(existsSync(db), args.join(' ')).toBe(false);
    }
  });
});
