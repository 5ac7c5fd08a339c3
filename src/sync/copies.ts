/**
 * A session held by more than one shard (docs/export.md, "A copy stays a copy"; docs/sync.md, "Own and pulled"):
 * whether what a host pushes of it is here already, whether a host says it made it or holds a copy, and whether two
 * hosts push the same turns of it. pull.ts asks these of one host against this shard; settleSharedSessions settles
 * what several hosts' pulls of one sync push alike.
 */
import { ArboristError, readArchive, type SessionSource, type Shard } from '../store/index.js';
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

/** Whose a session held here is, as the line that holds it back says (`which here is ...`): its source here. */
export function whoseHere(o: SessionSource | undefined, sid: string): string {
  if (o?.source === 'sync') return `host ${String(o.info.host)}'s`;
  return isCopyOrigin(o, sid) ? 'a copy imported from an arborist export' : "this host's own";
}

/** The line that says a session of a host's branch was held back, and why (`which here is ...`). */
export function heldBackLine(host: string, sid: string, why: string): string {
  return `host ${host} pushes session ${sid}, ${why}: that session is held back, the rest of ${host} imported`;
}

/** What settleSharedSessions reads and changes of a host's plan (pull.ts, HostPlan). */
interface SharingPlan {
  host: string;
  turns: PulledTurns;
  sessions: Map<string, SessionFile>;
  heldBack: string[];
  problems: string[];
}

/**
 * The sessions several hosts' plans of one sync push. A session is one host's: two branches that both push it have
 * it held back both (which one made it is not knowable), the rest of each imported. Unless they push the same turns
 * of it, exactly, and one says it holds a copy of an export (pull.ts, step 4): the copy gives way, to the host that
 * made the session if it is here, else to the first copy. Two that both say they made it still clash: only one did,
 * and a branch that copies another's session turn for turn can only have seen it pushed, so it must not win by its
 * host id sorting first (docs/sync.md, "First come").
 */
export function settleSharedSessions(plans: readonly SharingPlan[]): void {
  const claimedBy = new Map<string, SharingPlan>();
  const clash = new Set<string>();
  const givesWay = new Map<SharingPlan, Set<string>>();
  const giveWay = (p: SharingPlan, sid: string) => {
    const set = givesWay.get(p) ?? new Set<string>();
    set.add(sid);
    givesWay.set(p, set);
  };
  for (const p of plans)
    for (const sid of new Set([...p.sessions.keys(), ...p.turns.sids])) {
      const other = claimedBy.get(sid);
      if (other === undefined || other === p) claimedBy.set(sid, p);
      else if (!sameTurns(other.turns, p.turns, sid)) clash.add(sid);
      else if (isCopyOrigin(p.sessions.get(sid)?.origin, sid)) giveWay(p, sid);
      else if (isCopyOrigin(other.sessions.get(sid)?.origin, sid)) {
        giveWay(other, sid);
        claimedBy.set(sid, p);
      } else clash.add(sid);
    }
  for (const [p, same] of givesWay) {
    p.turns = p.turns.without(same);
    for (const sid of same) p.sessions.delete(sid);
  }
  for (const p of plans) {
    const mine = [...clash].filter((sid) => p.sessions.has(sid) || p.turns.hasSid(sid));
    if (mine.length === 0) continue;
    for (const sid of mine) {
      p.heldBack.push(sid);
      p.problems.push(heldBackLine(p.host, sid, 'which another host pushes too'));
      p.sessions.delete(sid);
    }
    p.turns = p.turns.without(new Set(mine));
  }
}
