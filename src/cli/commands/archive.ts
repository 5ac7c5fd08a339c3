import { listArchives, readArchive, restoreArchives, type TurnNode } from '../../store/index.js';
import { formatBytes } from '../../text/format.js';
import { one, usageError } from '../args.js';
import type { Command } from '../command.js';
import type { Context } from '../context.js';
import { oneLine, printJson, stripControls, table, truncate } from '../output.js';
import { sessionLine, turnJson, when } from './format.js';
import { originOf } from './read.js';

/** `arborist archive`: the archive tier (docs/sessions.md). One command that dispatches on its first word. */

const ARCHIVE_USAGE = 'arborist archive list | archive show SID | archive restore SID...';

/** The archived turns as a tree; a top turn (one whose parent stayed live) names the turn it hangs under. */
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

function archiveList(ctx: Context, rest: string[]): number {
  if (rest.length > 0) throw usageError('arborist archive list');
  const shard = ctx.readable();
  const rows = listArchives(shard);
  // Which session to restore is told by its agent and title, as in `list`: an imported one has no label (the
  // column was empty for all of them).
  const origins = ctx.out.json ? undefined : shard.sessionOriginsOf(rows.map((a) => a.sid));
  if (ctx.out.json) printJson(ctx.out, rows);
  else if (rows.length === 0) ctx.out.out('no archived sessions\n');
  else
    ctx.out.out(
      `${table(
        rows.map((a) => [
          a.sid,
          originOf(origins?.get(a.sid)).agent,
          truncate(oneLine(a.label ?? originOf(origins?.get(a.sid)).title ?? ''), 40),
          String(a.n_nodes),
          a.reason,
          when(a.archived_at),
          formatBytes(a.stored_bytes),
        ]),
        ['SID', 'AGENT', 'LABEL', 'TURNS', 'REASON', 'ARCHIVED', 'STORED'],
      )}\n`,
    );
  return 0;
}

function archiveShow(ctx: Context, rest: string[]): number {
  const a = readArchive(ctx.readable(), one(rest, 'arborist archive show SID'));
  if (ctx.out.json) {
    printJson(ctx.out, { ...a, nodes: a.nodes.map(turnJson) });
    return 0;
  }
  const c = ctx.out.color;
  const row = (k: string, v: string) => ctx.out.out(`${c.dim(k.padEnd(10))} ${v}\n`);
  row('session', a.sid);
  if (a.label) row('label', stripControls(oneLine(a.label)));
  row('archived', `${when(a.archived_at)} (${a.reason})`);
  for (const w of a.why) row('why', oneLine(w));
  row('turns', String(a.n_nodes));
  row('root', a.session.session_root);
  row('sha256', `${a.sha256} ${a.intact ? c.green('intact') : c.red.bold('DAMAGED')}`);
  ctx.out.out('\n');
  printArchivedTurns(ctx, a.nodes);
  return 0;
}

function archiveRestore(ctx: Context, rest: string[]): number {
  if (rest.length === 0) throw usageError('arborist archive restore SID...');
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

export const archiveCmd: Command = {
  name: 'archive',
  usage: ARCHIVE_USAGE,
  summary: 'archived sessions: list, show, restore',
  options: {},
  run(p, ctx) {
    const [sub, ...rest] = p.positionals;
    switch (sub) {
      case 'list':
        return archiveList(ctx, rest);
      case 'show':
        return archiveShow(ctx, rest);
      case 'restore':
        return archiveRestore(ctx, rest);
      default:
        throw usageError(ARCHIVE_USAGE);
    }
  },
};
