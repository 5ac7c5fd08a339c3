/** The order a unit's turns are written in (writer.ts): every parent before its children, otherwise by time. */
import type { ParsedTurn } from './model.js';

function byTime(a: ParsedTurn, b: ParsedTurn): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.line - b.line;
}

/**
 * Parents first, otherwise by time: for each turn in time order, its not yet placed ancestors in the unit are
 * placed first, top-down. Iterative (a 100,000-turn chain must not overflow the stack) and bounded: a cycle of
 * parents is cut where it closes, and reported.
 */
export function parentsFirst(
  turns: ParsedTurn[],
  toPlace: Map<string, ParsedTurn>,
  problem: (t: ParsedTurn, reason: string) => void,
): { order: ParsedTurn[]; cut: Set<string> } {
  const placed = new Set<string>();
  const cut = new Set<string>();
  const order: ParsedTurn[] = [];
  for (const t of [...turns].sort(byTime)) {
    if (placed.has(t.sourceId)) continue;
    const chain: ParsedTurn[] = [];
    const onChain = new Set<string>();
    let cur: ParsedTurn | undefined = t;
    while (cur && !placed.has(cur.sourceId)) {
      if (onChain.has(cur.sourceId)) {
        // cur's parent link closes a cycle: the turn at the top of what we walked becomes a top turn
        const top = chain[chain.length - 1];
        cut.add(top.sourceId);
        problem(top, `its parents form a cycle; kept as a top turn`);
        break;
      }
      chain.push(cur);
      onChain.add(cur.sourceId);
      cur = cur.parentSourceId === null ? undefined : toPlace.get(cur.parentSourceId);
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      if (placed.has(chain[i].sourceId)) continue;
      placed.add(chain[i].sourceId);
      order.push(chain[i]);
    }
  }
  return { order, cut };
}
