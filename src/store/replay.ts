import type Database from 'better-sqlite3';
import { canon, nodeHash } from './hash.js';
import type { ArchivedNodeRow } from './rows.js';

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
  kind: 'turn' | 'session' | 'archive' | 'entry' | 'cache' | 'event' | 'more';
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

export class ChainClaims {
  readonly sessions = new Map<string, ClaimedSession>();
  readonly entries = new Map<string, ClaimedEntry>();
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
        hashes: Buffer.alloc(32 * 8),
        addedBy: new Int32Array(8),
        archiveSha256: null,
        archiveEvent: 0,
        createdBy: event,
      };
      this.sessions.set(sid, s);
    }
    return s;
  }

  private created(sid: string, label: string | null, root: string, event: number, kind: string): void {
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

  private setRoot(sid: string, root: unknown, event: number): void {
    if (typeof root !== 'string') return;
    const s = this.sessions.get(sid);
    if (!s) return; // a root for a session the chain never created: reported when the sessions are compared
    s.root = root;
    s.rootEvent = event;
  }

  private setRoots(roots: unknown, event: number): void {
    if (roots === null || typeof roots !== 'object') return;
    for (const [sid, root] of Object.entries(roots as Record<string, unknown>))
      this.setRoot(sid, root, event);
  }

  private added(bates: string, hash: string, event: number): void {
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
    if (seq >= s.addedBy.length) {
      let cap = s.addedBy.length;
      while (cap <= seq) cap *= 2;
      const hashes = Buffer.alloc(32 * cap);
      s.hashes.copy(hashes);
      const by = new Int32Array(cap);
      by.set(s.addedBy);
      s.hashes = hashes;
      s.addedBy = by;
    }
    if (s.addedBy[seq] !== 0) {
      this.problems.push({
        kind: 'event',
        id: String(event),
        detail: `node.add adds ${bates} a second time`,
      });
      return;
    }
    Buffer.from(hash, 'hex').copy(s.hashes, 32 * seq);
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

  /** Applies one event's body (already parsed). Unknown kinds are ignored: a newer arborist may add kinds. */
  apply(seq: number, kind: string, ts: string, d: Record<string, unknown>): void {
    this.events++;
    const str = (v: unknown) => (typeof v === 'string' ? v : '');
    switch (kind) {
      case 'session.create':
        this.created(str(d.sid), (d.label as string | null) ?? null, str(d.session_root), seq, kind);
        break;
      case 'node.add':
        this.added(str(d.bates), str(d.node_hash), seq);
        this.setRoots(d.session_roots, seq);
        break;
      case 'session.archive': {
        const s = this.sessions.get(str(d.sid));
        if (s?.state !== 'live') {
          this.problems.push({
            kind: 'event',
            id: String(seq),
            detail: `archives ${str(d.sid)}, which is not live`,
          });
          break;
        }
        s.state = 'archived';
        s.archiveSha256 = str(d.sha256);
        s.archiveEvent = seq;
        this.setRoots(d.session_roots, seq);
        break;
      }
      case 'session.restore': {
        const s = this.sessions.get(str(d.sid));
        if (s?.state !== 'archived') {
          this.problems.push({
            kind: 'event',
            id: String(seq),
            detail: `restores ${str(d.sid)}, which is not archived`,
          });
          break;
        }
        s.state = 'live';
        s.archiveSha256 = null;
        this.setRoot(s.sid, d.session_root, seq);
        this.setRoots(d.session_roots, seq);
        break;
      }
      case 'entry.set':
        this.entry(str(d.key), seq, ts, (old) => {
          const usage = old ? [...old.usageFamilySessionIds] : [];
          if (old && old.sessionId !== '' && !usage.includes(old.sessionId)) usage.push(old.sessionId);
          return {
            sessionId: str(d.sid),
            compactionCheckpoints: old?.compactionCheckpoints ?? [],
            usageFamilySessionIds: usage,
            updated_at: ts,
            event: seq,
          };
        });
        break;
      case 'entry.checkpoint':
        this.entry(str(d.key), seq, ts, (old) =>
          old ? { ...old, compactionCheckpoints: [...old.compactionCheckpoints, d.checkpoint] } : null,
        );
        break;
      case 'entry.usage_family':
        this.entry(str(d.key), seq, ts, (old) =>
          old ? { ...old, usageFamilySessionIds: [...old.usageFamilySessionIds, str(d.sid)] } : null,
        );
        break;
      case 'entry.reset':
        this.created(str(d.sid), null, str(d.session_root), seq, kind);
        this.entry(str(d.key), seq, ts, () => ({
          sessionId: str(d.sid),
          compactionCheckpoints: [],
          usageFamilySessionIds: [],
          updated_at: ts,
          event: seq,
        }));
        break;
      case 'entry.delete':
        this.entry(str(d.key), seq, ts, () => null);
        break;
    }
  }
}

const PAGE = 2000;

/**
 * Reads the chain once and rebuilds its claims. Bodies are read as stored (the bytes chain-check hashes); a body
 * that is not canonical JSON of an event is a problem here too, though chain-check names it first.
 */
export function readClaims(db: Database.Database): ChainClaims {
  const claims = new ChainClaims();
  const page = db
    .prepare('SELECT seq, kind, ts, body FROM audit_events WHERE seq > ? ORDER BY seq LIMIT ?')
    .raw(true);
  for (let after = Number.MIN_SAFE_INTEGER; ; ) {
    const rows = page.all(after, PAGE) as [number, unknown, unknown, unknown][];
    for (const [seq, kindCol, tsCol, body] of rows) {
      after = seq;
      let ev: { data?: unknown; kind?: unknown; seq?: unknown; ts?: unknown };
      try {
        if (!Buffer.isBuffer(body)) throw new Error('not bytes');
        ev = JSON.parse(body.toString('utf8'));
        if (ev === null || typeof ev !== 'object') throw new Error('not an object');
      } catch {
        claims.problems.push({ kind: 'event', id: String(seq), detail: 'its body is not an event' });
        continue;
      }
      if (ev.seq !== seq || ev.kind !== kindCol || ev.ts !== tsCol) {
        // kind and ts are stored beside the body for queries; only the body is hashed, so they must agree with it.
        claims.problems.push({
          kind: 'event',
          id: String(seq),
          detail: 'its columns disagree with its body',
        });
      }
      const data =
        ev.data !== null && typeof ev.data === 'object' ? (ev.data as Record<string, unknown>) : {};
      claims.apply(seq, String(ev.kind), String(ev.ts), data);
    }
    if (rows.length < PAGE) break;
  }
  return claims;
}

/** The entry's stored JSON as the store writes it (canon of the three fields). */
export function claimedEntryJson(e: ClaimedEntry): string {
  return canon({
    compactionCheckpoints: e.compactionCheckpoints,
    sessionId: e.sessionId,
    usageFamilySessionIds: e.usageFamilySessionIds,
  });
}

/**
 * Compares what is stored beside the turns with the chain's claims: sessions (present, created by the chain,
 * root, label, next_seq), archive records (present, digest), entries, and the answer cache. The turns themselves
 * are compared inside verify's pass (claims.node). `archived(sid)` decodes an archive body whose digest matched.
 */
export function compareClaims(
  db: Database.Database,
  claims: ChainClaims,
  archived: (sid: string) => ArchivedNodeRow[] | Problem,
  liveCounts: Map<string, number>,
): Problem[] {
  const out: Problem[] = [];
  const stored = db
    .prepare('SELECT sid, label, next_seq, session_root, n_nodes FROM sessions')
    .raw(true)
    .all() as [unknown, unknown, unknown, unknown, unknown][];
  const liveSids = new Set<string>();
  for (const [sidCol, label, nextSeq, root, nNodes] of stored) {
    const sid = String(sidCol);
    liveSids.add(sid);
    if (nNodes !== (liveCounts.get(sid) ?? 0))
      out.push({
        kind: 'session',
        id: sid,
        detail: `says it holds ${String(nNodes)} turns, but holds ${liveCounts.get(sid) ?? 0}`,
      });
    const c = claims.sessions.get(sid);
    if (!c) {
      out.push({ kind: 'session', id: sid, detail: 'no event created this session' });
      continue;
    }
    if (c.state !== 'live') {
      out.push({ kind: 'session', id: sid, detail: `is live, but event ${c.archiveEvent} archived it` });
      continue;
    }
    const rootHex = Buffer.isBuffer(root) ? root.toString('hex') : null;
    if (c.root !== null && rootHex !== c.root)
      out.push({
        kind: 'session',
        id: sid,
        detail: `its root differs from the one event ${c.rootEvent} recorded`,
      });
    if ((label ?? null) !== c.label)
      out.push({
        kind: 'session',
        id: sid,
        detail: `its label differs from the one event ${c.createdBy} recorded`,
      });
    if (typeof nextSeq !== 'number' || nextSeq <= c.maxSeq)
      out.push({
        kind: 'session',
        id: sid,
        detail: `its next turn number (${String(nextSeq)}) would reuse ids the chain already minted (up to ${c.maxSeq})`,
      });
  }
  const archiveRows = new Map<string, unknown>();
  for (const [sid, digest] of db.prepare('SELECT sid, sha256 FROM session_archives').raw(true).all() as [
    string,
    unknown,
  ][])
    archiveRows.set(String(sid), digest);
  const archivedAnswers = new Set<string>();
  for (const c of claims.sessions.values()) {
    if (c.state === 'live' && !liveSids.has(c.sid)) {
      out.push({ kind: 'session', id: c.sid, detail: `created by event ${c.createdBy}, it is missing` });
    }
    if (c.state !== 'archived') continue;
    if (!archiveRows.has(c.sid)) {
      out.push({
        kind: 'archive',
        id: c.sid,
        detail: `archived by event ${c.archiveEvent}, its record is missing`,
      });
      continue;
    }
    const digest = archiveRows.get(c.sid);
    if (!Buffer.isBuffer(digest) || digest.toString('hex') !== c.archiveSha256) {
      out.push({
        kind: 'archive',
        id: c.sid,
        detail: `its digest differs from the one event ${c.archiveEvent} recorded`,
      });
      continue;
    }
    const turns = archived(c.sid);
    if (!Array.isArray(turns)) {
      out.push(turns);
      continue;
    }
    out.push(...compareArchivedTurns(claims, c, turns));
    for (const t of turns)
      if (t.cache_key !== null)
        archivedAnswers.add(`${t.cache_key}\0${t.answer_text}\0${t.cited_titles_json}`);
  }
  for (const sid of archiveRows.keys()) {
    const c = claims.sessions.get(sid);
    if (c?.state !== 'archived')
      out.push({ kind: 'archive', id: sid, detail: 'no event archived this session' });
  }
  out.push(...compareEntries(db, claims));
  // The cache is derived from turns: each row must repeat the answer of a turn (live or archived) with its key, or
  // a poisoned row would become the next turn's answer, recorded as if it had been given.
  const orphans = db
    .prepare(`SELECT c.cache_key, c.answer_text, c.cited_titles_json FROM answer_cache c WHERE NOT EXISTS (
        SELECT 1 FROM nodes n WHERE n.cache_key = c.cache_key AND n.answer_text = c.answer_text
          AND n.cited_titles_json = c.cited_titles_json)`)
    .raw(true)
    .all() as [unknown, unknown, unknown][];
  for (const [key, answer, titles] of orphans) {
    if (!archivedAnswers.has(`${String(key)}\0${String(answer)}\0${String(titles)}`))
      out.push({
        kind: 'cache',
        id: String(key),
        detail: 'the cached answer is not the answer of any turn with that key',
      });
  }
  return out;
}

function compareArchivedTurns(claims: ChainClaims, c: ClaimedSession, turns: ArchivedNodeRow[]): Problem[] {
  const out: Problem[] = [];
  const seen = new Set<number>();
  for (const t of turns) {
    if (archivedContentHash(t) !== t.node_hash)
      out.push({
        kind: 'turn',
        id: String(t.bates),
        detail: 'archived, and its content no longer matches its node hash',
      });
    const claim = claims.node(c.sid, t.seq);
    if (!claim) out.push({ kind: 'turn', id: t.bates, detail: 'archived, but no event added it' });
    else if (claim.hash.toString('hex') !== t.node_hash)
      out.push({
        kind: 'turn',
        id: t.bates,
        detail: `archived, and differs from the node hash event ${claim.event} recorded`,
      });
    seen.add(t.seq);
  }
  for (let seq = 1; seq <= c.maxSeq; seq++) {
    if (c.addedBy[seq] !== 0 && !seen.has(seq))
      out.push({
        kind: 'turn',
        id: `${c.sid}-${String(seq).padStart(6, '0')}`,
        detail: `added by event ${c.addedBy[seq]}, it is in neither the shard nor its archive`,
      });
  }
  return out;
}

function compareEntries(db: Database.Database, claims: ChainClaims): Problem[] {
  const out: Problem[] = [];
  const rows = db.prepare('SELECT key, sid, entry_json, updated_at FROM session_entries').raw(true).all() as [
    unknown,
    unknown,
    unknown,
    unknown,
  ][];
  const keys = new Set<string>();
  for (const [keyCol, sid, json, updated] of rows) {
    const key = String(keyCol);
    keys.add(key);
    const c = claims.entries.get(key);
    if (!c) {
      out.push({ kind: 'entry', id: key, detail: 'no event made this entry' });
      continue;
    }
    if (sid !== c.sessionId || json !== claimedEntryJson(c) || updated !== c.updated_at)
      out.push({ kind: 'entry', id: key, detail: `differs from what event ${c.event} recorded` });
  }
  for (const [key, c] of claims.entries)
    if (!keys.has(key))
      out.push({ kind: 'entry', id: key, detail: `made by event ${c.event}, it is missing` });
  return out;
}

/** The node hash of an archived row, recomputed from the content it carries (hex), or '' when it cannot be. */
function archivedContentHash(t: ArchivedNodeRow): string {
  try {
    return nodeHash({
      bates: t.bates,
      parent_bates: t.parent_bates,
      question: t.question,
      answer_text: t.answer_text,
      cited_titles: JSON.parse(t.cited_titles_json) as string[],
      n_cited_sources: t.n_cited_sources,
      audit: t.audit,
      cache_key: t.cache_key,
      created_at: t.created_at,
      source: t.source,
      source_id: t.source_id,
    }).toString('hex');
  } catch {
    return '';
  }
}
