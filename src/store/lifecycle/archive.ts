import { gzipSync } from 'node:zlib';
import { crashPoint } from '../base/crash.js';
import { ArboristError, badInput, notFound } from '../base/errors.js';
import { cachedStatement } from '../db/statements.js';
import { unindexSession } from '../find/vocabulary.js';
import { canon, sha256 } from '../model/hash.js';
import {
  type ArchivedNodeRow,
  archivedToTurnNode,
  NODE_COLUMNS,
  NODE_FROM,
  type NodeRow,
  type TurnNode,
  toArchivedRow,
} from '../model/rows.js';
import { dbOf, type Shard } from '../shard.js';
import { ARCHIVE_FORMAT, type ArchiveDocument, decodeBody, MAX_ARCHIVE_BYTES } from './archive-body.js';
import { readEntries } from './entries.js';
import {
  type ArchiveReason,
  describeKeepReason,
  entryRefs,
  jsonList,
  pinnedByChildren,
} from './references.js';

/**
 * The archive tier (docs/sessions.md, "Entries, archiving and retention"). Archiving moves a session's rows into one
 * compressed, hashed record and ripples the hashes of the live parents its turns hung under (restore.ts puts them
 * back). Every archive is one `session.archive` audit event in the caller's transaction.
 */

export interface ArchivedSession extends ArchiveInfo {
  /** Roots of the live sessions whose turns' subtree hashes changed (the archived turns hung under them). */
  session_roots: Record<string, string>;
}

export interface ArchiveInfo {
  sid: string;
  label: string | null;
  n_nodes: number;
  reason: ArchiveReason;
  archived_at: string;
  /** Length of the canonical JSON document. */
  bytes: number;
  /** Length of the stored (compressed) body. */
  stored_bytes: number;
  sha256: string;
}

export type { ArchiveDocument };
export { decodeBody, MAX_ARCHIVE_BYTES };

export interface ArchiveContent extends ArchiveInfo {
  /** The body still hashes to its sha256. */
  intact: boolean;
  why: string[];
  session: ArchiveDocument['session'];
  nodes: TurnNode[];
}

interface ToArchive {
  sid: string;
  reason: ArchiveReason;
  why: string[];
}

/**
 * Archives a set of sessions inside the caller's transaction. Children first: a session whose turns have
 * children in another session of the set waits until that session is archived, so each archive body is a
 * consistent snapshot (its hashes are those of the tree without the sessions archived before it). A cycle (S under
 * X and X under S) is archived with foreign keys deferred to the commit, which still checks them.
 */
export function archiveGroup(shard: Shard, items: ToArchive[]): ArchivedSession[] {
  if (items.length === 0) return [];
  const inSet = new Set(items.map((i) => i.sid));
  const edges = cachedStatement(
    dbOf(shard),
    `SELECT DISTINCT p.sid AS psid, c.sid AS csid FROM nodes p JOIN nodes c ON c.parent_id = p.id
     WHERE p.sid IN (SELECT value FROM json_each(@ids)) AND c.sid IN (SELECT value FROM json_each(@ids))
       AND c.sid <> p.sid`,
  ).all({ ids: jsonList(inSet) }) as { psid: string; csid: string }[];
  const childSessions = new Map<string, Set<string>>();
  for (const e of edges) {
    const s = childSessions.get(e.psid);
    if (s) s.add(e.csid);
    else childSessions.set(e.psid, new Set([e.csid]));
  }
  const left = [...items];
  const done = new Set<string>();
  const goneBates = new Map<number, string>();
  const archived_at = new Date().toISOString();
  const out: ArchivedSession[] = [];
  while (left.length > 0) {
    let i = left.findIndex((it) => [...(childSessions.get(it.sid) ?? [])].every((c) => done.has(c)));
    if (i < 0) {
      dbOf(shard).pragma('defer_foreign_keys = ON');
      i = 0;
    }
    const it = left.splice(i, 1)[0];
    const allowed = new Set([...inSet].filter((s) => !done.has(s) && s !== it.sid));
    out.push(archiveOne(shard, it, archived_at, allowed, goneBates));
    done.add(it.sid);
  }
  return out;
}

/**
 * One session's archive document, read inside the archiving transaction. `goneBates` learns the Bates ids of this
 * session's turns that children archived with it hang under (their parent_bates cannot be joined once this session's
 * rows are gone); `externalParents` are the live turns this session's tops hang under, to ripple afterwards.
 */
function snapshot(
  shard: Shard,
  it: ToArchive,
  archived_at: string,
  alsoGoing: Set<string>,
  goneBates: Map<number, string>,
): { doc: ArchiveDocument; externalParents: Set<number> } {
  const { sid, reason } = it;
  const s = cachedStatement(
    dbOf(shard),
    'SELECT sid, label, created_at, next_seq, n_nodes, session_root FROM sessions WHERE sid = ?',
  ).get(sid) as (Omit<ArchiveDocument['session'], 'session_root'> & { session_root: Buffer }) | undefined;
  if (!s) throw notFound(`no session '${sid}'`);
  // Never orphan a live turn: the plan already excluded such sessions; this guards the invariant.
  const live = cachedStatement(
    dbOf(shard),
    `SELECT c.bates AS child, c.sid AS csid, p.id AS pid, p.bates AS parent FROM nodes p
     JOIN nodes c ON c.parent_id = p.id WHERE p.sid = ? AND c.sid <> p.sid`,
  ).all(sid) as { child: string; csid: string; pid: number; parent: string }[];
  for (const r of live) {
    if (!alsoGoing.has(r.csid)) {
      throw new ArboristError(
        'input',
        `session ${sid} holds ${r.parent}, the parent of live turn ${r.child}; it cannot be archived`,
      );
    }
    goneBates.set(r.pid, r.parent);
  }
  const rows = cachedStatement(
    dbOf(shard),
    `SELECT ${NODE_COLUMNS} FROM ${NODE_FROM} WHERE n.sid = ? ORDER BY n.id`,
  ).all(sid) as NodeRow[];
  const externalParents = new Set<number>();
  const nodes: ArchivedNodeRow[] = rows.map((r) => {
    let parent_bates = r.parent_bates;
    if (r.parent_id !== null && parent_bates === null) {
      parent_bates = goneBates.get(r.parent_id) ?? null;
      if (parent_bates === null) throw new ArboristError('shard', `turn ${r.bates} has a missing parent`);
    }
    if (r.is_top === 1 && r.parent_id !== null && !goneBates.has(r.parent_id))
      externalParents.add(r.parent_id);
    return toArchivedRow(r, parent_bates);
  });
  const doc: ArchiveDocument = {
    format: ARCHIVE_FORMAT,
    archive: { reason, archived_at, why: it.why },
    session: {
      sid: s.sid,
      label: s.label,
      created_at: s.created_at,
      next_seq: s.next_seq,
      n_nodes: s.n_nodes,
      session_root: s.session_root.toString('hex'),
    },
    nodes,
  };
  return { doc, externalParents };
}

/** Deletes a session's FTS rows, subtree rows, nodes and session row (its turns must all be indexed). */
function removeSessionRows(shard: Shard, sid: string): void {
  unindexSession(dbOf(shard), sid);
  crashPoint('delete-fts');
  cachedStatement(
    dbOf(shard),
    'DELETE FROM node_subtree WHERE id IN (SELECT id FROM nodes WHERE sid = ?)',
  ).run(sid);
  cachedStatement(dbOf(shard), 'DELETE FROM nodes WHERE sid = ?').run(sid);
  crashPoint('delete-nodes');
  cachedStatement(dbOf(shard), 'DELETE FROM sessions WHERE sid = ?').run(sid);
  crashPoint('delete-session');
}

function archiveOne(
  shard: Shard,
  it: ToArchive,
  archived_at: string,
  alsoGoing: Set<string>,
  goneBates: Map<number, string>,
): ArchivedSession {
  const { sid, reason } = it;
  // Archiving removes the session's FTS rows with FTS5's 'delete', which must only name rows that are indexed.
  shard.flushIndex();
  const { doc, externalParents } = snapshot(shard, it, archived_at, alsoGoing, goneBates);
  const { label } = doc.session;
  const n_nodes = doc.nodes.length;
  const json = Buffer.from(canon(doc), 'utf8');
  if (json.length > MAX_ARCHIVE_BYTES)
    throw badInput(
      `session ${sid} is too large to archive (${Math.ceil(json.length / 2 ** 20)} MiB; at most 256 MiB)`,
    );
  const body = gzipSync(json, { level: 9 });
  const digest = sha256(body);
  crashPoint('serialise');
  removeSessionRows(shard, sid);
  const session_roots = shard.merkle.fold([...externalParents]);
  crashPoint('ripple');
  cachedStatement(
    dbOf(shard),
    `INSERT INTO session_archives (sid, reason, archived_at, label, n_nodes, bytes, body, sha256)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(sid, reason, archived_at, label, n_nodes, json.length, body, digest);
  crashPoint('archive-record');
  const sha = digest.toString('hex');
  const session_root = doc.session.session_root;
  shard.audit.append(
    'session.archive',
    { bytes: json.length, n_nodes, reason, session_root, session_roots, sha256: sha, sid },
    archived_at,
  );
  crashPoint('audit');
  return {
    sid,
    label,
    n_nodes,
    reason,
    archived_at,
    bytes: json.length,
    stored_bytes: body.length,
    sha256: sha,
    session_roots,
  };
}

/**
 * Archives sessions by hand (reason `retention`), refusing any that is referenced: named by an entry's family or
 * holding the parent of a turn that would survive. One `session.archive` event each, one transaction.
 */
export function archiveSessions(
  shard: Shard,
  sessions: string[],
  why = 'archived by hand',
): ArchivedSession[] {
  const r = shard.write(() => {
    const sids = [...new Set(sessions.map((x) => shard.resolveSession(x).sid))];
    const refs = entryRefs(readEntries(shard));
    const pinned = pinnedByChildren(shard, sids);
    for (const sid of sids) {
      const reasons = refs.get(sid) ?? pinned.get(sid);
      if (reasons)
        throw badInput(
          `session ${sid} is kept: it ${describeKeepReason(reasons[0]).replace(/^referenced/, 'is referenced')}`,
        );
    }
    return archiveGroup(
      shard,
      sids.map((sid) => ({ sid, reason: 'retention' as const, why: [why] })),
    );
  });
  crashPoint('commit');
  return r;
}

/**
 * Archives sessions that their source tool had already archived (an import of OpenClaw's reset or deleted
 * transcripts), with that reason. A session something live still references stays live and is returned in
 * `kept` with the reason, rather than failing the import: the caller reports it.
 */
export function archiveImported(
  shard: Shard,
  sessions: { sid: string; reason: 'reset' | 'deleted' }[],
  why: string,
): { archived: ArchivedSession[]; kept: { sid: string; reason: string }[] } {
  return shard.write(() => {
    const refs = entryRefs(readEntries(shard));
    const pinned = pinnedByChildren(
      shard,
      sessions.map((s) => s.sid),
    );
    const kept: { sid: string; reason: string }[] = [];
    const items: ToArchive[] = [];
    for (const s of sessions) {
      const reasons = refs.get(s.sid) ?? pinned.get(s.sid);
      if (reasons) kept.push({ sid: s.sid, reason: describeKeepReason(reasons[0]) });
      else items.push({ sid: s.sid, reason: s.reason, why: [why] });
    }
    return { archived: archiveGroup(shard, items), kept };
  });
}

interface ArchiveRowRaw {
  sid: string;
  reason: ArchiveReason;
  archived_at: string;
  label: string | null;
  n_nodes: number;
  bytes: number;
  stored_bytes: number;
  sha256: Buffer;
}

const ARCHIVE_COLS = 'sid, reason, archived_at, label, n_nodes, bytes, length(body) AS stored_bytes, sha256';

function toInfo(r: ArchiveRowRaw): ArchiveInfo {
  return { ...r, sha256: r.sha256.toString('hex') };
}

/** Every archived session, oldest archive first. */
export function listArchives(shard: Shard): ArchiveInfo[] {
  return (
    cachedStatement(
      dbOf(shard),
      `SELECT ${ARCHIVE_COLS} FROM session_archives ORDER BY archived_at, sid`,
    ).all() as ArchiveRowRaw[]
  ).map(toInfo);
}

export function loadArchive(shard: Shard, sid: string): { info: ArchiveInfo; body: Buffer; intact: boolean } {
  const r = cachedStatement(
    dbOf(shard),
    `SELECT ${ARCHIVE_COLS}, body FROM session_archives WHERE sid = ?`,
  ).get(sid) as (ArchiveRowRaw & { body: Buffer }) | undefined;
  if (!r) {
    if (shard.getSession(sid)) throw badInput(`session ${sid} is live, not archived`);
    throw notFound(`no archived session '${sid}'`);
  }
  const { body, ...rest } = r;
  return { info: toInfo(rest), body, intact: sha256(body).equals(r.sha256) };
}

/** An archived session, read back (read-only): its record, its session row and its turns by seq. */
export function readArchive(shard: Shard, sid: string): ArchiveContent {
  const { info, body, intact } = loadArchive(shard, sid);
  const doc = decodeBody(sid, body);
  const nodes = doc.nodes.map((n) => archivedToTurnNode(sid, n)).sort((a, b) => a.seq - b.seq);
  return { ...info, intact, why: doc.archive?.why ?? [], session: doc.session, nodes };
}
