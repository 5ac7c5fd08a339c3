import {
  ArboristError,
  eventHashAt,
  eventsAfter,
  hashes,
  parseBates,
  type RawEvent,
  type Shard,
  type SyncHead,
  sessionTurnBlobs,
  syncStates,
} from '../store/index.js';
import {
  fastImport,
  git,
  gitMessage,
  isAncestor,
  type NewFile,
  readObjects,
  refCommit,
  runGit,
} from './git.js';
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

/**
 * Whether this host's branch as fetched (`tip`) still holds the commit this shard last recorded pushing there: a
 * remote set back to an older commit, or rewritten, names a head the local chain holds, so only this can tell. A
 * push on top of it would lose the newer commits, and every other host would then refuse this one. Null when it
 * holds (or nothing was recorded: a shard that never pushed there, or one rolled back with its sync state).
 */
export async function ownBranchProblem(
  ctx: Pick<SyncContext, 'shard' | 'mirror' | 'remote' | 'host'>,
  tip: string | null,
): Promise<string | null> {
  const was = syncStates(ctx.shard, ctx.remote).find((r) => r.host === ctx.host);
  if (!was || (tip !== null && (await isAncestor(ctx.mirror, was.commit, tip)))) return null;
  return `this host's branch on ${ctx.remote} no longer holds commit ${was.commit.slice(0, 12)} (event ${was.seq}) this host pushed: the remote was set back or rewritten`;
}

interface Touched {
  /** Own sessions whose turns from this seq on are to be written (1: all of them, after a restore). */
  fromSeq: Map<string, number>;
  sessions: Set<string>;
  /** Events after the pushed head, and whether any is not a sync's own. */
  count: number;
  news: boolean;
  last: RawEvent | undefined;
}

const SESSION_KINDS = new Set(['session.create', 'session.archive', 'session.restore']);

/** One pass over the events after `fromSeq`: the sessions (and turns in them) they touched, read from their bodies. */
function touchedAfter(shard: Shard, fromSeq: number): Touched {
  const t: Touched = { fromSeq: new Map(), sessions: new Set(), count: 0, news: false, last: undefined };
  const from = (sid: string, seq: number) => {
    const was = t.fromSeq.get(sid);
    if (was === undefined || seq < was) t.fromSeq.set(sid, seq);
  };
  for (const e of eventsAfter(shard, fromSeq)) {
    t.count++;
    t.last = e;
    if (e.kind !== 'sync') t.news = true;
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
    t.sessions.add(data.sid);
    if (e.kind === 'session.restore') from(data.sid, 1);
  }
  for (const sid of t.fromSeq.keys()) t.sessions.add(sid);
  return t;
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

/** What one push writes: its files, made as they are read (`counts` is complete once they are all read). */
interface Build {
  files: Iterable<NewFile>;
  counts: { turns: number; sessions: number };
  events: number;
  last: RawEvent;
}

/** The files of one push; null when there is nothing to push. */
async function buildFiles(
  ctx: SyncContext,
  tip: string | null,
  head: HeadFile | null,
): Promise<Build | null> {
  const { shard, mirror } = ctx;
  const fromSeq = head?.events.seq ?? 0;
  const fromHash = head?.events.hash ?? hashes.ZERO_HASH.toString('hex');
  const here = eventHashAt(shard, fromSeq);
  if (here !== fromHash)
    throw new ArboristError(
      'damaged',
      `the local chain does not hold the head this host pushed to ${ctx.remote} (event ${fromSeq}): the shard was rolled back or its chain rewritten, or someone else pushed to this host's branch; see \`arborist check --remote ${ctx.remote}\``,
    );
  const touched = touchedAfter(shard, fromSeq);
  // A sync's own event alone is no news: pushing it would make every sync push (docs/sync.md, "Push").
  if (!touched.news || touched.last === undefined) return null;
  const last = touched.last;

  const origins = shard.sessionOriginsOf([...touched.sessions]);
  const own = [...touched.sessions].filter((sid) => origins.get(sid)?.source !== 'sync').sort();
  const existing = await existingPaths(mirror, tip, own);
  // Sessions archived here whose file was pushed: it now says so (their turns wait for a restore).
  const gone = own.filter((sid) => shard.getSession(sid) === undefined && existing.has(sessionPath(sid)));
  const goneFiles: NewFile[] = [];
  if (gone.length > 0) {
    const bufs = await readObjects(
      mirror,
      gone.map((sid) => `${tip}:${sessionPath(sid)}`),
    );
    gone.forEach((sid, i) => {
      const was = parseSession(bufs[i]);
      if (was && !was.archived)
        goneFiles.push({
          path: sessionPath(sid),
          data: Buffer.from(`${hashes.canon({ ...was, archived: true })}\n`, 'utf8'),
        });
    });
  }
  // The first lines of the chunk the branch's head is in, as pushed (kept byte for byte): new lines follow them.
  const first = chunkOf(fromSeq + 1);
  let kept: Buffer | null = null;
  if (tip !== null && fromSeq % EVENTS_PER_CHUNK !== 0) {
    const [buf] = await readObjects(mirror, [`${tip}:${chunkPath(first)}`]);
    const parsed = buf ? parseChunk(buf) : null;
    if (!buf || !parsed || parsed.bad !== null || parsed.lines[parsed.lines.length - 1]?.seq !== fromSeq)
      throw new ArboristError(
        'damaged',
        `this host's branch on ${ctx.remote} has a damaged ${chunkPath(first)}`,
      );
    kept = buf;
  }

  const counts = { turns: 0, sessions: 0 };
  const host = ctx.host;
  function* files(): Generator<NewFile> {
    let written = 0;
    for (const sid of own) {
      const s = shard.getSession(sid);
      if (!s) continue;
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
      if (!existing.has(sessionPath(sid))) counts.sessions++;
      yield { path: sessionPath(sid), data: Buffer.from(`${hashes.canon(meta)}\n`, 'utf8') };
      const from = touched.fromSeq.get(sid);
      if (from === undefined) continue;
      for (const t of sessionTurnBlobs(shard, sid, from - 1)) {
        const path = turnPath(sid, t.seq);
        if (existing.has(path)) continue; // immutable: never written twice
        counts.turns++;
        yield { path, data: Buffer.from(t.blob, 'utf8') };
      }
      ctx.progress('export', ++written, own.length);
    }
    yield* goneFiles;
    // The events, a chunk at a time.
    let chunk = first;
    let lines: Buffer[] = kept ? [kept] : [];
    for (const e of eventsAfter(shard, fromSeq)) {
      if (e.seq > last.seq) break;
      const c = chunkOf(e.seq);
      if (c !== chunk) {
        yield { path: chunkPath(chunk), data: Buffer.concat(lines) };
        lines = [];
        chunk = c;
      }
      lines.push(Buffer.from(eventLine(e), 'utf8'));
    }
    yield { path: chunkPath(chunk), data: Buffer.concat(lines) };
    const newHead: HeadFile = {
      format: FORMAT,
      host,
      events: { seq: last.seq, hash: last.hash },
      turns: (head?.turns ?? 0) + counts.turns,
      sessions: (head?.sessions ?? 0) + counts.sessions,
    };
    yield { path: HEAD_PATH, data: Buffer.from(`${hashes.canon(newHead)}\n`, 'utf8') };
  }
  return { files: files(), counts, events: touched.count, last };
}

/** Fetches this host's own branch again (after a lost race). */
async function refetchOwn(ctx: SyncContext): Promise<void> {
  const ref = ownRef(ctx.remote, ctx.host);
  await git(
    ctx.mirror,
    ['fetch', '--quiet', '--no-tags', '--', ctx.remote, `+refs/heads/hosts/${ctx.host}:${ref}`],
    `cannot fetch from remote ${ctx.remote}`,
  );
}

export async function push(ctx: SyncContext, dryRun: boolean): Promise<PushResult> {
  const ref = ownRef(ctx.remote, ctx.host);
  for (let attempt = 0; attempt < TRIES; attempt++) {
    const tip = await refCommit(ctx.mirror, ref);
    const gone = await ownBranchProblem(ctx, tip);
    if (gone !== null)
      throw new ArboristError(
        'damaged',
        `${gone}; nothing pushed (see \`arborist check --remote ${ctx.remote}\`, docs/sync.md)`,
      );
    const head = await pushedHead(ctx.mirror, tip);
    const built = await buildFiles(ctx, tip, head);
    if (built === null) return { commit: null, head: null, turns: 0, events: 0, sessions: 0 };
    const done = () => ({ turns: built.counts.turns, events: built.events, sessions: built.counts.sessions });
    if (dryRun) {
      for (const _ of built.files); // counted, not written
      return { commit: null, head: null, ...done() };
    }
    const commit = await fastImport(
      ctx.mirror,
      `refs/arborist/out/${ctx.remote}`,
      tip,
      built.files,
      `arborist sync: events to ${built.last.seq}`,
      ctx.host,
    );
    // The files were read (`export`) as fast-import took them; now the one push.
    ctx.progress('push', 0, 1);
    const r = await runGit(ctx.mirror, [
      'push',
      '--porcelain',
      '--',
      ctx.remote,
      `${commit}:refs/heads/hosts/${ctx.host}`,
    ]);
    if (r.code === 0) {
      await git(ctx.mirror, ['update-ref', ref, commit], 'recording the push');
      // fast-import leaves one pack per push: git's own threshold (gc.autoPackLimit) decides when to repack them.
      await runGit(ctx.mirror, ['gc', '--auto', '--quiet']);
      ctx.progress('push', 1, 1);
      return { commit, head: { commit, seq: built.last.seq, hash: built.last.hash }, ...done() };
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
