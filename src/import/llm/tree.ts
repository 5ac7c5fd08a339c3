/**
 * llm 0.32's message tree, read without content (content is read per session, build.ts). `messages` rows (`b2:`
 * hash, `parent_hash`, role system / user / assistant / tool) form a tree whose identical openings are shared rows;
 * a `turns` row is one model call (`parent_message_hash` = the last input message, `tip_message_hash` = the chain
 * tip after the output) in a `threads` row (a named pointer at a tip; a fork is a second pointer, `forked_from`).
 */
import type Database from 'better-sqlite3';
import type { Row } from './legacy.js';
import { cmp, isoTime, NO_TIME, str, strOrNull } from './rows.js';

/** Reports a problem at a row of the file (its rowid); problems keep the order they are found in. */
export type Report = (line: number, reason: string) => void;

/** Which thread first wrote a message, and when; `key` orders marks as the calls and threads were written. */
export interface Mark {
  thread: string;
  time: string;
  key: string;
}

export interface MsgNode {
  hash: string;
  parentHash: string | null;
  role: string;
  rid: number;
  /** `user` starts a turn; `system` is shown on the turn it opens; `other` (assistant, tool) is answer. */
  kind: 'user' | 'system' | 'other';
  parent: MsgNode | null;
  children: MsgNode[];
  /** The earliest model call (or thread tip) whose chain holds this message. */
  mark: Mark | null;
}

/** A `turns` row: one model call. */
export interface ModelCall {
  rid: number;
  id: string;
  thread: string;
  parent: string | null;
  tip: string | null;
  time: string | null;
}

export interface ThreadRow {
  id: string;
  name: string;
  tip: string | null;
  time: string | null;
}

export interface MessageTree {
  nodes: Map<string, MsgNode>;
  /** Every message in rowid order: the order every walk over all messages takes, so problems come out stable. */
  ordered: MsgNode[];
}

/** Time order, untimed last, then id: calls and threads in the order llm wrote them. */
function byTime(a: { time: string | null; id: string }, b: { time: string | null; id: string }): number {
  return cmp(a.time ?? '\uffff', b.time ?? '\uffff') || cmp(a.id, b.id);
}

/** The tree's skeleton: every message with its kind, then the parent links (reported where they dangle). */
export function readMessageTree(db: Database.Database, report: Report): MessageTree {
  const nodes = new Map<string, MsgNode>();
  const ordered: MsgNode[] = [];
  const skeleton = db.prepare(
    `SELECT m.rowid AS rid, m.hash, m.parent_hash, m.role,
            (m.role = 'user'
             AND NOT EXISTS(SELECT 1 FROM parts p WHERE p.message_hash = m.hash AND coalesce(p.type, '') <> 'tool_result')
             AND EXISTS(SELECT 1 FROM parts p WHERE p.message_hash = m.hash)) AS tool_only
       FROM messages m ORDER BY m.rowid`,
  );
  for (const row of skeleton.iterate() as Iterable<Row>) {
    const rid = Number(row.rid);
    const hash = strOrNull(row.hash);
    if (hash === null) {
      report(rid, 'messages row without a hash: skipped');
      continue;
    }
    const role = str(row.role);
    // A user-role message holding only tool results is tool output, not a prompt.
    const toolOnly = Number(row.tool_only) === 1;
    const kind = role === 'user' && !toolOnly ? 'user' : role === 'system' ? 'system' : 'other';
    const node: MsgNode = {
      hash,
      parentHash: strOrNull(row.parent_hash),
      role,
      rid,
      kind,
      parent: null,
      children: [],
      mark: null,
    };
    nodes.set(hash, node);
    ordered.push(node);
  }
  const tree = { nodes, ordered };
  linkParents(tree, report);
  return tree;
}

/** Parent and child links by hash, so walks up and down the tree need no lookups. */
function linkParents({ nodes, ordered }: MessageTree, report: Report): void {
  for (const n of ordered) {
    if (n.parentHash === null) continue;
    const p = nodes.get(n.parentHash);
    if (p === undefined) {
      report(n.rid, `message ${n.hash}: parent message ${n.parentHash} is missing`);
      continue;
    }
    n.parent = p;
    p.children.push(n);
  }
}

/** The model calls, earliest first: the first call to reach a message is the one that wrote it. */
export function readModelCalls(db: Database.Database, report: Report): ModelCall[] {
  const calls: ModelCall[] = [];
  for (const row of db
    .prepare(
      'SELECT rowid AS rid, id, thread_id, parent_message_hash, tip_message_hash, datetime_utc FROM turns',
    )
    .iterate() as Iterable<Row>) {
    const rid = Number(row.rid);
    const id = strOrNull(row.id);
    if (id === null) {
      report(rid, 'turns row without an id: skipped');
      continue;
    }
    const time = isoTime(row.datetime_utc);
    if (time === null) report(rid, `turn ${id}: unreadable datetime_utc`);
    calls.push({
      rid,
      id,
      thread: str(row.thread_id),
      parent: strOrNull(row.parent_message_hash),
      tip: strOrNull(row.tip_message_hash),
      time,
    });
  }
  calls.sort(byTime);
  return calls;
}

/** The threads by id: each is a session, and its tip covers messages no model call reaches. */
export function readThreads(db: Database.Database): Map<string, ThreadRow> {
  const threads = new Map<string, ThreadRow>();
  for (const row of db
    .prepare('SELECT id, name, tip_message_hash, datetime_utc FROM threads')
    .iterate() as Iterable<Row>) {
    const id = strOrNull(row.id);
    if (id === null) continue;
    threads.set(id, {
      id,
      name: str(row.name),
      tip: strOrNull(row.tip_message_hash),
      time: isoTime(row.datetime_utc),
    });
  }
  return threads;
}

/**
 * Marks every message with the first writer of its chain, which decides the thread that owns a shared turn: each
 * call's tip in time order, then thread tips, for chains no call covers.
 */
export function markChains(tree: MessageTree, calls: ModelCall[], threads: Map<string, ThreadRow>): void {
  for (const t of calls) {
    if (t.thread === '') continue;
    const start = tree.nodes.get(t.tip ?? t.parent ?? '');
    markUp(tree, start, {
      thread: t.thread,
      time: t.time ?? NO_TIME,
      key: `0${t.time ?? '\uffff'}\u0000${t.id}`,
    });
  }
  for (const th of [...threads.values()].sort(byTime))
    if (th.tip !== null)
      markUp(tree, tree.nodes.get(th.tip), {
        thread: th.id,
        time: th.time ?? NO_TIME,
        key: `1${th.time}\u0000${th.id}`,
      });
}

/** Marks up from `start`, stopping at the first message already marked (its ancestors are too): each seen once. */
function markUp(tree: MessageTree, start: MsgNode | undefined, m: Mark): void {
  let steps = 0;
  for (let n = start; n !== undefined && n !== null && n.mark === null && steps <= tree.nodes.size; steps++) {
    n.mark = m;
    n = n.parent ?? undefined;
  }
}

/** The messages reachable from the roots (each seen once): prompts left out sit on a parent cycle: reported. */
export function findReachable(tree: MessageTree, report: Report): Set<MsgNode> {
  const visited = new Set<MsgNode>();
  const stack: MsgNode[] = tree.ordered.filter((n) => n.parent === null);
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (visited.has(n)) continue;
    visited.add(n);
    for (const c of n.children) stack.push(c);
  }
  for (const n of tree.ordered)
    if (!visited.has(n) && n.kind === 'user')
      report(n.rid, `message ${n.hash}: its parent links form a cycle: not imported`);
  return visited;
}

/** Earliest-written reply first: the first reply path of a prompt is the one its first model call produced. */
export function orderReplies(tree: MessageTree): void {
  for (const n of tree.ordered)
    n.children.sort(
      (a, b) =>
        (a.mark === null ? 1 : 0) - (b.mark === null ? 1 : 0) ||
        cmp(a.mark?.key ?? '', b.mark?.key ?? '') ||
        a.rid - b.rid,
    );
}

/** The chain from the root down to the message `tip` (bounded, as a cycle has no root): a thread's messages. */
export function chainTo(tree: MessageTree, tip: string | null): MsgNode[] {
  const chain: MsgNode[] = [];
  let steps = 0;
  for (
    let n = tip === null ? null : (tree.nodes.get(tip) ?? null);
    n !== null && steps <= tree.nodes.size;
    steps++
  ) {
    chain.push(n);
    n = n.parent;
  }
  return chain.reverse();
}
