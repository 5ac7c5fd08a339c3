/**
 * Loads turns' details (src/import/details.ts) for the transcript: their source records read from the shard, read
 * by their source's reader, edits made into diff lines (jsdiff). Never in a keystroke's path: the work starts on
 * the next turn of the event loop, the reader and jsdiff are imported on first use (not by the first screen), and
 * a long list goes in small batches with the loop free between them. Each turn is read once (the state keeps it).
 */
import type { Shard } from '../../store/index.js';
import type { Action } from '../core/actions.js';
import { diffLines, type Shown, type StructuredPatch } from '../features/transcript/details.js';

/** Turns read per batch: one decompressed chunk usually holds them all; keys are handled between batches. */
export const BATCH = 8;
/** jsdiff gives up on one pair after this long (ms), and the edit shows as its old and new text. */
const DIFF_TIMEOUT_MS = 100;

export interface Readers {
  turnDetails: (source: string, records: Buffer) => import('../../import/details.js').TurnDetails | null;
  patch: StructuredPatch;
}

/** The readers and jsdiff, imported on first use (bench/details.ts measures with the same). */
export function importReaders(): Promise<Readers> {
  return Promise.all([import('../../import/details.js'), import('diff/lib/patch/create.js')]).then(
    ([d, jsdiff]) => ({
      turnDetails: d.turnDetails,
      patch: (a, b, oldStr, newStr, oh, nh, o) =>
        jsdiff.structuredPatch(a, b, oldStr, newStr, oh, nh, { ...o, timeout: DIFF_TIMEOUT_MS }),
    }),
  );
}

/** One batch's details: the records read at once (each chunk decompressed once), each turn read by its source's reader. */
export function readBatch(
  shard: Shard,
  batch: readonly { bates: string; sid: string }[],
  r: Readers,
  sourceOf: (sid: string) => string | null,
): [string, Shown | null][] {
  let records: Map<string, Buffer>;
  try {
    records = shard.sourceRecordsOf(batch.map((t) => t.bates));
  } catch {
    return batch.map((t) => [t.bates, null]); // damaged records: verify says so; the answer still shows
  }
  return batch.map((t): [string, Shown | null] => {
    const rec = records.get(t.bates);
    const source = rec ? sourceOf(t.sid) : null;
    const d = rec && source ? r.turnDetails(source, rec) : null;
    if (!d) return [t.bates, null];
    const calls = d.calls.map((c) => (c.edit ? { ...c, diff: diffLines(c.edit, r.patch) } : c));
    return [t.bates, { thinking: d.thinking, calls }];
  });
}

export class DetailsLoader {
  private readers: Promise<Readers> | null = null;
  private readonly queue: { bates: string; sid: string }[] = [];
  private running = false;
  private readonly sources = new Map<string, string | null>();

  constructor(
    private readonly shard: Shard,
    private readonly dispatch: (a: Action) => void,
  ) {}

  load(turns: readonly { bates: string; sid: string }[]): void {
    this.queue.push(...turns);
    if (this.running) return;
    this.running = true;
    setImmediate(() => void this.drain());
  }

  private async drain(): Promise<void> {
    let batch: { bates: string; sid: string }[] = [];
    try {
      this.readers ??= importReaders();
      const r = await this.readers;
      while (this.queue.length > 0) {
        batch = this.queue.splice(0, BATCH);
        const t0 = performance.now();
        const entries = readBatch(this.shard, batch, r, (sid) => this.sourceOf(sid));
        this.dispatch({ type: 'details', entries, ms: performance.now() - t0 });
        await new Promise((done) => setImmediate(done));
      }
    } catch {
      // A reader that cannot be loaded: every turn shows what its answer keeps.
      const left = [...batch, ...this.queue.splice(0)];
      this.dispatch({ type: 'details', entries: left.map((t) => [t.bates, null]) });
    } finally {
      this.running = false;
    }
  }

  private sourceOf(sid: string): string | null {
    let s = this.sources.get(sid);
    if (s === undefined) {
      s = this.shard.sourceOfSession(sid)?.source ?? null;
      this.sources.set(sid, s);
    }
    return s;
  }
}
