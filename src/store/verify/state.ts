import type Database from 'better-sqlite3';
import { ArboristError } from '../base/errors.js';
import type { ChainClaims, ClaimedSession, Problem } from '../chain/claims.js';
import { cachedStatement } from '../db/statements.js';
import { decodeBody } from '../lifecycle/archive-body.js';
import { equal32 } from '../model/hash.js';
import type { ArchivedNodeRow } from '../model/rows.js';

/**
 * The checks verify makes beyond recomputing hashes (docs/sessions.md, "What verify detects"): the stored structure
 * against itself, and the state against the audit chain's claims (audit/claims.ts, audit/compare.ts).
 */

/** Every node's structure, computed node hash and stored subtree hash, in ascending id order. */
export interface ReadNodes {
  n: number;
  sids: string[];
  seqs: number[];
  /** Index of each node's parent, or -1. */
  parents: Int32Array;
  tops: Uint8Array;
  computedNode: Buffer;
  storedSub: Buffer;
  /** Stored subtree hashes that are not 32-byte blobs: never equal to a computed one. */
  oddSub: Set<number>;
  mismatch: Set<number>;
  editedIdx: number[];
  batesOf: (k: number) => string;
  /** The stored parent id (0 for none), depth and child count of each node: checked against the structure. */
  parentIds: Float64Array;
  depths: Float64Array;
  childCounts: Float64Array;
  /** Internal id to index, over every node read. */
  indexOf: (id: number) => number;
  problems: Problem[];
}

/**
 * The stored structure against itself: every parent exists and comes before its child (a parent cycle cannot),
 * and each node's depth, top flag and child count are what its parents and children say. These are the
 * counters the store trusts when it adds a turn (a wrong child count would make the next add store a wrong hash).
 */
export function structureProblems(nodes: ReadNodes): Problem[] {
  const { n, sids, parents, tops, parentIds, depths, childCounts, indexOf, batesOf } = nodes;
  const out: Problem[] = [];
  const kids = new Int32Array(n);
  for (let k = 0; k < n; k++) if (parents[k] >= 0) kids[parents[k]]++;
  const depth = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const p = parents[k];
    if (parentIds[k] !== 0 && p < 0) {
      out.push({ kind: 'turn', id: batesOf(k), detail: describeBadParent(nodes, k, indexOf) });
      depth[k] = depths[k]; // as stored: one lost parent is one problem, not one more per descendant
      continue;
    }
    depth[k] = p < 0 ? 0 : depth[p] + 1;
    if (depths[k] !== depth[k])
      out.push({
        kind: 'turn',
        id: batesOf(k),
        detail: `its depth says ${depths[k]}, its parents say ${depth[k]}`,
      });
    const top = p < 0 || sids[p] !== sids[k] ? 1 : 0;
    if (tops[k] !== top)
      out.push({
        kind: 'turn',
        id: batesOf(k),
        detail: `its top flag says ${tops[k]}, its parent says ${top}`,
      });
  }
  for (let k = 0; k < n; k++) {
    if (childCounts[k] !== kids[k])
      out.push({
        kind: 'turn',
        id: batesOf(k),
        detail: `its child count says ${childCounts[k]}, it has ${kids[k]}`,
      });
  }
  return out;
}

/** Why a node's stored parent is not a usable parent: missing, or later than the node (a cycle, or a move). */
function describeBadParent(nodes: ReadNodes, k: number, indexOf: (id: number) => number): string {
  const pid = nodes.parentIds[k];
  if (!Number.isFinite(pid)) return 'its parent id is not a number';
  if (indexOf(pid) < 0) return `its parent (internal id ${pid}) is missing`;
  // Follow the stored parent ids; coming back to k within n steps is a cycle.
  let at = k;
  for (let step = 0; step <= nodes.n; step++) {
    const next = indexOf(nodes.parentIds[at]);
    if (nodes.parentIds[at] === 0 || next < 0) break;
    if (next === k) return 'it is its own ancestor: a parent cycle';
    at = next;
  }
  return `its parent (internal id ${pid}) comes after it: a turn moved behind the store's back`;
}

interface SessionTally {
  count: number;
  session: ClaimedSession | undefined;
  seen: Uint8Array | null;
  /** The session's claimed hashes as 32-bit words, when they lie on a 4-byte boundary. */
  hashes32: Int32Array | null;
}

/** A buffer's bytes as 32-bit words (8 a hash), or null when they do not start on a 4-byte boundary. */
function words(b: Uint8Array): Int32Array | null {
  return b.byteOffset % 4 === 0 ? new Int32Array(b.buffer, b.byteOffset, b.length >> 2) : null;
}

/** equal32 over words: a[ai, ai + 8) equals b[bi, bi + 8); a range out of bounds never does. A quarter of the reads. */
function equalWords(a: Int32Array, ai: number, b: Int32Array, bi: number): boolean {
  if (!(ai >= 0 && bi >= 0 && ai + 8 <= a.length && bi + 8 <= b.length)) return false;
  for (let i = 0; i < 8; i++) if (a[ai + i] !== b[bi + i]) return false;
  return true;
}

/** Every live turn against the chain: added by exactly one node.add, with the node hash it recorded, none missing. */
export function turnClaimProblems(
  nodes: ReadNodes,
  claims: ChainClaims,
): { problems: Problem[]; counts: Map<string, number> } {
  const { n, sids, seqs, computedNode, batesOf } = nodes;
  const out: Problem[] = [];
  // One lookup a run of nodes of the same session (this loop runs on verify's thread alone, after the helpers have
  // read every node: it was most of verify's serial tail): the session's count, claims and seqs seen.
  const bySid = new Map<string, SessionTally>();
  const computed32 = words(computedNode);
  let lastSid: unknown = bySid; // no sid is this Map
  let at: SessionTally | undefined;
  for (let k = 0; k < n; k++) {
    const sid = sids[k];
    if (sid !== lastSid || at === undefined) {
      lastSid = sid;
      at = bySid.get(sid);
      if (!at) {
        const session = claims.sessions.get(sid);
        at = { count: 0, session, seen: null, hashes32: session ? words(session.hashes) : null };
        bySid.set(sid, at);
      }
    }
    at.count++;
    const session = at.session;
    const seq = seqs[k];
    // claims.node(sid, seq), without a view and an object a node.
    if (!session || seq < 1 || seq > session.maxSeq || session.addedBy[seq] === 0) {
      out.push({ kind: 'turn', id: batesOf(k), detail: 'no event added this turn' });
      continue;
    }
    at.seen ??= new Uint8Array(session.maxSeq + 1);
    at.seen[seq] = 1;
    const h32 = at.hashes32;
    if (
      !(computed32 && h32
        ? equalWords(computed32, 8 * k, h32, 8 * seq)
        : equal32(computedNode, 32 * k, session.hashes, 32 * seq))
    )
      out.push({
        kind: 'turn',
        id: batesOf(k),
        detail: `its content differs from the node hash event ${session.addedBy[seq]} recorded`,
      });
    if (session.state !== 'live')
      out.push({
        kind: 'turn',
        id: batesOf(k),
        detail: `is live, but its session was archived by event ${session.archiveEvent}`,
      });
  }
  for (const c of claims.sessions.values()) {
    if (c.state !== 'live') continue;
    const mark = bySid.get(c.sid)?.seen;
    for (let seq = 1; seq <= c.maxSeq; seq++) {
      if (c.addedBy[seq] !== 0 && !mark?.[seq])
        out.push({
          kind: 'turn',
          id: `${c.sid}-${String(seq).padStart(6, '0')}`,
          detail: `added by event ${c.addedBy[seq]}, it is missing`,
        });
    }
  }
  const counts = new Map<string, number>();
  for (const [sid, at] of bySid) counts.set(sid, at.count);
  return { problems: out, counts };
}

/** The turns of an archive body whose digest the chain vouched for, or the reason it cannot be read. */
export function archivedRows(db: Database.Database): (sid: string) => ArchivedNodeRow[] | Problem {
  const body = cachedStatement(db, 'SELECT body FROM session_archives WHERE sid = ?', 'pluck');
  return (sid) => {
    try {
      return decodeBody(sid, body.get(sid) as Buffer).nodes;
    } catch (err) {
      if (!(err instanceof ArboristError)) throw err;
      return { kind: 'archive', id: sid, detail: err.message };
    }
  };
}
