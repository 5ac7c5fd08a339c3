import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hookRound, killRound, operations, prepare, setNiceness } from '../../bench/crash-kit.js';

// Yield to the tests vitest runs beside this one (bench/crash-kit.ts, setNiceness).
setNiceness(10);

/**
 * The CI-sized crash suite (`npm run stress` runs the long one, bench/stress.ts, with the same code): for each
 * operation, the real CLI on a prepared shard is SIGKILLed three times at fixed fractions of its measured duration
 * (counted from the moment it opened the shard),
 * and once through the crash hook at a point inside its transaction. After every kill: PRAGMA integrity_check ok,
 * `arborist check` exit 0, the before or the after state (never half), no turn lost, an acknowledged ask present,
 * and the shard still takes a write (bench/crash-kit.ts, checkAfterKill).
 */
const dir = mkdtempSync(join(tmpdir(), 'arb-crash-ci-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Fractions of the measured time from opening the shard to the exit, counted from the moment the process opened
 * the shard (its -wal appeared): most of a CLI run is Node starting up, and a kill there proves nothing.
 */
const FRACTIONS = [0.1, 0.4, 0.7];
/** One hook point per operation inside its transaction (every point is in the stress suite). */
const HOOK: Record<string, string | undefined> = {
  delete: 'delete-nodes:2',
  reset: 'audit',
  restore: 'ripple',
  maintain: 'archive-record',
};

describe('SIGKILL in the middle of a CLI operation leaves a healthy shard, before or after, never half', () => {
  for (const op of operations(0.3)) {
    it(op.name, async () => {
      const p = await prepare(op, dir, 1);
      const seen: string[] = [];
      for (const [i, f] of FRACTIONS.entries()) {
        const delay = p.openToExitMs * f;
        const r = await killRound(p, dir, `ci${i}`, delay, 'open');
        expect(r.failures, `${op.name} killed ${delay.toFixed(0)} ms after it opened the shard`).toEqual([]);
        seen.push(r.killed ? (r.midOperation ? `mid-op ${r.outcome}` : `early ${r.outcome}`) : 'exited');
      }
      const point = HOOK[op.name];
      if (point) {
        const r = hookRound(p, dir, p.template.points.find((x) => x.point === point)!);
        expect(r.failures, `${op.name} at ${point}`).toEqual([]);
        expect(r.outcome).toBe('before');
      }
      console.log(
        `${op.name}: ${p.typicalMs.toFixed(0)} ms, ${p.openToExitMs.toFixed(0)} with the shard open; kills: ${seen.join(', ')}`,
      );
    }, 45_000);
  }
});
