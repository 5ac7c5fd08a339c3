/**
 * Turns for the find box's preview, loaded outside the keystroke's path: a turn already read is answered once the
 * key's frame is out (setImmediate); any other waits SETTLE_MS, and a newer request in that time replaces it, so
 * holding Down through the hits reads nothing until it stops. Nothing is read or answered while the query is being
 * typed (TYPING_QUIET_MS after the last query asked), so the preview never competes with the hits of the next key. Answers for a hit no longer wanted are not sent
 * (and the reducer drops any that slip through). Read turns are kept by Bates id until the shard changes.
 */
import type { Action } from '../core/actions.js';
import type { Turn } from '../features/transcript/model.js';
import { describe } from './describe.js';

/** How long the selection must rest on a hit before its turn is read. */
export const SETTLE_MS = 30;
/**
 * How long after the last query asked (a key typed in the box) no turn is read nor painted: while a person types,
 * each key's hits come first, and the preview of the top hit follows the first pause.
 */
export const TYPING_QUIET_MS = 150;
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
  private quietUntil = 0;
  private closed = false;

  constructor(
    /** Reads a turn, live or archived; throws when it cannot. */
    private readonly load: (bates: string) => Loaded,
    private readonly dispatch: (a: Action) => void,
    /** Changes whenever the shard does (a turn's children and hashes move with it). */
    private readonly version: () => number,
  ) {}

  /** A query was asked: loads wait until the typing pauses. */
  typed(): void {
    this.quietUntil = Date.now() + TYPING_QUIET_MS;
  }

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
    const quiet = Math.max(0, this.quietUntil - Date.now());
    if (kept && quiet === 0) {
      setImmediate(() => this.answer(bates, kept));
      return;
    }
    this.schedule(bates, kept ? quiet : Math.max(SETTLE_MS, quiet));
  }

  private schedule(bates: string, ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.closed || this.want !== bates) return;
      // Typed again meanwhile: wait for that pause too.
      const quiet = this.quietUntil - Date.now();
      if (quiet > 0) {
        this.schedule(bates, quiet);
        return;
      }
      this.answer(bates, this.cache.get(bates) ?? this.read(bates));
    }, ms);
  }

  private read(bates: string): Loaded {
    let got: Loaded;
    try {
      got = this.load(bates);
    } catch (err) {
      got = { turn: null, archived: false, error: describe(err) };
    }
    this.cache.set(bates, got);
    if (this.cache.size > KEEP) this.cache.delete(this.cache.keys().next().value!);
    return got;
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
