import type { TurnRecord } from '../store/index.js';
import type { OutsideChild, Selection, SelectionKind } from './select.js';

/**
 * `arborist export --format json`: one document carrying every field each node_hash covers (docs/sessions.md,
 * "node_hash"), so that another shard can recompute and check every node hash; the arborist import reader
 * (src/import/arborist/) reads it back. docs/export.md is the normative description.
 */

export const EXPORT_FORMAT = 'arborist-export';
export const EXPORT_VERSION = 1;

export interface ExportSessionJson {
  sid: string;
  label: string | null;
  created_at: string;
  session_root: string;
  /**
   * Where the session came from, as the exporting shard shows it (its agent, working directory, project, title):
   * not hashed, so a re-import shows it but binds nothing to it (docs/export.md). Absent for a session asked in
   * arborist, and from exports made before it was.
   */
  origin?: ExportOrigin;
}

export interface ExportOrigin {
  agent: string;
  cwd?: string;
  project?: string;
  title?: string;
}

/** A turn: every field its node_hash covers, where it sits, and its hashes (TurnRecord, declared in the store). */
export interface ExportTurnJson extends TurnRecord {
  /** Stored values the store never writes (see TurnNode.damaged): such a turn's node_hash will not check. */
  damaged?: string[];
  /**
   * An imported turn's records exactly as the tool it came from wrote them, one string each (the shard keeps them;
   * `export --format source` writes the same bytes), so another shard keeps them too.
   */
  source_records?: string[];
}

export interface ExportDocument {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  exported_at: string;
  chain_head: string;
  /** What was asked for: not needed to re-import, there to tell a path from a subtree or a session. */
  selection: { kind: SelectionKind; id: string };
  sessions: ExportSessionJson[];
  /** Parents before children (depth-first, children by sid then seq). */
  turns: ExportTurnJson[];
  /**
   * The children of exported turns that the document does not hold, with their subtree hashes, so that a reader
   * can recompute every exported subtree_hash (docs/export.md, "Checks"). Absent from exports made before it was.
   */
  outside_children: OutsideChild[];
}

export function exportDocument(
  sel: Selection,
  exportedAt: string,
  records: (bates: string) => Buffer | undefined = () => undefined,
  originOf: (sid: string) => ExportOrigin | undefined = () => undefined,
): ExportDocument {
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: exportedAt,
    chain_head: sel.chainHead,
    selection: { kind: sel.kind, id: sel.id },
    sessions: sel.sessions.map((s) => {
      const origin = originOf(s.sid);
      return {
        sid: s.sid,
        label: s.label,
        created_at: s.created_at,
        session_root: s.session_root,
        ...(origin ? { origin } : {}),
      };
    }),
    turns: sel.turns.map(({ node: n }) => {
      const t: ExportTurnJson = {
        bates: n.bates,
        sid: n.sid,
        seq: n.seq,
        parent_bates: n.parent_bates,
        question: n.question,
        answer_text: n.answer_text,
        cited_titles: n.cited_titles,
        n_cited_sources: n.n_cited_sources,
        audit: n.audit,
        cache_key: n.cache_key,
        created_at: n.created_at,
        source: n.source,
        source_id: n.source_id,
        node_hash: n.node_hash,
        subtree_hash: n.subtree_hash,
      };
      if (n.damaged) t.damaged = n.damaged;
      const r = records(n.bates);
      if (r && r.length > 0) t.source_records = r.toString('utf8').replace(/\n$/, '').split('\n');
      return t;
    }),
    outside_children: sel.outside,
  };
}

// JSON.stringify escapes C0 controls; these it leaves raw: DEL, C1, bidi marks, embeddings, overrides and isolates,
// the line and paragraph separators, the BOM. Escaped, the document parses to the same strings (so every hash
// still checks) and holds no byte that a terminal would act on when it is `cat`ed.
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]/g;

/** The document as text: indented, one trailing newline, nothing a terminal would act on. */
export function renderJson(doc: ExportDocument): string {
  const text = JSON.stringify(doc, null, 2).replace(
    UNSAFE_IN_JSON,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `${text}\n`;
}
