import type Database from 'better-sqlite3';
import { cachedStatement } from '../db/statements.js';
import type { TurnNode } from '../model/rows.js';

/**
 * A session's turns as a tree view lists them: depth-first, children by (sid, seq), each with its depth inside the
 * session (`local_depth`, a top turn is 0). One walk serves the full tree (Shard.sessionTree), the light outline
 * (Shard.sessionOutline) and an archived session's turns (outlineOfTurns).
 */

export interface TreeNode extends TurnNode {
  /** Depth inside this session's tree: a top node (first turn, or a fork from another session) is 0. */
  local_depth: number;
}

/** One row of Shard.sessionOutline. */
export interface OutlineNode {
  id: number;
  bates: string;
  sid: string;
  seq: number;
  parent_bates: string | null;
  is_top: boolean;
  n_children: number;
  /** The question, cut to the requested length. */
  question: string;
  audit: string;
  created_at: string;
  /** A child in another session, listed under its parent here. */
  cross: boolean;
  local_depth: number;
}

interface Linked {
  bates: string;
  parent_bates: string | null;
}

/** Rows grouped under their parents' Bates ids, in the order given; `isTop` rows start the walk. */
function group<T extends Linked>(
  rows: readonly T[],
  isTop: (r: T) => boolean,
): { tops: T[]; kids: Map<string, T[]> } {
  const tops: T[] = [];
  const kids = new Map<string, T[]>();
  for (const r of rows) {
    if (isTop(r) || r.parent_bates === null) tops.push(r);
    else addChild(kids, r);
  }
  return { tops, kids };
}

function addChild<T extends Linked>(kids: Map<string, T[]>, r: T): void {
  const list = kids.get(r.parent_bates!);
  if (list) list.push(r);
  else kids.set(r.parent_bates!, [r]);
}

/**
 * Calls `visit` depth-first from `tops`; a row for which `leaf` holds is visited but not descended into. Each row is
 * visited once: a parent cycle edited into the shard (a top that is also someone's child) ends the walk there
 * instead of looping for ever (verify names the cycle).
 */
function walk<T extends Linked>(
  tops: readonly T[],
  kids: ReadonlyMap<string, readonly T[]>,
  visit: (row: T, depth: number) => void,
  leaf?: (row: T) => boolean,
): void {
  const stack: [T, number][] = [];
  const seen = new Set<T>();
  for (let i = tops.length - 1; i >= 0; i--) stack.push([tops[i], 0]);
  while (stack.length > 0) {
    const [r, d] = stack.pop()!;
    if (seen.has(r)) continue;
    seen.add(r);
    visit(r, d);
    if (leaf?.(r)) continue;
    const ch = kids.get(r.bates);
    if (ch) for (let i = ch.length - 1; i >= 0; i--) stack.push([ch[i], d + 1]);
  }
}

/** A session's own turns (by seq) in depth-first order, each with its depth in that session. */
export function sessionTree(nodes: readonly TurnNode[]): TreeNode[] {
  const { tops, kids } = group(nodes, (n) => n.is_top);
  const out: TreeNode[] = [];
  walk(tops, kids, (n, d) => out.push({ ...n, local_depth: d }));
  return out;
}

// Text columns are CAST: a damaged row (a BLOB where text belongs) is shown as text instead of breaking the walk.
const OUTLINE_OWN = `SELECT n.id, n.bates, n.sid, n.seq, p.bates AS parent_bates, n.is_top, n.n_children,
          substr(CAST(n.question AS TEXT), 1, ?) AS question, CAST(n.audit AS TEXT) AS audit,
          CAST(n.created_at AS TEXT) AS created_at
        FROM nodes n LEFT JOIN nodes p ON p.id = n.parent_id WHERE n.sid = ? ORDER BY n.seq`;
const OUTLINE_CROSS = `SELECT c.id, c.bates, c.sid, c.seq, p.bates AS parent_bates, c.is_top, c.n_children,
          substr(CAST(c.question AS TEXT), 1, ?) AS question, CAST(c.audit AS TEXT) AS audit,
          CAST(c.created_at AS TEXT) AS created_at
        FROM nodes p JOIN nodes c ON c.parent_id = p.id WHERE p.sid = ? AND c.sid <> p.sid ORDER BY c.sid, c.seq`;

/**
 * A session's outline, light enough for big sessions: its own turns in depth-first order, and, right under a turn,
 * its children that live in OTHER sessions (`cross: true`, shown without their descendants). Questions are cut to
 * `qChars` characters; answers are not read.
 */
export function sessionOutline(db: Database.Database, sid: string, qChars = 160): OutlineNode[] {
  type Raw = Omit<OutlineNode, 'is_top' | 'cross' | 'local_depth'> & { is_top: number };
  const own = cachedStatement(db, OUTLINE_OWN).all(qChars, sid) as Raw[];
  const cross = cachedStatement(db, OUTLINE_CROSS).all(qChars, sid) as Raw[];
  const { tops, kids } = group(own, (r) => r.is_top === 1);
  const crossSet = new Set<Raw>(cross);
  const mixed = new Set<Raw[]>();
  for (const r of cross) {
    addChild(kids, r);
    mixed.add(kids.get(r.parent_bates!)!);
  }
  for (const list of mixed) list.sort((a, b) => (a.sid < b.sid ? -1 : a.sid > b.sid ? 1 : a.seq - b.seq));
  const out: OutlineNode[] = [];
  const isCross = (r: Raw) => crossSet.has(r);
  walk(
    tops,
    kids,
    (r, d) => out.push({ ...r, is_top: r.is_top === 1, cross: isCross(r), local_depth: d }),
    isCross,
  );
  return out;
}

/**
 * Turns given whole (an archived session's, as readArchive gives them) as an outline: depth-first, children by seq.
 * A turn whose parent is not among them is a top. Children in other sessions are not listed.
 */
export function outlineOfTurns(nodes: readonly TurnNode[], qChars = 160): OutlineNode[] {
  const own = new Set(nodes.map((n) => n.bates));
  const { tops, kids } = group(nodes, (n) => n.is_top || n.parent_bates === null || !own.has(n.parent_bates));
  const bySeq = (a: TurnNode, b: TurnNode) => a.seq - b.seq;
  tops.sort(bySeq);
  for (const l of kids.values()) l.sort(bySeq);
  const out: OutlineNode[] = [];
  walk(tops, kids, (n, d) =>
    out.push({
      id: n.id,
      bates: n.bates,
      sid: n.sid,
      seq: n.seq,
      parent_bates: n.parent_bates,
      is_top: n.is_top,
      n_children: n.n_children,
      question: n.question.slice(0, qChars),
      audit: n.audit,
      created_at: n.created_at,
      cross: false,
      local_depth: d,
    }),
  );
  return out;
}
