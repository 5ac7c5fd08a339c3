import { ArboristError } from '../../store/index.js';
import { addRemote, checkRemoteName, listRemotes, removeRemote } from '../../sync/mirror.js';
import { type SyncReport, syncRemote } from '../../sync/run.js';
import type { Progress } from '../../sync/types.js';
import { redactedUrl } from '../../sync/url.js';
import { flag, usageError } from '../args.js';
import type { Command } from '../command.js';
import type { Context } from '../context.js';
import { oneLine, printJson, table, truncate } from '../output.js';

/** `arborist sync`: this host's turns to a git remote and every other host's back (docs/sync.md). */

const USAGE =
  'arborist sync [NAME] [--dry-run] [--progress-json] | sync remote add NAME URL | sync remote list | sync remote remove NAME';

const n = (x: number) => x.toLocaleString('en-US');
/** Problems listed on a terminal; --json lists them all. */
const SHOWN_PROBLEMS = 20;

/**
 * Progress on stderr: `--progress-json` writes one JSON line per step ({"phase","done","total"}: the TUI runs
 * `arborist sync --progress-json --json` as a child and reads them); else a line that rewrites itself on a terminal.
 */
function progressOf(ctx: Context, json: boolean): ((p: Progress) => void) | undefined {
  if (json)
    return (p) =>
      process.stderr.write(`${JSON.stringify({ phase: p.phase, done: p.done, total: p.total })}\n`);
  if (ctx.out.json || process.stderr.isTTY !== true) return undefined;
  let last = 0;
  return (p) => {
    const now = performance.now();
    if (p.done !== p.total && now - last < 100) return;
    last = now;
    const bar = 20;
    const filled = p.total === 0 ? bar : Math.round((bar * p.done) / p.total);
    process.stderr.write(
      `\r\x1b[2K${p.phase} [${'#'.repeat(filled)}${'.'.repeat(bar - filled)}] ${n(p.done)}/${n(p.total)}`,
    );
  };
}

function summaryLine(r: SyncReport): string {
  const from = r.pulled.hosts.filter((h) => h.turns > 0).length;
  const verb = r.dry_run ? ['would push', 'would pull'] : ['pushed', 'pulled'];
  const turns = (k: number) => `${n(k)} ${k === 1 ? 'turn' : 'turns'}`;
  return `${r.remote}: ${verb[0]} ${turns(r.pushed.turns)}, ${verb[1]} ${turns(r.pulled.turns)} from ${n(from)} ${from === 1 ? 'host' : 'hosts'}`;
}

async function runSync(p: Parameters<Command['run']>[0], ctx: Context, names: string[]): Promise<number> {
  const dryRun = flag(p, 'dry-run');
  const remotes = await listRemotes(ctx.dbPath);
  for (const name of names) checkRemoteName(name);
  const chosen = names.length > 0 ? names : remotes.map((r) => r.name);
  // not_found (exit 2 as every refusal): the browser's `S` tells this one, sync not set up, from a failure.
  if (chosen.length === 0)
    throw new ArboristError(
      'not_found',
      'no sync remote yet: add one with `arborist sync remote add NAME URL`',
    );
  // A dry run never creates a shard (a missing one is said, as for every read).
  const shard = dryRun ? ctx.readable() : ctx.writable();
  const onProgress = progressOf(ctx, flag(p, 'progress-json'));
  const reports: SyncReport[] = [];
  // Every remote (no NAME) is synced even when one cannot be reached (git's 'input' errors): stopping at it left
  // the remotes after it in name order unsynced, unsaid. The failures are said after the others' lines; exit 2.
  const failed: { remote: string; error: ArboristError }[] = [];
  for (const name of chosen) {
    try {
      reports.push(await syncRemote(shard, ctx.dbPath, name, { dryRun, onProgress }));
    } catch (err) {
      if (names.length > 0 || !(err instanceof ArboristError) || err.kind !== 'input') throw err;
      failed.push({ remote: name, error: err });
    }
  }
  if (onProgress && !flag(p, 'progress-json')) process.stderr.write('\r\x1b[2K');
  // A host refused, or a session of one held back: not everything it pushed is here.
  const refused = reports.some((r) =>
    r.pulled.hosts.some((h) => h.status === 'refused' || h.status === 'partial'),
  );
  // `summary`: the lines a terminal shows, joined; the browser's `S` shows it in its status bar.
  if (ctx.out.json) {
    printJson(ctx.out, {
      ok: !refused && failed.length === 0,
      summary: reports.map(summaryLine).join('; '),
      remotes: reports,
      ...(failed.length > 0
        ? { failed: failed.map((f) => ({ remote: f.remote, error: f.error.message })) }
        : {}),
    });
    // stderr as without --json: the browser's `S` shows a failed sync's lines from there (docs/sync.md).
    for (const f of failed) ctx.out.err(`arborist: ${oneLine(f.error.message)}\n`);
    if (failed.length > 0) return 2;
  } else
    for (const r of reports) {
      ctx.out.out(`${summaryLine(r)}\n`);
      for (const h of r.pulled.hosts)
        for (const why of h.problems)
          ctx.out.err(
            `${h.status === 'refused' ? ctx.out.color.red('refused') : ctx.out.color.yellow('held back')} ${truncate(oneLine(why), 300)}\n`,
          );
      for (const why of r.problems.slice(0, SHOWN_PROBLEMS)) ctx.out.err(`${truncate(oneLine(why), 300)}\n`);
      if (r.problems.length > SHOWN_PROBLEMS)
        ctx.out.err(`… ${n(r.problems.length - SHOWN_PROBLEMS)} more (--json lists them all)\n`);
    }
  if (failed.length > 0) {
    for (const f of failed.slice(0, -1)) ctx.out.err(`arborist: ${oneLine(f.error.message)}\n`);
    throw failed[failed.length - 1].error;
  }
  // A host refused (or a session of one held back) is a check that found damage: exit 1, as the checks do.
  return refused ? 1 : 0;
}

async function remoteCmd(ctx: Context, rest: string[]): Promise<number> {
  const [sub, ...args] = rest;
  if (sub === 'add' && args.length === 2) {
    await addRemote(ctx.dbPath, args[0], args[1]);
    if (ctx.out.json) printJson(ctx.out, { added: args[0] });
    else ctx.out.out(`added sync remote ${args[0]}\n`);
    return 0;
  }
  if (sub === 'remove' && args.length === 1) {
    await removeRemote(ctx.dbPath, args[0]);
    if (ctx.out.json) printJson(ctx.out, { removed: args[0] });
    else ctx.out.out(`removed sync remote ${args[0]}\n`);
    return 0;
  }
  if (sub === 'list' && args.length === 0) {
    const list = await listRemotes(ctx.dbPath);
    if (ctx.out.json)
      printJson(
        ctx.out,
        list.map((r) => ({ ...r, url: redactedUrl(r.url) })),
      );
    else if (list.length === 0) ctx.out.out('no sync remotes\n');
    else
      ctx.out.out(
        `${table(
          list.map((r) => [r.name, oneLine(redactedUrl(r.url))]),
          ['NAME', 'URL'],
        )}\n`,
      );
    return 0;
  }
  throw usageError(USAGE);
}

export const syncCmd: Command = {
  name: 'sync',
  usage: USAGE,
  summary: "push this host's turns to a git remote and import every other host's (docs/sync.md)",
  options: { 'dry-run': { type: 'boolean' }, 'progress-json': { type: 'boolean' } },
  run(p, ctx) {
    const [first, ...rest] = p.positionals;
    if (first === 'remote') return remoteCmd(ctx, rest);
    return runSync(p, ctx, p.positionals);
  },
};
