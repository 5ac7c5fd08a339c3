/**
 * Resuming into Pi (docs/import.md, Pi, "Resume"): opening the original would continue it at its last entry (and
 * rewrite an older version's file), so a branch is written beside it as pi's `createBranchedSession` writes one: a
 * version 3 header with a new id, the original's cwd and `parentSession` = the original file, then the path's
 * entries unchanged; `pi --session <that file>` runs in the cwd. The reader knows the copied entries by the
 * parent file (same id, same line), so the copied prompts stay the original's turns and pi's first new prompt
 * hangs under the resumed one: that needs the original file on disk, or the copy would import as new turns.
 */
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { agentDir } from '../import/pi/paths.js';
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

/** The file pi keeps session `id` in: `<sessions>/<project folder>/<start>_<id>.jsonl` (or flat in `<sessions>`). */
function sessionFile(sessions: string, id: string): string | undefined {
  const tail = `_${id}.jsonl`;
  const inDir = (dir: string): string | undefined => {
    try {
      const hit = readdirSync(dir).find((n) => n.endsWith(tail));
      return hit === undefined ? undefined : join(dir, hit);
    } catch {
      return undefined;
    }
  };
  const flat = inDir(sessions);
  if (flat !== undefined) return flat;
  let dirs: string[] = [];
  try {
    dirs = readdirSync(sessions).filter((n) => statSync(join(sessions, n)).isDirectory());
  } catch {
    return undefined;
  }
  for (const d of dirs) {
    const f = inDir(join(sessions, d));
    if (f !== undefined) return f;
  }
  return undefined;
}

function plan({ shard, node, path, records, sessionId, env, now }: AdapterInput): AdapterOutput {
  const body: string[] = [];
  const types: Record<string, number> = {};
  const turns: ResumeTurn[] = [];
  let leftOut = 0;
  let headerCwd: string | undefined;
  for (const t of path) {
    // Version 1 entries have no ids (`@<line>`): pi gives them new ones when it opens the file.
    if (t.source_id === null || t.source_id.includes('/@'))
      throw new ResumeError(
        'no_turn_ids',
        `${t.bates} is from a Pi session of version 1, whose entries have no ids: a copy of it would import as new turns`,
      );
    let n = 0;
    for (const raw of recordLines(records.get(t.bates)!)) {
      const o = parseObject(raw);
      if (o === null) throw damagedRecord(t.bates);
      if (o.type === 'session') {
        // The headers: the new one is written first.
        if (typeof o.cwd === 'string' && o.cwd !== '') headerCwd = o.cwd;
        leftOut++;
        continue;
      }
      body.push(raw);
      count(types, o.type);
      n++;
    }
    turns.push({ bates: t.bates, sid: t.sid, lines: n });
  }
  const source = shard.sourceOfSession(node.sid);
  const recorded: unknown = source?.info.cwd;
  const cwd = headerCwd ?? (typeof recorded === 'string' ? recorded : undefined);
  if (cwd === undefined)
    throw new ResumeError('no_cwd', `the entries of ${node.bates} record no working directory to resume in`);
  const sessions = join(agentDir(env), 'sessions');
  const original = source === undefined ? undefined : sessionFile(sessions, source.source_session);
  if (original === undefined)
    throw new ResumeError(
      'no_meta',
      `the Pi session file of ${node.bates} is no longer in ${sessions}: pi's branch of it would import as new turns`,
    );
  const nowIso = now.toISOString();
  const header = JSON.stringify({
    type: 'session',
    version: 3,
    id: sessionId,
    timestamp: nowIso,
    cwd,
    parentSession: original,
  });
  count(types, 'session');
  const dir = dirname(original);
  return {
    lines: [header, ...body],
    turns,
    leftOut,
    types,
    cwd,
    // pi's name: the start time with `:` and `.` made `-`, then the id (SM `newSession`, `createBranchedSession`).
    file: join(dir, `${nowIso.replace(/[:.]/g, '-')}_${sessionId}.jsonl`),
    project: dir.slice(sessions.length + 1) || '.',
    projectsDir: sessions,
  };
}

export const piResume: ResumeAdapter = {
  resumes: true,
  name: 'Pi',
  command: ['pi', '--session', '{sessionFile}'],
  plan,
  reader: async () => (await import('../import/pi/index.js')).piReader,
};
