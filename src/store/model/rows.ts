import type { TurnContent } from './content.js';

/**
 * The node row, once: its columns as the store selects them, the shape SQLite hands back, and the one mapper to the
 * public TurnNode. Every reader of whole node rows (Shard's lookups, archiving, verify's exact path) selects
 * NODE_COLUMNS, so a column added to `nodes` is added here and nowhere else.
 */

/** A turn as the store hands it out. */
export interface TurnNode extends TurnContent {
  id: number;
  sid: string;
  seq: number;
  is_top: boolean;
  depth: number;
  n_children: number;
  node_hash: string;
  subtree_hash: string;
  /**
   * Fields whose stored value is not what the store writes (a BLOB or number where text belongs, cited titles that
   * are not a JSON list of text, a hash that is not 32 bytes): shown as best it can be, named here, and named by
   * verify. Absent on a healthy turn.
   */
  damaged?: string[];
}

/**
 * A stored value read as the type the store writes, noting in `bad` the fields that were not: so one damaged row
 * is shown (and named) instead of taking the whole command or screen down with it.
 */
class Reader {
  readonly bad: string[] = [];
  text(field: string, v: unknown): string {
    if (typeof v === 'string') return v;
    this.bad.push(field);
    if (Buffer.isBuffer(v)) return v.toString('utf8').toWellFormed();
    return v == null ? '' : String(v);
  }
  textOrNull(field: string, v: unknown): string | null {
    return v === null || v === undefined ? null : this.text(field, v);
  }
  int(field: string, v: unknown): number {
    if (typeof v === 'number' && Number.isInteger(v)) return v;
    this.bad.push(field);
    return Number(v) || 0;
  }
  hash(field: string, v: unknown): string {
    if (Buffer.isBuffer(v) && v.length === 32) return v.toString('hex');
    if (typeof v === 'string' && /^[0-9a-f]{64}$/.test(v)) return v;
    this.bad.push(field);
    return Buffer.isBuffer(v) ? v.toString('hex') : '';
  }
  titles(v: unknown): string[] {
    try {
      const t = JSON.parse(this.text('cited_titles', v)) as unknown;
      if (Array.isArray(t) && t.every((x) => typeof x === 'string')) return t;
    } catch {}
    if (!this.bad.includes('cited_titles')) this.bad.push('cited_titles');
    return [];
  }
  done<T extends object>(t: T): T & { damaged?: string[] } {
    return this.bad.length > 0 ? { ...t, damaged: [...new Set(this.bad)] } : t;
  }
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
  const rd = new Reader();
  // Key order is the one `--json` output has always had (cited_titles last).
  return rd.done({
    id: r.id,
    bates: rd.text('bates', r.bates),
    sid: rd.text('sid', r.sid),
    seq: rd.int('seq', r.seq),
    parent_bates: rd.textOrNull('parent_bates', r.parent_bates),
    is_top: r.is_top === 1,
    depth: rd.int('depth', r.depth),
    n_children: rd.int('n_children', r.n_children),
    question: rd.text('question', r.question),
    answer_text: rd.text('answer_text', r.answer_text),
    n_cited_sources: rd.int('n_cited_sources', r.n_cited_sources),
    audit: rd.text('audit', r.audit),
    cache_key: rd.textOrNull('cache_key', r.cache_key),
    source: rd.textOrNull('source', r.source),
    source_id: rd.textOrNull('source_id', r.source_id),
    created_at: rd.text('created_at', r.created_at),
    node_hash: rd.hash('node_hash', r.node_hash),
    subtree_hash: rd.hash('subtree_hash', r.subtree_hash),
    cited_titles: rd.titles(r.cited_titles_json),
  });
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
  const rd = new Reader();
  // Key order is the one `archive show --json` has always had (cited_titles after the answer).
  return rd.done({
    id: n.id,
    bates: rd.text('bates', n.bates),
    sid,
    seq: rd.int('seq', n.seq),
    parent_bates: rd.textOrNull('parent_bates', n.parent_bates),
    is_top: n.is_top === 1,
    depth: rd.int('depth', n.depth),
    n_children: rd.int('n_children', n.n_children),
    question: rd.text('question', n.question),
    answer_text: rd.text('answer_text', n.answer_text),
    cited_titles: rd.titles(n.cited_titles_json),
    n_cited_sources: rd.int('n_cited_sources', n.n_cited_sources),
    audit: rd.text('audit', n.audit),
    cache_key: rd.textOrNull('cache_key', n.cache_key),
    source: rd.textOrNull('source', n.source),
    source_id: rd.textOrNull('source_id', n.source_id),
    created_at: rd.text('created_at', n.created_at),
    node_hash: rd.hash('node_hash', n.node_hash),
    subtree_hash: rd.hash('subtree_hash', n.subtree_hash),
  });
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
