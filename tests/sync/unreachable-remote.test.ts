import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bareRemote, expect0, host, run, tempDir } from './helpers.js';

/**
 * `arborist sync` with no NAME syncs every remote in name order. One that cannot be reached stopped it there: the
 * remotes after it were never synced, and nothing said so. Each is synced; the one that failed is said; exit 2.
 */
describe('sync of every remote when one cannot be reached', () => {
  it('syncs the others, says which failed, exit 2', () => {
    const good = bareRemote();
    const h = host('a');
    expect0(run(h, ['ask', 'hello', '--answer', 'hi']));
    // A folder that was there when added (add refuses a missing one) and is gone now: a drive unmounted.
    const gone = join(tempDir(), 'gone.git');
    execFileSync('git', ['init', '--bare', '--quiet', gone]);
    expect0(run(h, ['sync', 'remote', 'add', 'a-gone', gone]));
    rmSync(gone, { recursive: true });
    expect0(run(h, ['sync', 'remote', 'add', 'b-good', good]));
    const r = run(h, ['sync']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('b-good: pushed 1 turn, pulled 0 turns from 0 hosts\n');
    expect(r.stderr).toMatch(/^arborist: cannot fetch from remote a-gone: .*\n$/);
    expect(execFileSync('git', ['--git-dir', good, 'branch', '--list'], { encoding: 'utf8' })).not.toBe('');
    // --json: one document, the failure in it
    const j = run(h, ['sync', '--json']);
    expect(j.code).toBe(2);
    const doc = j.json();
    expect(doc.ok).toBe(false);
    expect(doc.remotes.map((x: { remote: string }) => x.remote)).toEqual(['b-good']);
    expect(doc.failed).toHaveLength(1);
    expect(doc.failed[0].remote).toBe('a-gone');
    expect(doc.failed[0].error).toMatch(/^cannot fetch from remote a-gone: /);
    expect(j.stderr).toMatch(/^arborist: cannot fetch from remote a-gone: .*\n$/);
    // one remote named: its failure is the one line it was
    const one = run(h, ['sync', 'a-gone']);
    expect(one.code).toBe(2);
    expect(one.stdout).toBe('');
    expect(one.stderr).toMatch(/^arborist: cannot fetch from remote a-gone: .*\n$/);
  });
});
