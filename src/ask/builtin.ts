import type { Retrieval } from './retrieve.js';
import { clipLine } from './text.js';

export interface BuiltinAnswer {
  answer_text: string;
  cited_titles: string[];
  n_cited_sources: number;
  grounded: boolean;
}

export const UNGROUNDED_ANSWER =
  'Nothing in your history relates to this question yet. The built-in answerer only points at earlier turns of ' +
  'this shard; to ask a model, use --answer-cmd or answer.command in config.json (see docs/asking.md).';

/**
 * The built-in, offline answer: a pointer line `[<bates>] <question>` per cited turn, each followed by a short
 * snippet of that turn's answer (indented two spaces). With nothing relevant it says so plainly.
 */
export function builtinAnswer(r: Retrieval): BuiltinAnswer {
  const cites = r.citations;
  if (cites.length === 0) {
    return { answer_text: UNGROUNDED_ANSWER, cited_titles: [], n_cited_sources: 0, grounded: false };
  }
  const lines = [
    cites.length === 1
      ? '1 earlier turn in your history relates to this:'
      : `${cites.length} earlier turns in your history relate to this:`,
    '',
  ];
  for (const c of cites) {
    lines.push(`[${c.bates}] ${clipLine(c.question, 120)}`);
    if (c.snippet !== '') lines.push(`  ${c.snippet}`);
  }
  return {
    answer_text: lines.join('\n'),
    cited_titles: cites.map((c) => c.title),
    n_cited_sources: cites.length,
    grounded: true,
  };
}

const POINTER_RE = /^\[([a-z0-9]+-\d{6,})\] /gm;

/** The Bates ids an answer points at (its `[<bates>] ...` lines), in order. */
export function citedBates(answer_text: string): string[] {
  return [...answer_text.matchAll(POINTER_RE)].map((m) => m[1]);
}
