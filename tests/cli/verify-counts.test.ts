import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { linearShard } from '../support/linear.js';

const shard = (n: number): string => linearShard(n, 'vvvv');

/**
 * `verify` and `check` counted turns as a bare number ("verified: 19801 turns") beside the chain's "20,726
 * events" on the line above it, and said "1 turns".
 */
describe('verify counts the way the other lines do', () => {
  it('thousands separated, one turn singular', () => {
    const big = cli(['check', '--db', shard(1200)]);
    expect(big.code, big.stderr).toBe(0);
    expect(big.stdout).toContain('verified: 1,200 turns, every hash matches');
    const one = cli(['verify', '--db', shard(1)]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toBe(
      'verified: 1 turn, every hash matches, and the state is what the chain recorded\n',
    );
  });
});
