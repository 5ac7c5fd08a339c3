import { afterEach } from 'vitest';
import { ArboristError, type OpenOptions, Shard } from '../../src/store/index.js';
import { tempDb } from './tmp.js';

const opened: Shard[] = [];

/** A shard on a real SQLite file in a fresh temporary folder, closed after the current test. */
export function openShard(path: string = tempDb(), opts: OpenOptions = {}): Shard {
  const s = Shard.open(path, opts);
  opened.push(s);
  return s;
}

afterEach(() => {
  while (opened.length > 0) opened.pop()!.close();
});

/** The ArboristError thrown by fn; fails the test when fn returns or throws anything else. */
export function errorOf(fn: () => unknown): ArboristError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ArboristError) return e;
    throw e;
  }
  throw new Error('expected an ArboristError, but nothing was thrown');
}
