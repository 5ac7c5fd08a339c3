import { constants } from 'node:os';
import {
  commandLine,
  describeExit,
  type ImportSummary,
  importTranscript,
  planResume,
  type ResumePlan,
  shellPath,
  startAgent,
  type Written,
  writeResume,
} from '../../agent/index.js';
import { ArboristError } from '../../store/index.js';
import { counted } from '../../text/format.js';
import { exactPositionals, flag } from '../args.js';
import type { Command } from '../command.js';
import type { Context } from '../context.js';
import { oneLine, printJson } from '../output.js';

/**
 * `arborist resume BATES`: continue a conversation from an imported turn in the agent it came from (Claude Code,
 * Codex, GitHub Copilot CLI, Pi, aider: docs/resume.md). Writes the path's lines as a new session of that agent,
 * runs its resume command (`claude --resume <id>`, `codex resume <id>`, `copilot --resume <id>`, `pi --session
 * <file>`, `aider --restore-chat-history`) in the turn's working directory, and imports what it added when it
 * exits. `--print` shows what would be written and run; `--no-exec` writes it and prints the command.
 */

const USAGE = 'arborist resume BATES [--print | --no-exec]';

function planJson(plan: ResumePlan) {
  return {
    agent: plan.agent,
    source_bates: plan.source_bates,
    session_id: plan.session_id,
    project: plan.project,
    projects_dir: plan.projects_dir,
    file: plan.file,
    cwd: plan.cwd,
    cwd_exists: plan.cwd_exists,
    lines: plan.lines.length,
    bytes: plan.bytes,
    turns: plan.turns,
    left_out: plan.left_out,
    types: plan.types,
    command: plan.argv,
    executable: plan.executable,
    configured: plan.configured,
  };
}

function printPlan(ctx: Context, plan: ResumePlan, head: string): void {
  const row = (k: string, v: string) => ctx.out.out(`  ${k.padEnd(8)} ${oneLine(v)}\n`);
  ctx.out.out(`${head}\n`);
  row('session', `${plan.session_id} (new ${plan.agent_name} session id)`);
  row('file', plan.file);
  row(plan.agent === 'claude' ? 'project' : 'folder', `${plan.project} (under ${plan.projects_dir})`);
  row('cwd', plan.cwd_exists ? plan.cwd : `${plan.cwd} (no longer exists)`);
  const per = plan.turns.map((t) => `${t.bates}: ${t.lines}`).join(', ');
  const left = plan.left_out > 0 ? `; ${counted(plan.left_out, 'line')} of other branches left out` : '';
  row(
    'lines',
    `${counted(plan.lines.length, 'line')} from ${counted(plan.turns.length, 'turn')} (${per})${left}`,
  );
  const types = Object.entries(plan.types)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  row('types', types);
  const found = plan.executable === null ? ` (${oneLine(plan.argv[0])} is not on PATH here)` : '';
  // Not through oneLine: the line is for pasting, and commandLine escapes every control character itself (oneLine
  // would fold a newline in a path to a space, another folder).
  ctx.out.out(`  ${'command'.padEnd(8)} ${commandLine(plan.argv, plan.cwd)}${found}\n`);
}

function importedLine(plan: ResumePlan, s: ImportSummary & { added: string[] }): string {
  if (s.added.length === 0) return `no new turns in ${plan.file}`;
  const sid = s.added[0].split('-')[0];
  const problems =
    s.problems.length > 0 ? `; ${counted(s.problems.length, 'record')} skipped or repaired` : '';
  return `${counted(s.added.length, 'new turn')} under ${plan.source_bates} (session ${sid}: ${s.added[0]}${s.added.length > 1 ? ` .. ${s.added[s.added.length - 1]}` : ''})${problems}`;
}

export const resumeCmd: Command = {
  name: 'resume',
  usage: USAGE,
  summary:
    'continue from any imported turn in its own agent (Claude Code, Codex, Copilot, Pi, aider): writes the session, runs it',
  options: {
    print: { type: 'boolean' },
    'no-exec': { type: 'boolean' },
  },
  async run(p, ctx) {
    const [id] = exactPositionals(p, 1, USAGE);
    const print = flag(p, 'print');
    const noExec = flag(p, 'no-exec');
    if (print && noExec)
      throw new ArboristError('usage', '--print writes nothing; --no-exec writes: choose one');
    const shard = ctx.readable();
    const plan = planResume(shard, id, { env: ctx.env, run: !print && !noExec });
    if (print) {
      if (ctx.out.json) printJson(ctx.out, { ...planJson(plan), written: false });
      else
        printPlan(ctx, plan, `resume ${plan.source_bates} in ${plan.agent_name} (--print: nothing written)`);
      return 0;
    }
    const w: Written = writeResume(shard, plan);
    if (noExec) {
      if (ctx.out.json) printJson(ctx.out, { ...planJson(plan), written: true, event: w.event });
      else {
        printPlan(ctx, plan, `wrote ${counted(w.lines, 'line')} to ${plan.file}`);
        ctx.out.out(
          `run it with:\n  ${commandLine(plan.argv, plan.cwd)}\nthen \`arborist import ${plan.agent} ${shellPath(plan.file)}\` (or --follow) brings its new turns in\n`,
        );
      }
      return 0;
    }
    ctx.out.err(
      `arborist: wrote ${counted(w.lines, 'line')} to ${oneLine(plan.file)}; running ${oneLine(commandLine(plan.argv))} in ${oneLine(plan.cwd)}\n`,
    );
    const exit = await startAgent(plan.executable!, plan.argv, plan.cwd, ctx.env).done;
    if (exit.error !== undefined)
      throw new ArboristError(
        'not_found',
        `${plan.argv[0]} ${describeExit(exit)} (the session is in ${plan.file})`,
      );
    const imported = await importTranscript(shard, plan.file, plan.agent);
    if (ctx.out.json)
      printJson(ctx.out, {
        ...planJson(plan),
        written: true,
        event: w.event,
        exit: { code: exit.code, signal: exit.signal },
        imported: { turns_added: imported.turns_added, added: imported.added, problems: imported.problems },
      });
    else
      ctx.out.err(
        `arborist: ${oneLine(plan.argv[0])} ${describeExit(exit)}; ${oneLine(importedLine(plan, imported))}\n`,
      );
    // The agent's own status: a script running `arborist resume` sees how the agent ended.
    if (exit.signal !== null) return 128 + (constants.signals[exit.signal] ?? 0);
    return exit.code ?? 1;
  },
};
