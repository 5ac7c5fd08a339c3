import { describe, expect, it } from 'vitest';
import { concurrencySuite, setNiceness } from '../../bench/crash-kit.js';

// Yield to the tests vitest runs beside this one (bench/crash-kit.ts, setNiceness).
setNiceness(10);

/**
 * The CI-sized concurrency suite (`npm run stress -- --only concurrency` runs 4 x 500): four loops at once, each
 * 25 `arborist ask --json` processes into one shard, one in four a turn of its own session under another writer's
 * turn. Every acknowledged turn is there under the parent it was asked under; chain-check and verify are clean;
 * the events are seq 1..N without a gap, one per session and turn (bench/crash-kit.ts, concurrencySuite).
 */
describe('4 CLI writers at once into one shard', () => {
  it('loses nothing, forks across writers, keeps one linear chain', async () => {
    const r = await concurrencySuite({ writers: 4, asks: 25, seed: 7 });
    console.log(
      `concurrency: ${r.acknowledged} asks (${r.crossForks} cross-session) in ${r.seconds.toFixed(1)} s, ${r.events} events`,
    );
    expect(r.failures).toEqual([]);
    expect(r.acknowledged).toBe(100);
    expect(r.crossForks).toBeGreaterThan(0);
    expect(r.events).toBe(1 + 4 + 100);
  }, 55_000);
});
