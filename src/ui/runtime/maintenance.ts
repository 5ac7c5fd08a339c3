/**
 * Entries, and the confirmed reset, delete and restore: each one write transaction with its own audit events
 * (docs/sessions.md "Entries, archiving and retention"). The runtime hands it the maintenance effects.
 */
import {
  type ChangePlan,
  deleteEntry,
  listEntries,
  planDelete,
  planReset,
  resetEntry,
  restoreArchives,
  type Shard,
} from '../../store/index.js';
import type { Action } from '../core/actions.js';
import {
  type ChangeOp,
  type EntryItem,
  type MaintenanceEffect,
  planSignature,
} from '../features/maintenance/model.js';

export class Maintenance {
  constructor(private readonly shard: Shard) {}

  /** The action answering a maintenance effect (a failure is answered by the caller). */
  answer(e: MaintenanceEffect): Action {
    switch (e.type) {
      case 'loadEntries':
        return { type: 'entries', items: this.entries() };
      case 'planChange':
        return { type: 'changePlan', op: e.op, key: e.key, plan: this.plan(e.op, e.key) };
      case 'applyChange': {
        const r = this.apply(e.op, e.key, e.expect);
        if ('stale' in r) return { type: 'changePlan', op: e.op, key: e.key, plan: r.stale, stale: true };
        return { type: 'changeDone', op: e.op, key: e.key, ...r };
      }
      case 'restoreArchive':
        return { type: 'restoreDone', ...this.restore(e.sid) };
    }
  }

  entries(): EntryItem[] {
    return listEntries(this.shard).map((e) => {
      const ses = e.sessionId ? this.shard.getSession(e.sessionId) : undefined;
      return {
        key: e.key,
        sid: e.sessionId,
        label: ses?.label ?? null,
        n_nodes: ses ? ses.n_nodes : null,
        family: e.family.length,
      };
    });
  }

  plan(op: ChangeOp, key: string): ChangePlan {
    return op === 'reset' ? planReset(this.shard, key) : planDelete(this.shard, key);
  }

  /**
   * Carries out a confirmed reset or delete in one write transaction, first checking that the plan is still the
   * one confirmed: when another writer changed what would be archived or kept, nothing is written and the new plan
   * comes back instead.
   */
  apply(
    op: ChangeOp,
    key: string,
    expect: string,
  ): { stale: ChangePlan } | { sid: string | null; archived: string[]; kept: string[] } {
    return this.shard.write(() => {
      const fresh = this.plan(op, key);
      if (planSignature(fresh) !== expect) return { stale: fresh };
      const r = op === 'reset' ? resetEntry(this.shard, key) : deleteEntry(this.shard, key);
      return { sid: r.sid, archived: r.archived.map((a) => a.sid), kept: r.keep.map((k) => k.sid) };
    });
  }

  restore(sid: string): { sids: string[]; n_nodes: number } {
    const r = restoreArchives(this.shard, [sid]);
    return { sids: r.map((x) => x.sid), n_nodes: r.reduce((n, x) => n + x.n_nodes, 0) };
  }
}
