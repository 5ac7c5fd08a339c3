/**
 * Resuming into Codex (docs/import.md, Codex CLI, "Resume"): a new rollout
 * `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local time>-<new uuid>.jsonl` whose first line is a `session_meta`
 * with the new id and the turn's cwd, then the records of the turns on the path, then `codex resume <id>` in that
 * cwd. Codex appends its new turns to the file; importing it again adds only them, under the resumed turn, because
 * the copied turns keep their turn ids.
 */
import { join } from 'node:path';
import { codexHome, SESSIONS } from '../import/codex/paths.js';
import { type Rec, recordOf } from '../import/codex/records.js';
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

/** A turn keyed by Codex's own turn id (turns.ts: the id, `#n` for a later prompt in it): the same wherever copied. */
const hasTurnId = (id: string) => isUuid(id.replace(/#\d+$/, ''));
const two = (n: number) => String(n).padStart(2, '0');

/**
 * The folder and stamp Codex gives a rollout started at `d`: local time, `YYYY/MM/DD` and `YYYY-MM-DDThh-mm-ss`
 * (openai/codex codex-rs/rollout/src/recorder.rs, `precompute_log_file_info`: `OffsetDateTime::now_local()`).
 */
export function rolloutStamp(d: Date): { dir: string[]; stamp: string } {
  const [y, mo, da] = [String(d.getFullYear()), two(d.getMonth() + 1), two(d.getDate())];
  return {
    dir: [y, mo, da],
    stamp: `${y}-${mo}-${da}T${two(d.getHours())}-${two(d.getMinutes())}-${two(d.getSeconds())}`,
  };
}

/**
 * The new `session_meta` line: the original's, with the new id, the turn's cwd and the new start time; without
 * `history_mode` (a mode Codex does not know is refused, `reject_unknown_thread_history_mode`: the default is the
 * one every rollout here was written in). A bare header becomes an enveloped one: `originator` and `cli_version`
 * are required fields of SessionMeta (openai/codex codex-rs/protocol/src/protocol.rs) a bare header lacks.
 */
function metaLine(meta: Rec, sessionId: string, cwd: string, now: string): string {
  const bare = !('payload' in (parseObject(meta.raw) ?? {}));
  const envelope = bare ? { timestamp: now, type: 'session_meta' } : (parseObject(meta.raw) ?? {});
  const payload: Record<string, unknown> = { ...meta.p, id: sessionId, timestamp: now, cwd };
  delete payload.history_mode;
  if (bare) {
    payload.originator ??= 'arborist';
    payload.cli_version ??= '';
  }
  return JSON.stringify({ ...envelope, timestamp: now, payload });
}

function plan({ shard, node, path, records, sessionId, env, now }: AdapterInput): AdapterOutput {
  const nowIso = now.toISOString();
  const body: string[] = [];
  const types: Record<string, number> = {};
  const turns: ResumeTurn[] = [];
  let leftOut = 0;
  let meta: Rec | undefined;
  let cwd: string | undefined;
  for (const t of path) {
    const texts = recordLines(records.get(t.bates)!);
    let n = 0;
    texts.forEach((raw, i) => {
      const obj = parseObject(raw);
      if (obj === null) throw damagedRecord(t.bates);
      const r = recordOf({ line: i + 1, raw, obj }, i === 0);
      if (r?.type === 'turn_context' && typeof r.p.cwd === 'string' && r.p.cwd !== '') cwd = r.p.cwd;
      // Left out: the session_meta lines (the new one is written first), the bare generation's state lines (no
      // RolloutLine: a current Codex skips them), a rollback (replayed, it would drop the turns it follows from
      // the thread), and a line of no rollout generation.
      if (
        r === undefined ||
        r.type === 'state' ||
        (r.type === 'event_msg' && r.kind === 'thread_rolled_back')
      ) {
        leftOut++;
        return;
      }
      if (r.type === 'session_meta') {
        meta = r;
        if (cwd === undefined && typeof r.p.cwd === 'string' && r.p.cwd !== '') cwd = r.p.cwd;
        leftOut++;
        return;
      }
      // A bare-generation item has no envelope and no time: a current Codex reads only `RolloutLine`s, so it
      // is wrapped, its own bytes kept as the payload, at its turn's time.
      const line = 'payload' in obj || r.type !== 'response_item' ? raw : envelope(t.created_at, raw);
      body.push(line);
      count(types, r.type === 'other' ? obj.type : r.type);
      n++;
    });
    if (t.source_id === null || !hasTurnId(t.source_id))
      throw new ResumeError(
        'no_turn_ids',
        `${t.bates} was written by a Codex that gave its turns no ids: a copy of it would import as new turns; continue it with codex resume instead`,
      );
    turns.push({ bates: t.bates, sid: t.sid, lines: n });
  }
  const recorded: unknown = shard.sourceOfSession(node.sid)?.info.cwd;
  cwd ??= typeof recorded === 'string' ? recorded : undefined;
  if (cwd === undefined)
    throw new ResumeError('no_cwd', `the records of ${node.bates} record no working directory to resume in`);
  if (meta === undefined)
    throw new ResumeError(
      'no_meta',
      `the path to ${node.bates} holds no Codex session_meta line to start the new rollout from`,
    );
  const lines = [metaLine(meta, sessionId, cwd, nowIso), ...body];
  count(types, 'session_meta');
  const { dir, stamp } = rolloutStamp(now);
  const projectsDir = join(codexHome(env), SESSIONS);
  return {
    lines,
    turns,
    leftOut,
    types,
    cwd,
    file: join(projectsDir, ...dir, `rollout-${stamp}-${sessionId}.jsonl`),
    project: dir.join('/'),
    projectsDir,
  };
}

function envelope(createdAt: string, raw: string): string {
  return `{"timestamp":${JSON.stringify(createdAt)},"type":"response_item","payload":${raw}}`;
}

export const codexResume: ResumeAdapter = {
  resumes: true,
  name: 'Codex',
  command: ['codex', 'resume', '{sessionId}'],
  plan,
  reader: async () => (await import('../import/codex/index.js')).codexReader,
};
