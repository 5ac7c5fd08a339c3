/**
 * Resuming into Claude Code: the lines of every turn on the path, each exactly as imported with a new top-level
 * `sessionId` (lines.ts), into `<projects>/<project>/<id>.jsonl`; `claude --resume <id>` in the turn's cwd.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { claudeDefaultPaths } from '../import/claude/discover.js';
import type { TurnNode } from '../store/index.js';
import { withSessionId } from './lines.js';
import {
  type AdapterInput,
  type AdapterOutput,
  count,
  damagedRecord,
  parseObject,
  type ResumeAdapter,
  ResumeError,
  type ResumeTurn,
  recordLines,
} from './types.js';

type Obj = Record<string, unknown>;

interface Line {
  text: string;
  obj: Obj;
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
  return recordLines(records).map((text) => {
    const obj = parseObject(text);
    if (obj === null) throw damagedRecord(bates);
    const uuid = typeof obj.uuid === 'string' && obj.uuid !== '' ? obj.uuid : null;
    return { text, obj, uuid };
  });
}

function plan({ shard, node, path, records, sessionId, env }: AdapterInput): AdapterOutput {
  const perTurn: { t: TurnNode; lines: Line[] }[] = [];
  for (const t of path) {
    const lines = parseLines(t.bates, records.get(t.bates)!);
    const first = lines.find((l) => l.uuid !== null);
    if (first?.obj.isSidechain === true)
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
    const o = l.obj;
    if (o.type === 'file-history-snapshot' && typeof o.messageId === 'string') return o.messageId;
    if (o.type === 'summary' && typeof o.leafUuid === 'string') return o.leafUuid;
    return null;
  };

  const written = new Set<string>();
  const lines: string[] = [];
  const types: Record<string, number> = {};
  const turns: ResumeTurn[] = [];
  let leftOut = 0;
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
      lines.push(withSessionId(l.text, sessionId).line);
      count(types, l.obj.type);
      n++;
    }
    turns.push({ bates: t.bates, sid: t.sid, lines: n });
  }

  // The agent runs where the chosen turn's lines say it ran (the last cwd they carry), else the session's.
  let cwd: string | undefined;
  for (const l of perTurn[perTurn.length - 1].lines) {
    const c = l.obj.cwd;
    if (typeof c === 'string' && c !== '') cwd = c;
  }
  const source = shard.sourceOfSession(node.sid);
  // info_json is checked by verify, not here: a cwd in it that is not text is no cwd.
  const recorded: unknown = source?.info.cwd;
  cwd ??= typeof recorded === 'string' ? recorded : undefined;
  if (cwd === undefined)
    throw new ResumeError('no_cwd', `the lines of ${node.bates} record no working directory to resume in`);
  const project =
    cwd !== '' && safeProject(source?.info.project) ? source.info.project : projectFolderFor(cwd);
  const projectsDir = claudeProjectsDir(env);
  return {
    lines,
    turns,
    leftOut,
    types,
    cwd,
    file: join(projectsDir, project, `${sessionId}.jsonl`),
    project,
    projectsDir,
  };
}

export const claudeResume: ResumeAdapter = {
  resumes: true,
  name: 'Claude Code',
  command: ['claude', '--resume', '{sessionId}'],
  plan,
  reader: async () => (await import('../import/claude/index.js')).makeClaudeReader({ sidechains: true }),
};
