import type { Shard } from '../shard.js';
import { dbOf } from '../shard.js';
import {
  maxTurnId,
  newestMatches,
  newestMatchesBefore,
  type TurnBrief,
  turnAnswers,
  turnBriefs,
} from './candidates.js';

/**
 * The bounded FTS5 reads of the answerer's retrieval (src/ask/retrieve.ts): the same candidate queries search
 * uses (candidates.ts), reached through the Shard, so that no layer above the store holds a raw connection.
 */
export interface Postings {
  /** The newest `limit` turns matching `expr` (a MATCH expression of quoted terms), newest first. */
  newest(expr: string, limit: number): number[];
  /** The same, older than turn id `before`. */
  newestBefore(expr: string, before: number, limit: number): number[];
  maxTurnId(): number;
  briefs(ids: readonly number[]): TurnBrief[];
  answers(ids: readonly number[]): Map<number, string>;
}

export function postingsOf(shard: Shard): Postings {
  const db = dbOf(shard);
  return {
    newest: (expr, limit) => newestMatches(db, expr, limit),
    newestBefore: (expr, before, limit) => newestMatchesBefore(db, expr, before, limit),
    maxTurnId: () => maxTurnId(db),
    briefs: (ids) => turnBriefs(db, ids),
    answers: (ids) => turnAnswers(db, ids),
  };
}
