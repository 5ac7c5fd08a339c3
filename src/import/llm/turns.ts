/**
 * Arborist turns out of the message tree. A turn is a user message and the assistant / tool messages under it up
 * to the next user message: its sourceId is the user message's hash, so a prompt shared by many threads is one
 * turn. It belongs to the session of the thread that first wrote it (the earliest model call whose chain holds
 * it); a thread that repeats or forks another's turns owns only its new ones, whose parent is then a turn of the
 * other session. docs/import.md (llm) states every rule and assumption.
 */
import { minTime, NO_TIME } from './rows.js';
import type { MessageTree, ModelCall, MsgNode, Report } from './tree.js';

/** Reply paths kept per user message (a prompt re-asked with different answers branches); the rest reported. */
export const MAX_REPLY_PATHS = 256;

/** One arborist turn of the message tree: a user message and one reply path under it. */
export interface PathTurn {
  sourceId: string;
  user: MsgNode;
  nodes: MsgNode[];
  systems: MsgNode[];
  primary: boolean;
  calls: ModelCall[];
  owner: string | null;
  parentSourceId: string | null;
  createdAt: string;
  /** Legacy responses this turn is a copy of (their rows join its raw). */
  legacyTime: string | null;
}

export interface MessageTurns {
  /** Every turn, by user message in rowid order, then by reply path. */
  all: PathTurn[];
  /** The turn each message is shown in: a user message's first path, else the first path through it. */
  claimed: Map<MsgNode, PathTurn>;
}

/**
 * The paths through assistant and tool messages under user message `u`, earliest-written first, at most
 * MAX_REPLY_PATHS (`cut` says there were more).
 */
function replyPaths(u: MsgNode): { paths: MsgNode[][]; cut: boolean } {
  const paths: MsgNode[][] = [];
  const todo: { node: MsgNode; path: MsgNode[] }[] = [{ node: u, path: [] }];
  let cut = false;
  while (todo.length > 0 && !cut) {
    let { node, path } = todo.pop()!;
    for (;;) {
      const next = node.children.filter((c) => c.kind === 'other');
      if (next.length === 0) {
        if (paths.length >= MAX_REPLY_PATHS) cut = true;
        else paths.push(path);
        break;
      }
      for (let i = next.length - 1; i >= 1; i--) todo.push({ node: next[i], path: [...path, next[i]] });
      path.push(next[0]);
      node = next[0];
    }
  }
  return { paths, cut };
}

/** One turn per reply path of each reachable user message: the unit arborist stores. */
export function splitIntoTurns(tree: MessageTree, reachable: Set<MsgNode>, report: Report): MessageTurns {
  const claimed = new Map<MsgNode, PathTurn>();
  const all: PathTurn[] = [];
  for (const u of tree.ordered) {
    if (u.kind !== 'user' || !reachable.has(u)) continue;
    const { paths, cut } = replyPaths(u);
    if (cut) report(u.rid, `message ${u.hash}: more than ${MAX_REPLY_PATHS} reply paths: the rest skipped`);
    paths.forEach((path, i) => {
      const leaf = path[path.length - 1];
      const pt: PathTurn = {
        sourceId: i === 0 ? u.hash : `${u.hash}/${leaf.hash}`,
        user: u,
        nodes: path,
        systems: [],
        primary: i === 0,
        calls: [],
        owner: null,
        parentSourceId: null,
        createdAt: NO_TIME,
        legacyTime: null,
      };
      all.push(pt);
      if (i === 0) claimed.set(u, pt);
      for (const n of path) if (!claimed.has(n)) claimed.set(n, pt);
    });
  }
  return { all, claimed };
}

/**
 * Gives each model call to the turn holding its output (or its input, when it produced nothing), whose time and
 * raw rows it is; answers call id -> turn.
 */
export function assignCalls(
  calls: ModelCall[],
  tree: MessageTree,
  claimed: Map<MsgNode, PathTurn>,
): Map<string, PathTurn> {
  const ofCall = new Map<string, PathTurn>();
  for (const t of calls) {
    const anchor = t.tip !== null && t.tip !== t.parent ? t.tip : t.parent;
    const n = anchor === null ? undefined : tree.nodes.get(anchor);
    const pt = n === undefined ? undefined : claimed.get(n);
    if (pt === undefined) continue;
    pt.calls.push(t);
    ofCall.set(t.id, pt);
  }
  return ofCall;
}

/** Each turn's owner, time, system prompts and parent turn: where it goes in which session. */
export function placeTurns(tree: MessageTree, { all, claimed }: MessageTurns): void {
  for (const pt of all) {
    const chain = [pt.user, ...pt.nodes];
    let deepest: MsgNode | undefined;
    for (const n of chain) if (n.mark !== null) deepest = n;
    pt.owner = deepest?.mark?.thread ?? null;
    let t: string | null = null;
    for (const c of pt.calls) t = minTime(t, c.time);
    pt.createdAt = t ?? deepest?.mark?.time ?? NO_TIME;
    let n = pt.user.parent;
    for (let steps = 0; n !== null && n.kind === 'system' && steps <= tree.nodes.size; steps++) {
      pt.systems.unshift(n);
      n = n.parent;
    }
    for (let steps = 0; n !== null && !claimed.has(n) && steps <= tree.nodes.size; steps++) n = n.parent;
    pt.parentSourceId = n === null ? null : claimed.get(n)!.sourceId;
  }
}
