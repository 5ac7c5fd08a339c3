/**
 * A session held by more than one shard (docs/export.md, "A copy stays a copy"; docs/sync.md, "Own and pulled"):
 * whether what a host pushes of it is here already, whether a host says it made it or holds a copy, and whether two
 * hosts push the same turns of it. pull.ts asks these of one host against this shard, run.ts of two hosts' pulls.
 */
import { ArboristError, readArchive, type Shard } from '../store/index.js';
import type { SessionFile } from './layout.js';
import type { PulledTurns } from './turns.js';

type Origin = SessionFile['origin'] | { source: string; source_session: string } | undefined;

/** Whether a session's origin (its source record here, or a host's session file) marks a copy of an export. */
export function isCopyOrigin(o: Origin, sid: string): boolean {
  return o?.source === 'arborist' && o.source_session === sid;
}

/** Whether a host's session file says the host made the session: no copy of an export, nor pulled from another. */
export function madeBy(file: SessionFile): boolean {
  return file.origin === null || (file.origin.source !== 'sync' && !isCopyOrigin(file.origin, file.sid));
}

/**
 * How much of what `turns` holds of session `sid` is here (live, or in its archive): 'all' of it, each turn with the
 * same node hash (none at all: only its session file); 'some', the rest not here; 'differs', a turn here with
 * another node hash (or an archive that cannot be read).
 */
export function heldHere(shard: Shard, turns: PulledTurns, sid: string): 'all' | 'some' | 'differs' {
  let archived: Map<string, string> | undefined;
  let unreadable = false;
  const hashOf = (bates: string): string | undefined => {
    const n = shard.getNode(bates);
    if (n !== undefined || !shard.isArchivedSid(sid)) return n?.node_hash;
    if (archived === undefined) {
      archived = new Map();
      try {
        const a = readArchive(shard, sid);
        if (a.intact) for (const t of a.nodes) archived.set(t.bates, t.node_hash);
        else unreadable = true;
      } catch (e) {
        if (!(e instanceof ArboristError) || e.kind === 'shard' || e.kind === 'busy') throw e;
        unreadable = true;
      }
    }
    return archived.get(bates);
  };
  let all = true;
  const [from, to] = turns.rangeOf(sid);
  for (let i = from; i < to; i++) {
    const h = hashOf(turns.bates(i));
    if (unreadable) return 'differs';
    if (h === undefined) all = false;
    else if (!turns.hashIs(i, h)) return 'differs';
  }
  return all ? 'all' : 'some';
}

/** Whether two hosts' pulls hold the same turns of session `sid`: the same Bates ids, each with the same node hash. */
export function sameTurns(a: PulledTurns, b: PulledTurns, sid: string): boolean {
  const [fromA, toA] = a.rangeOf(sid);
  const [fromB, toB] = b.rangeOf(sid);
  if (toA - fromA !== toB - fromB) return false;
  for (let i = fromB; i < toB; i++) {
    const j = a.indexOf(b.bates(i));
    if (j < 0 || a.hashHex(j) !== b.hashHex(i)) return false;
  }
  return true;
}
