import type Database from 'better-sqlite3';
import { type Problem, readClaims } from './audit/claims.js';
import { compareClaims } from './audit/compare.js';
import { compareSources } from './audit/compare-sources.js';
import { CANON_SQL } from './canon-sql.js';
import { cachedStatement } from './db/statements.js';
import { damaged } from './errors.js';
import { equal32, nodeHash, sessionRoot, sha256, sha256Into } from './hash.js';
import { NODE_COLUMNS, type NodeRow } from './rows.js';
import { archivedRows, type ReadNodes, structureProblems, turnClaimProblems } from './verify-state.js';

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
  FROM nodes n LEFT JOIN node_subtree h ON h.id = n.id LEFT JOIN nodes p ON p.id = n.parent_id AND p.id < n.id
  WHERE n.id > ? AND n.id <= ? ORDER BY n.id`;

const PAGE = 1000;

/** How many threads verify hashes and reads with (bench/chain.ts measures its ceiling on as many). */
export function verifyThreads(_nodes: number): { hash: number; read: number } {
  return { hash: 1, read: 1 };
}

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
export function verifyShard(db: Database.Database): VerifyReport {
  // One read transaction: every statement below sees the same snapshot, even while another process writes.
  try {
    return db.inTransaction ? verifyAll(db) : db.transaction(() => verifyAll(db))();
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
  maxId: number,
  total: number,
): { get: (id: number) => number; set: (id: number, i: number) => void } {
  if (Number.isSafeInteger(maxId) && maxId <= 4 * total + 65536) {
    const a = new Int32Array(maxId + 1).fill(-1);
    return {
      get: (id) => (id >= 0 && id <= maxId ? a[id] : -1),
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
function readNodes(db: Database.Database): ReadNodes {
  const maxId = (cachedStatement(db, 'SELECT coalesce(max(id), 0) FROM nodes', 'pluck').get() as number) ?? 0;
  const total = cachedStatement(db, 'SELECT count(*) FROM nodes', 'pluck').get() as number;
  const index = idIndex(maxId, total);
  const ids = new Float64Array(total);
  const parentIds = new Float64Array(total);
  const depths = new Float64Array(total);
  const childCounts = new Float64Array(total);
  const problems: Problem[] = [];
  const sids: string[] = new Array(total);
  const seqs: number[] = new Array(total);
  const parents = new Int32Array(total);
  const tops = new Uint8Array(total);
  const computedNode = Buffer.alloc(32 * total);
  const storedSub = Buffer.alloc(32 * total);
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

  const pageStmt = cachedStatement(
    db,
    `SELECT count(*), group_concat(n.id), group_concat(coalesce(n.parent_id, 0)), group_concat(n.sid),
         group_concat(n.seq), group_concat(n.is_top, ''), group_concat(n.depth), group_concat(n.n_children),
         sum(typeof(n.sid) <> 'text' OR instr(n.sid, ',') > 0 OR typeof(n.seq) <> 'integer'
             OR typeof(n.depth) <> 'integer' OR typeof(n.n_children) <> 'integer'
             OR typeof(n.bates) <> 'text' OR n.bates <> n.sid || '-' || printf('%06d', n.seq)
             OR typeof(n.is_top) <> 'integer' OR n.is_top NOT IN (0, 1)
             OR (n.parent_id IS NOT NULL AND typeof(n.parent_id) <> 'integer')
             OR typeof(n.node_hash) <> 'blob' OR length(n.node_hash) <> 32
             OR typeof(h.subtree_hash) <> 'blob' OR length(h.subtree_hash) <> 32),
         CAST(group_concat(${CANON_SQL}, '') AS BLOB),
         CAST(group_concat(n.node_hash, '') AS BLOB), CAST(group_concat(h.subtree_hash, '') AS BLOB)
       FROM nodes n LEFT JOIN nodes p ON p.id = n.parent_id AND p.id < n.id LEFT JOIN node_subtree h ON h.id = n.id
       WHERE n.id > ? AND n.id <= ?`,
    'raw',
  );
  const rowsStmt = cachedStatement(db, EXACT_ROWS);
  const batesStmt = cachedStatement(db, 'SELECT bates FROM nodes WHERE id = ?', 'pluck');
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
  };

  const bounds = new Int32Array(PAGE + 1);
  const nextId = cachedStatement(db, 'SELECT min(id) FROM nodes WHERE id > ?', 'pluck');
  for (let lo = 0, hi = PAGE; lo < maxId; lo = hi, hi = lo + PAGE) {
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
      canonBlob,
      nodeBlob,
      subBlob,
    ] = pageStmt.get(lo, hi) as [
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
      Buffer,
      Buffer,
    ];
    if (n === 0) {
      // A gap in the ids (ids are never reused, but may have been edited): jump to the next one.
      const next = nextId.get(hi) as number | null;
      if (next === null) break;
      hi = next - 1;
      continue;
    }
    const cut = canonBlob !== null && odd === 0 && cutCanonical(canonBlob, n, bounds);
    const idParts = idList?.split(',') ?? [];
    const sidParts = sidList.split(',');
    if (!cut || canonBlob === null || idParts.length !== n || sidParts.length !== n || topList.length !== n) {
      exactPage(lo, hi);
      continue;
    }
    const parentParts = parentList.split(',');
    const seqParts = seqList.split(',');
    const depthParts = depthList.split(',');
    const kidParts = kidList.split(',');
    for (let k = 0; k < n; k++) {
      const id = Number(idParts[k]);
      const parentId = Number(parentParts[k]);
      const parentIdx = parentId === 0 ? parentIndex(null) : parentIndex(parentId);
      index.set(id, i);
      ids[i] = id;
      parentIds[i] = parentId;
      depths[i] = Number(depthParts[k]);
      childCounts[i] = Number(kidParts[k]);
      sids[i] = intern(sidParts[k]);
      seqs[i] = Number(seqParts[k]);
      parents[i] = parentIdx;
      tops[i] = topList.charCodeAt(k) === 49 ? 1 : 0;
      subBlob.copy(storedSub, 32 * i, 32 * k, 32 * k + 32);
      sha256Into(canonBlob.subarray(bounds[k], bounds[k + 1]), computedNode, 32 * i);
      if (!equal32(computedNode, 32 * i, nodeBlob, 32 * k)) {
        // Not vouched for: the exact path decides.
        const r = rowsStmt.get(id - 1, id) as NodeRow | undefined;
        // A row the page listed but a lookup cannot find: a damaged index (bit flips do this). Not vouched for.
        const nh = r ? exactNodeHash(r, parentIdx) : Buffer.alloc(32);
        nh.copy(computedNode, 32 * i);
        if (!r || !equal32(computedNode, 32 * i, nodeBlob, 32 * k)) {
          mismatch.add(i);
          editedIdx.push(i);
        }
      }
      i++;
    }
  }
  const n = i;
  return {
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
}

/** The canonical contents' cuts at their 0x00 prefixes (canonical JSON never holds a raw 0x00 byte), or false. */
function cutCanonical(canonBlob: Buffer, n: number, bounds: Int32Array): boolean {
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

/** Computed subtree hashes, bottom-up by index (descending id); a node whose stored one differs joins `mismatch`. */
function foldSubtrees(nodes: ReadNodes): Buffer {
  const { n, sids, seqs, parents, computedNode, storedSub, oddSub, mismatch } = nodes;

  // Children of each node (compressed lists), in (sid, seq) order. Most nodes have zero or one child.
  const childStart = new Int32Array(n + 1);
  for (let c = 0; c < n; c++) if (parents[c] >= 0) childStart[parents[c] + 1]++;
  let maxKids = 0;
  for (let k = 0; k < n; k++) {
    maxKids = Math.max(maxKids, childStart[k + 1]);
    childStart[k + 1] += childStart[k];
  }
  const childList = new Int32Array(childStart[n]);
  const fill = childStart.slice(0, n);
  for (let c = 0; c < n; c++) if (parents[c] >= 0) childList[fill[parents[c]]++] = c;
  const bySidSeq = (a: number, b: number) =>
    sids[a] < sids[b] ? -1 : sids[a] > sids[b] ? 1 : seqs[a] - seqs[b];

  // subtree_hash = H(0x01 || node_hash || subtree_hash(child)...), assembled in one scratch buffer.
  const computedSub = Buffer.alloc(32 * n);
  const scratch = Buffer.alloc(33 + 32 * maxKids);
  scratch[0] = 0x01;
  for (let k = n - 1; k >= 0; k--) {
    const from = childStart[k];
    const to = childStart[k + 1];
    if (to - from > 1) {
      const sorted = Array.from(childList.subarray(from, to)).sort(bySidSeq);
      childList.set(sorted, from);
    }
    computedNode.copy(scratch, 1, 32 * k, 32 * k + 32);
    for (let j = from; j < to; j++)
      computedSub.copy(scratch, 33 + 32 * (j - from), 32 * childList[j], 32 * childList[j] + 32);
    sha256Into(scratch.subarray(0, 33 + 32 * (to - from)), computedSub, 32 * k);
    if (oddSub.has(k) || !equal32(computedSub, 32 * k, storedSub, 32 * k)) mismatch.add(k);
  }

  return computedSub;
}

/** Sessions whose stored root differs from the one over their top nodes' computed subtree hashes, by seq. */
function badSessionRoots(db: Database.Database, nodes: ReadNodes, computedSub: Buffer): string[] {
  const { n, sids, seqs, tops } = nodes;
  // Session roots over each session's top nodes, by seq.
  const topsBySid = new Map<string, number[]>();
  for (let k = 0; k < n; k++) {
    if (!tops[k]) continue;
    const list = topsBySid.get(sids[k]);
    if (list) list.push(k);
    else topsBySid.set(sids[k], [k]);
  }
  const badSessions: string[] = [];
  for (const [sid, stored] of cachedStatement(
    db,
    'SELECT sid, session_root FROM sessions ORDER BY sid',
    'raw',
  ).iterate() as IterableIterator<[string, Buffer]>) {
    const list = (topsBySid.get(sid) ?? []).sort((a, b) => seqs[a] - seqs[b]);
    if (
      !sessionRoot(
        sid,
        list.map((k) => computedSub.subarray(32 * k, 32 * k + 32)),
      ).equals(stored)
    )
      badSessions.push(sid);
  }

  return badSessions;
}

/** Archive records (docs/sessions.md, "Entries, archiving and retention") whose body no longer hashes to its sha256. */
function badArchiveBodies(db: Database.Database): string[] {
  const badArchives: string[] = [];
  if (
    cachedStatement(db, "SELECT 1 FROM sqlite_master WHERE name = 'session_archives'").get() !== undefined
  ) {
    for (const [sid, body, digest] of cachedStatement(
      db,
      'SELECT sid, body, sha256 FROM session_archives ORDER BY sid',
      'raw',
    ).iterate() as IterableIterator<[string, Buffer, Buffer]>) {
      if (!sha256(body).equals(digest)) badArchives.push(sid);
    }
  }

  return badArchives;
}

function verifyAll(db: Database.Database): VerifyReport {
  const nodes = readNodes(db);
  const { n, mismatch, editedIdx, batesOf } = nodes;
  const computedSub = foldSubtrees(nodes);
  const badSessions = badSessionRoots(db, nodes, computedSub);
  const badArchives = badArchiveBodies(db);
  const mismatches = [...mismatch].sort((a, b) => a - b).map(batesOf);
  const claims = readClaims(db);
  const turns = turnClaimProblems(nodes, claims);
  const all = [
    ...nodes.problems,
    ...structureProblems(nodes),
    ...claims.problems,
    ...turns.problems,
    ...compareClaims(db, claims, archivedRows(db), turns.counts),
    ...compareSources(db, claims),
  ];
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
