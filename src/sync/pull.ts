import {
  checkNewTurn,
  formatBates,
  hashes,
  nextSeqOf,
  type Shard,
  type SyncStateRow,
  type TurnContent,
} from '../store/index.js';
import { oneLine } from '../text/sanitize.js';
import { isAncestor, readObjects, type TreeChange, treeChanges } from './git.js';
import {
  chunkOf,
  chunkPath,
  EVENTS_PER_CHUNK,
  type EventLine,
  HEAD_PATH,
  parseChunk,
  parseHead,
  parseSession,
  placeOf,
  type SessionFile,
  sessionPath,
} from './layout.js';

/**
 * The checks on one other host's branch before anything of it is imported (docs/sync.md, "Trust"): the branch
 * descends from the commit imported before; turn files and session folders were only added; its events extend the
 * head imported before and every new line links (event_hash = H(prev || body), the store's own function); each new
 * turn's file is canonical JSON whose hash is the node hash a `node.add` of that host's chain recorded for that
 * Bates id; and its sessions are that host's here. Any failure refuses the whole host for this sync, named.
 */

/**
 * A checked turn of another host, without its content: held for every new turn of a pull (a first pull of a
 * million), so it is small; the content is read again from its blob, in batches, when it is imported (run.ts).
 */
export interface PulledTurn {
  bates: string;
  parent_bates: string | null;
  sid: string;
  seq: number;
  created_at: string;
  /** The turn file's blob id in the mirror. */
  blob: string;
  node_hash: string;
}

export interface HostPlan {
  host: string;
  commit: string;
  status: 'unchanged' | 'ok' | 'refused';
  problems: string[];
  head?: { seq: number; hash: string };
  turns: PulledTurn[];
  /** Session files this commit added or changed, by sid. */
  sessions: Map<string, SessionFile>;
}

const ZERO = hashes.ZERO_HASH.toString('hex');

/** node.add claims (Bates id -> node hash) of event lines; other kinds are passed over. */
function claimsOf(lines: readonly EventLine[], into: Map<string, string>): void {
  for (const l of lines) {
    // Cheap filter before parsing: only node.add lines claim turns.
    if (!l.body.includes('"kind":"node.add"')) continue;
    try {
      const ev = JSON.parse(l.body.toString('utf8')) as {
        kind?: unknown;
        data?: { bates?: unknown; node_hash?: unknown };
      };
      if (ev.kind !== 'node.add') continue;
      if (typeof ev.data?.bates === 'string' && typeof ev.data.node_hash === 'string')
        into.set(ev.data.bates, ev.data.node_hash);
    } catch {
      // a line that linked but does not parse: it claims nothing
    }
  }
}

/** A turn file's bytes as a turn: its content when they are exactly the canonical bytes of one, else a reason. */
export function readTurn(
  buf: Buffer,
  sid: string,
  seq: number,
): { content: TurnContent; node_hash: string } | string {
  const text = buf.toString('utf8');
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'is not JSON';
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'is not a turn';
  const c = v as TurnContent;
  // The store's own canonical form of the hashed fields: equal bytes mean exactly these fields, exactly so written.
  let canon: string;
  try {
    canon = hashes.nodeContentJson(c);
  } catch {
    return 'is not a turn';
  }
  if (canon !== text || !Buffer.from(canon, 'utf8').equals(buf)) return 'is not the canonical JSON of a turn';
  if (c.bates !== formatBates(sid, seq))
    return `holds ${oneLine(String(c.bates).slice(0, 40))}, not the turn its path names`;
  // Canonical is not enough: a number for a question is canonical too. The store's own checks of a new turn, here, so
  // that a bad turn refuses its host, named, rather than stopping the writer and the whole sync with it.
  if (typeof c.created_at !== 'string' || (c.parent_bates !== null && typeof c.parent_bates !== 'string'))
    return 'is not a turn (created_at or parent_bates is not text)';
  // And as the store keeps it: a field the checks would fill in (a null audit) or mend (a lone surrogate) changes the
  // hash the writer expects. Compared field by field: a second canonical form cost ~0.5 s per 100,000 turns.
  try {
    const k = checkNewTurn(c as never);
    if (
      k.audit !== c.audit ||
      k.question !== c.question ||
      k.answer_text !== c.answer_text ||
      k.cited_titles.some((x, i) => x !== c.cited_titles[i])
    )
      return 'is not a turn as the store keeps one';
  } catch (err) {
    return `is not a turn (${oneLine(String((err as Error).message)).slice(0, 80)})`;
  }
  const node_hash = hashes.sha256(Buffer.concat([hashes.LEAF, buf])).toString('hex');
  return { content: c, node_hash };
}

/** Turn blobs are read this many at a time: a first pull of a million turns never holds them all. */
export const TURN_BATCH = 10_000;

export async function planHost(
  shard: Shard,
  mirror: string,
  host: string,
  tip: string,
  prev: SyncStateRow | undefined,
): Promise<HostPlan> {
  const plan: HostPlan = { host, commit: tip, status: 'ok', problems: [], turns: [], sessions: new Map() };
  const refuse = (why: string): HostPlan => {
    plan.status = 'refused';
    plan.problems.push(why);
    plan.turns = [];
    plan.sessions.clear();
    return plan;
  };
  if (prev && prev.commit === tip) {
    plan.status = 'unchanged';
    return plan;
  }
  if (prev && !(await isAncestor(mirror, prev.commit, tip)))
    return refuse(
      `host ${host} rewrote its history: its branch no longer holds commit ${prev.commit.slice(0, 12)} (event ${prev.seq}) imported before`,
    );
  const changes = await treeChanges(mirror, prev?.commit ?? null, tip);

  // 1. What changed, by place: turn files and session folders only added, event chunks only grown.
  const prevSeq = prev?.seq ?? 0;
  const prevHash = prev?.hash ?? ZERO;
  const growing = prevSeq % EVENTS_PER_CHUNK === 0 ? -1 : chunkOf(prevSeq);
  const newTurns: { sid: string; seq: number; blob: string }[] = [];
  const sessionBlobs: { sid: string; blob: string }[] = [];
  let grown: TreeChange | undefined;
  for (const ch of changes) {
    const place = placeOf(ch.path);
    if (place.kind === 'turn') {
      if (ch.status !== 'A')
        return refuse(
          `host ${host} rewrote its history at turn ${formatBates(place.sid, place.seq)} (${ch.status === 'D' ? 'deleted' : 'changed'})`,
        );
      newTurns.push({ sid: place.sid, seq: place.seq, blob: ch.newBlob });
    } else if (place.kind === 'session') {
      if (ch.status === 'D') return refuse(`host ${host} rewrote its history: session ${place.sid} deleted`);
      sessionBlobs.push({ sid: place.sid, blob: ch.newBlob });
    } else if (place.kind === 'events') {
      if (ch.status === 'D' || (ch.status !== 'A' && place.chunk !== growing))
        return refuse(
          `host ${host} rewrote its history at event ${place.chunk * EVENTS_PER_CHUNK + 1} or after`,
        );
      if (ch.status !== 'A') grown = ch;
    }
  }

  // 2. The head and the events that lead to it from the head imported before.
  const [headBuf] = await readObjects(mirror, [`${tip}:${HEAD_PATH}`]);
  const head = parseHead(headBuf);
  if (!head || head.host !== host) return refuse(`host ${host}'s ${HEAD_PATH} is missing or not its own`);
  if (head.events.seq < prevSeq)
    return refuse(
      `host ${host} rewrote its history: its chain went back from event ${prevSeq} to ${head.events.seq}`,
    );
  // A head that did not move leaves the chain as it was: the same hash, and no chunk changed (a line slipped into
  // the chunk would otherwise go unread here and be believed by a later claim).
  if (head.events.seq === prevSeq && head.events.hash !== prevHash)
    return refuse(`host ${host} rewrote its history at event ${prevSeq}`);
  if (head.events.seq === prevSeq && grown)
    return refuse(`host ${host} rewrote its history at event ${prevSeq} or before`);
  const claims = new Map<string, string>();
  if (head.events.seq > prevSeq) {
    const chunks: number[] = [];
    for (let c = chunkOf(prevSeq + 1); c <= chunkOf(head.events.seq); c++) chunks.push(c);
    const names = chunks.map((c) => `${tip}:${chunkPath(c)}`);
    if (grown) names.push(grown.oldBlob);
    const bufs = await readObjects(mirror, names);
    if (grown) {
      const was = bufs.pop();
      const now = bufs[0];
      // The lines pulled before stay byte for byte: the chunk only grows.
      if (!was || !now || now.length < was.length || !now.subarray(0, was.length).equals(was))
        return refuse(`host ${host} rewrote its history at event ${prevSeq} or before`);
    }
    let seq = prevSeq;
    let prevH = Buffer.from(prevHash, 'hex');
    const fresh: EventLine[] = [];
    for (let i = 0; i < chunks.length; i++) {
      const buf = bufs[i];
      if (!buf) return refuse(`host ${host}'s ${chunkPath(chunks[i])} is missing`);
      const parsed = parseChunk(buf);
      if (parsed.bad !== null)
        return refuse(`host ${host}'s ${chunkPath(chunks[i])} line ${parsed.bad} is not an event line`);
      for (const l of parsed.lines) {
        if (l.seq <= prevSeq && chunks[i] === chunkOf(prevSeq + 1)) {
          if (l.seq === prevSeq && l.hash !== prevHash)
            return refuse(`host ${host} rewrote its history at event ${prevSeq}`);
          continue;
        }
        if (l.seq !== seq + 1)
          return refuse(`host ${host}'s chain skips from event ${seq} to ${l.seq} (an event removed)`);
        if (!hashes.eventHash(prevH, l.body).equals(Buffer.from(l.hash, 'hex')))
          return refuse(`host ${host}'s event ${l.seq} does not match its hash (edited)`);
        seq = l.seq;
        prevH = Buffer.from(l.hash, 'hex');
        fresh.push(l);
      }
    }
    if (seq !== head.events.seq || prevH.toString('hex') !== head.events.hash)
      return refuse(`host ${host}'s events end at ${seq}, but its ${HEAD_PATH} says ${head.events.seq}`);
    claimsOf(fresh, claims);
  }
  plan.head = { seq: head.events.seq, hash: head.events.hash };

  // 3. Session files, then each new turn against its node hash and the chain's claim.
  const sbufs = await readObjects(
    mirror,
    sessionBlobs.map((s) => s.blob),
  );
  for (let i = 0; i < sessionBlobs.length; i++) {
    const s = parseSession(sbufs[i]);
    if (!s || s.sid !== sessionBlobs[i].sid)
      return refuse(`host ${host}'s ${sessionPath(sessionBlobs[i].sid)} is not a session file`);
    plan.sessions.set(s.sid, s);
  }
  const unclaimed: PulledTurn[] = [];
  for (let at = 0; at < newTurns.length; at += TURN_BATCH) {
    const part = newTurns.slice(at, at + TURN_BATCH);
    const tbufs = await readObjects(
      mirror,
      part.map((t) => t.blob),
    );
    for (let i = 0; i < part.length; i++) {
      const { sid, seq, blob } = part[i];
      const buf = tbufs[i];
      const r = buf ? readTurn(buf, sid, seq) : 'is missing';
      if (typeof r === 'string')
        return refuse(`host ${host}'s turn ${formatBates(sid, seq)} ${r}; nothing of ${host} imported`);
      const c = r.content;
      const t: PulledTurn = {
        bates: c.bates,
        parent_bates: c.parent_bates,
        sid,
        seq,
        created_at: c.created_at,
        blob,
        node_hash: r.node_hash,
      };
      if (claims.get(t.bates) === t.node_hash) plan.turns.push(t);
      else unclaimed.push(t);
    }
  }
  if (unclaimed.length > 0) {
    // A turn added before the events of this pull (pushed late: its session was archived, then restored): the older
    // chunks are read, once, only then.
    const older: number[] = [];
    if (prevSeq > 0) for (let c = 0; c <= chunkOf(prevSeq); c++) older.push(c);
    const bufs = await readObjects(
      mirror,
      older.map((c) => `${tip}:${chunkPath(c)}`),
    );
    // Read again, so linked again from the zero hash up to the head imported before: only lines of that chain claim.
    const linked: EventLine[] = [];
    let prevH = hashes.ZERO_HASH;
    for (const b of bufs)
      for (const l of b ? parseChunk(b).lines : []) {
        if (l.seq > prevSeq || l.seq !== linked.length + 1) break;
        if (!hashes.eventHash(prevH, l.body).equals(Buffer.from(l.hash, 'hex'))) break;
        prevH = Buffer.from(l.hash, 'hex');
        linked.push(l);
      }
    if (linked.length !== prevSeq || prevH.toString('hex') !== prevHash)
      return refuse(`host ${host} rewrote its history at event ${linked.length + 1} or before`);
    claimsOf(linked, claims);
    for (const t of unclaimed) {
      const said = claims.get(t.bates);
      if (said !== t.node_hash)
        return refuse(
          said === undefined
            ? `host ${host}'s turn ${t.bates} is claimed by no node.add of its chain; nothing of ${host} imported`
            : `host ${host}'s turn ${t.bates} does not match the node hash its chain recorded (edited); nothing of ${host} imported`,
        );
      plan.turns.push(t);
    }
  }

  // 4. Its sessions are its own: never one of this host's, nor one pulled from another host.
  const sids = new Set<string>([...plan.sessions.keys(), ...plan.turns.map((t) => t.sid)]);
  const origins = shard.sessionOriginsOf([...sids]);
  for (const sid of sids) {
    const here = shard.getSession(sid) !== undefined || shard.isArchivedSid(sid);
    if (!here) continue;
    const o = origins.get(sid) ?? shard.sourceOfSession(sid);
    if (o?.source !== 'sync' || o.info.host !== host)
      return refuse(
        `host ${host} pushes session ${sid}, which here is ${o?.source === 'sync' ? `host ${String(o.info.host)}'s` : "this host's own"}; nothing of ${host} imported`,
      );
  }
  // A turn below its session's next seq here, and not here, can never be placed (the store mints seqs in order and
  // never goes back): the writer would throw the whole batch, so its host is refused here, named.
  const next = new Map<string, number | undefined>();
  for (const t of plan.turns) {
    if (!next.has(t.sid)) next.set(t.sid, nextSeqOf(shard, t.sid));
    const n = next.get(t.sid);
    if (n !== undefined && t.seq < n && shard.getNode(t.bates) === undefined)
      return refuse(
        `host ${host}'s turn ${t.bates} comes below its session's turns already here; nothing of ${host} imported`,
      );
  }
  // A new session's file: in this commit or, for one pushed earlier without turns, at the tip.
  const missing = [...new Set(plan.turns.map((t) => t.sid))].filter(
    (sid) => !plan.sessions.has(sid) && shard.getSession(sid) === undefined && !shard.isArchivedSid(sid),
  );
  if (missing.length > 0) {
    const bufs = await readObjects(
      mirror,
      missing.map((sid) => `${tip}:${sessionPath(sid)}`),
    );
    for (let i = 0; i < missing.length; i++) {
      const s = parseSession(bufs[i]);
      if (!s) return refuse(`host ${host}'s session ${missing[i]} has no session file`);
      plan.sessions.set(s.sid, s);
    }
  }
  return plan;
}
