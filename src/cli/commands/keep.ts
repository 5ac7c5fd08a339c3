import { keepLogPath, LockHeld, runKeeper } from '../../keep/run.js';
import { carryOut, detectService, type ServiceKind, servicePlan } from '../../keep/service.js';
import { keeperStatus } from '../../keep/state.js';
import { ArboristError } from '../../store/index.js';
import { age, counted } from '../../text/format.js';
import { exactPositionals, flag, only, parseDuration, positiveInt, str } from '../args.js';
import type { Command } from '../command.js';
import type { Context } from '../context.js';
import { oneLine, printJson } from '../output.js';
import { when } from './format.js';

/** `arborist keep`: the keeper (docs/keep.md). */

const USAGE =
  'arborist keep [--poll DUR] [--rescan DUR] [--settle DUR] [--max-watches N] [--no-sidechains] | ' +
  'keep --status | keep --install|--uninstall [--dry-run] [--service systemd|launchd|none]';

const ENGINE_OPTIONS = ['poll', 'rescan', 'settle', 'max-watches', 'no-sidechains'];
const SERVICE_OPTIONS = ['dry-run', 'service'];

/**
 * Defaults (docs/keep.md, "How it notices"): idle, a poll of every file every five minutes and a rediscovery every
 * hour (a rediscovery of 2,000 transcripts costs ~175 ms of CPU: bench/keep.ts).
 */
const DEFAULT_POLL = '5m';
const DEFAULT_RESCAN = '1h';
const DEFAULT_SETTLE = '30m';
const FAST_POLL_MS = 5000;
const DEBOUNCE_MS = 100;
const BATCH_FILES = 100;
const MAX_WATCHES = 2000;
/**
 * SQLite's page cache for the keeper's connection: it writes small batches and stays resident for weeks, so 16 MiB
 * rather than the 64 MiB of a one-shot command (RSS idle, bench/keep.ts).
 */
const CACHE_KIB = 16 * 1024;

function duration(p: Parameters<Command['run']>[0], name: string, fallback: string, min: number): number {
  const ms = parseDuration(str(p, name) ?? fallback);
  if (ms < min) throw new ArboristError('usage', `--${name} takes at least ${min} ms`);
  return ms;
}

export const keepCmd: Command = {
  name: 'keep',
  usage: USAGE,
  summary:
    'keep every turn as it is written: follow every history on this machine into the shard; --install as a user service',
  options: {
    status: { type: 'boolean' },
    install: { type: 'boolean' },
    uninstall: { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    service: { type: 'string' },
    poll: { type: 'string' },
    rescan: { type: 'string' },
    settle: { type: 'string' },
    'max-watches': { type: 'string' },
    'no-sidechains': { type: 'boolean' },
  },
  async run(p, ctx) {
    exactPositionals(p, 0, USAGE);
    const modes = ['status', 'install', 'uninstall'].filter((m) => flag(p, m));
    if (modes.length > 1)
      throw new ArboristError('usage', `--${modes[0]} and --${modes[1]} do not go together`);
    const all = [...ENGINE_OPTIONS, ...SERVICE_OPTIONS];
    if (modes[0] === 'status') {
      only(p, all, [], 'keep --status');
      return showStatus(ctx);
    }
    if (modes[0] === 'install' || modes[0] === 'uninstall') {
      only(p, all, SERVICE_OPTIONS, `keep --${modes[0]}`);
      return service(ctx, modes[0], flag(p, 'dry-run'), str(p, 'service'));
    }
    only(p, all, ENGINE_OPTIONS, 'keep');
    return keep(ctx, {
      pollMs: duration(p, 'poll', DEFAULT_POLL, 50),
      rescanMs: duration(p, 'rescan', DEFAULT_RESCAN, 50),
      settleMs: duration(p, 'settle', DEFAULT_SETTLE, 0),
      maxWatches: positiveInt(p, 'max-watches', MAX_WATCHES, 100_000),
      sidechains: !flag(p, 'no-sidechains'),
    });
  },
};

async function keep(
  ctx: Context,
  o: { pollMs: number; rescanMs: number; settleMs: number; maxWatches: number; sidechains: boolean },
): Promise<number> {
  const shard = ctx.writable(CACHE_KIB);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  // SIGHUP too: a keeper started in a terminal that closes ends as cleanly as one told to stop.
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, onSignal);
  const onTerminal = process.stdout.isTTY === true && !ctx.out.json;
  try {
    const summary = await runKeeper(shard, {
      dbPath: ctx.dbPath,
      print: (line) => {
        if (onTerminal) ctx.out.out(`${line}\n`);
      },
      engine: {
        env: ctx.env,
        signal: stop.signal,
        sidechains: o.sidechains,
        pollMs: o.pollMs,
        fastPollMs: Math.min(FAST_POLL_MS, o.pollMs),
        rescanMs: o.rescanMs,
        settleMs: o.settleMs,
        debounceMs: DEBOUNCE_MS,
        maxWatches: o.maxWatches,
        batchFiles: BATCH_FILES,
        delayMs: Number(ctx.env.ARBORIST_KEEP_TEST_DELAY_MS) || undefined,
      },
    });
    if (ctx.out.json) printJson(ctx.out, summary);
    else
      ctx.out.out(
        `kept ${counted(summary.turns_added, 'turn')} (${counted(summary.sessions, 'new session')}) from ` +
          `${counted(summary.files_read, 'file reading')} in ${counted(summary.batches, 'batch', 'batches')}; ` +
          `${counted(summary.files, 'file')} followed\n`,
      );
    return 0;
  } catch (err) {
    if (err instanceof LockHeld)
      throw new ArboristError(
        'busy',
        `a keeper already runs on ${ctx.dbPath} (pid ${err.lock.pid}, since ${when(err.lock.started)}); ` +
          '`arborist keep --status` says what it does',
      );
    throw err;
  } finally {
    for (const s of signals) process.off(s, onSignal);
  }
}

/** --settle as given (`500ms`, `3s`, `30m`): `age` would say "now" below 5 s. */
function settleWords(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${Math.round(ms / 1000)}s`;
  return age(0, ms);
}

/**
 * `79 turns kept today (78 live, 1 archived with its session)`. Every turn the keeper saved counts, wherever it is
 * now: a turn of a session in the archive tier (OpenClaw's reset and deleted transcripts go there as they are
 * imported) is kept, but `arborist verify` counts live turns only; the two parts say how the counts add up.
 */
function keptToday(n: number, archived: number): string {
  const kept = `${counted(n, 'turn')} kept today`;
  if (archived === 0) return kept;
  return `${kept} (${n - archived} live, ${archived} archived with ${archived === 1 ? 'its session' : 'their sessions'})`;
}

function showStatus(ctx: Context): number {
  const s = keeperStatus(ctx.dbPath);
  const log = keepLogPath(ctx.env);
  if (ctx.out.json) {
    printJson(ctx.out, { ...s, log });
    return 0;
  }
  const lines: string[] = [];
  if (s.running) lines.push(`keeper running (pid ${s.pid}, since ${when(s.since ?? '?')}) on ${ctx.dbPath}`);
  else if (s.stale)
    lines.push(
      `no keeper running on ${ctx.dbPath} (pid ${s.pid} left its lock behind; the next keeper takes it)`,
    );
  else lines.push(`no keeper running on ${ctx.dbPath} (\`arborist keep\` or \`arborist keep --install\`)`);
  if (s.trouble !== null)
    lines.push(
      `cannot write the shard since ${when(s.trouble_since ?? '?')} (tried again each second): ${oneLine(s.trouble)}`,
    );
  lines.push(
    `last import: ${s.last_import ? when(s.last_import) : 'none'} · ${keptToday(s.turns_today, s.turns_today_archived)}`,
  );
  if (s.turns_waiting > 0) {
    const quiet = s.settle_ms === null ? '--settle' : settleWords(s.settle_ms);
    const one = s.turns_waiting === 1;
    lines.push(
      `${counted(s.turns_waiting, 'turn')} ${one ? 'waits' : 'wait'} until ${one ? 'its file is' : 'their files are'} ` +
        `quiet for ${quiet} (an unfinished turn is stored whole, never in part)`,
    );
  }
  if (s.problem_count > 0) {
    lines.push(`problems in what it read (${s.problem_count}):`);
    const shown = s.problems.slice(0, 10);
    for (const pr of shown) lines.push(`  ${oneLine(pr.file)}: ${oneLine(pr.reason)}`);
    // The state holds the first few; the log names five a batch: an import of the same files lists them all.
    if (s.problem_count > shown.length)
      lines.push(`  and ${s.problem_count - shown.length} more (\`arborist import\` lists every one)`);
  }
  lines.push(`log: ${log}`);
  ctx.out.out(`${lines.join('\n')}\n`);
  return 0;
}

function service(
  ctx: Context,
  action: 'install' | 'uninstall',
  dryRun: boolean,
  forced: string | undefined,
): number {
  if (forced !== undefined && !['systemd', 'launchd', 'none'].includes(forced))
    throw new ArboristError('usage', '--service takes systemd, launchd or none');
  const kind = (forced as ServiceKind | undefined) ?? detectService();
  const plan = servicePlan(kind, action, ctx.dbPath, ctx.env);
  if (kind === 'none') {
    const lines = [
      'no service manager here (no systemd user manager answers, and this is not macOS): nothing installed.',
      'To keep turns anyway, put this line in your crontab (crontab -e):',
      `  ${plan.instead[0]}`,
      'or start it in a tmux session:',
      `  ${plan.instead[1]}`,
    ];
    if (ctx.out.json) printJson(ctx.out, { service: kind, installed: false, instead: plan.instead });
    else ctx.out.out(`${lines.join('\n')}\n`);
    return action === 'uninstall' ? 0 : 2;
  }
  if (dryRun) {
    if (ctx.out.json) {
      printJson(ctx.out, { service: kind, dry_run: true, ...plan });
      return 0;
    }
    const out: string[] = [];
    for (const f of plan.write)
      out.push(
        `would write ${f.path}:`,
        ...f.content
          .trimEnd()
          .split('\n')
          .map((l) => `  ${l}`),
      );
    if (action === 'uninstall') out.push(...plan.run.slice(0, 1).map((a) => `would run ${a.join(' ')}`));
    for (const f of plan.remove) out.push(`would remove ${f}`);
    out.push(...plan.run.slice(action === 'uninstall' ? 1 : 0).map((a) => `would run ${a.join(' ')}`));
    ctx.out.out(`${out.join('\n')}\n`);
    return 0;
  }
  const steps: string[] = [];
  const runs = carryOut(plan, (s) => {
    steps.push(s);
    if (!ctx.out.json) ctx.out.out(`${s}\n`);
  });
  const failed = runs.filter((r) => r.status !== 0);
  if (ctx.out.json) printJson(ctx.out, { service: kind, steps, runs });
  for (const r of failed)
    ctx.out.err(
      `arborist: ${r.argv.join(' ')} failed${r.stderr ? `: ${oneLine(r.stderr.split('\n')[0])}` : ''}\n`,
    );
  // Uninstalling a service that was never enabled: systemctl says so, and nothing is left to undo.
  return failed.length > 0 && action === 'install' ? 1 : 0;
}
