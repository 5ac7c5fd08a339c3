/**
 * The node row, once: its columns as the store selects them, the shape SQLite hands back, and the one mapper to the
 * public TurnNode. Every reader of whole node rows (Shard's lookups, archiving, verify's exact path) selects
 * NODE_COLUMNS, so a column added to `nodes` is added here and nowhere else.
 */

/** A turn as the store hands it out. */
export interface TurnNode {
  id: number;
  bates: string;
  sid: string;
  seq: number;
  parent_bates: string | null;
  is_top: boolean;
  depth: number;
  n_children: number;
  question: string;
  answer_text: string;
  cited_titles: string[];
  n_cited_sources: number;
  audit: string;
  cache_key: string | null;
  source: string | null;
  source_id: string | null;
  created_at: string;
  node_hash: string;
  subtree_hash: string;
}

/** A node row as SQLite returns NODE_COLUMNS: every stored column, the parent's Bates id and the subtree hash. */
export interface NodeRow {
  id: number;
  bates: string;
  sid: string;
  seq: number;
  parent_id: number | null;
  parent_bates: string | null;
  is_top: number;
  depth: number;
  n_children: number;
  question: string;
  answer_text: string;
  cited_titles_json: string;
  n_cited_sources: number;
  audit: string;
  cache_key: string | null;
  source: string | null;
  source_id: string | null;
  created_at: string;
  node_hash: Buffer;
  subtree_hash: Buffer;
}

/** The columns of NodeRow over `n` (the node), `p` (its parent) and `h` (its node_subtree row). */
export const NODE_COLUMNS = `n.id, n.bates, n.sid, n.seq, n.parent_id, p.bates AS parent_bates, n.is_top, n.depth,
  n.n_children, n.question, n.answer_text, n.cited_titles_json, n.n_cited_sources, n.audit, n.cache_key, n.source,
  n.source_id, n.created_at, n.node_hash, h.subtree_hash`;

/** Where NODE_COLUMNS come from on a healthy shard: every node has its subtree row. */
export const NODE_FROM = 'nodes n JOIN node_subtree h ON h.id = n.id LEFT JOIN nodes p ON p.id = n.parent_id';

export function toTurnNode(r: NodeRow): TurnNode {
  // Key order is the one `--json` output has always had (cited_titles last).
  return {
    id: r.id,
    bates: r.bates,
    sid: r.sid,
    seq: r.seq,
    parent_bates: r.parent_bates,
    is_top: r.is_top === 1,
    depth: r.depth,
    n_children: r.n_children,
    question: r.question,
    answer_text: r.answer_text,
    n_cited_sources: r.n_cited_sources,
    audit: r.audit,
    cache_key: r.cache_key,
    source: r.source,
    source_id: r.source_id,
    created_at: r.created_at,
    node_hash: r.node_hash.toString('hex'),
    subtree_hash: r.subtree_hash.toString('hex'),
    cited_titles: JSON.parse(r.cited_titles_json) as string[],
  };
}

/**
 * One node row as stored in an archive body: NodeRow without its sid (the archive's session says it) and with hex
 * hashes, every column kept so that a restore is byte-identical.
 */
export type ArchivedNodeRow = Omit<NodeRow, 'sid' | 'node_hash' | 'subtree_hash'> & {
  node_hash: string;
  subtree_hash: string;
};

/** NodeRow into an archive body's row (parent_bates given: the caller resolves parents archived before it). */
export function toArchivedRow(r: NodeRow, parent_bates: string | null): ArchivedNodeRow {
  const { sid: _sid, ...rest } = r;
  return {
    ...rest,
    parent_bates,
    node_hash: r.node_hash.toString('hex'),
    subtree_hash: r.subtree_hash.toString('hex'),
  };
}

/** An archive body's row as a TurnNode of session `sid`. */
export function archivedToTurnNode(sid: string, n: ArchivedNodeRow): TurnNode {
  // Key order is the one `archive show --json` has always had (cited_titles after the answer).
  return {
    id: n.id,
    bates: n.bates,
    sid,
    seq: n.seq,
    parent_bates: n.parent_bates,
    is_top: n.is_top === 1,
    depth: n.depth,
    n_children: n.n_children,
    question: n.question,
    answer_text: n.answer_text,
    cited_titles: JSON.parse(n.cited_titles_json) as string[],
    n_cited_sources: n.n_cited_sources,
    audit: n.audit,
    cache_key: n.cache_key,
    source: n.source,
    source_id: n.source_id,
    created_at: n.created_at,
    node_hash: n.node_hash,
    subtree_hash: n.subtree_hash,
  };
}

export interface Session {
  sid: string;
  label: string | null;
  created_at: string;
  n_nodes: number;
  session_root: string;
}

/** A sessions row as SQLite returns SESSION_COLUMNS. */
export interface SessionRow {
  sid: string;
  label: string | null;
  created_at: string;
  n_nodes: number;
  session_root: Buffer;
}

export const SESSION_COLUMNS = 'sid, label, created_at, n_nodes, session_root';

export function toSession(r: SessionRow): Session {
  return { ...r, session_root: r.session_root.toString('hex') };
}
