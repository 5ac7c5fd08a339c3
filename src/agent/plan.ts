/**
 * What resuming a turn writes and runs, worked out from the shard alone (so it works after the agent deleted its
 * own file): the path from the root to the chosen turn, crossing sessions, all of one agent; that agent's adapter
 * (adapters.ts) turns the path's stored source records into the new session file; the command comes from
 * config.json or the adapter. Nothing is written here.
 */
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import type { SourceKind } from '../import/model.js';
import { isUuid } from '../import/uuid.js';
import type { Shard, TurnNode } from '../store/index.js';
import { RESUME } from './adapters.js';
import { fillCommand, findExecutable, loadResumeConfig } from './command.js';
import { type ResumeAdapter, ResumeError, type ResumeTurn } from './types.js';

export { claudeProjectsDir, projectFolderFor } from './claude.js';
export { ResumeError, type ResumeRefusal, type ResumeTurn } from './types.js';

export interface ResumePlan {
  /** The agent resumed into (a source kind) and what a person calls it. */
  agent: SourceKind;
  agent_name: string;
  source_bates: string;
  /** The new session id (a UUID) the written file carries. */
  session_id: string;
  /** The folder the file goes to, below `projects_dir` (Claude Code: the project folder; Codex: YYYY/MM/DD). */
  project: string;
  /** The agent's own folder of sessions on this machine. */
  projects_dir: string;
  file: string;
  /** Where the agent runs: the chosen turn's working directory. */
  cwd: string;
  cwd_exists: boolean;
  /** The file, one line each, without newlines. */
  lines: string[];
  bytes: number;
  turns: ResumeTurn[];
  /** Lines of the turns' records not written: another branch's, a repeat, one the agent would misread. */
  left_out: number;
  /** Lines written, by their `type`. */
  types: Record<string, number>;
  /** The command, placeholders filled; `executable` is where its program was found (null: nowhere). */
  argv: string[];
  executable: string | null;
  /** The command came from config.json. */
  configured: boolean;
}

export interface PlanOptions {
  env?: NodeJS.ProcessEnv;
  /** The session id to use (the TUI confirms one, then writes it); default a new UUID. */
  sessionId?: string;
  /** The agent will run now: refuse a missing working directory or a missing program before anything is written. */
  run?: boolean;
  /** The time the session is written at (default now). */
  now?: Date;
}

/** Not import/sources.ts: it loads every reader, and the browser plans a resume before it needs any. */
function isSourceKind(kind: string): kind is SourceKind {
  return Object.hasOwn(RESUME, kind);
}

function sourceName(t: TurnNode): string {
  if (t.source === null) return 'asked in arborist';
  return isSourceKind(t.source) ? RESUME[t.source].name : `source: ${t.source}`;
}

/** The turn's agent, when arborist can resume into it; else the one line saying why not. */
export function resumerOf(t: TurnNode): ResumeAdapter {
  if (t.source === null)
    throw new ResumeError(
      'not_resumable',
      `${t.bates} was asked in arborist: there is no agent to resume it in`,
    );
  if (!isSourceKind(t.source))
    throw new ResumeError('not_resumable', `${t.bates} came from ${t.source}, which arborist does not know`);
  const r = RESUME[t.source];
  if (!r.resumes) throw new ResumeError('not_resumable', `${t.bates} came from ${r.name}: ${r.why}`);
  return r;
}

/** The turns from the root to `node`, refusing a path that leaves the live shard or mixes agents. */
function agentPath(shard: Shard, node: TurnNode): { path: TurnNode[]; adapter: ResumeAdapter } {
  const adapter = resumerOf(node);
  const path = shard.pathTo(node.bates);
  const top = path[0];
  if (top.parent_bates !== null)
    throw new ResumeError(
      'not_live',
      `the path to ${node.bates} goes through ${top.parent_bates}, which is not live (archived?): restore its session first`,
    );
  for (const t of path)
    if (t.source !== node.source)
      throw new ResumeError(
        'mixed_agents',
        `${t.bates}, on the path to ${node.bates}, came from ${sourceName(t)}, not ${adapter.name}: a path of one agent's turns can be resumed`,
      );
  return { path, adapter };
}

export function planResume(shard: Shard, bates: string, opts: PlanOptions = {}): ResumePlan {
  const env = opts.env ?? process.env;
  const node = shard.requireNode(bates.trim());
  const { path, adapter } = agentPath(shard, node);
  const agent = node.source as SourceKind;

  const records = shard.sourceRecordsOf(path.map((t) => t.bates));
  for (const t of path) {
    const rec = records.get(t.bates);
    if (rec === undefined || rec.length === 0)
      throw new ResumeError(
        'no_records',
        `${t.bates} has no ${adapter.name} lines stored (imported without its source records): it cannot be resumed`,
      );
  }

  let sessionId = opts.sessionId ?? randomUUID();
  sessionId = sessionId.toLowerCase();
  if (!isUuid(sessionId)) throw new ResumeError('bad_id', `'${sessionId}' is not a session id (a UUID)`);

  const out = adapter.plan({ shard, node, path, records, sessionId, env, now: opts.now ?? new Date() });
  const cwd = out.cwd;
  // The printed line would be `cd -P ./`, which goes wherever it is pasted; the agent would run wherever we are.
  if (cwd === '')
    throw new ResumeError(
      'no_cwd',
      `the working directory the lines of ${node.bates} record is empty: there is no folder to resume in`,
    );
  // No folder name holds a NUL byte; a shell would cut the printed path at it and go somewhere else.
  if (cwd.includes('\0'))
    throw new ResumeError(
      'no_cwd',
      `the working directory the lines of ${node.bates} record holds a NUL byte`,
    );

  let cwdExists = false;
  try {
    cwdExists = statSync(cwd).isDirectory();
  } catch {
    cwdExists = false;
  }
  const cfg = loadResumeConfig(env, agent, adapter.command);
  const argv = fillCommand(cfg.command, { sessionId, sessionFile: out.file, cwd });
  if (argv.some((a) => a.includes('\0')))
    throw new ResumeError('no_agent', `${cfg.setting} in ${cfg.path} holds a NUL byte: nothing was written`);
  const executable = findExecutable(argv[0], env);
  if (opts.run) {
    if (!cwdExists)
      throw new ResumeError(
        'cwd_missing',
        `the working directory of ${node.bates} (${cwd}) no longer exists: nothing was written`,
      );
    if (executable === null)
      throw new ResumeError(
        'no_agent',
        `${argv[0]} is not on PATH: nothing was written (install ${adapter.name}, or set ${cfg.setting} in ${cfg.path})`,
      );
  }
  let bytes = 0;
  for (const l of out.lines) bytes += Buffer.byteLength(l) + 1;
  return {
    agent,
    agent_name: adapter.name,
    source_bates: node.bates,
    session_id: sessionId,
    project: out.project,
    projects_dir: out.projectsDir,
    file: out.file,
    cwd,
    cwd_exists: cwdExists,
    lines: out.lines,
    bytes,
    turns: out.turns,
    left_out: out.leftOut,
    types: out.types,
    argv,
    executable,
    configured: cfg.fromConfig,
  };
}
