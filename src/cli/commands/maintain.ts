import {
  ArboristError,
  type ArchivedSession,
  type ChangePlan,
  deleteEntry,
  type KeptSession,
  maintain,
  type PlannedArchive,
  planDelete,
  planReset,
  resetEntry,
  Shard,
} from '../../store/index.js';
import { formatBytes } from '../../text/format.js';
import { flag, one, parseDuration, parseSize, str, usageError } from '../args.js';
import type { Command } from '../command.js';
import type { Context } from '../context.js';
import { oneLine, printJson } from '../output.js';
import { sessionLine, when } from './format.js';

/**
 * What moves sessions to the archive tier (docs/sessions.md, "Entries, archiving and retention"): `reset` and
 * `delete` of an entry archive what nothing else references; `maintain` applies the retention rules. Both
 * print the same plan: what is archived, what is kept and why.
 */

function keptJson(k: KeptSession) {
  return { sid: k.sid, label: k.label, n_nodes: k.n_nodes, why: k.why, reasons: k.reasons };
}

function plannedJson(a: PlannedArchive, done?: ArchivedSession) {
  return {
    sid: a.sid,
    label: a.label,
    n_nodes: a.n_nodes,
    bytes: a.bytes,
    last_activity: a.last_activity,
    reason: a.reason,
    why: a.why,
    ...(done ? { sha256: done.sha256, stored_bytes: done.stored_bytes, archived_at: done.archived_at } : {}),
  };
}

function printPlanText(ctx: Context, plan: ChangePlan, dry: boolean): void {
  const c = ctx.out.color;
  const n = plan.archive.length;
  if (n === 0) ctx.out.out(`${dry ? 'would archive' : 'archived'} nothing\n`);
  else ctx.out.out(`${dry ? 'would archive' : 'archived'} ${n} session${n === 1 ? '' : 's'}:\n`);
  for (const a of plan.archive) {
    ctx.out.out(`  ${c.cyan(sessionLine(a))}\n`);
    for (const w of a.why) ctx.out.out(`    ${c.dim(w)}\n`);
  }
  if (plan.keep.length > 0) ctx.out.out(`kept ${plan.keep.length}:\n`);
  for (const k of plan.keep) {
    ctx.out.out(`  ${c.green(sessionLine(k))}\n`);
    for (const w of k.why) ctx.out.out(`    ${c.dim(w)}\n`);
  }
  for (const g of plan.gone)
    ctx.out.out(`  ${g.sid}  ${c.dim(`already ${g.state === 'archived' ? 'archived' : 'gone'}`)}\n`);
}

function changeCommand(action: 'reset' | 'delete'): Command {
  const u = `arborist ${action} KEY [--dry-run]`;
  return {
    name: action,
    usage: u,
    summary:
      action === 'reset'
        ? 'move an entry to a new empty session; archive what nothing else references'
        : 'remove an entry; archive what nothing else references',
    options: { 'dry-run': { type: 'boolean' } },
    run(p, ctx) {
      const key = one(p.positionals, u);
      const dry = flag(p, 'dry-run');
      let plan: ChangePlan;
      let sid: string | null = null;
      let archived: ArchivedSession[] = [];
      if (dry) {
        const shard = ctx.readable();
        plan = action === 'reset' ? planReset(shard, key) : planDelete(shard, key);
      } else {
        const r = action === 'reset' ? resetEntry(ctx.writable(), key) : deleteEntry(ctx.writable(), key);
        plan = r;
        sid = r.sid;
        archived = r.archived;
      }
      if (ctx.out.json) {
        const done = new Map(archived.map((a) => [a.sid, a]));
        printJson(ctx.out, {
          action,
          key,
          dry_run: dry,
          previous_sid: plan.previous_sid,
          sid,
          family: plan.family,
          archived: plan.archive.map((a) => plannedJson(a, done.get(a.sid))),
          kept: plan.keep.map(keptJson),
          gone: plan.gone,
        });
        return 0;
      }
      const k = oneLine(key);
      if (action === 'reset') {
        ctx.out.out(
          dry
            ? `reset ${k} would move it from ${plan.previous_sid} to a new empty session\n`
            : `reset ${k}: now session ${sid} (was ${plan.previous_sid})\n`,
        );
      } else ctx.out.out(dry ? `delete ${k} would remove the entry\n` : `deleted entry ${k}\n`);
      printPlanText(ctx, plan, dry);
      return 0;
    },
  };
}

export const resetCmd = changeCommand('reset');
export const deleteCmd = changeCommand('delete');

export const maintainCmd: Command = {
  name: 'maintain',
  usage: 'arborist maintain [--older-than 30d] [--max-sessions N] [--max-bytes SIZE] [--apply]',
  summary: 'retention: preview (or --apply) archiving old, unreferenced sessions',
  options: {
    'older-than': { type: 'string' },
    'max-sessions': { type: 'string' },
    'max-bytes': { type: 'string' },
    apply: { type: 'boolean' },
  },
  run(p, ctx) {
    if (p.positionals.length > 0) throw usageError(this.usage);
    const older = str(p, 'older-than');
    const maxS = str(p, 'max-sessions');
    const maxB = str(p, 'max-bytes');
    if (maxS !== undefined && !/^\d+$/.test(maxS)) {
      throw new ArboristError('usage', '--max-sessions takes a whole number (0 or more)');
    }
    const opts = {
      olderThanMs: older === undefined ? undefined : parseDuration(older),
      maxSessions: maxS === undefined ? undefined : Number(maxS),
      maxBytes: maxB === undefined ? undefined : parseSize(maxB),
    };
    const apply = flag(p, 'apply');
    // A preview opens the shard read-only: no migration, no checkpoint, not one byte written.
    const shard = apply ? ctx.writable() : Shard.open(ctx.dbPath, { readonly: true });
    try {
      const r = maintain(shard, { ...opts, apply });
      if (ctx.out.json) {
        const done = new Map(r.archived.map((a) => [a.sid, a]));
        printJson(ctx.out, {
          applied: r.applied,
          criteria: r.criteria,
          now: r.now,
          live: r.live,
          archive: r.archive.map((a) => plannedJson(a, done.get(a.sid))),
          kept: r.kept.map(keptJson),
          estimated_bytes: r.estimated_bytes,
          freed_bytes: r.freed_bytes,
          after: r.after,
        });
        return 0;
      }
      const c = ctx.out.color;
      ctx.out.out(
        `live: ${r.live.sessions} session${r.live.sessions === 1 ? '' : 's'}, ${formatBytes(r.live.bytes)} of turns (estimated)\n`,
      );
      if (opts.olderThanMs === undefined && opts.maxSessions === undefined && opts.maxBytes === undefined) {
        ctx.out.out('no retention rule given: use --older-than, --max-sessions or --max-bytes\n');
        return 0;
      }
      const n = r.archive.length;
      const verb = r.applied ? 'archived' : 'would archive';
      ctx.out.out(
        n === 0
          ? `${verb} nothing\n`
          : `${verb} ${n} session${n === 1 ? '' : 's'} (${formatBytes(r.estimated_bytes)} of turns, estimated):\n`,
      );
      for (const a of r.archive) {
        ctx.out.out(`  ${c.cyan(sessionLine(a))}  ${c.dim(`last active ${when(a.last_activity)}`)}\n`);
        for (const w of a.why) ctx.out.out(`    ${c.dim(w)}\n`);
      }
      if (r.kept.length > 0) ctx.out.out(`kept ${r.kept.length} (referenced):\n`);
      for (const k of r.kept) {
        ctx.out.out(`  ${c.green(sessionLine(k))}\n`);
        for (const w of k.why) ctx.out.out(`    ${c.dim(w)}\n`);
      }
      if (r.applied) ctx.out.out(`freed ${formatBytes(r.freed_bytes ?? 0)} of pages in the shard\n`);
      else if (n > 0) ctx.out.out('nothing changed; run again with --apply to archive them\n');
      return 0;
    } finally {
      if (!apply) shard.close();
    }
  },
};
