/**
 * One Gemini CLI chat file, with the subagent chats of its session, into one ParsedSource. A subagent's turns join
 * the session that ran it, under the turn whose tool call started it (`toolCalls[].agentId`, v0.38+), else the
 * session's last turn begun before it.
 */
import { basename, dirname } from 'node:path';
import {
  append,
  emptySource,
  type ImportProblem,
  type ParsedSession,
  type ParsedSource,
  type ParsedTurn,
} from '../model.js';
import { isoOf } from '../times.js';
import { type History, readHistory } from './history.js';
import { obj } from './parts.js';
import { projectCwd, projectDirOf, safeSessionId, subagentFiles } from './paths.js';
import { buildTurns } from './turns.js';

function fileId(file: string): string {
  return basename(file).replace(/\.jsonl?$/, '');
}

/** The session id of a history: its metadata's, else the file's name (with a problem). */
function sessionIdOf(h: History, problems: ImportProblem[]): string {
  if (typeof h.meta.sessionId === 'string' && h.meta.sessionId !== '') return h.meta.sessionId;
  const id = fileId(h.file);
  if (h.messages.length > 0)
    problems.push({
      file: h.file,
      line: 1,
      reason: `no session metadata line; the session id ${id} is taken from the file name`,
    });
  return id;
}

interface Launch {
  /** sourceId of the main turn holding the tool call that started each subagent, by the subagent's id. */
  byAgent: Map<string, { turn: string | null; name: string }>;
  /** The main turns by time, for subagents no call names. */
  byTime: { at: number; sourceId: string }[];
}

function launchesOf(h: History, turnOf: Map<string, string | null>, turns: ParsedTurn[]): Launch {
  const byAgent = new Map<string, { turn: string | null; name: string }>();
  for (const m of h.messages) {
    if (m.rec.type !== 'gemini' || !Array.isArray(m.rec.toolCalls)) continue;
    for (const c of m.rec.toolCalls) {
      const call = obj(c);
      if (call && typeof call.agentId === 'string')
        byAgent.set(call.agentId, {
          turn: turnOf.get(m.id) ?? null,
          name: typeof call.name === 'string' ? call.name : '',
        });
    }
  }
  const byTime = turns
    .map((t) => ({ at: Date.parse(t.createdAt), sourceId: t.sourceId }))
    .sort((a, b) => a.at - b.at);
  return { byAgent, byTime };
}

function launchingTurn(l: Launch, agentId: string, startedAt: number): { turn: string | null; name: string } {
  const named = l.byAgent.get(agentId);
  if (named) return named;
  let turn: string | null = null;
  for (const t of l.byTime) if (t.at <= startedAt) turn = t.sourceId;
  return { turn, name: '' };
}

export function readChatFile(file: string): ParsedSource {
  const problems: ImportProblem[] = [];
  const h = readHistory(file, problems);
  const out: ParsedSource = emptySource('gemini', file, problems);
  if (!h.recognised) return out;
  const fileSid = sessionIdOf(h, problems);
  const projectDir = projectDirOf(file);
  const cwd = projectDir ? projectCwd(projectDir, h.meta.projectHash) : undefined;
  // A subagent chat given on its own: its turns go to the session of the folder it is in (chats/<parent>/).
  const subagent = h.meta.kind === 'subagent';
  const parentDir = basename(dirname(dirname(file))) === 'chats' ? basename(dirname(file)) : undefined;
  const sid = subagent && parentDir ? parentDir : fileSid;
  const main = buildTurns(
    h,
    { sourceSession: sid, idSpace: fileSid, growing: true, cwd, note: subagent ? 'subagent' : undefined },
    problems,
  );
  append(out.turns, main.turns);

  if (!subagent && projectDir) {
    const launch = launchesOf(h, main.turnOf, main.turns);
    for (const sub of subagentFiles(dirname(file), safeSessionId(fileSid), problems)) {
      try {
        const sh = readHistory(sub, problems);
        if (!sh.recognised) continue;
        const agentId = sessionIdOf(sh, problems);
        const startedAt = Date.parse(isoOf(sh.meta.startTime) ?? isoOf(sh.messages[0]?.rec.timestamp) ?? '');
        const from = launchingTurn(launch, agentId, startedAt);
        const built = buildTurns(
          sh,
          {
            sourceSession: sid,
            idSpace: agentId,
            growing: true,
            cwd,
            note: from.name ? `subagent ${from.name}` : 'subagent',
            rootParent: from.turn,
          },
          problems,
        );
        append(out.turns, built.turns);
      } catch (e) {
        problems.push({ file: sub, line: 0, reason: (e as Error).message });
      }
    }
  }

  if (out.turns.length > 0) {
    const session: ParsedSession = {
      sourceSession: sid,
      createdAt: isoOf(h.meta.startTime) ?? main.turns[0]?.createdAt ?? out.turns[0].createdAt,
    };
    if (typeof h.meta.summary === 'string' && h.meta.summary.trim() !== '')
      session.title = h.meta.summary.trim();
    if (cwd) session.cwd = cwd;
    out.sessions.push(session);
  }
  // The chat file's problems first, then each subagent file's, each by line.
  const rank = (f: string) => (f === file ? 0 : 1);
  out.problems = problems
    .map((q, i) => ({ q, i }))
    .sort(
      (a, b) =>
        rank(a.q.file) - rank(b.q.file) ||
        a.q.file.localeCompare(b.q.file) ||
        a.q.line - b.q.line ||
        a.i - b.i,
    )
    .map((x) => x.q);
  return out;
}
