import { canon } from '../model/hash.js';

/**
 * The chain's claims about the state, rebuilt by reading every event once, in order. Hashes recomputed from
 * content (verify) only prove that the stored state is consistent with itself: an attacker who edits a row and
 * recomputes every hash by the documented rules stays consistent. What they cannot recompute without breaking the
 * chain (or, if they rewrite it end to end, its head) is what the events recorded when each change was made: the
 * node hash of every turn added, every session created, the digest of every archive body, each session's root
 * after each change, and every entry change. Verify compares the state with these claims (docs/sessions.md,
 * "What verify detects").
 */
export interface Problem {
  kind: 'turn' | 'session' | 'archive' | 'entry' | 'cache' | 'event' | 'source' | 'sync' | 'more';
  /** The Bates id, sid, entry key, cache key or event seq concerned. */
  id: string;
  detail: string;
}

/** What the chain says about one session. */
export interface ClaimedSession {
  sid: string;
  /** 'live' after create or restore, 'archived' after archive. */
  state: 'live' | 'archived';
  label: string | null;
  /** The root the newest event that changed it recorded, and that event's seq. */
  root: string | null;
  rootEvent: number;
  /** The highest seq the chain ever minted for it: next_seq must stay above it, so ids are never reused. */
  maxSeq: number;
  /** Node hashes by seq (32 bytes each), and the seq of the event that added each (0: none). */
  hashes: Buffer;
  addedBy: Int32Array;
  /** Last session.archive of this session: the digest of its body. */
  archiveSha256: string | null;
  archiveEvent: number;
  createdBy: number;
}

export interface ClaimedEntry {
  sessionId: string;
  compactionCheckpoints: unknown[];
  usageFamilySessionIds: string[];
  /** ts of the event that last changed it: the entry row's updated_at. */
  updated_at: string;
  event: number;
}

/** Where an imported turn's source records are: a chunk and a byte range of its uncompressed records. */
export interface ClaimedSourceRef {
  chunk: number;
  start: number;
  length: number;
  event: number;
}

/** A source session's mapping to an arborist session, as session.create recorded it. */
export interface ClaimedSessionSource {
  source: string;
  source_session: string;
  info_json: string;
  event: number;
}

/**
 * Zeroed space for the sessions' claimed hashes and events, cut from shared blocks: an ArrayBuffer of its own for
 * each session, and again each time one grows, cost a fifth of reading a chain of many sessions, and each crossed to
 * verify's thread (verify/parallel.ts) as a copy of its own; views of a few SharedArrayBuffers cross as they are.
 * Space is never handed out twice, so a view stays zero where nothing was claimed.
 */
class Slab {
  private block = new SharedArrayBuffer(0);
  private used = 0;

  /** `bytes` zeroed bytes (a multiple of 4), 8-aligned: a view of a block, or a buffer of its own when large. */
  take(bytes: number): { buffer: SharedArrayBuffer; at: number } {
    if (bytes > SLAB_BLOCK / 8) return { buffer: new SharedArrayBuffer(bytes), at: 0 };
    if (this.used + bytes > this.block.byteLength) {
      this.block = new SharedArrayBuffer(SLAB_BLOCK);
      this.used = 0;
    }
    const at = this.used;
    this.used += (bytes + 7) & ~7;
    return { buffer: this.block, at };
  }
}

const SLAB_BLOCK = 1 << 20;
const slabs = new WeakMap<ChainClaims, Slab>();

function slabOf(c: ChainClaims): Slab {
  let s = slabs.get(c);
  if (!s) {
    s = new Slab();
    slabs.set(c, s);
  }
  return s;
}

/** Room for the hashes of `cap` turns (32 bytes each), zeroed. */
function takeHashes(c: ChainClaims, cap: number): Buffer {
  const { buffer, at } = slabOf(c).take(32 * cap);
  return Buffer.from(buffer, at, 32 * cap);
}

/** Room for the adding events of `cap` turns, zeroed. */
function takeEvents(c: ChainClaims, cap: number): Int32Array {
  const { buffer, at } = slabOf(c).take(4 * cap);
  return new Int32Array(buffer, at, cap);
}

export class ChainClaims {
  readonly sessions = new Map<string, ClaimedSession>();
  readonly entries = new Map<string, ClaimedEntry>();
  /** Source records of imported turns, by Bates id (node.add's `records`). */
  readonly sourceRefs = new Map<string, ClaimedSourceRef>();
  /** Digests of source record chunks, by chunk id (import.file / nodes.bulk `chunks`). */
  readonly chunks = new Map<number, { sha256: string; bytes: number; event: number }>();
  /** Source sessions, by arborist sid. */
  readonly sessionSources = new Map<string, ClaimedSessionSource>();
  /** sync_state rows by `remote\0host`: what the newest sync event naming them recorded. */
  readonly syncStates = new Map<string, { commit: string; seq: number; hash: string; event: number }>();
  /** sync_marks rows by sid. */
  readonly syncMarks = new Map<string, { host: string; archived: boolean; event: number }>();
  readonly problems: Problem[] = [];
  events = 0;

  /** The node hash the chain recorded for (sid, seq), with its event, or undefined when it recorded none. */
  node(sid: string, seq: number): { hash: Buffer; event: number } | undefined {
    const s = this.sessions.get(sid);
    if (!s || seq < 1 || seq > s.maxSeq || s.addedBy[seq] === 0) return undefined;
    return { hash: s.hashes.subarray(32 * seq, 32 * seq + 32), event: s.addedBy[seq] };
  }

  private session(sid: string, event: number): ClaimedSession {
    let s = this.sessions.get(sid);
    if (!s) {
      s = {
        sid,
        state: 'live',
        label: null,
        root: null,
        rootEvent: 0,
        maxSeq: 0,
        hashes: takeHashes(this, 8),
        addedBy: takeEvents(this, 8),
        archiveSha256: null,
        archiveEvent: 0,
        createdBy: event,
      };
      this.sessions.set(sid, s);
    }
    return s;
  }

  created(sid: string, label: string | null, root: string, event: number, kind: string): void {
    if (this.sessions.has(sid)) {
      this.problems.push({
        kind: 'event',
        id: String(event),
        detail: `${kind} creates session ${sid} a second time`,
      });
      return;
    }
    const s = this.session(sid, event);
    s.label = label;
    this.setRoot(sid, root, event);
  }

  /** An event whose payload the store never writes: said on its own, whatever else it claims. */
  malformed(event: number, detail: string): void {
    this.problems.push({ kind: 'event', id: String(event), detail });
  }

  /** A sync event: the sync_state rows and sync_marks it wrote (events.ts, `sync`). */
  synced(d: { [k: string]: unknown }, event: number): void {
    const remote = typeof d.remote === 'string' ? d.remote : '';
    const head = (host: string, h: unknown) => {
      const o = h as Record<string, unknown> | null;
      if (
        o === null ||
        typeof o !== 'object' ||
        typeof o.commit !== 'string' ||
        typeof o.hash !== 'string' ||
        typeof o.seq !== 'number'
      ) {
        this.malformed(event, `sync names host ${host} with a head that is not {commit, seq, hash}`);
        return;
      }
      this.syncStates.set(`${remote}\0${host}`, { commit: o.commit, seq: o.seq, hash: o.hash, event });
    };
    if (d.pushed !== null && d.pushed !== undefined && typeof d.host === 'string') head(d.host, d.pushed);
    if (d.hosts !== null && typeof d.hosts === 'object')
      for (const [host, h] of Object.entries(d.hosts as Record<string, unknown>)) head(host, h);
    if (d.marks !== null && typeof d.marks === 'object')
      for (const [sid, m] of Object.entries(d.marks as Record<string, unknown>)) {
        const o = m as Record<string, unknown> | null;
        if (
          o === null ||
          typeof o !== 'object' ||
          typeof o.host !== 'string' ||
          typeof o.archived !== 'boolean'
        ) {
          this.malformed(event, `sync marks session ${sid} with something that is not {host, archived}`);
          continue;
        }
        this.syncMarks.set(sid, { host: o.host, archived: o.archived, event });
      }
  }

  setRoot(sid: string, root: unknown, event: number): void {
    if (typeof root !== 'string') return;
    const s = this.sessions.get(sid);
    if (!s) return; // a root for a session the chain never created: reported when the sessions are compared
    s.root = root;
    s.rootEvent = event;
  }

  setRoots(roots: unknown, event: number): void {
    if (roots === null || typeof roots !== 'object') return;
    for (const [sid, root] of Object.entries(roots as Record<string, unknown>))
      this.setRoot(sid, root, event);
  }

  added(bates: string, hash: string, event: number): void {
    const m = /^([a-z0-9]+)-(\d{6,})$/.exec(bates);
    const s = m ? this.sessions.get(m[1]) : undefined;
    if (!m || !s || !/^[0-9a-f]{64}$/.test(hash)) {
      this.problems.push({
        kind: 'event',
        id: String(event),
        detail: `node.add names ${bates}, which it cannot add`,
      });
      return;
    }
    const seq = Number(m[2]);
    if (seq < s.addedBy.length && s.addedBy[seq] !== 0) {
      this.problems.push({
        kind: 'event',
        id: String(event),
        detail: `node.add adds ${bates} a second time`,
      });
      return;
    }
    this.claimTurn(s, seq, Buffer.from(hash, 'hex'), event);
  }

  /**
   * node.add of (sid, seq) with its node hash (32 bytes), as claims-read.ts reads the store's own form of the event
   * straight from its bytes; false, having applied nothing, when the chain never created sid or already added that
   * turn (the general path then says so, as for any event). `bates` is needed only with `records`.
   */
  addedFromBytes(
    sid: string,
    seq: number,
    hash: Uint8Array,
    event: number,
    records?: { bates: string; chunk: number; start: number; length: number },
  ): boolean {
    const s = this.sessions.get(sid);
    if (!s || (seq < s.addedBy.length && s.addedBy[seq] !== 0)) return false;
    this.events++;
    this.claimTurn(s, seq, hash, event);
    if (records)
      this.sourceRefs.set(records.bates, {
        chunk: records.chunk,
        start: records.start,
        length: records.length,
        event,
      });
    return true;
  }

  /** Turn seq of s was added by `event` with this node hash (32 bytes): the arrays grown to hold it. */
  private claimTurn(s: ClaimedSession, seq: number, hash: Uint8Array, event: number): void {
    if (seq >= s.addedBy.length) {
      let cap = s.addedBy.length;
      while (cap <= seq) cap *= 2;
      const hashes = takeHashes(this, cap);
      s.hashes.copy(hashes);
      const by = takeEvents(this, cap);
      by.set(s.addedBy);
      s.hashes = hashes;
      s.addedBy = by;
    }
    s.hashes.set(hash, 32 * seq);
    s.addedBy[seq] = event;
    if (seq > s.maxSeq) s.maxSeq = seq;
  }

  private entry(
    key: string,
    event: number,
    ts: string,
    change: (e: ClaimedEntry | undefined) => ClaimedEntry | null,
  ) {
    const next = change(this.entries.get(key));
    if (next === null) this.entries.delete(key);
    else this.entries.set(key, { ...next, updated_at: ts, event });
  }

  sessionSource(sid: string, src: unknown, event: number): void {
    if (src === undefined || src === null) return;
    const o = typeof src === 'object' ? (src as Record<string, unknown>) : {};
    this.sessionSources.set(sid, {
      source: String(o.source),
      source_session: String(o.source_session),
      info_json: typeof o.info_json === 'string' ? o.info_json : '',
      event,
    });
  }

  records(bates: string, ref: unknown, event: number): void {
    if (ref === undefined || ref === null) return;
    const r = Array.isArray(ref) ? ref : [];
    const [chunk, start, length] = r.map((v) => (Number.isSafeInteger(v) ? (v as number) : -1));
    if (r.length !== 3 || chunk < 0 || start < 0 || length < 0) {
      this.problems.push({
        kind: 'event',
        id: String(event),
        detail: `names no valid source records for ${bates}`,
      });
      return;
    }
    this.sourceRefs.set(bates, { chunk, start, length, event });
  }

  chunkDigests(list: unknown, event: number): void {
    if (!Array.isArray(list)) return;
    for (const c of list) {
      const [id, sha256, bytes] = Array.isArray(c) ? c : [];
      if (!Number.isSafeInteger(id) || typeof sha256 !== 'string' || !Number.isSafeInteger(bytes)) {
        this.problems.push({
          kind: 'event',
          id: String(event),
          detail: 'names a source chunk it cannot have written',
        });
        continue;
      }
      if (this.chunks.has(id)) {
        this.problems.push({
          kind: 'event',
          id: String(event),
          detail: `writes source chunk ${id} a second time`,
        });
        continue;
      }
      this.chunks.set(id, { sha256, bytes, event });
    }
  }

  entrySet(key: string, sid: string, seq: number, ts: string): void {
    this.entry(key, seq, ts, (old) => {
      const usage = old ? [...old.usageFamilySessionIds] : [];
      if (old && old.sessionId !== '' && !usage.includes(old.sessionId)) usage.push(old.sessionId);
      return {
        sessionId: sid,
        compactionCheckpoints: old?.compactionCheckpoints ?? [],
        usageFamilySessionIds: usage,
        updated_at: ts,
        event: seq,
      };
    });
  }

  entryCheckpoint(key: string, checkpoint: unknown, seq: number, ts: string): void {
    this.entry(key, seq, ts, (old) =>
      old ? { ...old, compactionCheckpoints: [...old.compactionCheckpoints, checkpoint] } : null,
    );
  }

  entryUsageFamily(key: string, sid: string, seq: number, ts: string): void {
    this.entry(key, seq, ts, (old) =>
      old ? { ...old, usageFamilySessionIds: [...old.usageFamilySessionIds, sid] } : null,
    );
  }

  entryReset(key: string, sid: string, seq: number, ts: string): void {
    this.entry(key, seq, ts, () => ({
      sessionId: sid,
      compactionCheckpoints: [],
      usageFamilySessionIds: [],
      updated_at: ts,
      event: seq,
    }));
  }

  entryDelete(key: string, seq: number, ts: string): void {
    this.entry(key, seq, ts, () => null);
  }

  archived(sid: string, sha256: string, roots: unknown, seq: number): void {
    const s = this.sessions.get(sid);
    if (s?.state !== 'live') {
      this.problems.push({ kind: 'event', id: String(seq), detail: `archives ${sid}, which is not live` });
      return;
    }
    s.state = 'archived';
    s.archiveSha256 = sha256;
    s.archiveEvent = seq;
    this.setRoots(roots, seq);
  }

  restored(sid: string, root: unknown, roots: unknown, seq: number): void {
    const s = this.sessions.get(sid);
    if (s?.state !== 'archived') {
      this.problems.push({
        kind: 'event',
        id: String(seq),
        detail: `restores ${sid}, which is not archived`,
      });
      return;
    }
    s.state = 'live';
    s.archiveSha256 = null;
    this.setRoot(s.sid, root, seq);
    this.setRoots(roots, seq);
  }
}

/** The entry's stored JSON as the store writes it (canon of the three fields). */
export function claimedEntryJson(e: ClaimedEntry): string {
  return canon({
    compactionCheckpoints: e.compactionCheckpoints,
    sessionId: e.sessionId,
    usageFamilySessionIds: e.usageFamilySessionIds,
  });
}
