/**
 * A source's named handle on a session (OpenClaw's sessions.json, Claude compactions) as an arborist session entry,
 * written after the unit's sessions exist (writer.ts, step 5): the current session, new checkpoints, the usage family.
 */
import {
  ArboristError,
  addCheckpoint,
  addUsageFamily,
  getEntry,
  restoreArchives,
  type Shard,
  setEntry,
} from '../store/index.js';
import type { ParsedEntry } from './model.js';

/** A source entry as an arborist entry: its current session, then new checkpoints and usage family members. */
export function writeEntry(
  shard: Shard,
  source: string,
  e: ParsedEntry,
): { changed: boolean; restored: number } {
  const live = (sourceSession: string): string | undefined => {
    const sid = shard.sessionForSource(source, sourceSession);
    return sid !== undefined && shard.getSession(sid) ? sid : undefined;
  };
  const current = live(e.sourceSession);
  if (current === undefined)
    throw new ArboristError('input', `its session ${e.sourceSession} is not imported`);
  // A usage family keeps its predecessors (the seed rule: a session stays referenced while a surviving entry's usage
  // family names it). The source archived the one its reset replaced, and so did the import, before this entry was
  // read: it comes back now that an entry names it.
  const toRestore = e.usageFamilySessions
    .filter((s) => live(s) === undefined)
    .map((s) => shard.sessionForSource(source, s))
    .filter((sid): sid is string => sid !== undefined);
  const restored = toRestore.length > 0 ? restoreArchives(shard, toRestore).length : 0;
  const wrote = shard.write(() => {
    let changed = setEntry(shard, e.key, current).changed;
    const have = new Set(getEntry(shard, e.key)!.compactionCheckpoints.map((c) => c.checkpointId));
    const turnOf = (id: string | undefined) => (id ? shard.turnsBySourceId(source, [id]).get(id) : undefined);
    for (const c of e.compactionCheckpoints) {
      if (have.has(c.checkpointId)) continue;
      const pre = turnOf(c.preCompaction.turnSourceId) ?? live(c.preCompaction.sourceSession);
      const post = turnOf(c.postCompaction.turnSourceId) ?? live(c.postCompaction.sourceSession);
      if (pre === undefined || post === undefined) continue; // a checkpoint on sessions not imported (or archived)
      addCheckpoint(shard, e.key, {
        pre,
        post,
        reason: c.reason,
        checkpointId: c.checkpointId,
        createdAt: c.createdAt,
        ...(c.summary !== undefined ? { summary: c.summary } : {}),
      });
      changed = true;
    }
    for (const s of e.usageFamilySessions) {
      const sid = live(s);
      if (sid !== undefined && addUsageFamily(shard, e.key, sid).changed) changed = true;
    }
    return changed;
  });
  return { changed: wrote, restored };
}
