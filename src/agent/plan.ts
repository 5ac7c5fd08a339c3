/**
 * What resuming a turn in Claude Code writes and runs, worked out from the shard alone (so it works after Claude
 * Code deleted the source transcript): the lines of every turn on the path from the root to the chosen turn,
 * crossing sessions (a resumed session's turns hang under an earlier session's), each turn's lines exactly as
 * imported (the shard's source records), with a new `sessionId`. Nothing is written here.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { claudeDefaultPaths } from '../import/claude/discover.js';
import { ArboristError, type ErrorKind, type Shard, type TurnNode } from '../store/index.js';
import { fillCommand, findExecutable, loadResumeConfig } from './command.js';
import { withSessionId } from './lines.js';

export type ResumeRefusal =
  | 'not_claude'
  | 'no_records'
  | 'subagent'
  | 'not_live'
  | 'no_cwd'
  | 'cwd_missing'
  | 'no_agent'
  | 'bad_id';

const KIND: Record<ResumeRefusal, ErrorKind> = {
  not_claude: 'input',
  no_records: 'input',
  subagent: 'input',
  not_live: 'input',
  no_cwd: 'input',
  cwd_missing: 'not_found',
  no_agent: 'not_found',
  bad_id: 'usage',
};

/** Why a turn cannot be resumed: one line, nothing written (exit 2). `code` lets the TUI say what to do instead. */
export class ResumeError extends ArboristError {
  readonly code: ResumeRefusal;
  constructor(code: ResumeRefusal, message: string) {
    super(KIND[code], message);
    this.code = code;
    this.name = 'ResumeError';
  }
}

export interface ResumeTurn {
  bates: string;
  sid: string;
  /** Lines of this turn written. */
  lines: number;
}

export interface ResumePlan {
  source_bates: string;
  /** The new Claude Code session id (a UUID) every written line carries. */
  session_id: string;
  /** The folder under Claude Code's projects folder the transcript goes to. */
  project: string;
  /** Claude Code's projects folder on this machine ($CLAUDE_CONFIG_DIR/projects or ~/.claude/projects). */
  projects_dir: string;
  file: string;
  /** Where the agent runs: the `cwd` the chosen turn's lines carry. */
  cwd: string;
  cwd_exists: boolean;
  /** The transcript, one line each, without newlines. */
  lines: string[];
  bytes: number;
  turns: ResumeTurn[];
  /** Lines of the turns' records not written: a snapshot or summary naming a message off the path, a repeat. */
  left_out: number;
  /** Lines written, by their `type`. */
  types: Record<string, number>;
  /** The command, placeholders filled; `executable` is where its program was found (null: nowhere). */
  argv: string[];
  executable: string | null;
  /** The command came from config.json's resume.command. */
  configured: boolean;
}

export interface PlanOptions {
  env?: NodeJS.ProcessEnv;
  /** The session id to use (the TUI confirms one, then writes it); default a new UUID. */
  sessionId?: string;
  /** The agent will run now: refuse a missing working directory or a missing program before anything is written. */
  run?: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Obj = Record<string, unknown>;

interface Line {
  text: string;
  obj: Obj | null;
  uuid: string | null;
}

/** A folder name Claude Code could have written: one path component, nothing that climbs out of the folder. */
function safeProject(p: string | undefined): p is string {
  return p !== undefined && p !== '' && p !== '.' && p !== '..' && !/[/\\\0]/.test(p);
}

/** Claude Code's folder for a working directory: every character but a letter or digit written as '-'. */
export function projectFolderFor(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

/** Claude Code's projects folder: the first default (CLAUDE_CONFIG_DIR honoured) that exists, else the first. */
export function claudeProjectsDir(env: NodeJS.ProcessEnv): string {
  const paths = claudeDefaultPaths(env);
  return paths.find((p) => existsSync(p)) ?? paths[0];
}

function parseLines(bates: string, records: Buffer): Line[] {
  const out: Line[] = [];
  for (let text of records.toString('utf8').split('\n')) {
    if (text === '') continue;
    // A byte-order mark is only ever before a file's first line: inside the new file it would break the line.
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    let obj: Obj | null = null;
    try {
      const v = JSON.parse(text) as unknown;
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) obj = v as Obj;
    } catch {
      // stored records were parsed at import; one that no longer parses is damage that verify names
    }
    if (obj === null) throw new ArboristError('damaged', `a source record of ${bates} is not a JSON object`);
    const uuid = typeof obj.uuid === 'string' && obj.uuid !== '' ? obj.uuid : null;
    out.push({ text, obj, uuid });
  }
  return out;
}

/** The turns from the root to `bates`, refusing a path that leaves the live shard or Claude Code. */
function claudePath(shard: Shard, node: TurnNode): TurnNode[] {
  const path = shard.pathTo(node.bates);
  const top = path[0];
  if (top.parent_bates !== null)
    throw new ResumeError(
      'not_live',
      `the path to ${node.bates} goes through ${top.parent_bates}, which is not live (archived?): restore its session first`,
    );
  for (const t of path)
    if (t.source !== 'claude')
      throw new ResumeError(
        'not_claude',
        t.bates === node.bates
          ? `${t.bates} did not come from Claude Code (${t.source ? `source: ${t.source}` : 'asked in arborist'}): resuming needs a Claude Code turn`
          : `${t.bates}, on the path to ${node.bates}, did not come from Claude Code: resuming needs a path of Claude Code turns`,
      );
  return path;
}

export function planResume(shard: Shard, bates: string, opts: PlanOptions = {}): ResumePlan {
  const env = opts.env ?? process.env;
  const node = shard.requireNode(bates.trim());
  const path = claudePath(shard, node);

  const perTurn: { t: TurnNode; lines: Line[] }[] = [];
  const records = shard.sourceRecordsOf(path.map((t) => t.bates));
  for (const t of path) {
    const rec = records.get(t.bates);
    if (rec === undefined || rec.length === 0)
      throw new ResumeError(
        'no_records',
        `${t.bates} has no Claude Code lines stored (imported without its source records): it cannot be resumed`,
      );
    const lines = parseLines(t.bates, rec);
    const first = lines.find((l) => l.uuid !== null);
    if (first?.obj?.isSidechain === true)
      throw new ResumeError(
        'subagent',
        `${t.bates} is a subagent's turn: Claude Code resumes main conversations only; resume the turn that launched it`,
      );
    perTurn.push({ t, lines });
  }

  // Every message on the path, once (the first copy, as the importer keeps it).
  const onPath = new Set<string>();
  for (const { lines } of perTurn) for (const l of lines) if (l.uuid !== null) onPath.add(l.uuid);
  const names = (l: Line): string | null => {
    const o = l.obj!;
    if (o.type === 'file-history-snapshot' && typeof o.messageId === 'string') return o.messageId;
    if (o.type === 'summary' && typeof o.leafUuid === 'string') return o.leafUuid;
    return null;
  };

  let sessionId = opts.sessionId ?? randomUUID();
  sessionId = sessionId.toLowerCase();
  if (!UUID.test(sessionId)) throw new ResumeError('bad_id', `'${sessionId}' is not a session id (a UUID)`);

  const written = new Set<string>();
  const lines: string[] = [];
  const types: Record<string, number> = {};
  const turns: ResumeTurn[] = [];
  let leftOut = 0;
  let bytes = 0;
  for (const { t, lines: ls } of perTurn) {
    let n = 0;
    for (const l of ls) {
      if (l.uuid !== null) {
        if (written.has(l.uuid)) {
          leftOut++;
          continue;
        }
        written.add(l.uuid);
      } else {
        // Lines without a uuid go with the line before them at import: a file-history snapshot for the next
        // prompt, a summary of a leaf. One naming a message that is not on the path belongs to another branch.
        const target = names(l);
        if (target !== null && !onPath.has(target)) {
          leftOut++;
          continue;
        }
      }
      const out = withSessionId(l.text, sessionId).line;
      lines.push(out);
      bytes += Buffer.byteLength(out) + 1;
      const type = typeof l.obj!.type === 'string' ? (l.obj!.type as string) : '(none)';
      types[type] = (types[type] ?? 0) + 1;
      n++;
    }
    turns.push({ bates: t.bates, sid: t.sid, lines: n });
  }

  // The agent runs where the chosen turn's lines say it ran (the last cwd they carry), else the session's.
  let cwd: string | undefined;
  for (const l of perTurn[perTurn.length - 1].lines) {
    const c = l.obj!.cwd;
    if (typeof c === 'string' && c !== '') cwd = c;
  }
  const source = shard.sourceOfSession(node.sid);
  // info_json is checked by verify, not here: a cwd in it that is not text is no cwd.
  const recorded: unknown = source?.info.cwd;
  cwd ??= typeof recorded === 'string' ? recorded : undefined;
  if (cwd === undefined)
    throw new ResumeError('no_cwd', `the lines of ${node.bates} record no working directory to resume in`);
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

  const project = safeProject(source?.info.project) ? source.info.project : projectFolderFor(cwd);
  const projectsDir = claudeProjectsDir(env);
  const file = join(projectsDir, project, `${sessionId}.jsonl`);

  let cwdExists = false;
  try {
    cwdExists = statSync(cwd).isDirectory();
  } catch {
    cwdExists = false;
  }
  const cfg = loadResumeConfig(env);
  const argv = fillCommand(cfg.command, { sessionId, sessionFile: file, cwd });
  if (argv.some((a) => a.includes('\0')))
    throw new ResumeError('no_agent', `resume.command in ${cfg.path} holds a NUL byte: nothing was written`);
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
        `${argv[0]} is not on PATH: nothing was written (install Claude Code, or set resume.command in ${cfg.path})`,
      );
  }
  return {
    source_bates: node.bates,
    session_id: sessionId,
    project,
    projects_dir: projectsDir,
    file,
    cwd,
    cwd_exists: cwdExists,
    lines,
    bytes,
    turns,
    left_out: leftOut,
    types,
    argv,
    executable,
    configured: cfg.fromConfig,
  };
}
