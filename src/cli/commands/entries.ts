import {
  addCheckpoint,
  addUsageFamily,
  type CheckpointRef,
  type CompactionCheckpoint,
  type EntryInfo,
  listEntries,
  requireEntry,
  setEntry,
} from '../../store/index.js';
import { need, one, only, type Parsed, str, usageError } from '../args.js';
import type { Command } from '../command.js';
import type { Context } from '../context.js';
import { oneLine, printJson, table, truncate } from '../output.js';
import { when } from './format.js';

/**
 * `arborist entry`: named handles on sessions (docs/sessions.md, "Entries, archiving and retention"). One command
 * that dispatches on its first word.
 */

/**
 * An entry in --json: snake_case and `sid`, as every other --json output (list, show, find, reset). The stored
 * document (entry_json) and the chain's events keep their camelCase; only this output is renamed (docs/sessions.md).
 */
function entryJson(e: EntryInfo) {
  return {
    key: e.key,
    sid: e.sessionId,
    compaction_checkpoints: e.compactionCheckpoints.map(checkpointJson),
    usage_family_sids: e.usageFamilySessionIds,
    family: e.family,
    updated_at: e.updated_at,
  };
}

function refJson(r: CheckpointRef) {
  return { sid: r.sessionId, ...(r.leafId === undefined ? {} : { leaf_bates: r.leafId }) };
}

function checkpointJson(c: CompactionCheckpoint) {
  return {
    checkpoint_id: c.checkpointId,
    reason: c.reason,
    created_at: c.createdAt,
    ...(c.summary === undefined ? {} : { summary: c.summary }),
    pre_compaction: refJson(c.preCompaction),
    post_compaction: refJson(c.postCompaction),
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

function entrySet(p: Parsed, ctx: Context, rest: string[]): number {
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

function entryList(p: Parsed, ctx: Context, rest: string[]): number {
  only(p, ENTRY_OPTIONS, [], 'entry list');
  if (rest.length > 0) throw usageError('arborist entry list');
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

function entryShow(p: Parsed, ctx: Context, rest: string[]): number {
  only(p, ENTRY_OPTIONS, [], 'entry show');
  const e = requireEntry(ctx.readable(), one(rest, 'arborist entry show KEY'));
  if (ctx.out.json) printJson(ctx.out, entryJson(e));
  else printEntry(ctx, e);
  return 0;
}

function entryCheckpoint(p: Parsed, ctx: Context, rest: string[]): number {
  const u = 'arborist entry checkpoint KEY --pre SID --post SID [--summary TEXT] [--reason R]';
  only(p, ENTRY_OPTIONS, ['pre', 'post', 'summary', 'reason'], 'entry checkpoint');
  const key = one(rest, u);
  const r = addCheckpoint(ctx.writable(), key, {
    pre: need(p, 'pre', u),
    post: need(p, 'post', u),
    summary: str(p, 'summary'),
    reason: str(p, 'reason'),
  });
  if (ctx.out.json) printJson(ctx.out, { ...entryJson(r.entry), checkpoint: checkpointJson(r.checkpoint) });
  else ctx.out.out(`${r.checkpoint.checkpointId}\n`);
  return 0;
}

function entryUsageFamily(p: Parsed, ctx: Context, rest: string[]): number {
  const u = 'arborist entry usage-family KEY --add SID';
  only(p, ENTRY_OPTIONS, ['add'], 'entry usage-family');
  const key = one(rest, u);
  const r = addUsageFamily(ctx.writable(), key, need(p, 'add', u));
  if (ctx.out.json) printJson(ctx.out, { ...entryJson(r.entry), changed: r.changed });
  else ctx.out.out(`${oneLine(key)} usage family: ${r.entry.usageFamilySessionIds.join(' ')}\n`);
  return 0;
}

export const entryCmd: Command = {
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
      case 'set':
        return entrySet(p, ctx, rest);
      case 'list':
        return entryList(p, ctx, rest);
      case 'show':
        return entryShow(p, ctx, rest);
      case 'checkpoint':
        return entryCheckpoint(p, ctx, rest);
      case 'usage-family':
        return entryUsageFamily(p, ctx, rest);
      default:
        throw usageError(ENTRY_USAGE);
    }
  },
};
