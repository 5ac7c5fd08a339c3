import type Database from 'better-sqlite3';
import { damaged } from '../base/errors.js';
import type { ChainClaims, Problem } from '../chain/claims.js';
import { readClaims } from '../chain/claims-read.js';
import { AuditLog } from '../chain/log.js';
import { cachedStatement } from '../db/statements.js';
import { nodeHash } from '../model/hash.js';
import { NODE_COLUMNS, type NodeRow } from '../model/rows.js';
import { compareClaims } from './compare.js';
import { compareSources, compareSync } from './compare-sources.js';
import { badArchiveBodies, badSessionRoots, childLists, foldSubtrees } from './hashes.js';
import { type FastChunk, fastChunk, guardedUpTo, PAGE, pageStatements } from './nodes.js';
import { VerifyHelpers } from './parallel.js';
import { archivedRows, type ReadNodes, structureProblems, turnClaimProblems } from './state.js';

/** Starts helpers for a read of `total` nodes (ids up to maxId), or gives null. */
type HelperStart = (maxId: number, total: number, guardedBelow: number) => VerifyHelpers | null;

export interface VerifyReport {
  ok: boolean;
  nodes: number;
  /** Every node whose stored node_hash or subtree_hash differs from the one recomputed from content. */
  mismatches: string[];
  /** The subset whose own content no longer matches its node_hash: where an edit happened. */
  edited: string[];
  /** Sessions whose stored session_root differs. */
  sessions: string[];
  /** Archived sessions whose body no longer matches its sha256. Present only when there is one. */
  archives?: string[];
  /**
   * Everything else that is damaged: the state compared with what the audit chain recorded (docs/sessions.md,
   * "What verify detects"), and the stored structure (parents, depths, counters, ids) compared with itself.
   * Present only when there is one.
   */
  problems?: Problem[];
}

/** More problems than this are counted, not listed: a wholesale rewrite would otherwise list every turn. */
const MAX_PROBLEMS = 10_000;

/**
 * Whole rows for the exact path, as rows.ts declares them. node_subtree is LEFT JOINed (a tampered shard may lack a
 * row) and only a parent with a smaller id counts, as on the fast path. Any column may hold a type the store never
 * writes: the code below checks before it trusts.
 */
const EXACT_ROWS = `SELECT ${NODE_COLUMNS}
  FROM nodes n NOT INDEXED LEFT JOIN node_subtree h NOT INDEXED ON h.id = n.id
    LEFT JOIN nodes p NOT INDEXED ON p.id = n.parent_id AND p.id < n.id
  WHERE n.id > ? AND n.id <= ? ORDER BY n.id`;

/**
 * Recomputes every hash from content alone. Children always have larger ids than their parents (a parent must
 * exist before its child is inserted, and ids are never reused), so one pass in descending id order folds
 * subtrees bottom-up without recursion.
 *
 * Speed (1,000,000 nodes in a few seconds): a page of PAGE nodes comes back from SQLite as a handful of values
 * (ids, parents, sids, seqs as text lists; canonical contents, node and subtree hashes as blobs) instead of one
 * JavaScript row of 17 values each, which made turning rows into strings and back into canonical JSON most of the
 * cost; hashes live in flat buffers, structure in typed arrays. Whatever the fast path cannot vouch for takes the
 * exact path: a page with an odd row (a type the store never writes, a list that does not split evenly) is read
 * row by row and canonicalised in JavaScript, and a node whose SQL-built content does not hash to its stored
 * node_hash is re-hashed that way before it is called edited. Only a match is ever taken from the fast path.
 */
/**
 * `parallelFrom`: the size from which helpers share the work (tests lower it); `stats`, filled with what they did.
 */
export interface VerifyOptions {
  parallelFrom?: number;
  stats?: VerifyStats;
  /**
   * How far the read of the turns has gone (`read` of `total`), after each page, and once more with `compare`
   * set when every turn is read and the rest (the chain's claims, structure, roots) is compared. Callers throttle.
   */
  onProgress?: (p: VerifyProgress) => void;
}

export interface VerifyProgress {
  read: number;
  total: number;
  compare: boolean;
}

/** What verify's helpers did: chunks, claims, and whether the subtree check they shared held ('none': not run). */
export interface VerifyStats {
  chunks: number;
  helperChunks: number;
  helperClaims: boolean;
  subtrees?: 'held' | 'failed' | 'none';
}

export function verifyShard(db: Database.Database, opts: VerifyOptions = {}): VerifyReport {
  // One read transaction: every statement below sees the same snapshot, even while another process writes.
  try {
    // Helpers read on their own connections: not while the caller holds a transaction they cannot see into.
    return db.inTransaction
      ? verifyAll(db, { onProgress: opts.onProgress })
      : db.transaction(() => verifyAll(db, opts, true))();
  } catch (err) {
    // On a healthy shard every read below succeeds; one that yields values no shard holds (a damaged b-tree hands
    // back rows its own index cannot find) is damage, said in one line, not a crash.
    if (err instanceof TypeError || err instanceof RangeError)
      throw damaged(
        `the shard's rows cannot be read consistently (${err.message.split('\n')[0]}): it is damaged`,
      );
    throw err;
  }
}

/**
 * Internal id -> index. A flat array when ids are dense (the usual case: AUTOINCREMENT, never reused); a map when
 * they are not, so one id edited to 1e12 cannot make verify allocate by the largest id.
 */
function idIndex(
  minId: number,
  maxId: number,
  total: number,
): { get: (id: number) => number; set: (id: number, i: number) => void } {
  if (minId >= 0 && Number.isSafeInteger(maxId) && maxId <= 4 * total + 65536) {
    const a = new Int32Array(maxId + 1).fill(-1);
    return {
      // Only an integer: a text '2' would index the array as 2, and 2.5 would give no index at all.
      get: (id) => (Number.isInteger(id) && id >= 0 && id <= maxId ? a[id] : -1),
      set: (id, i) => {
        a[id] = i;
      },
    };
  }
  const m = new Map<number, number>();
  return { get: (id) => m.get(id) ?? -1, set: (id, i) => void m.set(id, i) };
}

/**
 * Reads every node, page by page, and computes its node hash: the fast path (one SQL value per column per page),
 * else the exact path (rows, canon() in JavaScript).
 */
// One function on purpose: the page loop, its exact-path fallback and the typed arrays they fill share one cursor.
function readNodes(
  db: Database.Database,
  start: HelperStart,
  onProgress?: VerifyOptions['onProgress'],
): ReadNodes {
  // min() and max() each in a query of its own: together in one, SQLite cannot take either from the end of the
  // b-tree and scans the whole table (~150 ms per 1M nodes, before any helper starts). Both from the table itself
  // (NOT INDEXED), as every read of verify's: an index's b-tree can be swapped for one that leaves rows out, and
  // a row past the ends is a row never read. The count may come from an index: it only sizes the read, and a read
  // of another number of rows is refused as damage.
  const [minId, maxId, total] = cachedStatement(
    db,
    `SELECT coalesce((SELECT min(id) FROM nodes NOT INDEXED), 1), coalesce((SELECT max(id) FROM nodes NOT INDEXED), 0),
      (SELECT count(*) FROM nodes)`,
    'raw',
  ).get() as [number, number, number];
  const index = idIndex(minId, maxId, total);
  const ids = new Float64Array(total);
  const parentIds = new Float64Array(total);
  const depths = new Float64Array(total);
  const childCounts = new Float64Array(total);
  const problems: Problem[] = [];
  const sids: string[] = new Array(total);
  const seqs: number[] = new Array(total);
  const parents = new Int32Array(total);
  const tops = new Uint8Array(total);
  // In shared memory: helpers check the subtrees over them (verifyRest).
  const computedNode = Buffer.from(new SharedArrayBuffer(32 * total));
  const storedSub = Buffer.from(new SharedArrayBuffer(32 * total));
  /** Stored subtree hashes that are not 32-byte blobs: never equal to a computed one. */
  const oddSub = new Set<number>();
  const mismatch = new Set<number>();
  const editedIdx: number[] = [];
  const sidNames = new Map<string, string>();
  const intern = (s: string) => {
    const known = sidNames.get(s);
    if (known !== undefined) return known;
    sidNames.set(s, s);
    return s;
  };

  // Pages below the first row a guard holds (guards.ts) leave types to the guards; the rest ask typeof() here.
  const pages = pageStatements(db, guardedUpTo(db));
  // Ids start at 1, but one edited to 0 or below is a row like any other: read from the smallest (helpers only
  // share ids from 1 on).
  const helpers = minId >= 1 ? start(maxId, total, pages.guardedBelow) : null;
  const rowsStmt = cachedStatement(db, EXACT_ROWS);
  const batesStmt = cachedStatement(db, 'SELECT bates FROM nodes NOT INDEXED WHERE id = ?', 'pluck');
  const batesOf = (k: number) => (batesStmt.get(ids[k]) as string | undefined) ?? `(internal id ${ids[k]})`;

  /** The original, exact computation for one row: JSON.parse the titles, canon() in JavaScript. */
  const exactNodeHash = (r: NodeRow, parentIdx: number): Buffer => {
    let cited: string[];
    try {
      cited = JSON.parse(r.cited_titles_json) as string[];
    } catch {
      cited = [r.cited_titles_json];
    }
    return nodeHash({
      bates: r.bates,
      parent_bates: parentIdx >= 0 ? batesOf(parentIdx) : null,
      question: r.question,
      answer_text: r.answer_text,
      cited_titles: cited,
      n_cited_sources: r.n_cited_sources,
      audit: r.audit,
      cache_key: r.cache_key,
      created_at: r.created_at,
      source: r.source,
      source_id: r.source_id,
    });
  };
  const parentIndex = (parentId: number | null): number => (parentId === null ? -1 : index.get(parentId));
  const num = (v: unknown) => (typeof v === 'number' ? v : Number.NaN);
  const isHash = (b: unknown): b is Buffer => Buffer.isBuffer(b) && b.length === 32;

  let i = 0;
  const exactPage = (lo: number, hi: number) => {
    for (const r of rowsStmt.all(lo, hi) as NodeRow[]) {
      const parentIdx = parentIndex(r.parent_id);
      const nh = exactNodeHash(r, parentIdx);
      index.set(r.id, i);
      ids[i] = r.id;
      parentIds[i] = r.parent_id === null ? 0 : num(r.parent_id);
      depths[i] = num(r.depth);
      childCounts[i] = num(r.n_children);
      if (typeof r.bates !== 'string' || r.bates !== `${r.sid}-${String(r.seq).padStart(6, '0')}`)
        problems.push({
          kind: 'turn',
          id: String(r.bates),
          detail: `its Bates id does not match its session (${String(r.sid)}) and turn number (${String(r.seq)})`,
        });
      sids[i] = typeof r.sid === 'string' ? intern(r.sid) : r.sid;
      seqs[i] = r.seq;
      parents[i] = parentIdx;
      tops[i] = r.is_top === 1 ? 1 : 0;
      if (isHash(r.subtree_hash)) r.subtree_hash.copy(storedSub, 32 * i);
      else oddSub.add(i);
      nh.copy(computedNode, 32 * i);
      if (!(isHash(r.node_hash) && nh.equals(r.node_hash))) {
        mismatch.add(i);
        editedIdx.push(i);
      }
      i++;
    }
    onProgress?.({ read: i, total, compare: false });
  };

  /** A chunk the fast path vouched for (this thread's or a helper's), appended in id order. */
  const append = (c: FastChunk) => {
    if (i + c.n > total) throw new RangeError('more nodes than counted');
    // A chunk's buffers are sized for every id of its range; ids may be missing (archived turns, edits).
    computedNode.set(c.nodeHashes.subarray(0, 32 * c.n), 32 * i);
    storedSub.set(c.subtreeHashes.subarray(0, 32 * c.n), 32 * i);
    for (let k = 0; k < c.n; k++) {
      const parentId = c.parentIds[k];
      // Looked up before the node is indexed, as on the exact path: a node named as its own parent has none.
      parents[i] = parentId === 0 ? -1 : parentIndex(parentId);
      index.set(c.ids[k], i);
      ids[i] = c.ids[k];
      parentIds[i] = parentId;
      depths[i] = c.depths[k];
      childCounts[i] = c.childCounts[k];
      sids[i] = intern(c.sids[k]);
      seqs[i] = c.seqs[k];
      tops[i] = c.tops[k];
      i++;
    }
    onProgress?.({ read: i, total, compare: false });
  };
  const nextId = cachedStatement(db, 'SELECT min(id) FROM nodes NOT INDEXED WHERE id > ?', 'pluck');
  /**
   * Nodes with ids in (from, to], page by page: a page the fast path vouches for whole is appended as it is; any
   * other (an odd row, a node whose content does not hash to its stored hash) is read on the exact path.
   */
  const sequential = (from: number, to: number) => {
    for (let lo = from, hi = Math.min(from + PAGE, to); lo < to; lo = hi, hi = Math.min(lo + PAGE, to)) {
      const c = fastChunk(pages, lo, hi);
      if (c?.n === 0) {
        // A gap in the ids (ids are never reused, but may have been edited): jump to the next one.
        const next = nextId.get(hi) as number | null;
        if (next === null || next > to) break;
        hi = next - 1;
      } else if (c) append(c);
      else exactPage(lo, hi);
    }
  };
  if (helpers === null) sequential(Math.min(0, minId - 1), maxId);
  else {
    // Every thread takes chunks from the shared counter; then they are joined here in id order, and a chunk the
    // fast path did not vouch for is read again on this thread's exact path.
    let joined = 0;
    const join = (k: number) => {
      const c = helpers.result(k);
      if (c) append(c);
      else sequential(helpers.chunks[k].lo, helpers.chunks[k].hi);
    };
    helpers.work(pages, () => {
      while (joined < helpers.chunks.length && helpers.ready(joined)) join(joined++);
    });
    while (joined < helpers.chunks.length) join(joined++);
  }
  // Every row counted was read, and no other (a damaged b-tree can hand back rows its own count does not see).
  if (i !== total) throw new RangeError(`read ${i} nodes of ${total}`);
  const n = i;
  const nodes: ReadNodes = {
    n,
    sids,
    seqs,
    parents,
    tops,
    computedNode,
    storedSub,
    oddSub,
    mismatch,
    editedIdx,
    batesOf,
    parentIds,
    depths,
    childCounts,
    indexOf: index.get,
    problems,
  };
  return nodes;
}

function verifyAll(db: Database.Database, opts: VerifyOptions, parallel = false): VerifyReport {
  const head = new AuditLog(db).head();
  // Closed whatever happens once started, a read that throws included: helpers wait for work until told.
  let started: VerifyHelpers | null = null;
  try {
    const nodes = readNodes(
      db,
      (maxId, total, guardedBelow) => {
        started =
          parallel && head.seq > 0
            ? VerifyHelpers.start(
                db,
                { seq: head.seq, hash: head.hash.toString('hex') },
                maxId,
                total,
                guardedBelow,
                opts.parallelFrom,
              )
            : null;
        return started;
      },
      opts.onProgress,
    );
    opts.onProgress?.({ read: nodes.n, total: nodes.n, compare: true });
    // Set by the call above (TypeScript does not follow the assignment into the callback).
    const helpers = started as VerifyHelpers | null;
    const claims = helpers?.claims() ?? readClaims(db);
    if (opts.stats && helpers) Object.assign(opts.stats, helpers.stats());
    return verifyRest(db, nodes, claims, helpers, opts.stats);
  } finally {
    (started as VerifyHelpers | null)?.close();
  }
}

function verifyRest(
  db: Database.Database,
  nodes: ReadNodes,
  claims: ChainClaims,
  helpers: VerifyHelpers | null,
  stats?: VerifyStats,
): VerifyReport {
  const { n, mismatch, editedIdx, batesOf } = nodes;
  const lists = childLists(nodes);
  // With helpers, they check every node's subtree hash on its own (verify-hashes.ts, subtreesHold) while this
  // thread compares the rest; the fold, which names what differs, runs only when one does not hold.
  const check =
    helpers && nodes.oddSub.size === 0
      ? helpers.checkSubtrees(nodes.computedNode, nodes.storedSub, lists, n)
      : null;
  const badArchives = badArchiveBodies(db);
  const turns = turnClaimProblems(nodes, claims);
  const all = [
    ...nodes.problems,
    ...structureProblems(nodes),
    ...claims.problems,
    ...turns.problems,
    ...compareClaims(db, claims, archivedRows(db), turns.counts),
    ...compareSources(db, claims),
    ...compareSync(db, claims),
  ];
  // The roots over the stored subtree hashes, while the helpers still check them: they are the computed ones if the
  // check holds, and the roots are taken again over the fold if it does not.
  const rootsOverStored = check ? badSessionRoots(db, nodes, nodes.storedSub) : null;
  const held = check?.finish();
  if (stats) stats.subtrees = held === undefined ? 'none' : held ? 'held' : 'failed';
  const badSessions =
    held && rootsOverStored ? rootsOverStored : badSessionRoots(db, nodes, foldSubtrees(nodes, lists));
  const mismatches = [...mismatch].sort((a, b) => a - b).map(batesOf);
  const problems = all.slice(0, MAX_PROBLEMS);
  if (all.length > MAX_PROBLEMS)
    problems.push({
      kind: 'more',
      id: String(all.length - MAX_PROBLEMS),
      detail: 'more problems, not listed',
    });
  return {
    ok:
      mismatches.length === 0 &&
      badSessions.length === 0 &&
      badArchives.length === 0 &&
      problems.length === 0,
    nodes: n,
    mismatches,
    edited: editedIdx.map(batesOf),
    sessions: badSessions,
    ...(badArchives.length > 0 ? { archives: badArchives } : {}),
    ...(problems.length > 0 ? { problems } : {}),
  };
}
