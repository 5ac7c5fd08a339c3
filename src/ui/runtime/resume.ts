/**
 * `r`, the side effects (features/resume): planning the session through src/agent, writing it on confirmation,
 * running the agent on the terminal (the hook the program loop gives: term/app.ts leaves the alternate screen
 * for it), and the TUI's own watcher of the written files.
 *
 * The watcher follows every file written since the browser started (`import --follow` on those files, in this
 * process, on this connection) until the browser quits: while the agent runs, each finished turn is imported
 * within a poll of being written; when the agent exits, the file is imported once more at once (a last turn
 * that never got its end-of-turn marker included), so the tree shows every new turn on the first frame back;
 * and a later `claude --resume` (or `codex resume`) of the same session in another terminal keeps showing up
 * here. Each agent's files are followed with its own reader.
 */
import {
  type AgentExit,
  commandLine,
  describeExit,
  followTranscripts,
  importTranscript,
  planResume,
  ResumeError,
  type ResumePlan,
  writeResume,
} from '../../agent/index.js';
import type { Shard } from '../../store/index.js';

type SourceKind = ResumePlan['agent'];

import type { Action } from '../core/actions.js';
import type { ResumeEffect, ResumePreview } from '../features/resume/model.js';
import { describe } from './describe.js';

/** Runs the agent with the terminal handed over; resolves when it has exited and the screen is back. */
export type RunOutside = (executable: string, argv: readonly string[], cwd: string) => Promise<AgentExit>;

function preview(p: ResumePlan): ResumePreview {
  return {
    bates: p.source_bates,
    agent: p.agent_name,
    sessionId: p.session_id,
    project: p.project,
    projectsDir: p.projects_dir,
    file: p.file,
    cwd: p.cwd,
    lines: p.lines.length,
    turns: p.turns.length,
    leftOut: p.left_out,
    command: commandLine(p.argv),
    program: p.argv[0],
  };
}

export class Resumer {
  /** The written files, by agent: each agent's files are followed with its own reader. */
  private readonly files = new Map<SourceKind, string[]>();
  private readonly follows = new Map<SourceKind, AbortController>();
  /** Turns the watcher imported, for the run in progress (null: none running). */
  private collected: string[] | null = null;
  private closed = false;

  constructor(
    private readonly shard: Shard,
    private readonly dispatch: (a: Action) => void,
    private readonly runOutside: RunOutside | null,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  perform(e: ResumeEffect): void {
    if (e.type === 'planResume') this.plan(e.bates);
    else void this.run(e.bates, e.sessionId);
  }

  private plan(bates: string): void {
    try {
      const p = planResume(this.shard, bates, { env: this.env, run: true });
      this.dispatch({ type: 'resumePlan', bates, plan: preview(p) });
    } catch (err) {
      const code = err instanceof ResumeError ? err.code : 'error';
      this.dispatch({ type: 'resumeRefused', bates, code, error: describe(err) });
    }
  }

  private async run(bates: string, sessionId: string): Promise<void> {
    if (this.runOutside === null) {
      this.dispatch({ type: 'resumeFailed', error: 'no terminal to run the agent on' });
      return;
    }
    let plan: ResumePlan;
    try {
      // Planned again with the id confirmed: the checks (cwd, program) as they are now, the same lines.
      plan = planResume(this.shard, bates, { env: this.env, run: true, sessionId });
      writeResume(this.shard, plan);
    } catch (err) {
      this.dispatch({ type: 'resumeFailed', error: describe(err) });
      return;
    }
    this.collected = [];
    this.watch(plan.agent, plan.file);
    let exit: AgentExit;
    try {
      exit = await this.runOutside(plan.executable!, plan.argv, plan.cwd);
    } catch (err) {
      exit = { code: null, signal: null, error: describe(err) };
    }
    if (this.closed) return;
    const added = this.collected;
    this.collected = null;
    let importError: string | null = null;
    try {
      for (const b of (await importTranscript(this.shard, plan.file, plan.agent)).added)
        if (!added.includes(b)) added.push(b);
    } catch (err) {
      importError = describe(err);
    }
    this.dispatch({
      type: 'resumeDone',
      bates,
      program: plan.argv[0],
      exit: describeExit(exit),
      added,
      importError,
    });
  }

  /** Adds a file to the watcher (the agent's follow loop starts again over all of its files). */
  private watch(agent: SourceKind, file: string): void {
    const files = this.files.get(agent) ?? [];
    if (!files.includes(file)) files.push(file);
    this.files.set(agent, files);
    this.follows.get(agent)?.abort();
    const ctl = new AbortController();
    this.follows.set(agent, ctl);
    const onUnit = (u: { added: string[] }) => {
      if (ctl.signal.aborted || this.closed || u.added.length === 0) return;
      this.collected?.push(...u.added);
      this.dispatch({ type: 'dataChanged' });
    };
    followTranscripts(this.shard, files, ctl.signal, onUnit, {}, agent).catch((err) => {
      if (!this.closed && !ctl.signal.aborted)
        this.dispatch({
          type: 'message',
          text: `following ${file} stopped: ${describe(err)}`,
          level: 'error',
        });
    });
  }

  close(): void {
    this.closed = true;
    for (const ctl of this.follows.values()) ctl.abort();
  }
}
