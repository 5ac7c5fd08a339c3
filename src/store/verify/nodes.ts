import type Database from 'better-sqlite3';
import { CANON_GUARDED_SQL, CANON_SQL } from '../db/canon-sql.js';
import { firstGuarded, NODES_ODD, SUBTREES_ODD } from '../db/guards.js';
import { integerList } from '../db/page-lists.js';
import { equal32, sha256Into } from '../model/hash.js';

/**
 * verify's fast path over nodes (verify.ts): pages of nodes read as a handful of values, their canonical contents
 * built by SQLite and hashed here. Shared by verify's own thread and its helpers (verify-worker.ts), which compute
 * chunks of the id range on their own connections: a chunk is only ever "every node in it hashes to its stored
 * node hash", or not vouched for, in which case verify's thread reads it again on its exact path.
 */

export const PAGE = 1000;

/**
 * A page of nodes (id in (lo, hi]) as a handful of values. `odd` counts the rows whose values the lists cannot carry
 * as the store writes them. Some of its tests no hash would answer: the structure columns' types (a text '5' prints
 * as 5 in a list), a hash's length (bytes moved from one row's hash into the next leave the concatenation as it
 * was). Those are always asked. The rest are left to the guards on guarded pages (guards.ts, NODES_ODD and
 * SUBTREES_ODD): a content column of another type gives other canonical bytes (a hash mismatch, then the exact
 * path) or makes json_object fail, a malformed Bates id is not what the chain recorded for (sid, seq), and a hash
 * stored as text has the same bytes. A sid holding the list's comma needs no test of its own: every sid is text, so
 * the list then splits into more parts than the page has rows, and fastChunk refuses the page.
 */
export function nodePageSql(guarded: boolean): string {
  const always = `typeof(n.sid) <> 'text' OR typeof(n.seq) <> 'integer'
      OR typeof(n.depth) <> 'integer' OR typeof(n.n_children) <> 'integer'
      OR typeof(n.is_top) <> 'integer' OR n.is_top NOT IN (0, 1)
      OR (n.parent_id IS NOT NULL AND typeof(n.parent_id) <> 'integer')
      OR length(n.node_hash) <> 32 OR length(h.subtree_hash) <> 32`;
  const unguarded = `typeof(n.bates) <> 'text' OR n.bates <> n.sid || '-' || printf('%06d', n.seq)
      OR typeof(n.node_hash) <> 'blob' OR typeof(h.subtree_hash) <> 'blob'`;
  return `SELECT count(*), group_concat(n.id), group_concat(coalesce(n.parent_id, 0)), group_concat(n.sid),
      group_concat(n.seq), group_concat(n.is_top, ''), group_concat(n.depth), group_concat(n.n_children),
      sum(${guarded ? always : `${always} OR ${unguarded}`}),
      CAST(group_concat(${guarded ? CANON_GUARDED_SQL : CANON_SQL}, '') AS BLOB),
      CAST(group_concat(n.node_hash, '') AS BLOB), CAST(group_concat(h.subtree_hash, '') AS BLOB)
    FROM nodes n NOT INDEXED LEFT JOIN nodes p NOT INDEXED ON p.id = n.parent_id AND p.id < n.id
      LEFT JOIN node_subtree h NOT INDEXED ON h.id = n.id
    WHERE n.id > ? AND n.id <= ?`;
}

/** Node ids up to which both node guards vouch for the rows' types (Infinity when they hold none; 0 untrusted). */
export function guardedUpTo(db: Database.Database): number {
  let upTo = Number.POSITIVE_INFINITY;
  for (const g of [NODES_ODD, SUBTREES_ODD]) {
    const first = firstGuarded(db, g);
    if (first === undefined) return 0;
    if (first !== null) upTo = Math.min(upTo, first - 1);
  }
  return upTo;
}

/** The canonical contents' cuts at their 0x00 prefixes (canonical JSON never holds a raw 0x00 byte), or false. */
export function cutCanonical(canonBlob: Buffer, n: number, bounds: Int32Array): boolean {
  if (canonBlob[0] !== 0) return false;
  let at = 0;
  for (let k = 0; k < n; k++) {
    bounds[k] = at;
    const next = k === n - 1 ? canonBlob.length : canonBlob.indexOf(0, at + 1);
    if (next < 0) return false;
    at = next;
  }
  bounds[n] = canonBlob.length;
  return !(at !== canonBlob.length || canonBlob.indexOf(0, bounds[n - 1] + 1) >= 0);
}

/** The nodes of a chunk the fast path vouches for, in id order: what verify keeps of each. */
export interface FastChunk {
  n: number;
  ids: Float64Array;
  parentIds: Float64Array;
  seqs: Float64Array;
  depths: Float64Array;
  childCounts: Float64Array;
  tops: Uint8Array;
  sids: string[];
  /** Node hashes (32 bytes each): computed, and equal to the stored ones. */
  nodeHashes: Uint8Array;
  /** Stored subtree hashes (32 bytes each). */
  subtreeHashes: Uint8Array;
}

/** The page statements of a connection: unguarded, and for ids up to `guardedBelow`, guarded. */
export interface PageStatements {
  unguarded: Database.Statement;
  guarded: Database.Statement;
  guardedBelow: number;
}

export function pageStatements(db: Database.Database, guardedBelow: number): PageStatements {
  return {
    unguarded: db.prepare(nodePageSql(false)).raw(true),
    guarded: db.prepare(nodePageSql(true)).raw(true),
    guardedBelow,
  };
}

/** One page's values, as nodePageSql gives them. */
export type NodePage = [
  number,
  string | null,
  string,
  string,
  string,
  string,
  string,
  string,
  number,
  Buffer | null,
  Buffer | null,
  Buffer | null,
];

export function readPage(st: PageStatements, lo: number, hi: number): NodePage {
  return (hi <= st.guardedBelow ? st.guarded : st.unguarded).get(lo, hi) as NodePage;
}

/**
 * The nodes with ids in (lo, hi], when the fast path vouches for every one of them (every page splits evenly,
 * every canonical content hashes to the stored node hash); otherwise null, and the caller reads the chunk on the
 * exact path. Ids are the chunk's own: a node's parent is only known by its id here.
 */
export function fastChunk(st: PageStatements, lo: number, hi: number): FastChunk | null {
  const cap = hi - lo;
  const c: FastChunk = {
    n: 0,
    ids: new Float64Array(cap),
    parentIds: new Float64Array(cap),
    seqs: new Float64Array(cap),
    depths: new Float64Array(cap),
    childCounts: new Float64Array(cap),
    tops: new Uint8Array(cap),
    sids: [],
    nodeHashes: Buffer.alloc(32 * cap),
    subtreeHashes: Buffer.alloc(32 * cap),
  };
  const node = c.nodeHashes as Buffer;
  const bounds = new Int32Array(PAGE + 1);
  for (let at = lo; at < hi; at += PAGE) {
    const to = Math.min(at + PAGE, hi);
    const [
      n,
      idList,
      parentList,
      sidList,
      seqList,
      topList,
      depthList,
      kidList,
      odd,
      canon,
      nodeBlob,
      subBlob,
    ] = readPage(st, at, to);
    if (n === 0) continue;
    if (
      odd !== 0 ||
      canon === null ||
      idList === null ||
      nodeBlob?.length !== 32 * n ||
      subBlob?.length !== 32 * n ||
      topList.length !== n ||
      n > bounds.length - 1 ||
      !cutCanonical(canon, n, bounds)
    )
      return null;
    const base = c.n;
    const sidParts = sidList.split(',');
    if (
      sidParts.length !== n ||
      !integerList(idList, c.ids, base, n) ||
      !integerList(parentList, c.parentIds, base, n) ||
      !integerList(seqList, c.seqs, base, n) ||
      !integerList(depthList, c.depths, base, n) ||
      !integerList(kidList, c.childCounts, base, n)
    )
      return null;
    for (let k = 0; k < n; k++) {
      const i = base + k;
      sha256Into(canon.subarray(bounds[k], bounds[k + 1]), node, 32 * i);
      if (!equal32(node, 32 * i, nodeBlob, 32 * k)) return null;
      c.tops[i] = topList.charCodeAt(k) === 49 ? 1 : 0;
      c.sids.push(sidParts[k]);
    }
    c.subtreeHashes.set(subBlob, 32 * base);
    c.n += n;
  }
  return c;
}
