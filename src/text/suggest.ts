import { oneLine } from './sanitize.js';

/**
 * "Did you mean": the one name a mistyped word was most likely meant to be (a command, an option), for the error
 * that refuses it. A person types `lsit` or `--limt` and should not have to read the whole help to find `list`.
 */

/** Edits between a and b: insertions, deletions, substitutions and swaps of two neighbours (lsit -> list is 1). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The candidate `word` most likely stands for: the only one it begins (`verif` -> `verify`), else the nearest
 * within one edit for a word of up to four letters and two for a longer one (`help` is not `keep`), when no other
 * is as near. Undefined when nothing is close enough to be worth saying.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  if (w.length === 0 || w.length > 64) return undefined;
  const prefixed = candidates.filter((c) => c.toLowerCase().startsWith(w));
  if (prefixed.length === 1) return prefixed[0];
  const most = w.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestD = most + 1;
  let tie = false;
  for (const c of candidates) {
    const dd = distance(w, c.toLowerCase());
    if (dd < bestD) {
      best = c;
      bestD = dd;
      tie = false;
    } else if (dd === bestD) tie = true;
  }
  return best !== undefined && !tie ? best : undefined;
}

/**
 * find's note for a `name:` that is no filter (`agnt:x`; its token was searched as words): the filter most likely
 * meant, else every filter. `arborist find`, the find box and the MCP server say it alike.
 */
export function unknownFilterNote(name: string, filters: readonly string[]): string {
  const near = closest(name, filters);
  const hint =
    near === undefined ? `filters: ${filters.map((f) => `${f}:`).join(' ')}` : `did you mean ${near}:?`;
  return `${oneLine(name).slice(0, 40)}: is no filter (${hint}); searched it as words`;
}
