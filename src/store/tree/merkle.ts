import type Database from 'better-sqlite3';
import { cachedStatement } from '../db/statements.js';
import { INNER, sessionRoot, sha256Into, subtreeHash } from '../model/hash.js';

/**
 * The one place that rewrites subtree hashes and session roots (docs/sessions.md, "Hash conventions"). Two ways in:
 *
 * - `rippleUp`: one new leaf (addTurn). The path to the root is read as ONE row and each level is hashed in a
 *   reused scratch buffer; only branch points read their children back. O(depth), siblings untouched.
 * - `fold`: any set of changed nodes (archive, restore; later a bulk import that hashes a batch in memory and
 *   folds once). Every node of the set and every ancestor is recomputed exactly once, deepest first, so each child
 *   is final before its parent reads it; child counts are corrected on the way. O(nodes touched).
 *
 * Both leave the touched sessions' roots to `setRoots`, which recomputes each once.
 */

/**
 * A stored node hash that is not a 32-byte blob (only ever an edit behind the store's back) would shift every level
 * after it in the walk's one blob: such a level hashes as 32 zero bytes instead, and verify reports the node.
 */
const NODE_HASH_32 =
  "CASE WHEN typeof(node_hash) = 'blob' AND length(node_hash) = 32 THEN node_hash ELSE zeroblob(32) END";

export const MERKLE_SQL = {
  // The path to the root as ONE row (ids, node hashes, branch points, sessions) rather than one row per level:
  // turning 100 rows of 4 values into JS objects cost more than the recursive walk itself. A parent always has a
  // smaller id than its child, so `n.id < a.id` also stops the walk on a (tampered) cycle. No ORDER BY inside the
  // aggregates: each one sorted its 100 rows in a temporary b-tree, half of the walk's cost. The walk hands the
  // rows over in the order it makes them, which is k's; the ids say so (inWalkOrder), and `ancestorsOrdered` (the
  // same with ORDER BY k) answers when they do not.
  ancestors: ancestorsSql(''),
  ancestorsOrdered: ancestorsSql(' ORDER BY k'),
  childHashes:
    'SELECT h.subtree_hash FROM nodes n JOIN node_subtree h ON h.id = n.id WHERE n.parent_id = ? ORDER BY n.sid, n.seq',
  setSubtree: 'UPDATE node_subtree SET subtree_hash = ? WHERE id = ?',
  topHashes:
    'SELECT h.subtree_hash FROM nodes n JOIN node_subtree h ON h.id = n.id WHERE n.sid = ? AND n.is_top = 1 ORDER BY n.seq',
  setRoot: 'UPDATE sessions SET session_root = ? WHERE sid = ?',
  foldSet: `WITH RECURSIVE a(id) AS (
       SELECT value FROM json_each(?)
       UNION
       SELECT n.parent_id FROM nodes n JOIN a ON n.id = a.id WHERE n.parent_id IS NOT NULL)
     SELECT n.id, n.sid, n.node_hash FROM nodes n JOIN a ON n.id = a.id ORDER BY n.depth DESC, n.id DESC`,
  setChildren: 'UPDATE nodes SET n_children = ? WHERE id = ? AND n_children <> ?',
};

function ancestorsSql(order: string): string {
  return `WITH RECURSIVE a(k, id, parent_id, sid, node_hash, n_children) AS (
          SELECT 0, id, parent_id, sid, node_hash, n_children FROM nodes INDEXED BY nodes_walk WHERE id = ?
          UNION ALL
          SELECT a.k + 1, n.id, n.parent_id, n.sid, n.node_hash, n.n_children FROM nodes n INDEXED BY nodes_walk
          JOIN a ON n.id = a.parent_id
          WHERE n.id < a.id)
        SELECT group_concat(id, ','${order}), CAST(group_concat(${NODE_HASH_32}, ''${order}) AS BLOB),
          group_concat(CASE WHEN n_children <> 1 THEN k END, ','${order}), group_concat(DISTINCT sid) FROM a`;
}

/**
 * The walk makes each row with a smaller id than the one before (`n.id < a.id`), so its rows came in k order exactly
 * when their ids strictly decrease: no other order of distinct ids does.
 */
export function inWalkOrder(ids: readonly number[]): boolean {
  for (let k = 1; k < ids.length; k++) if (!(ids[k] < ids[k - 1])) return false;
  return true;
}

type AncestorRow = [string, Buffer, string | null, string];

export class Merkle {
  private readonly ancestors: Database.Statement;
  private readonly childHashes: Database.Statement;
  private readonly setSubtree: Database.Statement;
  private readonly topHashes: Database.Statement;
  private readonly setRoot: Database.Statement;
  /** Scratch input for one ripple level: 0x01 || node_hash || child subtree_hash. */
  private readonly scratch = Buffer.concat([INNER, Buffer.alloc(64)]);

  constructor(private readonly db: Database.Database) {
    this.ancestors = cachedStatement(db, MERKLE_SQL.ancestors, 'raw');
    this.childHashes = cachedStatement(db, MERKLE_SQL.childHashes, 'pluck');
    this.setSubtree = cachedStatement(db, MERKLE_SQL.setSubtree);
    this.topHashes = cachedStatement(db, MERKLE_SQL.topHashes, 'pluck');
    this.setRoot = cachedStatement(db, MERKLE_SQL.setRoot);
  }

  /** The path from `startId` to the root: ids, node hashes (32 bytes each), branch points, sessions. */
  private path(startId: number): {
    ids: number[];
    nodeHashes: Buffer;
    branch: Set<number> | null;
    sids: string;
  } {
    let row = this.ancestors.get(startId) as AncestorRow;
    let ids = row[0].split(',').map(Number);
    if (!inWalkOrder(ids)) {
      // Prepared only here: the walk has always handed its rows over in order.
      row = cachedStatement(this.db, MERKLE_SQL.ancestorsOrdered, 'raw').get(startId) as AncestorRow;
      ids = row[0].split(',').map(Number);
    }
    const [, nodeHashes, branchList, sids] = row;
    return {
      ids,
      nodeHashes,
      branch: branchList === null ? null : new Set(branchList.split(',').map(Number)),
      sids,
    };
  }

  /**
   * Recomputes subtree hashes from `startId` up to the root, given the new hash of the child on the path. Adds the
   * sessions of the path to `touched`.
   */
  rippleUp(startId: number, childHash: Buffer, touched: Set<string>): void {
    const { ids, nodeHashes, branch, sids } = this.path(startId);
    for (const sid of sids.split(',')) touched.add(sid);
    // 0x01 || node_hash || child's subtree_hash, reused level after level: subtreeHash(nh, [h]) without allocating.
    // Each level's new hash lands in buf[33..65) for the next level, and is written from there (SQLite copies a
    // bound blob). One UPDATE a level, each found by its rowid whatever sqlite_stat1 says: one UPDATE ... FROM
    // json_each for the whole path was ~60 us cheaper at depth 100, but stale statistics (an ANALYZE run while the
    // shard was small) turned it into a scan of node_subtree on every add.
    const buf = this.scratch;
    const h = buf.subarray(33, 65);
    childHash.copy(buf, 33);
    for (let k = 0; k < ids.length; k++) {
      if (branch?.has(k)) {
        // A branch point reads its children, whose rows already hold the updated hash of the path child.
        const kids = this.childHashes.all(ids[k]) as Buffer[];
        subtreeHash(nodeHashes.subarray(32 * k, 32 * k + 32), kids).copy(buf, 33);
      } else {
        // A single child is the one on the path: no need to read it back.
        nodeHashes.copy(buf, 1, 32 * k, 32 * k + 32);
        sha256Into(buf, buf, 33);
      }
      this.setSubtree.run(h, ids[k]);
    }
  }

  /**
   * Recomputes n_children and subtree_hash of `startIds` and all their ancestors (across sessions), then the root of
   * every session touched (in sid order). Returns those roots, hex.
   */
  fold(startIds: readonly number[]): Record<string, string> {
    if (startIds.length === 0) return {};
    const nodes = cachedStatement(this.db, MERKLE_SQL.foldSet, 'raw').all(JSON.stringify(startIds)) as [
      number,
      string,
      Buffer,
    ][];
    const setChildren = cachedStatement(this.db, MERKLE_SQL.setChildren);
    const touched = new Set<string>();
    for (const [id, sid, nh] of nodes) {
      const hs = this.childHashes.all(id) as Buffer[];
      setChildren.run(hs.length, id, hs.length);
      this.setSubtree.run(subtreeHash(nh, hs), id);
      touched.add(sid);
    }
    return this.setRoots([...touched].sort());
  }

  /** Recomputes and stores the root of one session. */
  setSessionRoot(sid: string): Buffer {
    const root = sessionRoot(sid, this.topHashes.all(sid) as Buffer[]);
    this.setRoot.run(root, sid);
    return root;
  }

  /** Recomputes and stores the roots of `sids`, in the order given. Hex, by sid. */
  setRoots(sids: Iterable<string>): Record<string, string> {
    const roots: Record<string, string> = {};
    for (const sid of sids) roots[sid] = this.setSessionRoot(sid).toString('hex');
    return roots;
  }
}
