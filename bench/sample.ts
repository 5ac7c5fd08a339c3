/**
 * What the benchmarks draw from a shard: real texts of random turns, and its words sorted by how many turns hold
 * them (common, middling, rare), for query mixes. Read-only.
 */
import type { Shard } from '../src/store/index.js';
import { dbOf } from '../src/store/testing.js';
import type { Rng } from './rng.js';

export interface Sample {
  question: string;
  answer_text: string;
  cited_titles: string[];
}

/** Real texts from the shard (random rows), so that the FTS work of each add is realistic. */
export function sampleTexts(s: Shard, rng: Rng, k: number): Sample[] {
  const maxId = dbOf(s).prepare('SELECT coalesce(max(id), 0) FROM nodes').pluck().get() as number;
  const get = dbOf(s).prepare(
    'SELECT question, answer_text, cited_titles_json FROM nodes WHERE id >= ? ORDER BY id LIMIT 1',
  );
  const out: Sample[] = [];
  for (let i = 0; i < k * 3 && out.length < k; i++) {
    const r = get.get(rng.int(1, Math.max(1, maxId))) as
      | { question: string; answer_text: string; cited_titles_json: string }
      | undefined;
    if (r)
      out.push({
        question: r.question,
        answer_text: r.answer_text,
        cited_titles: JSON.parse(r.cited_titles_json),
      });
  }
  if (out.length === 0)
    out.push({
      question: 'what is a lifetime?',
      answer_text: 'A lifetime is a scope. '.repeat(30),
      cited_titles: [],
    });
  return out;
}

export interface Vocabulary {
  /** In >= 5% of the turns. */
  common: string[];
  /** In 0.05%-5% of the turns (at least 3). */
  middling: string[];
  /** In at least one turn but fewer than 0.05% (or 3). */
  rare: string[];
  /** How many turns hold each word above. */
  docs: Map<string, number>;
}

/**
 * How many turns hold `term`: from the FTS5 vocabulary table when the shard has one (`nodes_vocab`), else counted
 * through the index, capped at `cap` (the classes only need to know "at least this many").
 */
function docCounter(s: Shard, cap: number): (term: string) => number {
  const hasVocab = dbOf(s)
    .prepare("SELECT 1 FROM sqlite_schema WHERE name = 'nodes_vocab' AND sql LIKE '%fts5vocab%'")
    .pluck()
    .get();
  if (hasVocab) {
    const doc = dbOf(s).prepare('SELECT doc FROM nodes_vocab WHERE term = ?').pluck();
    return (t) => (doc.get(t) as number | undefined) ?? 0;
  }
  const count = dbOf(s)
    .prepare('SELECT count(*) FROM (SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? LIMIT ?)')
    .pluck();
  return (t) => count.get(`"${t.replaceAll('"', '""')}"`, cap) as number;
}

/** Words of random turns' texts, classed by how many turns hold them. */
export function vocabulary(s: Shard, rng: Rng, nodes: number): Vocabulary {
  const words = new Set<string>();
  for (const t of sampleTexts(s, rng, 150))
    for (const w of `${t.question} ${t.answer_text}`.toLowerCase().match(/\p{L}[\p{L}\p{N}]+/gu) ?? [])
      words.add(w);
  const commonAt = nodes * 0.05;
  const rareBelow = Math.max(3, nodes * 0.0005);
  const doc = docCounter(s, Math.ceil(commonAt));
  const docs = new Map<string, number>();
  for (const w of [...words].slice(0, 600)) docs.set(w, doc(w));
  const all = [...docs];
  return {
    common: all.filter(([, d]) => d >= commonAt).map(([w]) => w),
    middling: all.filter(([, d]) => d < commonAt && d >= rareBelow).map(([w]) => w),
    rare: all.filter(([, d]) => d > 0 && d < rareBelow).map(([w]) => w),
    docs,
  };
}
