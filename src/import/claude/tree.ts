/**
 * The tree of lines: each node's parent from parentUuid (logicalParentUuid across a compaction, file order in the
 * oldest unlinked transcripts), then the repairs the format needs (kept messages of a partial compaction put back,
 * cycles cut) so that every later walk up the tree ends.
 */
import type { ImportProblem } from '../model.js';
import { isObj, type Node, show, type UnitFile } from './unit.js';

/** The parent node of each node: parentUuid, or logicalParentUuid on a compaction boundary; file order when
 * a file has no links at all (the oldest transcripts). */
export function linkParents(
  nodes: Node[],
  byUuid: Map<string, number>,
  files: UnitFile[],
  problems: ImportProblem[],
) {
  // parentUuid resolved once: the node index, -1 when null, -2 when not in the unit
  const written = new Int32Array(nodes.length);
  for (let i = 0; i < nodes.length; i++) {
    const p = nodes[i].parentUuid;
    written[i] = p === null ? -1 : (byUuid.get(p) ?? -2);
  }
  const unlinked = files.map((uf) => {
    if (uf.agent) return false;
    let linked = 0;
    let nulls = 0;
    for (let i = uf.start; i < uf.end; i++) {
      const n = nodes[i];
      if (n.side || (n.type !== 'user' && n.type !== 'assistant')) continue;
      if (written[i] === -1) nulls++;
      else if (written[i] >= 0) linked++;
    }
    return linked === 0 && nulls >= 2;
  });
  const prevByFile = files.map(() => -1);
  // the last user or assistant line so far, per file and per chain (main, sidechain)
  const lastTalk = files.map(() => [-1, -1]);
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    const path = files[n.f].rf.path;
    const talk = lastTalk[n.f];
    const before = talk[n.side ? 1 : 0];
    if (n.type === 'user' || n.type === 'assistant') talk[n.side ? 1 : 0] = i;
    const w = written[i];
    if (unlinked[n.f] && !n.side) {
      n.parent = prevByFile[n.f];
      prevByFile[n.f] = i;
      if (w === -2)
        problems.push({
          file: path,
          line: n.line,
          reason: `parent ${show(n.parentUuid!)} is not in this transcript`,
        });
      continue;
    }
    if (w >= 0) n.parent = w;
    else if (w === -2)
      problems.push({
        file: path,
        line: n.line,
        reason: `parent ${show(n.parentUuid!)} is not in this transcript; a root from here`,
      });
    else if (n.logicalParent !== undefined) {
      const p = byUuid.get(n.logicalParent);
      if (p === undefined)
        problems.push({
          file: path,
          line: n.line,
          reason: `compaction's logical parent ${show(n.logicalParent)} is not in this transcript`,
        });
      else n.parent = p;
    } else if (n.boundary && before >= 0) {
      // an older boundary without logicalParentUuid: the format gives no link, so file order does
      n.parent = before;
    }
  }
}

/**
 * A compaction that keeps recent messages (`compactMetadata.preservedSegment`) may write a kept message under the
 * summary (its anchor) although it continues the conversation before the boundary, whose logicalParentUuid names
 * it: followed as written that is a cycle. Such a message is put back after its predecessor in
 * `preservedMessages.uuids`, or after the last message written before the boundary.
 */
export function relinkPreservedSegments(nodes: Node[], byUuid: Map<string, number>) {
  for (let b = 0; b < nodes.length; b++) {
    const B = nodes[b];
    if (!B.boundary) continue;
    const meta = B.compactMeta;
    if (meta === undefined || !isObj(meta.preservedSegment)) continue;
    const seg = meta.preservedSegment;
    const anchor = typeof seg.anchorUuid === 'string' ? seg.anchorUuid : undefined;
    const head = typeof seg.headUuid === 'string' ? seg.headUuid : undefined;
    const listed =
      isObj(meta.preservedMessages) && Array.isArray(meta.preservedMessages.uuids)
        ? meta.preservedMessages.uuids.filter((u): u is string => typeof u === 'string')
        : [];
    const members = new Set<string>(listed);
    if (head) members.add(head);
    if (typeof seg.tailUuid === 'string') members.add(seg.tailUuid);
    for (const m of members) {
      const i = byUuid.get(m);
      if (i === undefined) continue;
      const n = nodes[i];
      if (n.parentUuid === null || (n.parentUuid !== anchor && n.parentUuid !== B.uuid)) continue;
      let pred: number | undefined;
      const k = listed.indexOf(m);
      if (k > 0) pred = byUuid.get(listed[k - 1]);
      if (pred === undefined && m !== head) {
        // the last user or assistant line written before the boundary, in its file
        for (let j = b - 1; j >= 0 && nodes[j].f === B.f; j--) {
          const t = nodes[j].type;
          if (j !== i && nodes[j].side === B.side && (t === 'user' || t === 'assistant')) {
            pred = j;
            break;
          }
        }
      }
      if (pred !== undefined && pred !== i) n.parent = pred;
    }
  }
}

/** Cuts every cycle of parent links once (at a compaction's logical link when the cycle has one). */
export function breakCycles(nodes: Node[], files: UnitFile[], problems: ImportProblem[]) {
  const state = new Uint8Array(nodes.length); // 0 new, 1 on the current walk, 2 done
  const path: number[] = [];
  for (let i = 0; i < nodes.length; i++) {
    if (state[i] !== 0) continue;
    let c = i;
    while (c >= 0 && state[c] === 0) {
      state[c] = 1;
      path.push(c);
      c = nodes[c].parent;
    }
    if (c >= 0 && state[c] === 1) {
      const from = path.lastIndexOf(c);
      let cut = c;
      for (let j = from; j < path.length; j++) {
        const n = nodes[path[j]];
        if (n.boundary && n.parentUuid === null) {
          cut = path[j];
          break;
        }
      }
      const n = nodes[cut];
      n.parent = -1;
      problems.push({
        file: files[n.f].rf.path,
        line: n.line,
        reason: `parent links form a cycle (through ${show(n.uuid)}); cut here`,
      });
    }
    for (const p of path) state[p] = 2;
    path.length = 0;
  }
}
