import type { ParsedSession, ParsedSource, ParsedTurn } from '../import/model.js';
import { writeUnit } from '../import/writer.js';
import {
  ArboristError,
  recordSync,
  type SessionSourceInfo,
  type Shard,
  type SyncHead,
  type SyncMark,
  syncMarks,
  syncStates,
} from '../store/index.js';
import { git, readObjects } from './git.js';
import { noteSync } from './last.js';
import { HOST_RE, type SessionFile } from './layout.js';
import { ensureMirror, hostId, listRemotes, takeLock } from './mirror.js';
import { type HostPlan, type PulledTurn, planHost, readTurn, TURN_BATCH } from './pull.js';
import { push } from './push.js';
import type { Phase, Progress, SyncContext } from './types.js';

/**
 * One `arborist sync` with one remote (docs/sync.md): fetch every host's branch into the mirror, check each other
 * host's new commits and import what passed (one writer run: exact turns, so Bates ids and node hashes are kept),
 * push this host's own, and record the sync in one `sync` event. The one entry the CLI, the TUI and the bench call.
 */

export interface SyncOptions {
  dryRun?: boolean;
  onProgress?: (p: Progress) => void;
}

export interface HostReport {
  host: string;
  status: 'unchanged' | 'ok' | 'refused';
  /** Turns imported from it (dry run: that would be). */
  turns: number;
  problems: string[];
}

export interface SyncReport {
  remote: string;
  host: string;
  dry_run: boolean;
  pushed: { commit: string | null; turns: number; events: number; sessions: number };
  pulled: { turns: number; hosts: HostReport[] };
  /** Problems of the import itself (a turn the writer refused), each one line. */
  problems: string[];
  /** The seq of the `sync` event written, null when nothing changed (or a dry run). */
  event: number | null;
}

export function hostRefPrefix(remote: string): string {
  return `refs/arborist/${remote}/hosts/`;
}

/** The other hosts' branches fetched into the mirror: host id -> commit; a ref that is no host id is ignored. */
async function fetchedHosts(mirror: string, remote: string, self: string): Promise<Map<string, string>> {
  const text = (
    await git(
      mirror,
      ['for-each-ref', '--format=%(objectname) %(refname)', hostRefPrefix(remote)],
      'listing hosts',
    )
  ).toString('utf8');
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const [oid, ref] = line.split(' ');
    if (!ref) continue;
    const host = ref.slice(hostRefPrefix(remote).length);
    if (HOST_RE.test(host) && host !== self) out.set(host, oid);
  }
  return out;
}

export async function fetchRemote(mirror: string, remote: string): Promise<void> {
  await git(
    mirror,
    ['fetch', '--quiet', '--no-tags', remote, `+refs/heads/hosts/*:${hostRefPrefix(remote)}*`],
    `cannot fetch from remote ${remote}`,
  );
}

/** A pulled turn with the host it came from. */
interface Pulled {
  host: string;
  turn: PulledTurn;
}

/**
 * Every pulled turn in an order the writer can take a batch at a time: a turn after its parent (in any host and
 * session) and after the turns of its session with smaller seqs (the store mints a session's seqs in order and never
 * goes back). Both follow the order turns were made in, so honest data has no cycle; a forged one is cut, and the
 * writer refuses what it cannot place. Iterative: a chain of a million turns is no stack.
 */
export function parentsFirstOrder(all: readonly Pulled[]): Pulled[] {
  const at = new Map<string, number>();
  for (let i = 0; i < all.length; i++) at.set(all[i].turn.bates, i);
  const bySeq = all
    .map((_, i) => i)
    .sort((a, b) => {
      const x = all[a].turn;
      const y = all[b].turn;
      return x.sid < y.sid ? -1 : x.sid > y.sid ? 1 : x.seq - y.seq;
    });
  const before = new Int32Array(all.length).fill(-1);
  for (let i = 1; i < bySeq.length; i++)
    if (all[bySeq[i]].turn.sid === all[bySeq[i - 1]].turn.sid) before[bySeq[i]] = bySeq[i - 1];
  const state = new Uint8Array(all.length); // 0 new, 1 waiting on the stack, 2 placed
  const out: Pulled[] = [];
  for (const i of bySeq) {
    if (state[i] !== 0) continue;
    state[i] = 1;
    const stack = [i];
    while (stack.length > 0) {
      const j = stack[stack.length - 1];
      const parent = all[j].turn.parent_bates;
      const deps = [parent === null ? undefined : at.get(parent), before[j] >= 0 ? before[j] : undefined];
      const next = deps.find((k) => k !== undefined && state[k] === 0);
      if (next !== undefined) {
        state[next] = 1;
        stack.push(next);
        continue;
      }
      state[j] = 2;
      out.push(all[j]);
      stack.pop();
    }
  }
  return out;
}

/**
 * What a pulled session's `session_sources` row says: its host, and the working directory, project and title its
 * host's own origin gave (so that the lists show its project as on its host), each text capped.
 */
function originInfo(host: string, f: SessionFile | undefined): SessionSourceInfo {
  const info: SessionSourceInfo = { host };
  const o = f?.origin?.info;
  for (const k of ['cwd', 'project', 'title'] as const) {
    const v = o?.[k];
    if (typeof v === 'string' && v !== '' && v.isWellFormed())
      info[k] = v.length > 1024 ? `${v.slice(0, 1023).toWellFormed()}…` : v;
  }
  // The agent it came from, so lists, find's agent: filter and the browser's badges show it (agentOf).
  // A session with no origin was asked in arborist on its host.
  const agent = f?.origin ? f.origin.source : 'arborist';
  if (typeof agent === 'string' && /^[a-z0-9-]{1,32}$/.test(agent)) info.agent = agent;
  return info;
}

/** One batch of pulled turns as a unit for the import writer: exact turns, sessions made with their origin. */
function unitOf(
  remote: string,
  batch: readonly Pulled[],
  bufs: readonly (Buffer | null)[],
  files: ReadonlyMap<string, SessionFile>,
): ParsedSource {
  const sessions: ParsedSession[] = [];
  const turns: ParsedTurn[] = [];
  const seen = new Set<string>();
  batch.forEach(({ host, turn: t }, i) => {
    const buf = bufs[i];
    // Checked before (pull.ts); read again by blob id, the same bytes: a blob gone from the mirror is skipped here,
    // and its host waits for the next sync.
    const r = buf ? readTurn(buf, t.sid, t.seq) : null;
    if (r === null || typeof r === 'string' || r.node_hash !== t.node_hash) return;
    if (!seen.has(t.sid)) {
      seen.add(t.sid);
      // Every session a turn goes into is named as exact, file or not (one already here had no new file): else the
      // writer would take its turns as another tool's and import them anew, under new Bates ids.
      const f = files.get(t.sid);
      sessions.push({
        sourceSession: t.sid,
        createdAt: f?.created_at ?? t.created_at,
        exact: {
          sid: t.sid,
          label: f?.label ?? null,
          session_root: '',
          origin: { source: 'sync', source_session: t.sid, info: originInfo(host, f) },
        },
      });
    }
    const c = r.content;
    turns.push({
      sourceId: c.bates,
      parentSourceId: c.parent_bates,
      sourceSession: t.sid,
      question: c.question,
      answer: c.answer_text,
      createdAt: c.created_at,
      raw: [],
      line: 0,
      complete: true,
      exact: {
        bates: c.bates,
        audit: c.audit,
        cache_key: c.cache_key,
        cited_titles: c.cited_titles,
        n_cited_sources: c.n_cited_sources,
        source: c.source,
        source_id: c.source_id,
        node_hash: t.node_hash,
      },
    });
  });
  return { kind: 'arborist', file: `sync ${remote}`, sessions, turns, entries: [], problems: [] };
}

/**
 * The checked hosts' turns through the import writer, parents first, TURN_BATCH at a time (each batch one
 * transaction with its `import.file` event): the Bates ids added and the writer's problems.
 */
async function importAll(
  ctx: SyncContext,
  ok: readonly HostPlan[],
): Promise<{ added: Set<string>; problems: string[] }> {
  const files = new Map<string, SessionFile>();
  for (const p of ok) for (const [sid, f] of p.sessions) files.set(sid, f);
  const order = parentsFirstOrder(ok.flatMap((p) => p.turns.map((turn) => ({ host: p.host, turn }))));
  const added = new Set<string>();
  const problems: string[] = [];
  ctx.progress('import', 0, order.length);
  for (let at = 0; at < order.length; at += TURN_BATCH) {
    const batch = order.slice(at, at + TURN_BATCH);
    const bufs = await readObjects(
      ctx.mirror,
      batch.map((b) => b.turn.blob),
    );
    const unit = unitOf(ctx.remote, batch, bufs, files);
    if (unit.turns.length > 0) {
      const r = writeUnit(ctx.shard, unit);
      for (const b of r.added) added.add(b);
      for (const pr of r.problems) problems.push(pr.reason);
    }
    ctx.progress('import', Math.min(order.length, at + TURN_BATCH), order.length);
  }
  return { added, problems };
}

export async function syncRemote(
  shard: Shard,
  dbPath: string,
  remote: string,
  opts: SyncOptions = {},
): Promise<SyncReport> {
  if (!(await listRemotes(dbPath)).some((r) => r.name === remote))
    throw new ArboristError(
      'not_found',
      `no sync remote named ${remote} (add one: arborist sync remote add NAME URL)`,
    );
  const mirror = await ensureMirror(dbPath);
  const release = await takeLock(mirror);
  try {
    const progress = (phase: Phase, done: number, total: number) => opts.onProgress?.({ phase, done, total });
    const ctx: SyncContext = { shard, dbPath, mirror, remote, host: hostId(shard, mirror), progress };
    const report = await syncLocked(ctx, opts.dryRun === true);
    if (!report.dry_run) noteSync(dbPath, remote);
    return report;
  } finally {
    release();
  }
}

async function syncLocked(ctx: SyncContext, dryRun: boolean): Promise<SyncReport> {
  const { shard, mirror, remote } = ctx;
  ctx.progress('fetch', 0, 1);
  await fetchRemote(mirror, remote);
  ctx.progress('fetch', 1, 1);

  // Pull: every other host, checked on its own; only those that pass are imported.
  const hosts = await fetchedHosts(mirror, remote, ctx.host);
  const before = new Map(syncStates(shard, remote).map((r) => [r.host, r]));
  const plans: HostPlan[] = [];
  let done = 0;
  for (const [host, tip] of [...hosts].sort()) {
    ctx.progress('check', done++, hosts.size);
    plans.push(await planHost(shard, mirror, host, tip, before.get(host)));
  }
  ctx.progress('check', hosts.size, hosts.size);
  // A session is one host's: two branches that both push it are refused both (which one made it is not knowable).
  const claimedBy = new Map<string, string>();
  const clash = new Set<string>();
  for (const p of plans)
    for (const sid of new Set([...p.sessions.keys(), ...p.turns.map((t) => t.sid)])) {
      const other = claimedBy.get(sid);
      if (other !== undefined && other !== p.host) clash.add(sid);
      else claimedBy.set(sid, p.host);
    }
  for (const p of plans) {
    const mine = [...clash].filter((sid) => p.sessions.has(sid) || p.turns.some((t) => t.sid === sid));
    if (mine.length === 0) continue;
    p.status = 'refused';
    p.problems.push(
      `host ${p.host} pushes session ${mine[0]}, which another host pushes too; nothing of ${p.host} imported`,
    );
    p.turns = [];
    p.sessions.clear();
  }
  const ok = plans.filter((p) => p.status === 'ok');
  const report: SyncReport = {
    remote,
    host: ctx.host,
    dry_run: dryRun,
    pushed: { commit: null, turns: 0, events: 0, sessions: 0 },
    pulled: { turns: 0, hosts: [] },
    problems: [],
    event: null,
  };
  const imported = new Map<string, number>();
  const advanced: Record<string, SyncHead> = {};
  const marks: Record<string, SyncMark> = {};
  if (dryRun) {
    for (const p of ok) imported.set(p.host, p.turns.filter((t) => !shard.getNode(t.bates)).length);
  } else if (ok.length > 0) {
    const r = await importAll(ctx, ok);
    for (const pr of r.problems) report.problems.push(pr);
    const added = r.added;
    const known = syncMarks(shard);
    for (const p of ok) {
      imported.set(p.host, p.turns.filter((t) => added.has(t.bates)).length);
      // A host is recorded as imported only when every turn of it is here: one the writer refused (its parent is a
      // turn of a host refused this time) is tried again from the same commit next time.
      // (A session archived here is a local decision: its turns are not imported, and not waited for.)
      const whole = p.turns.every(
        (t) => added.has(t.bates) || shard.getNode(t.bates) !== undefined || shard.isArchivedSid(t.sid),
      );
      if (!whole) {
        report.problems.push(
          `host ${p.host}: some turns were not imported; they are tried again at the next sync`,
        );
        continue;
      }
      if (p.head) advanced[p.host] = { commit: p.commit, seq: p.head.seq, hash: p.head.hash };
      for (const s of p.sessions.values()) {
        const was = known.get(s.sid);
        if (!was || was.archived !== s.archived || was.host !== p.host)
          marks[s.sid] = { host: p.host, archived: s.archived };
      }
    }
  }
  for (const p of plans)
    report.pulled.hosts.push({
      host: p.host,
      status: p.status,
      turns: imported.get(p.host) ?? 0,
      problems: p.problems,
    });
  report.pulled.turns = [...imported.values()].reduce((a, b) => a + b, 0);

  // Push: this host's own, after the import (its events travel too).
  const pushed = await push(ctx, dryRun);
  report.pushed = {
    commit: pushed.commit,
    turns: pushed.turns,
    events: pushed.events,
    sessions: pushed.sessions,
  };
  if (dryRun) return report;
  if (pushed.head !== null || Object.keys(advanced).length > 0 || Object.keys(marks).length > 0)
    report.event = recordSync(shard, {
      remote,
      host: ctx.host,
      pushed: pushed.head,
      turns_pushed: pushed.turns,
      turns_pulled: report.pulled.turns,
      hosts: advanced,
      marks,
    });
  return report;
}
