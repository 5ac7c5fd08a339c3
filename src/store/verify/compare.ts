import type Database from 'better-sqlite3';
import { type ChainClaims, type ClaimedSession, claimedEntryJson, type Problem } from '../chain/claims.js';
import { nodeHash } from '../model/hash.js';
import type { ArchivedNodeRow } from '../model/rows.js';

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
    .prepare('SELECT sid, label, next_seq, session_root, n_nodes FROM sessions NOT INDEXED')
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
  for (const [sid, digest] of db
    .prepare('SELECT sid, sha256 FROM session_archives NOT INDEXED')
    .raw(true)
    .all() as [string, unknown][])
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
    for (const q of compareArchivedTurns(claims, c, turns)) out.push(q);
    for (const t of turns)
      if (t.cache_key !== null)
        archivedAnswers.add(`${t.cache_key}\0${t.answer_text}\0${t.cited_titles_json}`);
  }
  for (const sid of archiveRows.keys()) {
    const c = claims.sessions.get(sid);
    if (c?.state !== 'archived')
      out.push({ kind: 'archive', id: sid, detail: 'no event archived this session' });
  }
  for (const q of compareEntries(db, claims)) out.push(q);
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
  const rows = db
    .prepare('SELECT key, sid, entry_json, updated_at FROM session_entries NOT INDEXED')
    .raw(true)
    .all() as [unknown, unknown, unknown, unknown][];
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
