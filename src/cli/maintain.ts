import {
  ArboristError,
  type ArchivedSession,
  addCheckpoint,
  addUsageFamily,
  type ChangePlan,
  deleteEntry,
  type EntryInfo,
  findArchived,
  type KeptSession,
  listArchives,
  listEntries,
  maintain,
  type PlannedArchive,
  planDelete,
  planReset,
  readArchive,
  requireEntry,
  resetEntry,
  restoreArchives,
  Shard,
  setEntry,
  type TurnNode,
} from '../store/index.js';
import { flag, type Parsed, positiveInt, str } from './args.js';
import type { Command } from './command.js';
import type { Context } from './context.js';
import { oneLine, printJson, stripControls, table, truncate } from './output.js';

/**
 * Entries, reset, delete, the archive tier and retention (docs/sessions.md, "Entries, archiving and retention").
 * `entry` and `archive` are one command each that dispatches on its first word.
 */

const when = (iso: string) => iso.replace('T', ' ').slice(0, 16);
const usage = (u: string) => new ArboristError('usage', `usage: ${u}`);

/** 1536 -> "1.5 KiB". */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = Math.abs(n);
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  const s = i === 0 ? String(v) : v.toFixed(1).replace(/\.0$/, '');
  return `${n < 0 ? '-' : ''}${s} ${units[i]}`;
}

/** "30d", "12h", "90m", "45s", "2w", "500ms" -> milliseconds. */
export function parseDuration(s: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(s.trim());
  const unit: Record<string, number> = { ms: 1, s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 };
  if (!m || Number(m[1]) <= 0) {
    throw new ArboristError('usage', `'${s}' is not a duration (a number and ms, s, m, h, d or w: 30d, 12h)`);
  }
  return Math.round(Number(m[1]) * unit[m[2]]);
}

/** "500M", "2G", "10K", "1.5GiB", "4096" -> bytes (powers of 1024). */
export function parseSize(s: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b)?$/i.exec(s.trim());
  if (!m)
    throw new ArboristError('usage', `'${s}' is not a size (a number, optionally K, M, G or T: 500M, 2G)`);
  const pow = ' kmgt'.indexOf((m[2] || ' ').toLowerCase());
  return Math.round(Number(m[1]) * 1024 ** pow);
}

function one(rest: string[], u: string): string {
  if (rest.length !== 1) throw usage(u);
  return rest[0];
}

/** Refuses options that belong to another sub-command, so a misplaced flag is not silently ignored. */
function only(p: Parsed, all: string[], allowed: string[], sub: string): void {
  for (const name of all) {
    if (!allowed.includes(name) && p.values[name] !== undefined) {
      throw new ArboristError('usage', `${sub} does not take --${name}`);
    }
  }
}

function need(p: Parsed, name: string, u: string): string {
  const v = str(p, name);
  if (v === undefined) throw usage(u);
  return v;
}

// ---- entry ---------------------------------------------------------------------------------------------------

function entryJson(e: EntryInfo) {
  return {
    key: e.key,
    sessionId: e.sessionId,
    compactionCheckpoints: e.compactionCheckpoints,
    usageFamilySessionIds: e.usageFamilySessionIds,
    family: e.family,
    updated_at: e.updated_at,
  };
}

function printEntry(ctx: Context, e: EntryInfo): void {
  const c = ctx.out.color;
  const row = (k: string, v: string) => ctx.out.out(`${c.dim(k.padEnd(12))} ${v}\n`);
  row('key', oneLine(e.key));
  row('session', e.sessionId);
  row('updated', e.updated_at);
  row('family', e.family.join(' ') || '-');
  row('usage family', e.usageFamilySessionIds.join(' ') || '-');
  if (e.compactionCheckpoints.length === 0) row('checkpoints', '-');
  for (const cp of e.compactionCheckpoints) {
    const ref = (r: { sessionId: string; leafId?: string }) => (r.leafId ? r.leafId : r.sessionId);
    row(
      'checkpoint',
      `${cp.checkpointId} ${c.dim(cp.reason)} ${when(cp.createdAt)}  ${ref(cp.preCompaction)} -> ${ref(cp.postCompaction)}`,
    );
    if (cp.summary) row('', truncate(oneLine(cp.summary), 100));
  }
}

const ENTRY_OPTIONS = ['session', 'pre', 'post', 'summary', 'reason', 'add'];
const ENTRY_USAGE =
  'arborist entry set KEY --session SID | entry list | entry show KEY | ' +
  'entry checkpoint KEY --pre SID --post SID [--summary TEXT] [--reason R] | entry usage-family KEY --add SID';

const entryCmd: Command = {
  name: 'entry',
  usage: ENTRY_USAGE,
  summary: 'named handles on sessions: set, list, show, checkpoint, usage-family',
  options: {
    session: { type: 'string' },
    pre: { type: 'string' },
    post: { type: 'string' },
    summary: { type: 'string' },
    reason: { type: 'string' },
    add: { type: 'string' },
  },
  run(p, ctx) {
    const [sub, ...rest] = p.positionals;
    switch (sub) {
      case 'set': {
        const u = 'arborist entry set KEY --session SID';
        only(p, ENTRY_OPTIONS, ['session'], 'entry set');
        const key = one(rest, u);
        const r = setEntry(ctx.writable(), key, need(p, 'session', u));
        if (ctx.out.json)
          printJson(ctx.out, { ...entryJson(r.entry), previous_sid: r.previous_sid, changed: r.changed });
        else if (!r.changed) ctx.out.out(`${oneLine(key)} already points at ${r.entry.sessionId}\n`);
        else
          ctx.out.out(
            `${oneLine(key)} -> ${r.entry.sessionId}${r.previous_sid ? ` (was ${r.previous_sid}, now in its usage family)` : ''}\n`,
          );
        return 0;
      }
      case 'list': {
        only(p, ENTRY_OPTIONS, [], 'entry list');
        if (rest.length > 0) throw usage('arborist entry list');
        const entries = listEntries(ctx.readable());
        if (ctx.out.json) printJson(ctx.out, entries.map(entryJson));
        else if (entries.length === 0)
          ctx.out.out('no entries (create one with `arborist entry set KEY --session SID`)\n');
        else
          ctx.out.out(
            `${table(
              entries.map((e) => [
                truncate(oneLine(e.key), 40),
                e.sessionId,
                String(e.compactionCheckpoints.length),
                String(e.family.length),
                when(e.updated_at),
              ]),
              ['KEY', 'SESSION', 'CHECKPOINTS', 'FAMILY', 'UPDATED'],
            )}\n`,
          );
        return 0;
      }
      case 'show': {
        only(p, ENTRY_OPTIONS, [], 'entry show');
        const e = requireEntry(ctx.readable(), one(rest, 'arborist entry show KEY'));
        if (ctx.out.json) printJson(ctx.out, entryJson(e));
        else printEntry(ctx, e);
        return 0;
      }
      case 'checkpoint': {
        const u = 'arborist entry checkpoint KEY --pre SID --post SID [--summary TEXT] [--reason R]';
        only(p, ENTRY_OPTIONS, ['pre', 'post', 'summary', 'reason'], 'entry checkpoint');
        const key = one(rest, u);
        const r = addCheckpoint(ctx.writable(), key, {
          pre: need(p, 'pre', u),
          post: need(p, 'post', u),
          summary: str(p, 'summary'),
          reason: str(p, 'reason'),
        });
        if (ctx.out.json) printJson(ctx.out, { ...entryJson(r.entry), checkpoint: r.checkpoint });
        else ctx.out.out(`${r.checkpoint.checkpointId}\n`);
        return 0;
      }
      case 'usage-family': {
        const u = 'arborist entry usage-family KEY --add SID';
        only(p, ENTRY_OPTIONS, ['add'], 'entry usage-family');
        const key = one(rest, u);
        const r = addUsageFamily(ctx.writable(), key, need(p, 'add', u));
        if (ctx.out.json) printJson(ctx.out, { ...entryJson(r.entry), changed: r.changed });
        else ctx.out.out(`${oneLine(key)} usage family: ${r.entry.usageFamilySessionIds.join(' ')}\n`);
        return 0;
      }
      default:
        throw usage(ENTRY_USAGE);
    }
  },
};

// ---- reset and delete ----------------------------------------------------------------------------------------

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

function sessionLine(s: { sid: string; label: string | null; n_nodes: number }): string {
  const label = s.label ? `  ${truncate(oneLine(s.label), 30)}` : '';
  return `${s.sid}  ${s.n_nodes} turn${s.n_nodes === 1 ? '' : 's'}${label}`;
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

// ---- archive -------------------------------------------------------------------------------------------------

const ARCHIVE_USAGE = 'arborist archive list | archive show SID | archive restore SID...';

function turnJson(n: TurnNode) {
  const { id: _id, is_top: _top, ...rest } = n;
  return rest;
}

function printArchivedTurns(ctx: Context, nodes: TurnNode[]): void {
  const c = ctx.out.color;
  const local = new Map<string, number>();
  const width = Math.max(40, (process.stdout.columns ?? 100) - 2);
  for (const n of nodes) {
    const d = n.is_top || n.parent_bates === null ? 0 : (local.get(n.parent_bates) ?? -1) + 1;
    local.set(n.bates, d);
    const pad = '  '.repeat(d);
    const room = Math.max(10, width - pad.length - n.bates.length - n.audit.length - 4);
    const from = n.is_top && n.parent_bates ? c.dim(` (under ${n.parent_bates})`) : '';
    ctx.out.out(`${pad}${c.cyan(n.bates)} ${c.dim(n.audit)} ${truncate(oneLine(n.question), room)}${from}\n`);
  }
}

const archiveCmd: Command = {
  name: 'archive',
  usage: ARCHIVE_USAGE,
  summary: 'archived sessions: list, show, restore',
  options: {},
  run(p, ctx) {
    const [sub, ...rest] = p.positionals;
    switch (sub) {
      case 'list': {
        if (rest.length > 0) throw usage('arborist archive list');
        const rows = listArchives(ctx.readable());
        if (ctx.out.json) printJson(ctx.out, rows);
        else if (rows.length === 0) ctx.out.out('no archived sessions\n');
        else
          ctx.out.out(
            `${table(
              rows.map((a) => [
                a.sid,
                truncate(oneLine(a.label ?? ''), 30),
                String(a.n_nodes),
                a.reason,
                when(a.archived_at),
                formatBytes(a.stored_bytes),
              ]),
              ['SID', 'LABEL', 'TURNS', 'REASON', 'ARCHIVED', 'STORED'],
            )}\n`,
          );
        return 0;
      }
      case 'show': {
        const a = readArchive(ctx.readable(), one(rest, 'arborist archive show SID'));
        if (ctx.out.json) {
          printJson(ctx.out, { ...a, nodes: a.nodes.map(turnJson) });
          return 0;
        }
        const c = ctx.out.color;
        const row = (k: string, v: string) => ctx.out.out(`${c.dim(k.padEnd(10))} ${v}\n`);
        row('session', a.sid);
        if (a.label) row('label', stripControls(oneLine(a.label)));
        row('archived', `${a.archived_at} (${a.reason})`);
        for (const w of a.why) row('why', oneLine(w));
        row('turns', String(a.n_nodes));
        row('root', a.session.session_root);
        row('sha256', `${a.sha256} ${a.intact ? c.green('intact') : c.red.bold('DAMAGED')}`);
        ctx.out.out('\n');
        printArchivedTurns(ctx, a.nodes);
        return 0;
      }
      case 'restore': {
        if (rest.length === 0) throw usage('arborist archive restore SID...');
        const r = restoreArchives(ctx.writable(), rest);
        if (ctx.out.json) printJson(ctx.out, { restored: r });
        else
          for (const s of r) {
            ctx.out.out(
              `restored ${sessionLine(s)}: ${s.identical ? 'every hash as archived' : 'hashes recomputed (its surroundings changed)'}\n`,
            );
          }
        return 0;
      }
      default:
        throw usage(ARCHIVE_USAGE);
    }
  },
};

// ---- maintain ------------------------------------------------------------------------------------------------

const maintainCmd: Command = {
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
    if (p.positionals.length > 0) throw usage(this.usage);
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

// ---- find --archived -----------------------------------------------------------------------------------------

/** `arborist find --archived QUERY [--limit N]`: a scan of the archive bodies (see findArchived). */
export function runFindArchived(p: Parsed, ctx: Context): number {
  if (str(p, 'scope') !== undefined || str(p, 'cache-key') !== undefined) {
    throw new ArboristError('usage', '--archived does not combine with --scope or --cache-key');
  }
  if (p.positionals.length === 0) throw usage('arborist find --archived QUERY [--limit N]');
  const hits = findArchived(ctx.readable(), p.positionals.join(' '), {
    limit: positiveInt(p, 'limit', 20, 1000),
  });
  if (ctx.out.json) {
    printJson(
      ctx.out,
      hits.map((h) => ({
        bates: h.bates,
        sid: h.sid,
        audit: h.audit,
        question: h.question,
        snippet: h.snippet,
        archived_at: h.archived_at,
        reason: h.reason,
      })),
    );
    return 0;
  }
  const c = ctx.out.color;
  if (hits.length === 0) ctx.out.out('no archived turns match\n');
  const width = Math.max(40, (process.stdout.columns ?? 100) - 2);
  for (const h of hits) {
    ctx.out.out(
      `[${c.cyan(h.bates)}] ${c.yellow('archived')} ${truncate(oneLine(h.question), width - h.bates.length - 13)}\n`,
    );
    ctx.out.out(`    ${c.dim(truncate(oneLine(h.snippet), width - 4))}\n`);
  }
  return 0;
}

export const MAINTENANCE_COMMANDS: Command[] = [
  entryCmd,
  changeCommand('reset'),
  changeCommand('delete'),
  archiveCmd,
  maintainCmd,
];
