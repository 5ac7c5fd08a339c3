/**
 * Which lines make which turn: each node's anchor (the prompt above it, else its chain's root), one draft per
 * anchor that holds conversation, each draft's parent turn and its time range. Everything later (sidechain links,
 * answers, raw lines, checkpoints) works on these drafts.
 */
import { isConversational, Kind } from './content.js';
import type { Node, TurnDraft, TurnDrafts } from './unit.js';

/** Each node's anchor: the nearest prompt at or above it, else the root of its chain. */
function anchorsOf(nodes: Node[]): Int32Array {
  const n = nodes.length;
  const anchor = new Int32Array(n).fill(-1);
  const stack: number[] = [];
  for (let i = 0; i < n; i++) {
    if (anchor[i] >= 0) continue;
    let c = i;
    while (anchor[c] < 0 && nodes[c].kind !== Kind.Prompt && nodes[c].parent >= 0) {
      stack.push(c);
      c = nodes[c].parent;
    }
    if (anchor[c] < 0) anchor[c] = c;
    const a = anchor[c];
    for (const s of stack) anchor[s] = a;
    stack.length = 0;
  }
  return anchor;
}

/** The turns of the tree: one per prompt, and one per chain that holds conversation but no prompt ("[no text]"). */
export function draftTurns(nodes: Node[]): TurnDrafts {
  const n = nodes.length;
  const anchor = anchorsOf(nodes);
  const conversational = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (isConversational(nodes[i].kind)) conversational[anchor[i]] = 1;
  const turnOfAnchor = new Int32Array(n).fill(-1);
  const drafts: TurnDraft[] = [];
  const newTurn = (a: number) => {
    turnOfAnchor[a] = drafts.length;
    drafts.push({
      anchor: a,
      parent: -1,
      start: Number.POSITIVE_INFINITY,
      end: Number.NEGATIVE_INFINITY,
      lastAssistant: -1,
      agentId: undefined,
      cwd: undefined,
      note: undefined,
    });
  };
  for (let i = 0; i < n; i++) {
    if (nodes[i].kind === Kind.Prompt || (anchor[i] === i && conversational[i])) newTurn(i);
  }
  // A chain of metadata only (hooks, a compaction whose logical parent is gone...) above a prompt: its lines
  // belong to the first prompt below it.
  const isTurnAnchor = (a: number) => nodes[a].kind === Kind.Prompt || conversational[a] === 1;
  for (let i = 0; i < n; i++) {
    if (nodes[i].kind !== Kind.Prompt) continue;
    const p = nodes[i].parent;
    if (p < 0) continue;
    const a = anchor[p];
    if (!isTurnAnchor(a) && turnOfAnchor[a] < 0) turnOfAnchor[a] = turnOfAnchor[i];
  }
  const turnOf = (i: number) => turnOfAnchor[anchor[i]];

  // Each turn's parent turn: the turn holding its prompt's parent line (a chain of metadata only: none).
  for (const d of drafts) {
    const p = nodes[d.anchor].parent;
    if (p >= 0 && isTurnAnchor(anchor[p])) d.parent = turnOfAnchor[anchor[p]];
  }
  measureTurns(nodes, drafts, turnOf);
  return { drafts, turnOf };
}

/** Per turn: time range, last reply, the agent its lines name, its cwd. */
function measureTurns(nodes: Node[], drafts: TurnDraft[], turnOf: (i: number) => number) {
  for (let i = 0; i < nodes.length; i++) {
    const t = turnOf(i);
    if (t < 0) continue;
    const d = drafts[t];
    const nd = nodes[i];
    if (!Number.isNaN(nd.ts)) {
      if (nd.ts < d.start) d.start = nd.ts;
      if (nd.ts > d.end) d.end = nd.ts;
    }
    if (nd.kind === Kind.Assistant) d.lastAssistant = i;
    if (d.agentId === undefined && nd.side && nd.agentId !== undefined) d.agentId = nd.agentId;
    if (d.cwd === undefined && nd.cwd !== undefined) d.cwd = nd.cwd;
  }
}
