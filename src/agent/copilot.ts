/**
 * Resuming into GitHub Copilot CLI (docs/import.md, GitHub Copilot CLI, "Resume"): Copilot resumes only by id, from
 * `<COPILOT_HOME or ~/.copilot>/session-state/<id>/events.jsonl`, replays that log and appends to it. So the path's
 * events are written there under a new UUID, `session.start`'s `sessionId` set to it, and `copilot --resume <id>`
 * runs in the turn's cwd. Prompts are keyed by their event ids, which the copy keeps: importing the log again
 * skips them, and the agent's first new prompt hangs under the resumed turn.
 */
import { join } from 'node:path';
import { copilotDefaultPaths } from '../import/copilot/paths.js';
import { isUuid } from '../import/uuid.js';
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
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The working directory an event sets: session.start / session.resume `context.cwd`, context_changed `cwd`. */
function cwdOf(o: Obj): string | undefined {
  const d = isObj(o.data) ? o.data : {};
  if (o.type === 'session.context_changed')
    return text(d.cwd) ?? (isObj(d.context) ? text(d.context.cwd) : undefined);
  if (o.type === 'session.start' || o.type === 'session.resume')
    return isObj(d.context) ? text(d.context.cwd) : undefined;
  return undefined;
}

function plan({ shard, node, path, records, sessionId, env }: AdapterInput): AdapterOutput {
  const body: string[] = [];
  const types: Record<string, number> = {};
  const turns: ResumeTurn[] = [];
  let leftOut = 0;
  let start: Obj | undefined;
  let cwd: string | undefined;
  for (const t of path) {
    // A prompt keyed `<session>/<id>` (an id that is no UUID) would be a new turn in the copy.
    if (t.source_id === null || !isUuid(t.source_id))
      throw new ResumeError(
        'no_turn_ids',
        `${t.bates} is not keyed by a Copilot event id: a copy of it would import as new turns; continue it with copilot --resume instead`,
      );
    let n = 0;
    for (const raw of recordLines(records.get(t.bates)!)) {
      const o = parseObject(raw);
      if (o === null) throw damagedRecord(t.bates);
      cwd = cwdOf(o) ?? cwd;
      if (o.type === 'session.start') {
        // One session.start, first: the path's first, with the new id (written below).
        start ??= o;
        leftOut++;
        continue;
      }
      body.push(raw);
      count(types, o.type);
      n++;
    }
    turns.push({ bates: t.bates, sid: t.sid, lines: n });
  }
  if (start === undefined || !isObj(start.data))
    throw new ResumeError(
      'no_meta',
      `the path to ${node.bates} holds no Copilot session.start event (a session of the first generation, which copilot no longer resumes)`,
    );
  const recorded: unknown = shard.sourceOfSession(node.sid)?.info.cwd;
  cwd ??= typeof recorded === 'string' ? recorded : undefined;
  if (cwd === undefined)
    throw new ResumeError('no_cwd', `the events of ${node.bates} record no working directory to resume in`);
  // Re-serialised, this one line: only `data.sessionId` differs from the original's.
  const first = JSON.stringify({ ...start, data: { ...start.data, sessionId } });
  count(types, 'session.start');
  const projectsDir = join(copilotDefaultPaths(env)[0], 'session-state');
  return {
    lines: [first, ...body],
    turns,
    leftOut,
    types,
    cwd,
    file: join(projectsDir, sessionId, 'events.jsonl'),
    project: sessionId,
    projectsDir,
  };
}

export const copilotResume: ResumeAdapter = {
  resumes: true,
  name: 'GitHub Copilot CLI',
  command: ['copilot', '--resume', '{sessionId}'],
  plan,
  reader: async () => (await import('../import/copilot/index.js')).copilotReader,
};
