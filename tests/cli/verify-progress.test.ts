import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { linearShard } from '../support/linear.js';
import { start } from '../tui/helpers.js';

const shard = (n: number): string => linearShard(n, 'pppp');

/**
 * `verify` said nothing until it was done (1.4 s on 20,000 turns, ~5 s on 1,000,000): at a terminal it now keeps
 * one line on stderr saying how far it has read, rewritten in place and erased before the verdict. A pipe, a file
 * or --json gets none of it.
 */
describe('verify shows its progress at a terminal only', () => {
  it('at a terminal (pty): a progress line, erased at the end, the verdict alone left on screen', async () => {
    const db = shard(3000);
    for (const command of [['verify'], ['check']]) {
      const t = await start({ db, command, cols: 100, rows: 10, ready: null });
      expect((await t.exited).code).toBe(0);
      await t.settle();
      expect(t.raw).toMatch(/verifying: [\d,]+ of 3,000 turns read/);
      // erased: \r and erase-line after the last progress line, before the verdict
      expect(t.raw).toMatch(
        /\r\x1b\[2K(?![\s\S]*verifying)[\s\S]*verified(\x1b\[\d+m)?: 3,000 turns, every hash matches/,
      );
      expect(t.lines().join('\n')).not.toContain('verifying');
    }
  });

  it('not a terminal, or --json: no progress at all, stderr empty', () => {
    const db = shard(3000);
    for (const args of [['verify'], ['verify', '--json'], ['check']]) {
      const r = cli([...args, '--db', db]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
    }
  });
});
