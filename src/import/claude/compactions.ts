/**
 * Compactions as checkpoints: one entry `claude:<sessionId>` per compacted session, each boundary with the turn
 * before it, the turn after it and the summary Claude Code wrote. Kept apart from the turns because a checkpoint
 * only points at turns; it never changes them.
 */
import type { ParsedCheckpoint, ParsedEntry } from '../model.js';
import { Kind, summaryText } from './content.js';
import { iso } from './times.js';
import { isObj, type TurnDrafts, type Unit } from './unit.js';

/** One entry `claude:<sessionId>` per session that was compacted, with one checkpoint per compaction. */
export function entriesOf(u: Unit, { drafts, turnOf }: TurnDrafts, time: Float64Array): ParsedEntry[] {
  const { nodes, byUuid, fileSession } = u;
  const n = nodes.length;
  const summaryOf = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const p = nodes[i].parentUuid;
    if (nodes[i].kind === Kind.CompactSummary && p !== null && !summaryOf.has(p)) summaryOf.set(p, i);
  }
  // the next prompt at or after each node, in its file
  const nextPrompt = new Int32Array(n).fill(-1);
  for (let i = n - 1, next = -1, f = -1; i >= 0; i--) {
    if (nodes[i].f !== f) {
      f = nodes[i].f;
      next = -1;
    }
    if (nodes[i].kind === Kind.Prompt && !nodes[i].side) next = i;
    nextPrompt[i] = next;
  }
  const bySession = new Map<string, ParsedCheckpoint[]>();
  for (let b = 0; b < n; b++) {
    const B = nodes[b];
    if (!B.boundary || B.side) continue;
    const sid = B.sid || fileSession;
    let s = summaryOf.get(B.uuid);
    const meta = B.compactMeta;
    if (s === undefined && meta !== undefined && isObj(meta.preservedSegment)) {
      const a = meta.preservedSegment.anchorUuid;
      const ai = typeof a === 'string' ? byUuid.get(a) : undefined;
      if (ai !== undefined && nodes[ai].kind === Kind.CompactSummary) s = ai;
    }
    for (let j = b + 1; s === undefined && j < n && j <= b + 5 && nodes[j].f === B.f; j++)
      if (nodes[j].kind === Kind.CompactSummary) s = j;
    const preTurn = B.parent >= 0 ? turnOf(B.parent) : -1;
    let postTurn = -1;
    const cand = b + 1 < n ? nextPrompt[b + 1] : -1;
    if (cand >= 0 && nodes[cand].f === B.f) {
      const ct = turnOf(cand);
      if (preTurn < 0) postTurn = ct;
      else
        for (let c = ct, steps = 0; c >= 0 && steps <= drafts.length; c = drafts[c].parent, steps++)
          if (c === preTurn) {
            postTurn = ct;
            break;
          }
    }
    const cp: ParsedCheckpoint = {
      checkpointId: B.uuid,
      reason: 'compaction',
      createdAt: iso(time[b]),
      preCompaction: { sourceSession: sid },
      postCompaction: { sourceSession: postTurn >= 0 ? nodes[drafts[postTurn].anchor].sid || sid : sid },
    };
    if (s !== undefined) cp.summary = summaryText(nodes[s].content);
    if (preTurn >= 0) cp.preCompaction.turnSourceId = nodes[drafts[preTurn].anchor].uuid;
    if (postTurn >= 0) cp.postCompaction.turnSourceId = nodes[drafts[postTurn].anchor].uuid;
    const list = bySession.get(sid) ?? [];
    list.push(cp);
    bySession.set(sid, list);
  }
  return [...bySession].map(([sid, cps]) => ({
    key: `claude:${sid}`,
    sourceSession: sid,
    compactionCheckpoints: cps,
    usageFamilySessions: [],
  }));
}
