import { hashes, parseBates } from '../../store/index.js';
import type { CheckedTurn, DocSession, OutsideChild, RejectedTurn } from './document.js';

/**
 * The hashes above the node hashes in an export document (docs/export.md, "Checks"): each kept turn's subtree_hash
 * against its children's, and a whole session's root against its top turns'. The shape of each field is checked
 * first (document.ts); a forger who edits a turn and recomputes its node_hash is caught here.
 */

/** A child as its parent's subtree hash takes it: its place (sid as bytes, then seq) and its subtree hash. */
interface ChildHash {
  sid: string;
  seq: number;
  hash: string;
}

function bySidSeq(a: ChildHash, b: ChildHash): number {
  return a.sid < b.sid ? -1 : a.sid > b.sid ? 1 : a.seq - b.seq;
}

/** Why a kept turn's subtree hash is refused: it does not match, or a child of it cannot be known. */
export type SubtreeFault = 'mismatch' | 'unattested';

/**
 * The kept turns whose declared subtree_hash is not H(0x01 || node_hash || the declared subtree hashes of all its
 * children, by (sid, seq)) (docs/sessions.md), each with why. A turn is checked when the document accounts for
 * every child: those it holds, and `outside_children` for the rest; an older export without that list only when it
 * is a subtree export (which holds everything under its top turn): the caller says so. A child too malformed to
 * have a place and a subtree hash leaves its parent `unattested`: refused like a mismatch, or a junk turn naming a
 * parent would spare that parent its check. Checking each level against the declared hashes of the level below
 * checks, by induction, every subtree the document holds whole.
 */
export function subtreeFaults(
  kept: ReadonlyMap<string, CheckedTurn>,
  rejected: ReadonlyMap<string, RejectedTurn>,
  outside: readonly OutsideChild[],
): { turn: CheckedTurn; fault: SubtreeFault }[] {
  const kids = new Map<string, ChildHash[]>();
  const unknown = new Set<string>();
  const add = (parent: string, child: ChildHash) => {
    const list = kids.get(parent);
    if (list) list.push(child);
    else kids.set(parent, [child]);
  };
  for (const { turn: t } of kept.values())
    if (t.parent_bates !== null) add(t.parent_bates, { sid: t.sid, seq: t.seq, hash: t.subtree_hash });
  for (const r of rejected.values()) {
    if (typeof r.parent_bates !== 'string') continue;
    if (r.sid !== undefined && r.seq !== undefined && r.subtree_hash !== undefined)
      add(r.parent_bates, { sid: r.sid, seq: r.seq, hash: r.subtree_hash });
    else unknown.add(r.parent_bates);
  }
  for (const o of outside) {
    const id = parseBates(o.bates);
    if (id) add(o.parent_bates, { sid: id.sid, seq: id.seq, hash: o.subtree_hash });
    else unknown.add(o.parent_bates);
  }
  const out: { turn: CheckedTurn; fault: SubtreeFault }[] = [];
  for (const c of kept.values()) {
    if (unknown.has(c.turn.bates)) {
      out.push({ turn: c, fault: 'unattested' });
      continue;
    }
    const children = (kids.get(c.turn.bates) ?? []).sort(bySidSeq);
    const h = hashes.subtreeHash(
      Buffer.from(c.turn.node_hash, 'hex'),
      children.map((k) => Buffer.from(k.hash, 'hex')),
    );
    if (h.toString('hex') !== c.turn.subtree_hash) out.push({ turn: c, fault: 'mismatch' });
  }
  return out;
}

/**
 * Whether a session's declared session_root is H(0x02 || sid || 0x00 || its top turns' subtree hashes, by seq),
 * from the session's turns in the document (kept or rejected): undefined when that cannot be told (a turn too
 * malformed to tell whether it is a top turn, or a top turn without its seq or subtree hash), which the caller
 * must treat as unattested, never as a pass. A turn under another turn of its session is not needed here: its
 * parent's subtree hash covers it. Only asked of a session whose every turn the document holds (a session
 * export's own).
 */
export function rootMatches(
  s: DocSession,
  kept: ReadonlyMap<string, CheckedTurn>,
  rejected: ReadonlyMap<string, RejectedTurn>,
): boolean | undefined {
  const tops: { seq: number; hash: string }[] = [];
  const isTop = (sid: string, parent: string | null) => parent === null || parseBates(parent)?.sid !== sid;
  for (const { turn: t } of kept.values())
    if (t.sid === s.sid && isTop(t.sid, t.parent_bates)) tops.push({ seq: t.seq, hash: t.subtree_hash });
  for (const r of rejected.values()) {
    if ((r.sid ?? (r.bates === undefined ? undefined : parseBates(r.bates)?.sid)) !== s.sid) continue;
    if (r.parent_bates === undefined) return undefined;
    if (!isTop(s.sid, r.parent_bates)) continue;
    if (r.seq === undefined || r.subtree_hash === undefined) return undefined;
    tops.push({ seq: r.seq, hash: r.subtree_hash });
  }
  tops.sort((a, b) => a.seq - b.seq);
  const root = hashes.sessionRoot(
    s.sid,
    tops.map((t) => Buffer.from(t.hash, 'hex')),
  );
  return root.toString('hex') === s.session_root;
}
