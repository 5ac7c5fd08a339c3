/**
 * Subagent and sidechain turns hung under the main turn that launched them. Their own lines rarely link to the
 * main chain, so the launch is found from what the main chain wrote (the Task/Agent tool_use, the agentId of its
 * result) and, when nothing names it, from time.
 */
import { Kind } from './content.js';
import { isObj, type Node, type TurnDraft, type TurnDrafts, type Unit } from './unit.js';

/** Where each tool_use id and each referenced agentId first appears (node index). */
function launchRefs(nodes: Node[]): { toolUse: Map<string, number>; agentRef: Map<string, number> } {
  const toolUse = new Map<string, number>();
  const agentRef = new Map<string, number>();
  for (let i = 0; i < nodes.length; i++) {
    const nd = nodes[i];
    if (nd.kind === Kind.Assistant && Array.isArray(nd.content)) {
      for (const b of nd.content)
        if (isObj(b) && b.type === 'tool_use' && typeof b.id === 'string' && !toolUse.has(b.id))
          toolUse.set(b.id, i);
    }
    const ref = nd.resultAgentId ?? (nd.side ? undefined : nd.agentId);
    if (ref !== undefined && !agentRef.has(ref)) agentRef.set(ref, i);
  }
  return { toolUse, agentRef };
}

/**
 * Puts each subagent's root turns under the turn that launched it: by the Task/Agent tool_use id its meta.json
 * names, else by its agentId on the launching tool result, else by time (the main turn whose time range holds the
 * subagent's first line, else the last main turn begun before it).
 */
export function linkSidechains(u: Unit, { drafts, turnOf }: TurnDrafts) {
  const { nodes, files } = u;
  if (!drafts.some((d) => nodes[d.anchor].side)) return;
  const { toolUse, agentRef } = launchRefs(nodes);
  const sideOf = (t: number) => nodes[drafts[t].anchor].side;
  for (const d of drafts) {
    if (!nodes[d.anchor].side) continue;
    const agent = files[nodes[d.anchor].f].agent;
    const id = agent?.agentId ?? d.agentId;
    d.note = id ? `subagent ${id}` : agent?.description ? `subagent ${agent.description}` : 'sidechain';
  }
  /** A turn is settled when its chain of parents reaches a main-chain turn. */
  const settled = (t: number): boolean => {
    for (let c = t, steps = 0; c >= 0 && steps <= drafts.length; c = drafts[c].parent, steps++) {
      if (!sideOf(c)) return true;
    }
    return false;
  };
  let pending: number[] = [];
  for (let t = 0; t < drafts.length; t++) if (sideOf(t) && drafts[t].parent < 0) pending.push(t);
  const byLink = (t: number): number => {
    const d = drafts[t];
    const agent = files[nodes[d.anchor].f].agent;
    const candidates: (number | undefined)[] = [];
    if (agent?.toolUseId !== undefined) candidates.push(toolUse.get(agent.toolUseId));
    const id = agent?.agentId ?? d.agentId;
    if (id !== undefined) candidates.push(agentRef.get(id));
    for (const c of candidates) {
      if (c === undefined) continue;
      const l = turnOf(c);
      if (l >= 0 && l !== t && !(sideOf(l) && nodes[drafts[l].anchor].f === nodes[d.anchor].f && agent)) {
        if (settled(l)) return l;
      }
    }
    return -1;
  };
  // repeated while it links more: a subagent launched from another subagent waits for that one to be placed
  for (let progress = true; progress && pending.length > 0; ) {
    progress = false;
    const still: number[] = [];
    for (const t of pending) {
      const l = byLink(t);
      if (l >= 0) {
        drafts[t].parent = l;
        progress = true;
      } else still.push(t);
    }
    pending = still;
  }
  if (pending.length > 0) linkByTime(u, drafts, pending, sideOf);
}

/** The fallback: the main turn whose time range holds the turn's start, else the last main turn begun before. */
function linkByTime(u: Unit, drafts: TurnDraft[], pending: number[], sideOf: (t: number) => boolean) {
  const { nodes, files, problems } = u;
  const mains: number[] = [];
  for (let t = 0; t < drafts.length; t++) if (!sideOf(t) && Number.isFinite(drafts[t].start)) mains.push(t);
  for (const t of pending) {
    const t0 = drafts[t].start;
    let best = -1;
    let before = -1;
    for (const m of mains) {
      const dm = drafts[m];
      if (dm.start <= t0 && t0 <= dm.end && (best < 0 || dm.start >= drafts[best].start)) best = m;
      if (dm.start <= t0 && (before < 0 || dm.start >= drafts[before].start)) before = m;
    }
    const l = best >= 0 ? best : before;
    if (l >= 0) drafts[t].parent = l;
    else {
      const a = nodes[drafts[t].anchor];
      problems.push({
        file: files[a.f].rf.path,
        line: a.line,
        reason: `${drafts[t].note ?? 'sidechain'}: no launching turn found; imported as a root`,
      });
    }
  }
}
