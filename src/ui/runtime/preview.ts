/**
 * Turns for the find box's preview, loaded outside the keystroke's path: a turn already read is answered once the
 * key's frame is out (setImmediate); any other waits SETTLE_MS, and a newer request in that time replaces it, so
 * holding Down through the hits reads nothing until it stops. Answers for a hit no longer wanted are not sent
 * (and the reducer drops any that slip through). Read turns are kept by Bates id until the shard changes.
 */
import type { Action } from '../core/actions.js';
import type { Turn } from '../features/transcript/model.js';
import { describe } from './describe.js';

/** How long the selection must rest on a hit before its turn is read. */
export const SETTLE_MS = 30;
/** Turns kept: more than a screen of hits, few enough that a long answer or two cost nothing to keep. */
const KEEP = 64;

export interface Loaded {
  turn: Turn | null;
  archived: boolean;
  error?: string;
}

export class PreviewLoader {
  private readonly cache = new Map<string, Loaded>();
  private cacheVersion = -1;
  private timer: NodeJS.Timeout | null = null;
  private want: string | null = null;
  private closed = false;

  constructor(
    /** Reads a turn, live or archived; throws when it cannot. */
    private readonly load: (bates: string) => Loaded,
    private readonly dispatch: (a: Action) => void,
    /** Changes whenever the shard does (a turn's children and hashes move with it). */
    private readonly version: () => number,
  ) {}

  request(bates: string): void {
    this.want = bates;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const v = this.version();
    if (v !== this.cacheVersion) {
      this.cache.clear();
      this.cacheVersion = v;
    }
    const kept = this.cache.get(bates);
    if (kept) {
      setImmediate(() => this.answer(bates, kept));
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.closed || this.want !== bates) return;
      let got: Loaded;
      try {
        got = this.load(bates);
      } catch (err) {
        got = { turn: null, archived: false, error: describe(err) };
      }
      this.cache.set(bates, got);
      if (this.cache.size > KEEP) this.cache.delete(this.cache.keys().next().value!);
      this.answer(bates, got);
    }, SETTLE_MS);
  }

  private answer(bates: string, got: Loaded): void {
    if (this.closed || this.want !== bates) return;
    this.dispatch({ type: 'previewed', bates, ...got });
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
