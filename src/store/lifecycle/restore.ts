import { crashPoint } from '../base/crash.js';
import { ArboristError, badInput } from '../base/errors.js';
import { cachedStatement } from '../db/statements.js';
import { TextIndexer } from '../find/vocabulary.js';
import { sessionRoot } from '../model/hash.js';
import { parseBates } from '../model/ids.js';
import { dbOf, type Shard } from '../shard.js';
import { noteDays } from '../write/days.js';
import { type ArchiveDocument, type ArchiveInfo, decodeBody, loadArchive } from './archive.js';

export interface RestoredSession {
  sid: string;
  label: string | null;
  n_nodes: number;
  sha256: string;
  session_root: string;
  /**
   * Every restored hash and child count equals the archived one. False when the surroundings differ from those at
   * archive time: a session that hung under this one was archived before it and is restored with it (or is still
   * archived while this one was not): the hashes are then recomputed to match what is live, so verify still holds.
   */
  identical: boolean;
  session_roots: Record<string, string>;
}

type Loaded = { info: ArchiveInfo; doc: ArchiveDocument };

/** The archives of `group`, each body checked against its sha256 and decoded. */
function loadIntact(shard: Shard, group: string[]): Loaded[] {
  return group.map((sid) => {
    const { info, body, intact } = loadArchive(shard, sid);
    if (!intact) {
      throw new ArboristError(
        'shard',
        `archive ${sid} is damaged: its body does not match its sha256; not restored`,
      );
    }
    // A body and sha256 rewritten together still match each other; only the chain's record binds them.
    if (recordedArchiveDigest(shard, sid) !== info.sha256) {
      throw new ArboristError(
        'shard',
        `archive ${sid} is damaged: its sha256 is not the one the chain recorded when it was archived; not restored`,
      );
    }
    return { info, doc: decodeBody(sid, body) };
  });
}

/**
 * The sha256 that the newest `session.archive` event of `sid` recorded, read from the event's body (the hashed
 * bytes; the kind column beside it is only a filter). Undefined when no event archived it.
 */
function recordedArchiveDigest(shard: Shard, sid: string): string | undefined {
  const row = cachedStatement(
    dbOf(shard),
    `SELECT json_extract(CAST(body AS TEXT), '$.data.sha256') FROM audit_events
     WHERE kind = 'session.archive' AND json_valid(CAST(body AS TEXT))
       AND json_extract(CAST(body AS TEXT), '$.kind') = 'session.archive'
       AND json_extract(CAST(body AS TEXT), '$.data.sid') = ?
     ORDER BY seq DESC LIMIT 1`,
    'pluck',
  ).get(sid) as string | undefined;
  return row;
}

/** Every restored turn must hang under a live turn with the Bates id it was archived under, or under another one restored with it. */
function checkParents(shard: Shard, docs: Loaded[]): void {
  const restoringIds = new Set<number>();
  for (const { doc } of docs) for (const n of doc.nodes) restoringIds.add(n.id);
  const parentBates = cachedStatement(dbOf(shard), 'SELECT bates FROM nodes WHERE id = ?', 'pluck');
  for (const { doc } of docs) {
    for (const n of doc.nodes) {
      if (n.parent_id === null || restoringIds.has(n.parent_id)) continue;
      if (parentBates.get(n.parent_id) === n.parent_bates) continue;
      const psid = n.parent_bates ? parseBates(n.parent_bates)?.sid : undefined;
      if (psid && shard.isArchivedSid(psid)) {
        throw badInput(
          `${n.bates} hangs under ${n.parent_bates}, archived in session ${psid}: restore both (archive restore ${doc.session.sid} ${psid})`,
        );
      }
      throw new ArboristError('shard', `${n.bates} hangs under ${n.parent_bates}, which no longer exists`);
    }
  }
}

/** Puts the session rows, node rows, subtree rows and FTS rows back. Returns the restored node ids, ascending. */
function insertRows(shard: Shard, docs: Loaded[]): number[] {
  const insSession = cachedStatement(
    dbOf(shard),
    'INSERT INTO sessions (sid, label, created_at, next_seq, n_nodes, session_root) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const insNode = cachedStatement(
    dbOf(shard),
    `INSERT INTO nodes (id, bates, sid, seq, parent_id, is_top, depth, n_children, question, answer_text,
        cited_titles_json, n_cited_sources, audit, cache_key, source, source_id, created_at, node_hash)
       VALUES (@id, @bates, @sid, @seq, @parent_id, @is_top, @depth, @n_children, @question, @answer_text,
        @cited_titles_json, @n_cited_sources, @audit, @cache_key, @source, @source_id, @created_at, @node_hash)`,
  );
  const insSubtree = cachedStatement(
    dbOf(shard),
    'INSERT INTO node_subtree (id, subtree_hash) VALUES (?, ?)',
  );
  const indexer = new TextIndexer(dbOf(shard));
  for (const { doc } of docs) {
    const s = doc.session;
    insSession.run(s.sid, s.label, s.created_at, s.next_seq, s.n_nodes, Buffer.from(s.session_root, 'hex'));
  }
  // By id: a parent always has a smaller id than its child, in any session, so parents go in first.
  const all = docs.flatMap(({ doc }) => doc.nodes.map((n) => ({ sid: doc.session.sid, n })));
  all.sort((a, b) => a.n.id - b.n.id);
  for (const { sid, n } of all) {
    const { parent_bates: _pb, subtree_hash, ...row } = n;
    insNode.run({ ...row, sid, node_hash: Buffer.from(n.node_hash, 'hex') });
    insSubtree.run(n.id, Buffer.from(subtree_hash, 'hex'));
    indexer.add(n);
  }
  noteDays(
    dbOf(shard),
    all.map((x) => x.n),
  );
  return all.map((x) => x.n.id);
}

/** Whether the restored session's root, child counts and subtree hashes are the archived ones. */
function sameAsArchived(shard: Shard, doc: ArchiveDocument, root: string): boolean {
  const now = cachedStatement(
    dbOf(shard),
    'SELECT n.n_children, h.subtree_hash FROM nodes n JOIN node_subtree h ON h.id = n.id WHERE n.id = ?',
  );
  let identical = root === doc.session.session_root;
  for (const n of doc.nodes) {
    const cur = now.get(n.id) as { n_children: number; subtree_hash: Buffer };
    if (cur.n_children !== n.n_children || cur.subtree_hash.toString('hex') !== n.subtree_hash)
      identical = false;
  }
  return identical;
}

/**
 * Restores archived sessions (several at once when they hang under each other): every row comes back with its
 * id, Bates id, content and hashes, the FTS rows are re-added, and the live parents' subtree hashes and session
 * roots are rippled back. A session whose turns hang under a turn that is still archived elsewhere must be restored
 * together with that session. A body that no longer matches its sha256 is refused. One `session.restore` event
 * per session.
 */
export function restoreArchives(shard: Shard, sids: string[]): RestoredSession[] {
  if (sids.length === 0) throw badInput('nothing to restore');
  const r = shard.write(() => {
    const docs = loadIntact(shard, [...new Set(sids)]);
    checkParents(shard, docs);
    const ids = insertRows(shard, docs);
    crashPoint('insert-nodes');
    const roots = shard.merkle.fold(ids);
    // Sessions without turns are not reached by the ripple.
    for (const { doc } of docs) {
      if (!(doc.session.sid in roots))
        roots[doc.session.sid] = sessionRoot(doc.session.sid, []).toString('hex');
    }
    crashPoint('ripple');
    const out: RestoredSession[] = [];
    for (const { info, doc } of docs) {
      const sid = doc.session.sid;
      const identical = sameAsArchived(shard, doc, roots[sid]);
      cachedStatement(dbOf(shard), 'DELETE FROM session_archives WHERE sid = ?').run(sid);
      const others = Object.fromEntries(Object.entries(roots).filter(([k]) => k !== sid));
      shard.audit.append('session.restore', {
        identical,
        n_nodes: doc.nodes.length,
        session_root: roots[sid],
        session_roots: others,
        sha256: info.sha256,
        sid,
      });
      out.push({
        sid,
        label: doc.session.label,
        n_nodes: doc.nodes.length,
        sha256: info.sha256,
        session_root: roots[sid],
        identical,
        session_roots: others,
      });
    }
    return out;
  });
  crashPoint('commit');
  return r;
}
