import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

/**
 * A PATH given on the command line that holds nothing the source reads (a wrong folder, a folder given where llm
 * wants its logs.db) was "imported 0 turns, 0 new sessions, 0 files, 0 already there" and exit 0, as if it had
 * worked. It is told like a default place with nothing in it: one line, exit 2.
 */
describe('import of a PATH that holds no history of that source', () => {
  it('one line naming the source and the path, exit 2; a folder that holds one still imports', () => {
    const dir = tempDir();
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    writeFileSync(join(empty, 'notes.txt'), 'not a transcript\n');
    const db = join(dir, 'x.db');
    const claude = cli(['import', 'claude', empty, '--db', db]);
    expect(claude.code).toBe(2);
    expect(claude.stdout).toBe('');
    expect(claude.stderr).toBe(`arborist: no Claude Code history in ${empty}\n`);
    const llm = cli(['import', 'llm', empty, '--db', db, '--json']);
    expect(llm.code).toBe(2);
    expect(llm.json()).toEqual({ error: `no llm history in ${empty}`, kind: 'not_found' });
    // the same folder once it holds a transcript
    const line = {
      type: 'user',
      uuid: 'u1',
      parentUuid: null,
      sessionId: 's1',
      timestamp: '2026-02-02T09:00:00.000Z',
      cwd: '/w',
      message: { role: 'user', content: 'hello' },
    };
    writeFileSync(join(empty, 's1.jsonl'), `${JSON.stringify(line)}\n`);
    const ok = cli(['import', 'claude', empty, '--db', db]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/, 1 file(,|\n)/);
  });
});
