import type { CompletionSource } from '../../keymap/index.js';
import type { Shard } from '../../store/index.js';

/** What a Tab may offer, looked up in the shard when Tab is pressed (nothing is cached: other writers add turns). */
export function shardCompletions(shard: Shard): CompletionSource {
  return {
    sessions: () => shard.sessionSummaries(),
    // The outline reads ids and one character of each question: the light query the browser's tree uses.
    turns: (sid) =>
      shard
        .sessionOutline(sid, 1)
        .filter((n) => !n.cross && n.sid === sid)
        .map((n) => n.bates),
  };
}

/** Only plain ids and one-word labels are offered: readline prints the matches as they are. */
const PRINTABLE = /^[\p{L}\p{N}._+@#-]{1,80}$/u;

export function printable(candidates: readonly string[]): string[] {
  return candidates.filter((c) => PRINTABLE.test(c.trimEnd()) || /^[/:][a-z-]+ ?$/.test(c));
}
