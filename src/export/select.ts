import { ArboristError, type Session, type Shard, type TreeNode, type TurnNode } from '../store/index.js';

/**
 * What an export holds: the turns a Bates id or a session stands for, in tree order (parents first), each with its
 * depth in the exported tree, and the sessions they belong to. Read through the Shard facade only.
 */

export type SelectionKind = 'path' | 'subtree' | 'session';

export interface ExportedTurn {
  node: TurnNode;
  /** Depth in the exported tree: a turn whose parent is not exported is 0. */
  depth: number;
  /** An ancestor from another session, shown so that a session export reads from its real beginning. */
  context: boolean;
}

export interface Selection {
  kind: SelectionKind;
  /** The Bates id (path, subtree) or the sid (session) the export was asked for, resolved. */
  id: string;
  /**
   * Every session a turn belongs to, in the order of their first turn (so a session's first turn has its parent in
   * a session listed before it); a session export lists its own session last, even when it has no turns.
   */
  sessions: Session[];
  turns: ExportedTurn[];
  /**
   * The children of selected turns that the selection leaves out (in another session, below a path's turns), with
   * their subtree hashes: with them every selected turn's subtree_hash can be recomputed from the document alone.
   */
  outside: OutsideChild[];
  /** The audit chain's head (`seq:hash`) for exactly the state exported. */
  chainHead: string;
}

export interface OutsideChild {
  bates: string;
  parent_bates: string;
  subtree_hash: string;
}

/**
 * The children the selection leaves out of its turns, each once, in the selection's order (children by sid, seq).
 * Only a turn with more children than the selection holds is asked for them: a subtree asks nothing, a session
 * only where a child lives in another session, a path once a turn.
 */
function outsideOf(shard: Shard, turns: readonly ExportedTurn[]): OutsideChild[] {
  const selected = new Set(turns.map((t) => t.node.bates));
  const held = new Map<string, number>();
  for (const { node: n } of turns)
    if (n.parent_bates !== null && selected.has(n.parent_bates))
      held.set(n.parent_bates, (held.get(n.parent_bates) ?? 0) + 1);
  const out: OutsideChild[] = [];
  for (const { node: n } of turns) {
    if (n.n_children <= (held.get(n.bates) ?? 0)) continue;
    for (const c of shard.childrenById(n.id))
      if (!selected.has(c.bates))
        out.push({ bates: c.bates, parent_bates: n.bates, subtree_hash: c.subtree_hash });
  }
  return out;
}

/** Sids are lowercase letters and digits and seqs integers, so this is the (sid as bytes, seq) order of hashes. */
function bySidSeq(a: TurnNode, b: TurnNode): number {
  return a.sid < b.sid ? -1 : a.sid > b.sid ? 1 : a.seq - b.seq;
}

/**
 * A set of turns in depth-first order: roots are the turns whose parent is not in the set, children ordered by
 * (sid, seq) as the subtree hash orders them. Each turn is placed once, so a parent cycle edited into a shard
 * cannot loop; a turn only reachable through a cycle is still listed, as a root.
 */
export function treeOrder(nodes: readonly TurnNode[], isContext: (n: TurnNode) => boolean): ExportedTurn[] {
  const byBates = new Map<string, TurnNode>();
  for (const n of nodes) if (!byBates.has(n.bates)) byBates.set(n.bates, n);
  const kids = new Map<string, TurnNode[]>();
  const roots: TurnNode[] = [];
  for (const n of byBates.values()) {
    const p = n.parent_bates;
    if (p === null || p === n.bates || !byBates.has(p)) roots.push(n);
    else {
      const list = kids.get(p);
      if (list) list.push(n);
      else kids.set(p, [n]);
    }
  }
  roots.sort(bySidSeq);
  for (const list of kids.values()) list.sort(bySidSeq);
  const out: ExportedTurn[] = [];
  const placed = new Set<string>();
  const visit = (start: TurnNode) => {
    const stack: [TurnNode, number][] = [[start, 0]];
    while (stack.length > 0) {
      const [n, d] = stack.pop()!;
      if (placed.has(n.bates)) continue;
      placed.add(n.bates);
      out.push({ node: n, depth: d, context: isContext(n) });
      const ch = kids.get(n.bates);
      if (ch) for (let i = ch.length - 1; i >= 0; i--) stack.push([ch[i], d + 1]);
    }
  };
  for (const r of roots) visit(r);
  // Turns on a parent cycle have no root above them: list what is left, each from its smallest id.
  for (const n of [...byBates.values()].sort(bySidSeq)) if (!placed.has(n.bates)) visit(n);
  return out;
}

/** A session's turns by Bates id and its parent -> children links, children in other sessions included. */
interface SessionIndex {
  byBates: Map<string, TurnNode>;
  /** Children of a turn of this session, as Bates ids with the sid they live in. */
  kids: Map<string, { bates: string; sid: string }[]>;
}

function indexSession(
  shard: Shard,
  sid: string,
  tree: readonly TurnNode[] = shard.sessionTree(sid),
): SessionIndex {
  const byBates = new Map<string, TurnNode>();
  const kids = new Map<string, { bates: string; sid: string }[]>();
  const add = (parent: string, bates: string, childSid: string) => {
    const list = kids.get(parent);
    if (list) list.push({ bates, sid: childSid });
    else kids.set(parent, [{ bates, sid: childSid }]);
  };
  for (const n of tree) {
    byBates.set(n.bates, n);
    if (n.parent_bates !== null && !n.is_top) add(n.parent_bates, n.bates, n.sid);
  }
  // The outline lists, under each turn, its children in other sessions (one query for the whole session).
  for (const o of shard.sessionOutline(sid, 0))
    if (o.cross && o.parent_bates !== null) add(o.parent_bates, o.bates, o.sid);
  return { byBates, kids };
}

/**
 * The turn's descendants inside its own session, when none of them has a child elsewhere: in the session's
 * depth-first order a subtree is one run (the turns after it that are deeper), so no walk is needed. Undefined when
 * a turn of the run has more children than the run shows (a child in another session).
 */
function ownRun(tree: readonly TreeNode[], root: TurnNode): ExportedTurn[] | undefined {
  const at = tree.findIndex((n) => n.bates === root.bates);
  if (at < 0) return undefined;
  const base = tree[at].local_depth;
  let end = at + 1;
  while (end < tree.length && tree[end].local_depth > base) end++;
  const run = tree.slice(at, end);
  const shown = new Map<string, number>();
  for (let i = 1; i < run.length; i++) {
    const p = run[i].parent_bates!;
    shown.set(p, (shown.get(p) ?? 0) + 1);
  }
  if (!run.every((n) => n.n_children === (shown.get(n.bates) ?? 0))) return undefined;
  return run.map((n) => ({ node: n, depth: n.local_depth - base, context: false }));
}

/** Child queries a subtree may make before the sessions it lives in are read whole instead. */
const SMALL_SUBTREE_QUERIES = 256;

/**
 * A small subtree, one children query per turn (Shard.childrenById: every child, in any session, by sid and seq);
 * undefined once it takes more than SMALL_SUBTREE_QUERIES queries.
 */
function smallSubtree(shard: Shard, root: TurnNode): TurnNode[] | undefined {
  const out: TurnNode[] = [root];
  const seen = new Set<string>([root.bates]);
  for (let i = 0; i < out.length; i++) {
    if (i >= SMALL_SUBTREE_QUERIES) return undefined;
    for (const child of shard.childrenById(out[i].id)) {
      if (seen.has(child.bates)) continue;
      seen.add(child.bates);
      out.push(child);
    }
  }
  return out;
}

/**
 * A turn and everything under it, in any session. A small subtree is read turn by turn; a big one reads each
 * session it meets whole, once (its tree and its outline: two queries), rather than one query per turn: a
 * 10,000-turn subtree is two queries, not 10,000, and one that stays inside its session is one query and no walk.
 */
function subtreeOf(shard: Shard, root: TurnNode): ExportedTurn[] {
  const small = smallSubtree(shard, root);
  if (small) return treeOrder(small, () => false);
  const tree = shard.sessionTree(root.sid);
  const run = ownRun(tree, root);
  if (run) return run;
  const indexes = new Map<string, SessionIndex>([[root.sid, indexSession(shard, root.sid, tree)]]);
  const index = (sid: string) => {
    let ix = indexes.get(sid);
    if (!ix) {
      ix = indexSession(shard, sid);
      indexes.set(sid, ix);
    }
    return ix;
  };
  const out: TurnNode[] = [root];
  const seen = new Set<string>([root.bates]);
  for (let i = 0; i < out.length; i++) {
    const n = out[i];
    for (const k of index(n.sid).kids.get(n.bates) ?? []) {
      if (seen.has(k.bates)) continue;
      const child = index(k.sid).byBates.get(k.bates);
      if (!child) continue;
      seen.add(k.bates);
      out.push(child);
    }
  }
  return treeOrder(out, () => false);
}

/** The ancestors (in other sessions) of a session's top turns, each once. */
function contextOf(shard: Shard, sid: string, own: readonly TurnNode[]): TurnNode[] {
  const out: TurnNode[] = [];
  const seen = new Set<string>();
  for (const n of own) {
    if (!n.is_top || n.parent_bates === null || seen.has(n.parent_bates)) continue;
    for (const a of shard.pathTo(n.parent_bates)) {
      if (a.sid === sid || seen.has(a.bates)) continue;
      seen.add(a.bates);
      out.push(a);
    }
  }
  return out;
}

function sessionsOf(shard: Shard, turns: readonly ExportedTurn[], first?: string): Session[] {
  const sids: string[] = first === undefined ? [] : [first];
  const seen = new Set(sids);
  for (const t of turns) {
    if (!seen.has(t.node.sid)) {
      seen.add(t.node.sid);
      sids.push(t.node.sid);
    }
  }
  const out: Session[] = [];
  for (const sid of sids) {
    const s = shard.getSession(sid);
    if (s) out.push(s);
  }
  return out;
}

function selectOnce(shard: Shard, id: string, subtree: boolean): Omit<Selection, 'chainHead' | 'outside'> {
  const r = shard.resolve(id);
  if (r.kind === 'session') {
    if (subtree) {
      throw new ArboristError('usage', `--subtree takes a turn's Bates id; '${id}' is a session`);
    }
    const sid = r.session.sid;
    const own = shard.sessionTree(sid);
    const context = contextOf(shard, sid, own);
    // Without context the store's own depth-first order is the export's (children by sid, seq within a session).
    const turns =
      context.length === 0
        ? own.map((n) => ({ node: n, depth: n.local_depth, context: false }))
        : treeOrder([...context, ...own], (n) => n.sid !== sid);
    // Context sessions first (parents first), then the session itself, listed even when it has no turns.
    const sessions = [...sessionsOf(shard, turns).filter((s) => s.sid !== sid), r.session];
    return { kind: 'session', id: sid, sessions, turns };
  }
  const node = r.node;
  const turns = subtree
    ? subtreeOf(shard, node)
    : shard.pathTo(node.bates).map((n, depth) => ({ node: n, depth, context: false }));
  return { kind: subtree ? 'subtree' : 'path', id: node.bates, sessions: sessionsOf(shard, turns), turns };
}

/** How many times a selection is read again when another process changed the shard while it was read. */
const ATTEMPTS = 5;

/**
 * The turns `id` stands for: a Bates id's path from the root (or, with `subtree`, the turn and everything under
 * it), or a session (sid or label) whole, with the ancestors of its top turns that live in other sessions.
 *
 * Consistent: every change to a shard appends an audit event, so the chain head read before and after is the same
 * exactly when no change landed in between; otherwise the selection is read again. (The facade has no read
 * transaction to hold a snapshot open across its calls.)
 */
export function selectTurns(shard: Shard, id: string, opts: { subtree?: boolean } = {}): Selection {
  for (let attempt = 1; ; attempt++) {
    const before = shard.chainHead();
    const picked = selectOnce(shard, id, opts.subtree === true);
    const sel = { ...picked, outside: outsideOf(shard, picked.turns) };
    const after = shard.chainHead();
    if (before === after) return { ...sel, chainHead: after };
    if (attempt >= ATTEMPTS) {
      throw new ArboristError('busy', `the shard changed ${ATTEMPTS} times while it was read; try again`);
    }
  }
}
