import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

/**
 * `import arborist` takes an export file. A folder given instead was "1 records skipped or repaired" with
 * "DIR:0: cannot read DIR (EISDIR)" under it and exit 1, as if the import had run and lost a record.
 */
describe('import arborist with a folder', () => {
  it('is one line saying it wants an export file, exit 2', () => {
    const dir = tempDir();
    const folder = join(dir, 'exports');
    mkdirSync(folder);
    const db = join(dir, 'x.db');
    const r = cli(['import', 'arborist', folder, '--db', db]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `arborist: ${folder} is a folder; import arborist takes a file written by arborist export --format json\n`,
    );
  });
});
