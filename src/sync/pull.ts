import { formatBates, hashes, nextSeqOf, type Shard, type SyncStateRow } from '../store/index.js';
import { heldBackLine, heldHere, isCopyOrigin, madeBy, whoseHere } from './copies.js';
import { forEachChange, isAncestor, ObjectTooBig, readObjects, type TreeChange } from './git.js';
import {
  chunkOf,
  chunkPath,
  EVENTS_PER_CHUNK,
  type EventLine,
  HEAD_PATH,
  HEX64,
  parseChunk,
  parseHead,
  parseSession,
  placeOf,
  type SessionFile,
  sessionPath,
} from './layout.js';
import { readTurn } from './turn-file.js';
import { PulledTurns } from './turns.js';

/**
 * The checks on one other host's branch before anything of it is imported (docs/sync.md, "Trust"): the branch
 * descends from the commit imported before; turn files and session folders were only added; its events extend the
 * head imported before and every new line links (event_hash = H(prev || body), the store's own function); each new
 * turn's file is canonical JSON whose hash is the node hash a `node.add` of that host's chain recorded for that
 * Bates id; and its sessions are that host's here. Any failure refuses the whole host for this sync, named.
 */

export interface HostPlan {
  host: string;
  commit: string;
  status: 'unchanged' | 'ok' | 'refused';
  problems: string[];
  /**
   * Sessions of its branch held back, each said in `problems`: one held here as another's (this host's own, another
   * host's, a copy of an export it does not extend), or pushed by two branches. The rest of the host is imported;
   * its head is not recorded, so the next sync looks at them again from the same commit.
   */
  heldBack: string[];
  head?: { seq: number; hash: string };
  /** Its checked new turns, without their content (a first pull of a million holds them all): turns.ts. */
  turns: PulledTurns;
  /** Session files this commit added or changed, by sid. */
  sessions: Map<string, SessionFile>;
}

const ZERO = hashes.ZERO_HASH.toString('hex');

/** node.add claims (Bates id, node hash) of event lines, in order; other kinds are passed over. */
function claimsOf(lines: readonly EventLine[], claim: (bates: string, nodeHash: string) => void): void {
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
        claim(ev.data.bates, ev.data.node_hash);
    } catch {
      // a line that linked but does not parse: it claims nothing
    }
  }
}

/** Turn blobs are read this many at a time: a first pull of a million turns never holds them all. */
export const TURN_BATCH = 5_000;
/** Event chunks are read this many at a time (1,000 events each), for the same reason. */
const CHUNK_BATCH = 20;

export async function planHost(
  shard: Shard,
  mirror: string,
  host: string,
  tip: string,
  prev: SyncStateRow | undefined,
  partial?: string,
): Promise<HostPlan> {
  try {
    return await checkHost(shard, mirror, host, tip, prev, partial);
  } catch (e) {
    // A blob too big to read (a remote can send gigabytes compressed to kilobytes) refuses its host, named; the
    // other hosts' turns still come in.
    if (!(e instanceof ObjectTooBig)) throw e;
    const plan = emptyPlan(host, tip);
    plan.status = 'refused';
    plan.problems.push(`host ${host}'s ${e.message}; nothing of ${host} imported`);
    return plan;
  }
}

/** A host's plan before anything of its branch is read: nothing to import yet, no problem yet. */
function emptyPlan(host: string, tip: string): HostPlan {
  return {
    host,
    commit: tip,
    status: 'ok',
    problems: [],
    heldBack: [],
    turns: new PulledTurns(),
    sessions: new Map(),
  };
}

async function checkHost(
  shard: Shard,
  mirror: string,
  host: string,
  tip: string,
  prev: SyncStateRow | undefined,
  partial: string | undefined,
): Promise<HostPlan> {
  const plan = emptyPlan(host, tip);
  const refuse = (why: string): HostPlan => {
    plan.status = 'refused';
    plan.problems = [why];
    plan.heldBack = [];
    plan.turns = new PulledTurns();
    plan.sessions.clear();
    return plan;
  };
  // A commit imported from in part (its head not recorded: run.ts, partialRefs) stays on the branch, as one recorded.
  if (partial !== undefined && partial !== tip && !(await isAncestor(mirror, partial, tip)))
    return refuse(
      `host ${host} rewrote its history: its branch no longer holds commit ${partial.slice(0, 12)}, imported from in part before; nothing of ${host} imported`,
    );
  if (prev && prev.commit === tip) {
    plan.status = 'unchanged';
    return plan;
  }
  if (prev && !(await isAncestor(mirror, prev.commit, tip)))
    return refuse(
      `host ${host} rewrote its history: its branch no longer holds commit ${prev.commit.slice(0, 12)} (event ${prev.seq}) imported before`,
    );

  // 1. What changed, by place: turn files and session folders only added, event chunks only grown. Listed as git
  // gives it (a first pull lists a million files), each new turn kept compact; the first refusal stands.
  const prevSeq = prev?.seq ?? 0;
  const prevHash = prev?.hash ?? ZERO;
  const growing = prevSeq % EVENTS_PER_CHUNK === 0 ? -1 : chunkOf(prevSeq);
  let turns = new PulledTurns();
  const sessionBlobs: { sid: string; blob: string }[] = [];
  let grown: TreeChange | undefined;
  let bad: string | null = null;
  await forEachChange(mirror, prev?.commit ?? null, tip, (ch) => {
    if (bad !== null) return;
    const place = placeOf(ch.path);
    if (place.kind === 'turn') {
      if (ch.status !== 'A')
        bad = `host ${host} rewrote its history at turn ${formatBates(place.sid, place.seq)} (${ch.status === 'D' ? 'deleted' : 'changed'})`;
      else turns.add(place.sid, place.seq, ch.newBlob);
    } else if (place.kind === 'session') {
      if (ch.status === 'D') bad = `host ${host} rewrote its history: session ${place.sid} deleted`;
      else sessionBlobs.push({ sid: place.sid, blob: ch.newBlob });
    } else if (place.kind === 'events') {
      if (ch.status === 'D' || (ch.status !== 'A' && place.chunk !== growing))
        bad = `host ${host} rewrote its history at event ${place.chunk * EVENTS_PER_CHUNK + 1} or after`;
      else if (ch.status !== 'A') grown = ch;
    }
  });
  if (bad !== null) return refuse(bad);
  const twice = turns.seal();
  if (twice >= 0) return refuse(`host ${host}'s turn ${turns.bates(twice)} is in two files`);
  // What the chain claims for each new turn: 0 nothing, 1 the node hash in turns.hashes, 2 a value no file hashes to.
  // A later claim of one Bates id replaces an earlier one.
  const claimed = new Uint8Array(turns.length);
  const claim = (bates: string, nodeHash: string) => {
    const i = turns.indexOf(bates);
    if (i < 0) return;
    if (HEX64.test(nodeHash)) {
      claimed[i] = 1;
      turns.setHash(i, nodeHash);
    } else claimed[i] = 2;
  };

  // 2. The head and the events that lead to it from the head imported before, CHUNK_BATCH chunks at a time.
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
  if (head.events.seq > prevSeq) {
    const first = chunkOf(prevSeq + 1);
    const last = chunkOf(head.events.seq);
    let seq = prevSeq;
    let prevH = Buffer.from(prevHash, 'hex');
    const fresh: EventLine[] = [];
    for (let from = first; from <= last; from += CHUNK_BATCH) {
      const chunks: number[] = [];
      for (let c = from; c <= last && c < from + CHUNK_BATCH; c++) chunks.push(c);
      const names = chunks.map((c) => `${tip}:${chunkPath(c)}`);
      const withOld = from === first && grown !== undefined;
      if (withOld) names.push(grown!.oldBlob);
      const bufs = await readObjects(mirror, names);
      if (withOld) {
        const was = bufs.pop();
        const now = bufs[0];
        // The lines pulled before stay byte for byte: the chunk only grows.
        if (!was || !now || now.length < was.length || !now.subarray(0, was.length).equals(was))
          return refuse(`host ${host} rewrote its history at event ${prevSeq} or before`);
      }
      for (let i = 0; i < chunks.length; i++) {
        const buf = bufs[i];
        if (!buf) return refuse(`host ${host}'s ${chunkPath(chunks[i])} is missing`);
        const parsed = parseChunk(buf);
        if (parsed.bad !== null)
          return refuse(`host ${host}'s ${chunkPath(chunks[i])} line ${parsed.bad} is not an event line`);
        for (const l of parsed.lines) {
          if (l.seq <= prevSeq && chunks[i] === first) {
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
      // Claims are taken as the lines link (a refusal later drops them all): only this batch's lines are held.
      claimsOf(fresh, claim);
      fresh.length = 0;
    }
    if (seq !== head.events.seq || prevH.toString('hex') !== head.events.hash)
      return refuse(`host ${host}'s events end at ${seq}, but its ${HEAD_PATH} says ${head.events.seq}`);
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
  // A turn whose file matched no claim of this pull's events is marked (1), its file's node hash put in its place.
  const unclaimed = new Uint8Array(turns.length);
  let nUnclaimed = 0;
  for (let at = 0; at < turns.length; at += TURN_BATCH) {
    const end = Math.min(turns.length, at + TURN_BATCH);
    const names: string[] = [];
    for (let i = at; i < end; i++) names.push(turns.blobHex(i));
    const tbufs = await readObjects(mirror, names);
    for (let i = at; i < end; i++) {
      const sid = turns.sid(i);
      const seq = turns.seq[i];
      const buf = tbufs[i - at];
      const r = buf ? readTurn(buf, sid, seq) : 'is missing';
      if (typeof r === 'string')
        return refuse(`host ${host}'s turn ${formatBates(sid, seq)} ${r}; nothing of ${host} imported`);
      turns.setParent(i, r.content.parent_bates);
      if (claimed[i] === 1 && turns.hashIs(i, r.node_hash)) continue;
      unclaimed[i] = 1;
      nUnclaimed++;
      turns.setHash(i, r.node_hash);
    }
  }
  if (nUnclaimed > 0) {
    // A turn added before the events of this pull (pushed late: its session was archived, then restored): the older
    // chunks are read, once, only then; their claims (as those of this pull) replace earlier ones of a Bates id.
    // older: 0 no claim there, 1 the last one matched the file, 2 it did not.
    const older = new Uint8Array(turns.length);
    const last = prevSeq > 0 ? chunkOf(prevSeq) : -1;
    let linked = 0;
    let broken = false;
    let chainH = hashes.ZERO_HASH;
    for (let from = 0; from <= last; from += CHUNK_BATCH) {
      const names: string[] = [];
      for (let c = from; c <= last && c < from + CHUNK_BATCH; c++) names.push(`${tip}:${chunkPath(c)}`);
      const bufs = await readObjects(mirror, names);
      // Read again, so linked again from the zero hash up to the head imported before: only lines of that chain
      // claim (a line slipped into an old chunk breaks the link, and the host is refused below).
      const lines: EventLine[] = [];
      for (const b of bufs)
        for (const l of b ? parseChunk(b).lines : []) {
          if (broken || l.seq > prevSeq || l.seq !== linked + 1) {
            broken = true;
            break;
          }
          if (!hashes.eventHash(chainH, l.body).equals(Buffer.from(l.hash, 'hex'))) {
            broken = true;
            break;
          }
          chainH = Buffer.from(l.hash, 'hex');
          linked++;
          lines.push(l);
        }
      claimsOf(lines, (bates, nodeHash) => {
        const i = turns.indexOf(bates);
        if (i >= 0 && unclaimed[i] === 1) older[i] = turns.hashIs(i, nodeHash) ? 1 : 2;
      });
    }
    if (linked !== prevSeq || chainH.toString('hex') !== prevHash)
      return refuse(`host ${host} rewrote its history at event ${linked + 1} or before`);
    for (let i = 0; i < turns.length; i++) {
      // No claim there: this pull's own claim stands, and it did not match.
      if (unclaimed[i] === 0 || older[i] === 1) continue;
      return refuse(
        older[i] === 0 && claimed[i] === 0
          ? `host ${host}'s turn ${turns.bates(i)} is claimed by no node.add of its chain; nothing of ${host} imported`
          : `host ${host}'s turn ${turns.bates(i)} does not match the node hash its chain recorded (edited); nothing of ${host} imported`,
      );
    }
  }

  // 4. Its sessions are its own: never one of this host's, nor one pulled from another host. Unless all it pushes
  // of one is here already, turn for turn the same: two shards that imported the same export (docs/export.md, "A
  // copy stays a copy") both push that session, and neither may add to it. Nothing of such a session is imported.
  // And a copy here follows its maker, as it would a later export: a host whose own session file says it made the
  // session (no copy's mark) may add turns to it, when every turn both hold is the same. Any other session held
  // here is held back, said, and the rest of the host imported: one disputed session (two versions of one export,
  // a remote writer's claim) kept every other turn of the host out, on every sync, until it was settled.
  // A turn imported before from a host whose head was not recorded, pushed again as another (below; or archived).
  const rewrote = (at: string): string =>
    `host ${host} rewrote its history ${at}: a turn imported from it before is now another; nothing of ${host} imported`;
  const sids = new Set<string>([...plan.sessions.keys(), ...turns.sids]);
  const origins = shard.sessionOriginsOf([...sids]);
  const sameHere = new Set<string>();
  for (const sid of sids) {
    const here = shard.getSession(sid) !== undefined || shard.isArchivedSid(sid);
    if (!here) continue;
    const o = origins.get(sid) ?? shard.sourceOfSession(sid);
    if (o?.source === 'sync' && o.info.host === host) {
      if (shard.isArchivedSid(sid) && heldHere(shard, turns, sid) === 'differs')
        return refuse(rewrote(`in session ${sid} (archived here)`));
      continue;
    }
    const held = heldHere(shard, turns, sid);
    if (held === 'all') {
      sameHere.add(sid);
      continue;
    }
    const copyHere = isCopyOrigin(o, sid);
    if (copyHere && held === 'some' && shard.getSession(sid) !== undefined) {
      const file =
        plan.sessions.get(sid) ??
        parseSession((await readObjects(mirror, [`${tip}:${sessionPath(sid)}`]))[0]);
      if (file?.sid === sid && madeBy(file)) continue;
    }
    plan.heldBack.push(sid);
    plan.problems.push(heldBackLine(host, sid, `which here is ${whoseHere(o, sid)}`));
  }
  const passedOver = new Set([...sameHere, ...plan.heldBack]);
  if (passedOver.size > 0) {
    turns = turns.without(passedOver);
    for (const sid of passedOver) plan.sessions.delete(sid);
  }
  plan.turns = turns;
  // A turn below its session's next seq here, and not here, can never be placed (the store mints seqs in order and
  // never goes back): the writer would throw the whole batch, so its host is refused here, named. One here must be
  // the same: a host whose head was not recorded (a session held back) is read again from the commit before, and
  // its turns imported since may have been rewritten; the writer would skip them as here, and the head be recorded.
  const next = new Map<string, number | undefined>();
  for (let i = 0; i < turns.length; i++) {
    const sid = turns.sid(i);
    if (!next.has(sid)) next.set(sid, nextSeqOf(shard, sid));
    const n = next.get(sid);
    if (n === undefined || turns.seq[i] >= n) continue;
    const here = shard.getNode(turns.bates(i));
    if (here === undefined)
      return refuse(
        `host ${host}'s turn ${turns.bates(i)} comes below its session's turns already here; nothing of ${host} imported`,
      );
    if (!turns.hashIs(i, here.node_hash)) return refuse(rewrote(`at turn ${turns.bates(i)}`));
  }
  // A new session's file: in this commit or, for one pushed earlier without turns, at the tip.
  const missing = turns.sids.filter(
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
