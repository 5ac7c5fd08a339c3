import type Database from 'better-sqlite3';
import { cachedStatement } from './db/statements.js';
import { INNER, sessionRoot, sha256, subtreeHash } from './hash.js';

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

const SQL = {
  // The path to the root as ONE row (ids, node hashes, branch points, sessions) rather than one row per level:
  // turning 100 rows of 4 values into JS objects cost more than the recursive walk itself. A parent always has a
  // smaller id than its child, so `n.id < a.id` also stops the walk on a (tampered) cycle.
  ancestors: `WITH RECURSIVE a(k, id, parent_id, sid, node_hash, n_children) AS (
          SELECT 0, id, parent_id, sid, node_hash, n_children FROM nodes INDEXED BY nodes_walk WHERE id = ?
          UNION ALL
          SELECT a.k + 1, n.id, n.parent_id, n.sid, n.node_hash, n.n_children FROM nodes n INDEXED BY nodes_walk
          JOIN a ON n.id = a.parent_id
          WHERE n.id < a.id)
        SELECT group_concat(id, ',' ORDER BY k), group_concat(hex(node_hash), '' ORDER BY k),
          group_concat(CASE WHEN n_children <> 1 THEN k END, ',' ORDER BY k), group_concat(DISTINCT sid) FROM a`,
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

export class Merkle {
  private readonly ancestors: Database.Statement;
  private readonly childHashes: Database.Statement;
  private readonly setSubtree: Database.Statement;
  private readonly topHashes: Database.Statement;
  private readonly setRoot: Database.Statement;
  /** Scratch input for one ripple level: 0x01 || node_hash || child subtree_hash. */
  private readonly scratch = Buffer.concat([INNER, Buffer.alloc(64)]);

  constructor(private readonly db: Database.Database) {
    this.ancestors = cachedStatement(db, SQL.ancestors, 'raw');
    this.childHashes = cachedStatement(db, SQL.childHashes, 'pluck');
    this.setSubtree = cachedStatement(db, SQL.setSubtree);
    this.topHashes = cachedStatement(db, SQL.topHashes, 'pluck');
    this.setRoot = cachedStatement(db, SQL.setRoot);
  }

  /**
   * Recomputes subtree hashes from `startId` up to the root, given the new hash of the child on the path. Adds the
   * sessions of the path to `touched`.
   */
  rippleUp(startId: number, childHash: Buffer, touched: Set<string>): void {
    const [idList, nodeHashesHex, branchList, sidList] = this.ancestors.get(startId) as [
      string,
      string,
      string | null,
      string,
    ];
    for (const sid of sidList.split(',')) touched.add(sid);
    const ids = idList.split(',').map(Number);
    const nodeHashes = Buffer.from(nodeHashesHex, 'hex');
    const branch = branchList === null ? null : new Set(branchList.split(',').map(Number));
    // 0x01 || node_hash || child's subtree_hash, reused level after level: subtreeHash(nh, [h]) without allocating.
    const buf = this.scratch;
    let h = childHash;
    for (let k = 0; k < ids.length; k++) {
      if (branch?.has(k)) {
        // A branch point reads its children, whose rows already hold the updated hash of the path child.
        const kids = this.childHashes.all(ids[k]) as Buffer[];
        h = subtreeHash(nodeHashes.subarray(32 * k, 32 * k + 32), kids);
      } else {
        // A single child is the one on the path: no need to read it back.
        nodeHashes.copy(buf, 1, 32 * k, 32 * k + 32);
        h.copy(buf, 33);
        h = sha256(buf);
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
    const nodes = cachedStatement(this.db, SQL.foldSet, 'raw').all(JSON.stringify(startIds)) as [
      number,
      string,
      Buffer,
    ][];
    const setChildren = cachedStatement(this.db, SQL.setChildren);
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
