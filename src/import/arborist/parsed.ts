/**
 * A checked turn or session of an export as the writer takes it (src/import/model.ts): exact (the exporting shard's
 * Bates ids and hashes, docs/export.md) or anew. What decides which is index.ts's; this is only the mapping.
 */
import type { ParsedSession, ParsedTurn } from '../model.js';
import type { CheckedTurn, DocSession } from './document.js';

/**
 * The source session of a session's turns imported anew. Not the exporting sid: that names the exact copy, whose
 * source record marks it a copy this shard never mints seqs in (docs/export.md, "A copy stays a copy"); the turns
 * imported anew go into a session made here, under this name.
 */
const anewSession = (sid: string): string => `${sid} (anew)`;

export function toParsedTurn(c: CheckedTurn, parent: string | null, exact: boolean): ParsedTurn {
  const t = c.turn;
  const out: ParsedTurn = {
    sourceId: t.bates,
    parentSourceId: parent,
    sourceSession: exact ? t.sid : anewSession(t.sid),
    question: t.question,
    answer: t.answer_text,
    createdAt: t.created_at,
    // The records the exporting shard kept (an imported turn's original lines). An exact copy of a turn that had
    // none has none here either; a turn that had to change keeps the exported object as its record.
    raw: t.source_records ?? (exact ? [] : [c.raw]),
    line: c.index + 1,
    complete: true,
  };
  if (exact) {
    out.exact = {
      bates: t.bates,
      audit: t.audit,
      cache_key: t.cache_key,
      cited_titles: t.cited_titles,
      n_cited_sources: t.n_cited_sources,
      source: t.source,
      source_id: t.source_id,
      node_hash: t.node_hash,
    };
  }
  return out;
}

/**
 * A session of the document: under its exporting sid when exact, with where it came from (its agent, project and
 * title, docs/export.md "origin") as the session's source record, under source `arborist` (never the original
 * agent's own mapping, which a document could otherwise claim for sessions this shard will import later).
 */
export function toParsedSession(s: DocSession, exact: boolean): ParsedSession {
  const out: ParsedSession = { sourceSession: exact ? s.sid : anewSession(s.sid), createdAt: s.created_at };
  const o = s.origin;
  if (exact) {
    out.exact = { sid: s.sid, label: s.label, session_root: s.session_root };
    if (o)
      out.exact.origin = {
        source: 'arborist',
        source_session: s.sid,
        info: {
          agent: o.agent,
          ...(o.cwd ? { cwd: o.cwd } : {}),
          ...(o.project ? { project: o.project } : {}),
          ...(o.title ? { title: o.title } : {}),
        },
      };
  }
  if (o?.cwd) out.cwd = o.cwd;
  if (o?.project) out.project = o.project;
  if (s.label !== null) out.title = s.label;
  else if (o?.title) out.title = o.title;
  return out;
}
