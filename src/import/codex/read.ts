/**
 * One Codex rollout into one ParsedSource: its lines (lines.ts) as records of either generation (records.ts), the
 * session from its first session_meta, the turns (turns.ts). A file of another format is one problem.
 */
import { basename } from 'node:path';
import { append, emptySource, type ImportProblem, type ParsedSession, type ParsedSource } from '../model.js';
import { readRollout } from './lines.js';
import { homeOf, rolloutName } from './paths.js';
import { type Rec, recordOf, str } from './records.js';
import { threadName } from './titles.js';
import { buildTurns, findPrompts, noteOf } from './turns.js';

function validIso(ts: unknown): string | undefined {
  if (typeof ts !== 'string') return undefined;
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

export function readCodex(file: string): ParsedSource {
  const problems: ImportProblem[] = [];
  const out: ParsedSource = emptySource('codex', file, problems);
  const rb = readRollout(file, problems);
  const recs: Rec[] = [];
  for (const l of rb.lines) {
    const r = recordOf(l, recs.length === 0);
    if (r !== undefined) recs.push(r);
  }
  if (recs.length === 0) {
    if (rb.lines.length > 0) {
      // Another format: one problem for the file, not one for each of its lines.
      const kept = problems.filter((p) => p.line === 0);
      problems.length = 0;
      append(problems, kept);
      problems.push({
        file,
        line: 0,
        reason: `no Codex rollout lines among ${rb.lines.length} JSON lines (another format?)`,
      });
    }
    return out;
  }

  const meta = recs.find((r) => r.type === 'session_meta');
  const named = rolloutName(file);
  let fileSession = meta ? str(meta.p.id) : undefined;
  if (fileSession === undefined) {
    fileSession = named?.id ?? basename(file);
    problems.push({
      file,
      line: meta?.line ?? recs[0].line,
      reason: `${meta ? 'session_meta has no id' : 'no session_meta line'}; the session id ${fileSession} is taken from the file name`,
    });
  }
  const sessionTime = validIso(meta?.p.timestamp) ?? validIso(recs[0].ts);
  const metaCwd = meta ? str(meta.p.cwd) : undefined;

  const turns = buildTurns(recs, findPrompts(recs), {
    file,
    fileSession,
    sessionTime,
    sessionCwd: metaCwd,
    note: noteOf(meta),
    truncatedEnd: rb.truncatedEnd,
    mtimeMs: rb.mtimeMs,
    problems,
  });
  out.turns = turns;
  if (turns.length > 0) {
    const session: ParsedSession = {
      sourceSession: fileSession,
      createdAt: sessionTime ?? turns[0].createdAt,
    };
    const cwd = metaCwd ?? turns.find((t) => t.cwd !== undefined)?.cwd;
    if (cwd !== undefined) session.cwd = cwd;
    const title = threadName(homeOf(file), fileSession);
    if (title !== undefined) session.title = title;
    out.sessions.push(session);
  }
  problems.sort((a, b) => a.line - b.line);
  return out;
}
