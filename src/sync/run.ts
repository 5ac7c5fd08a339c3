import type { ParsedSession, ParsedSource, ParsedTurn } from '../import/model.js';
import { writeUnit } from '../import/writer.js';
import {
  recordSync,
  type SessionSourceInfo,
  type Shard,
  type SyncHead,
  type SyncMark,
  syncMarks,
  syncStates,
} from '../store/index.js';
import { settleSharedSessions } from './copies.js';
import { git, readObjects } from './git.js';
import { noteSync } from './last.js';
import { HOST_RE, type SessionFile } from './layout.js';
import { ensureMirror, hostId, takeLock, usableRemote } from './mirror.js';
import { type HostPlan, planHost, TURN_BATCH } from './pull.js';
import { push } from './push.js';
import { readTurn } from './turn-file.js';
import type { PulledTurns } from './turns.js';
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
  /** 'partial': some of its sessions held back (`held_back`, each said in `problems`), the rest imported. */
  status: 'unchanged' | 'ok' | 'partial' | 'refused';
  held_back: string[];
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

/**
 * The commits a host was imported from in part (its head not recorded: a session held back, a turn not placed), by
 * host: refs in the mirror, set before the import and dropped once a head is recorded. Its next commits must hold
 * that one (pull.ts), or what was imported from it is held to nothing: no recorded head pins it.
 */
function partialRef(remote: string, host: string): string {
  return `refs/arborist-partial/${remote}/${host}`;
}

async function partialRefs(mirror: string, remote: string): Promise<Map<string, string>> {
  const prefix = partialRef(remote, '');
  const text = (
    await git(
      mirror,
      ['for-each-ref', '--format=%(objectname) %(refname)', prefix],
      'reading the commits imported from',
    )
  ).toString('utf8');
  const out = new Map<string, string>();
  for (const [oid, ref] of text.split('\n').map((l) => l.split(' ')))
    if (ref?.startsWith(prefix)) out.set(ref.slice(prefix.length), oid);
  return out;
}

export async function fetchRemote(mirror: string, remote: string): Promise<void> {
  await git(
    mirror,
    // `--`: the remote is never read as an option, whatever its name (checked too: usableRemote).
    ['fetch', '--quiet', '--no-tags', '--', remote, `+refs/heads/hosts/*:${hostRefPrefix(remote)}*`],
    `cannot fetch from remote ${remote}`,
  );
}

/**
 * Every pulled turn (of every set, numbered on: set 0's turns, then set 1's, ...) in an order the writer can take a
 * batch at a time: a turn after its parent (in any host and session) and after the turns of its session with smaller
 * seqs (the store mints a session's seqs in order and never goes back). Both follow the order turns were made in, so
 * honest data has no cycle; a forged one is cut, and the writer refuses what it cannot place. Iterative: a chain of
 * a million turns is no stack; typed arrays: a million turns are a few MB.
 */
export function parentsFirstOrder(sets: readonly PulledTurns[]): Uint32Array {
  const base: number[] = [];
  let n = 0;
  for (const t of sets) {
    base.push(n);
    n += t.length;
  }
  // A parent's place: its sid's set (sids are one host's each: run.ts refuses a clash), then its seq there.
  const setOfSid = new Map<string, number>();
  sets.forEach((t, k) => {
    for (const sid of t.sids) setOfSid.set(sid, k);
  });
  const parent = new Int32Array(n).fill(-1);
  const before = new Int32Array(n).fill(-1);
  sets.forEach((t, k) => {
    for (let i = 0; i < t.length; i++) {
      const g = base[k] + i;
      // Sorted by (sid, seq) in each set (PulledTurns.seal): the turn before in its session is the one before.
      if (i > 0 && t.sidOf[i - 1] === t.sidOf[i]) before[g] = g - 1;
      const ps = t.parentSidOf[i];
      if (ps < 0) continue;
      const sid = t.parentSids[ps];
      const pk = setOfSid.get(sid);
      if (pk === undefined) continue;
      const j = sets[pk].find(sid, t.parentSeq[i]);
      if (j >= 0) parent[g] = base[pk] + j;
    }
  });
  const state = new Uint8Array(n); // 0 new, 1 waiting on the stack, 2 placed
  const out = new Uint32Array(n);
  let placed = 0;
  const stack: number[] = [];
  for (let i = 0; i < n; i++) {
    if (state[i] !== 0) continue;
    state[i] = 1;
    stack.push(i);
    while (stack.length > 0) {
      const j = stack[stack.length - 1];
      const p = parent[j];
      const b = before[j];
      const next = p >= 0 && state[p] === 0 ? p : b >= 0 && state[b] === 0 ? b : -1;
      if (next >= 0) {
        state[next] = 1;
        stack.push(next);
        continue;
      }
      state[j] = 2;
      out[placed++] = j;
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

/** One pulled turn of a batch: its host, its set and its place there. */
interface Placed {
  host: string;
  turns: PulledTurns;
  i: number;
}

/** One batch of pulled turns as a unit for the import writer: exact turns, sessions made with their origin. */
function unitOf(
  remote: string,
  batch: readonly Placed[],
  bufs: readonly (Buffer | null)[],
  files: ReadonlyMap<string, SessionFile>,
): ParsedSource {
  const sessions: ParsedSession[] = [];
  const turns: ParsedTurn[] = [];
  const seen = new Set<string>();
  batch.forEach(({ host, turns: set, i: at }, i) => {
    const buf = bufs[i];
    const sid = set.sid(at);
    const node_hash = set.hashHex(at);
    // Checked before (pull.ts); read again by blob id, the same bytes: a blob gone from the mirror is skipped here,
    // and its host waits for the next sync.
    const r = buf ? readTurn(buf, sid, set.seq[at]) : null;
    if (r === null || typeof r === 'string' || r.node_hash !== node_hash) return;
    const c = r.content;
    if (!seen.has(sid)) {
      seen.add(sid);
      // Every session a turn goes into is named as exact, file or not (one already here had no new file): else the
      // writer would take its turns as another tool's and import them anew, under new Bates ids.
      const f = files.get(sid);
      sessions.push({
        sourceSession: sid,
        createdAt: f?.created_at ?? c.created_at,
        exact: {
          sid,
          label: f?.label ?? null,
          session_root: '',
          origin: { source: 'sync', source_session: sid, info: originInfo(host, f) },
        },
      });
    }
    turns.push({
      sourceId: c.bates,
      parentSourceId: c.parent_bates,
      sourceSession: sid,
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
        node_hash,
      },
    });
  });
  return { kind: 'arborist', file: `sync ${remote}`, sessions, turns, entries: [], problems: [] };
}

/**
 * Turns a writer run (one transaction) takes: its unit holds their whole content, so it bounds the import's memory;
 * 1,000 a run imported 100,000 turns faster than 10,000 a run did, and in ~200 MB less (docs/sync.md, "Speed").
 */
const IMPORT_BATCH = 1_000;

/**
 * The checked hosts' turns through the import writer, parents first, IMPORT_BATCH at a time (each batch one
 * transaction with its `import.file` event): by host, which of its turns were added (1) and the writer's problems.
 */
async function importAll(
  ctx: SyncContext,
  ok: readonly HostPlan[],
): Promise<{ added: Map<string, Uint8Array>; problems: string[] }> {
  const files = new Map<string, SessionFile>();
  for (const p of ok) for (const [sid, f] of p.sessions) files.set(sid, f);
  const order = parentsFirstOrder(ok.map((p) => p.turns));
  const base: number[] = [];
  let n = 0;
  for (const p of ok) {
    base.push(n);
    n += p.turns.length;
  }
  const placed = (g: number): Placed => {
    let k = base.length - 1;
    while (base[k] > g) k--;
    return { host: ok[k].host, turns: ok[k].turns, i: g - base[k] };
  };
  const added = new Map(ok.map((p) => [p.host, new Uint8Array(p.turns.length)]));
  const problems: string[] = [];
  ctx.progress('import', 0, order.length);
  // Blobs are read TURN_BATCH at a time (one git process each: a spawn costs ~20 ms of this process's time under
  // load), and written IMPORT_BATCH at a time.
  for (let from = 0; from < order.length; from += TURN_BATCH) {
    const group = Array.from(order.subarray(from, from + TURN_BATCH), placed);
    const bufs = await readObjects(
      ctx.mirror,
      group.map((b) => b.turns.blobHex(b.i)),
    );
    for (let at = 0; at < group.length; at += IMPORT_BATCH) {
      const batch = group.slice(at, at + IMPORT_BATCH);
      const unit = unitOf(ctx.remote, batch, bufs.slice(at, at + IMPORT_BATCH), files);
      if (unit.turns.length > 0) {
        const r = writeUnit(ctx.shard, unit);
        const mine = new Set(r.added);
        for (const b of batch) if (mine.has(b.turns.bates(b.i))) added.get(b.host)![b.i] = 1;
        for (const pr of r.problems) problems.push(pr.reason);
      }
      ctx.progress('import', Math.min(order.length, from + at + IMPORT_BATCH), order.length);
    }
  }
  return { added, problems };
}

export async function syncRemote(
  shard: Shard,
  dbPath: string,
  remote: string,
  opts: SyncOptions = {},
): Promise<SyncReport> {
  await usableRemote(
    dbPath,
    remote,
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
  const partial = await partialRefs(mirror, remote);
  const plans: HostPlan[] = [];
  let done = 0;
  for (const [host, tip] of [...hosts].sort()) {
    ctx.progress('check', done++, hosts.size);
    plans.push(await planHost(shard, mirror, host, tip, before.get(host), partial.get(host)));
  }
  ctx.progress('check', hosts.size, hosts.size);
  settleSharedSessions(plans);
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
    for (const p of ok) {
      let n = 0;
      for (let i = 0; i < p.turns.length; i++) if (!shard.getNode(p.turns.bates(i))) n++;
      imported.set(p.host, n);
    }
  } else if (ok.length > 0) {
    const refs = ok.map((p) => `update ${partialRef(remote, p.host)} ${p.commit}\n`).join('');
    await git(mirror, ['update-ref', '--stdin'], 'noting the commits imported from', refs);
    const r = await importAll(ctx, ok);
    for (const pr of r.problems) report.problems.push(pr);
    const added = r.added;
    const known = syncMarks(shard);
    for (const p of ok) {
      const mine = added.get(p.host)!;
      imported.set(
        p.host,
        mine.reduce((a, b) => a + b, 0),
      );
      // A host is recorded as imported only when every turn of it is here: one the writer refused (its parent is a
      // turn of a host refused this time) is tried again from the same commit next time.
      // (A session archived here is a local decision: its turns are not imported, and not waited for.)
      let whole = true;
      for (let i = 0; i < p.turns.length && whole; i++)
        whole =
          mine[i] === 1 ||
          shard.getNode(p.turns.bates(i)) !== undefined ||
          shard.isArchivedSid(p.turns.sid(i));
      // Its sessions' marks as its branch gives them; when its head is not recorded (a turn not placed, a session
      // held back, which is not among them), of those that are here.
      const recorded = whole && p.heldBack.length === 0;
      for (const s of p.sessions.values()) {
        if (!recorded && shard.getSession(s.sid) === undefined && !shard.isArchivedSid(s.sid)) continue;
        const was = known.get(s.sid);
        if (!was || was.archived !== s.archived || was.host !== p.host)
          marks[s.sid] = { host: p.host, archived: s.archived };
      }
      if (!whole) {
        report.problems.push(
          `host ${p.host}: some turns were not imported; they are tried again at the next sync`,
        );
        continue;
      }
      if (p.head && recorded) advanced[p.host] = { commit: p.commit, seq: p.head.seq, hash: p.head.hash };
    }
  }
  for (const p of plans)
    report.pulled.hosts.push({
      host: p.host,
      status: p.status === 'ok' && p.heldBack.length > 0 ? 'partial' : p.status,
      held_back: p.heldBack,
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
  if (pushed.head !== null || Object.keys(advanced).length > 0 || Object.keys(marks).length > 0) {
    report.event = recordSync(shard, {
      remote,
      host: ctx.host,
      pushed: pushed.head,
      turns_pushed: pushed.turns,
      turns_pulled: report.pulled.turns,
      hosts: advanced,
      marks,
    });
    const drop = Object.keys(advanced).map((h) => `delete ${partialRef(remote, h)}\n`);
    if (drop.length > 0)
      await git(mirror, ['update-ref', '--stdin'], 'noting the heads recorded', drop.join(''));
  }
  return report;
}
