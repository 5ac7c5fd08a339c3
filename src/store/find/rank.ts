import Fuse from 'fuse.js';
import { queryTerms } from './terms.js';

/**
 * The one ranking of find (docs/find.md): live turns from search.ts's FTS5 candidates and archived turns from the
 * archive scan (archived.ts) are ordered by the same rules, so a hit ranks the same wherever it lives.
 */

export type MatchField = 'bates' | 'label' | 'question' | 'answer';

/** A candidate turn as find ranks it: `id` orders by age (larger is newer). */
export interface RankedRow {
  id: number;
  bates: string;
  sid: string;
  seq: number;
  audit: string;
  question: string;
  created_at: string;
  label: string | null;
}

const FIELD_WEIGHT: Record<MatchField, number> = { bates: 400, label: 210, question: 200, answer: 0 };
/** How many of the cheaply scored candidates fuse.js re-ranks. */
export function leaderCount(limit: number): number {
  return Math.max(limit * 2, 40);
}

/**
 * Ranking: exact Bates and labels first; then a match in the question above one in the answer; within a tier the
 * whole phrase beats whole words, which beat fuzzy letters (fuse.js score); newer turns break ties.
 */
export function rank(
  rows: RankedRow[],
  fieldOf: Map<number, MatchField>,
  text: string,
  terms: string[],
  corrections: Record<string, string[]>,
  limit: number,
) {
  const phrase = terms.join(' ');
  const wanted = terms.map((t) => [t, ...(corrections[t] ?? [])]);
  let minId = Number.POSITIVE_INFINITY;
  let maxId = 0;
  for (const r of rows) {
    minId = Math.min(minId, r.id);
    maxId = Math.max(maxId, r.id);
  }
  // A cheap score for every candidate (tier, phrase, whole words, recency) ...
  const scored = rows.map((row) => {
    const field = fieldOf.get(row.id) ?? 'answer';
    let score = FIELD_WEIGHT[field];
    const qTerms = queryTerms(row.question);
    if (phrase !== '' && qTerms.join(' ').includes(phrase)) score += 60;
    if (wanted.length > 0) {
      const words = new Set(qTerms);
      score += (40 * wanted.filter((alts) => alts.some((a) => words.has(a))).length) / wanted.length;
    }
    score += maxId === minId ? 0 : (row.id - minId) / (maxId - minId + 1);
    return { row, field, score, highlights: [] as [number, number][] };
  });
  scored.sort((a, b) => b.score - a.score || b.row.id - a.row.id);
  // ... then fuse.js refines only the leaders: fuzzy closeness of the question to what was typed.
  const leaders = scored.slice(0, leaderCount(limit));
  if (text.length <= 32) {
    const fuse = new Fuse(
      leaders.map((l) => l.row),
      { keys: ['question'], includeScore: true, includeMatches: true, ignoreLocation: true, threshold: 1 },
    );
    const byId = new Map(leaders.map((l) => [l.row.id, l]));
    for (const r of fuse.search(text)) {
      const l = byId.get(r.item.id)!;
      // Bates and label hits matched something other than the question: its letters say nothing about them.
      if (l.field === 'bates' || l.field === 'label') continue;
      l.score += 30 * (1 - (r.score ?? 1));
      l.highlights = (r.matches?.[0]?.indices ?? []).map(([x, y]) => [x, y] as [number, number]);
    }
  }
  for (const l of leaders) {
    const exact = termHighlights(l.row.question, wanted.flat());
    if (exact.length > 0) l.highlights = exact;
  }
  leaders.sort((a, b) => b.score - a.score || b.row.id - a.row.id);
  return leaders;
}

/** Where the query's words (or their corrections) start a word of the question: inclusive ranges, merged. */
export function termHighlights(question: string, words: string[]): [number, number][] {
  const lower = question.toLowerCase();
  const ranges: [number, number][] = [];
  for (const w of words) {
    if (w.length < 1 || lower.length !== question.length) continue;
    let from = 0;
    for (;;) {
      const at = lower.indexOf(w, from);
      if (at < 0) break;
      const before = at === 0 ? '' : lower[at - 1];
      if (before === '' || !/[\p{L}\p{N}]/u.test(before)) ranges.push([at, at + w.length - 1]);
      from = at + w.length;
    }
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}
