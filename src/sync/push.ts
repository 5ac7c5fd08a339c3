import {
  ArboristError,
  eventHashAt,
  eventsAfter,
  hashes,
  parseBates,
  type RawEvent,
  type SyncHead,
  sessionTurnBlobs,
} from '../store/index.js';
import { fastImport, git, gitMessage, type NewFile, readObjects, refCommit, runGit } from './git.js';
import {
  chunkOf,
  chunkPath,
  EVENTS_PER_CHUNK,
  eventLine,
  FORMAT,
  HEAD_PATH,
  type HeadFile,
  parseChunk,
  parseHead,
  parseSession,
  type SessionFile,
  sessionDir,
  sessionPath,
  turnPath,
} from './layout.js';
import type { SyncContext } from './types.js';

/**
 * Pushing this host's branch (docs/sync.md, "Push"): the events after the head the branch holds, the turns of this
 * host's own sessions those events added (or a restore brought back), and the session files they touched, as ONE
 * commit on the branch's current tip, written by one `git fast-import`. Turn files already there are never written
 * again; the events' last chunk grows. A push that loses a race (the tip moved) fetches and builds again.
 */

export interface PushResult {
  commit: string | null;
  head: SyncHead | null;
  turns: number;
  events: number;
  sessions: number;
}

const TRIES = 4;

export function ownRef(remote: string, host: string): string {
  return `refs/arborist/${remote}/hosts/${host}`;
}

/** The head this host's branch holds (seq 0 when there is no branch yet). */
export async function pushedHead(mirror: string, tip: string | null): Promise<HeadFile | null> {
  if (tip === null) return null;
  const [buf] = await readObjects(mirror, [`${tip}:${HEAD_PATH}`]);
  const head = parseHead(buf);
  if (!head)
    throw new ArboristError(
      'damaged',
      `this host's branch has no readable ${HEAD_PATH} (commit ${tip.slice(0, 12)})`,
    );
  return head;
}

interface Touched {
  /** Own sessions whose turns from this seq on are to be written (1: all of them, after a restore). */
  fromSeq: Map<string, number>;
  sessions: Set<string>;
}

const SESSION_KINDS = new Set(['session.create', 'session.archive', 'session.restore']);

/** The sessions (and the turns in them) the events touched, read from their bodies. */
function touchedBy(events: readonly RawEvent[]): Touched {
  const fromSeq = new Map<string, number>();
  const sessions = new Set<string>();
  const from = (sid: string, seq: number) => {
    const was = fromSeq.get(sid);
    if (was === undefined || seq < was) fromSeq.set(sid, seq);
  };
  for (const e of events) {
    if (e.kind !== 'node.add' && !SESSION_KINDS.has(e.kind)) continue;
    let data: Record<string, unknown>;
    try {
      data = (JSON.parse(e.body.toString('utf8')) as { data: Record<string, unknown> }).data;
    } catch {
      continue; // chain-check's to report; nothing to push for it
    }
    if (e.kind === 'node.add') {
      const b = typeof data.bates === 'string' ? parseBates(data.bates) : null;
      if (b) from(b.sid, b.seq);
      continue;
    }
    if (typeof data.sid !== 'string') continue;
    sessions.add(data.sid);
    if (e.kind === 'session.restore') from(data.sid, 1);
  }
  for (const sid of fromSeq.keys()) sessions.add(sid);
  return { fromSeq, sessions };
}

/** The files under these session folders at `tip` (paths), in batches of folders. */
async function existingPaths(
  mirror: string,
  tip: string | null,
  sids: readonly string[],
): Promise<Set<string>> {
  const out = new Set<string>();
  if (tip === null || sids.length === 0) return out;
  for (let at = 0; at < sids.length; at += 500) {
    const dirs = sids.slice(at, at + 500).map((s) => `${sessionDir(s)}/`);
    const text = (
      await git(mirror, ['ls-tree', '-r', '--name-only', '-z', tip, '--', ...dirs], 'reading the branch')
    ).toString('utf8');
    for (const p of text.split('\0')) if (p !== '') out.add(p);
  }
  return out;
}

/** The files of one push and what they count; null when there is nothing to push. */
async function buildFiles(
  ctx: SyncContext,
  tip: string | null,
  head: HeadFile | null,
): Promise<{ files: NewFile[]; turns: number; sessions: number; events: number; last: RawEvent } | null> {
  const { shard, mirror } = ctx;
  const fromSeq = head?.events.seq ?? 0;
  const fromHash = head?.events.hash ?? hashes.ZERO_HASH.toString('hex');
  const here = eventHashAt(shard, fromSeq);
  if (here !== fromHash)
    throw new ArboristError(
      'damaged',
      `the local chain does not hold the head this host pushed to ${ctx.remote} (event ${fromSeq}): the shard was rolled back or its chain rewritten; see \`arborist check --remote ${ctx.remote}\``,
    );
  const events = [...eventsAfter(shard, fromSeq)];
  // A sync's own event alone is no news: pushing it would make every sync push (docs/sync.md, "Push").
  if (!events.some((e) => e.kind !== 'sync')) return null;
  const last = events[events.length - 1];

  const touched = touchedBy(events);
  const origins = shard.sessionOriginsOf([...touched.sessions]);
  const own = [...touched.sessions].filter((sid) => origins.get(sid)?.source !== 'sync').sort();
  const existing = await existingPaths(mirror, tip, own);
  const files: NewFile[] = [];
  let turns = 0;
  let sessions = 0;
  const gone: string[] = [];
  for (const sid of own) {
    const s = shard.getSession(sid);
    if (!s) {
      // Archived here (or never kept): its session file, if pushed, says so; its turns wait for a restore.
      if (existing.has(sessionPath(sid))) gone.push(sid);
      continue;
    }
    const origin = shard.sourceOfSession(sid);
    const meta: SessionFile = {
      sid,
      label: s.label,
      created_at: s.created_at,
      archived: false,
      origin: origin
        ? { source: origin.source, source_session: origin.source_session, info: { ...origin.info } }
        : null,
    };
    if (!existing.has(sessionPath(sid))) sessions++;
    files.push({ path: sessionPath(sid), data: Buffer.from(`${hashes.canon(meta)}\n`, 'utf8') });
    const from = touched.fromSeq.get(sid);
    if (from === undefined) continue;
    for (const t of sessionTurnBlobs(shard, sid, from - 1)) {
      const path = turnPath(sid, t.seq);
      if (existing.has(path)) continue; // immutable: never written twice
      files.push({ path, data: Buffer.from(t.blob, 'utf8') });
      turns++;
    }
    ctx.progress('export', files.length, files.length);
  }
  if (gone.length > 0) {
    const bufs = await readObjects(
      mirror,
      gone.map((sid) => `${tip}:${sessionPath(sid)}`),
    );
    gone.forEach((sid, i) => {
      const was = parseSession(bufs[i]);
      if (!was || was.archived) return;
      files.push({
        path: sessionPath(sid),
        data: Buffer.from(`${hashes.canon({ ...was, archived: true })}\n`, 'utf8'),
      });
    });
  }

  // Events: the chunk the branch's head is in grows (its lines as pushed, kept byte for byte), new ones follow.
  const first = chunkOf(fromSeq + 1);
  let lines: string[] = [];
  if (tip !== null && fromSeq % EVENTS_PER_CHUNK !== 0) {
    const [buf] = await readObjects(mirror, [`${tip}:${chunkPath(first)}`]);
    const parsed = buf ? parseChunk(buf) : null;
    if (!buf || !parsed || parsed.bad !== null || parsed.lines[parsed.lines.length - 1]?.seq !== fromSeq)
      throw new ArboristError(
        'damaged',
        `this host's branch on ${ctx.remote} has a damaged ${chunkPath(first)}`,
      );
    lines = [buf.toString('utf8')];
  }
  let chunk = first;
  for (const e of events) {
    const c = chunkOf(e.seq);
    if (c !== chunk) {
      files.push({ path: chunkPath(chunk), data: Buffer.from(lines.join(''), 'utf8') });
      lines = [];
      chunk = c;
    }
    lines.push(eventLine(e));
  }
  files.push({ path: chunkPath(chunk), data: Buffer.from(lines.join(''), 'utf8') });

  const newHead: HeadFile = {
    format: FORMAT,
    host: ctx.host,
    events: { seq: last.seq, hash: last.hash },
    turns: (head?.turns ?? 0) + turns,
    sessions: (head?.sessions ?? 0) + sessions,
  };
  files.push({ path: HEAD_PATH, data: Buffer.from(`${hashes.canon(newHead)}\n`, 'utf8') });
  return { files, turns, sessions, events: events.length, last };
}

/** Fetches this host's own branch again (after a lost race). */
async function refetchOwn(ctx: SyncContext): Promise<void> {
  const ref = ownRef(ctx.remote, ctx.host);
  await git(
    ctx.mirror,
    ['fetch', '--quiet', '--no-tags', ctx.remote, `+refs/heads/hosts/${ctx.host}:${ref}`],
    `cannot fetch from remote ${ctx.remote}`,
  );
}

export async function push(ctx: SyncContext, dryRun: boolean): Promise<PushResult> {
  const ref = ownRef(ctx.remote, ctx.host);
  for (let attempt = 0; attempt < TRIES; attempt++) {
    const tip = await refCommit(ctx.mirror, ref);
    const head = await pushedHead(ctx.mirror, tip);
    const built = await buildFiles(ctx, tip, head);
    if (built === null) return { commit: null, head: null, turns: 0, events: 0, sessions: 0 };
    const result = {
      turns: built.turns,
      events: built.events,
      sessions: built.sessions,
      head: { commit: '', seq: built.last.seq, hash: built.last.hash },
    };
    if (dryRun) return { commit: null, ...result, head: null };
    ctx.progress('push', 0, 1);
    const commit = await fastImport(
      ctx.mirror,
      `refs/arborist/out/${ctx.remote}`,
      tip,
      built.files,
      `arborist sync: ${built.turns} turns, events to ${built.last.seq}`,
      ctx.host,
    );
    const r = await runGit(ctx.mirror, [
      'push',
      '--porcelain',
      ctx.remote,
      `${commit}:refs/heads/hosts/${ctx.host}`,
    ]);
    if (r.code === 0) {
      await git(ctx.mirror, ['update-ref', ref, commit], 'recording the push');
      ctx.progress('push', 1, 1);
      return { commit, ...result, head: { ...result.head, commit } };
    }
    const said = `${r.stdout.toString('utf8')}\n${r.stderr}`;
    // Never forced: a rejection means the branch moved (another sync of this host won the race).
    if (!/\[rejected\]|non-fast-forward|fetch first|stale info/.test(said))
      throw new ArboristError(
        'input',
        `cannot push to remote ${ctx.remote}: ${gitMessage(r.stderr) || `git exited ${r.code}`}`,
      );
    await refetchOwn(ctx);
  }
  throw new ArboristError(
    'busy',
    `cannot push to remote ${ctx.remote}: the branch kept moving (${TRIES} tries)`,
  );
}
