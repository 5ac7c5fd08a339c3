import type Database from 'better-sqlite3';
import { cachedStatement as stmt } from '../db/statements.js';
import { maxTurnId, newestMatches, newestQuestionMatches, snippetsFor } from './candidates.js';
import { matchExpression, queryTerms } from './terms.js';
import { queryPlan } from './vocabulary.js';

export { matchExpression, queryTerms };

export interface FindOptions {
  limit?: number;
  /** Only turns of this session (sid). */
  scope?: string;
  /** Match the last term as a prefix (type-ahead). Default true. */
  prefix?: boolean;
}

export interface FindHit {
  bates: string;
  sid: string;
  seq: number;
  audit: string;
  question: string;
  snippet: string;
  created_at: string;
  score: number;
  /** Where the terms matched: in the question, or only in the answer / cited titles. */
  field: 'question' | 'answer';
}

/** How many of the most recent matches are ranked. Bounds the cost of common terms on a 1M-turn shard. */
const CANDIDATES = 400;

/** A turn as find lists it. */
export interface Candidate {
  id: number;
  bates: string;
  sid: string;
  seq: number;
  audit: string;
  question: string;
  created_at: string;
}

function wordsOf(s: string): Set<string> {
  return new Set(queryTerms(s));
}

/**
 * Find turns: FTS5 gives candidates (newest first, bounded), then a cheap ranking in JS:
 * a match in the question beats one in the answer, the whole phrase beats scattered terms, whole words beat
 * prefixes, and newer turns break ties.
 */
export function findTurns(db: Database.Database, text: string, opts: FindOptions = {}): FindHit[] {
  const limit = Math.max(1, Math.min(opts.limit ?? 20, 1000));
  const terms = queryTerms(text);
  if (terms.length === 0) return [];
  const prefixLast = (opts.prefix ?? true) && !/\s$/.test(text);
  // As search does (search.ts): the rarest words required, fewer prefix terms beside them and for snippets.
  const { required, under, snippetUnder } = queryPlan(db, terms, prefixLast, maxTurnId(db));
  const expr = matchExpression(required, prefixLast, under);
  const snippetExpr = matchExpression(required, prefixLast, snippetUnder);
  const inQuestion = new Set(newestQuestionMatches(db, expr, CANDIDATES, opts.scope));
  const ids = new Set(inQuestion);
  for (const id of newestMatches(db, expr, CANDIDATES, opts.scope)) ids.add(id);
  if (ids.size === 0) return [];

  const idList = [...ids];
  const rows = stmt(
    db,
    `SELECT n.id, n.bates, n.sid, n.seq, CAST(n.audit AS TEXT) AS audit, CAST(n.question AS TEXT) AS question,
       CAST(n.created_at AS TEXT) AS created_at FROM nodes n
     WHERE n.id IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(idList)) as Candidate[];

  const phrase = terms.join(' ');
  const maxId = Math.max(...idList);
  const minId = Math.min(...idList);
  const scored = rows.map((c) => {
    let score = 0;
    const qNorm = queryTerms(c.question).join(' ');
    if (inQuestion.has(c.id)) {
      score += 100;
      if (qNorm.includes(phrase)) score += 60;
      const words = wordsOf(c.question);
      score += (20 * terms.filter((t) => words.has(t)).length) / terms.length;
      if (qNorm.startsWith(phrase)) score += 5;
    }
    // Recency in [0, 1): only ever breaks ties between otherwise equal matches.
    score += maxId === minId ? 0 : (c.id - minId) / (maxId - minId + 1);
    return { c, score, field: inQuestion.has(c.id) ? ('question' as const) : ('answer' as const) };
  });
  scored.sort((a, b) => b.score - a.score || b.c.id - a.c.id);
  const top = scored.slice(0, limit);

  const snippets = snippetsFor(
    db,
    snippetExpr,
    top.map((t) => t.c.id),
  );
  return top.map(({ c, score, field }) => ({
    bates: c.bates,
    sid: c.sid,
    seq: c.seq,
    audit: c.audit,
    question: c.question,
    snippet: snippets.get(c.id) ?? '',
    created_at: c.created_at,
    score: Math.round(score * 1000) / 1000,
    field,
  }));
}
