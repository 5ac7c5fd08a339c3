import { cachedStatement } from '../db/statements.js';
import { type ArchiveDocument, decodeBody } from '../lifecycle/archive.js';
import type { ArchiveReason } from '../lifecycle/references.js';
import { dbOf, type Shard } from '../shard.js';
import { type MatchField, rank } from './rank.js';
import { foldTerms, markedSnippet } from './terms.js';

export interface ArchivedHit {
  bates: string;
  sid: string;
  seq: number;
  audit: string;
  question: string;
  snippet: string;
  created_at: string;
  archived_at: string;
  reason: ArchiveReason;
  field: 'question' | 'answer';
}

/**
 * Searches the turns of archived sessions. A plain scan: every archive body is decompressed and every turn's
 * question, answer and cited titles are tokenised the way the FTS index would; a turn matches when it holds
 * every term (the last one as a prefix when `prefix`). Question matches first, then newest. Fine for archives
 * of thousands of turns; it is not indexed. An archive whose body cannot be read is skipped and passed to
 * `onDamaged` (verify names it too), so one damaged archive never hides the others.
 */
export function findArchived(
  shard: Shard,
  query: string,
  opts: { limit?: number; prefix?: boolean; onDamaged?: (sid: string, why: string) => void } = {},
): ArchivedHit[] {
  const limit = Math.max(1, Math.min(opts.limit ?? 20, 1000));
  const terms = foldTerms(query);
  if (terms.length === 0) return [];
  const prefix = opts.prefix ?? false;
  const has = (words: Set<string>, t: string, last: boolean) =>
    words.has(t) || (last && prefix && [...words].some((w) => w.startsWith(t)));
  const hits: (ArchivedHit & { id: number })[] = [];
  const rows = cachedStatement(
    dbOf(shard),
    'SELECT sid, reason, archived_at, body FROM session_archives ORDER BY sid',
  ).all() as {
    sid: string;
    reason: ArchiveReason;
    archived_at: string;
    body: Buffer;
  }[];
  for (const a of rows) {
    let doc: ArchiveDocument;
    try {
      doc = decodeBody(a.sid, a.body);
    } catch (err) {
      opts.onDamaged?.(a.sid, err instanceof Error ? err.message : String(err));
      continue;
    }
    for (const n of doc.nodes) {
      let cited: string[] = [];
      try {
        cited = JSON.parse(n.cited_titles_json) as string[];
      } catch {}
      const qWords = new Set(foldTerms(n.question));
      const all = new Set([...qWords, ...foldTerms(n.answer_text), ...foldTerms(cited.join(' '))]);
      const last = terms.length - 1;
      if (!terms.every((t, i) => has(all, t, i === last))) continue;
      const inQuestion = terms.every((t, i) => has(qWords, t, i === last));
      hits.push({
        id: n.id,
        bates: n.bates,
        sid: a.sid,
        seq: n.seq,
        audit: n.audit,
        question: n.question,
        snippet: markedSnippet(inQuestion ? n.question : `${n.answer_text} ${cited.join(' · ')}`, terms[0]),
        created_at: n.created_at,
        archived_at: a.archived_at,
        reason: a.reason,
        field: inQuestion ? 'question' : 'answer',
      });
    }
  }
  // Ranked as live hits are (rank.ts): the question tier first, the phrase and whole words, fuzzy closeness, age.
  const byId = new Map(hits.map((h) => [h.id, h]));
  const fieldOf = new Map(hits.map((h) => [h.id, h.field as MatchField]));
  const ranked = rank(
    hits.map((h) => ({ ...h, label: null })),
    fieldOf,
    query.trim(),
    terms,
    {},
    limit,
  );
  return ranked.slice(0, limit).map(({ row }) => {
    const { id: _id, ...h } = byId.get(row.id)!;
    return h;
  });
}
