/**
 * The `/` find box: its state and pure helpers shared by its update, its view, the runtime and the search worker.
 * No terminal, no SQLite. The engine itself is src/store/find/search.ts.
 */
import { FILTER_NAMES, type SearchMatch, type SearchResult } from '../../../store/index.js';
import { oneLine } from '../../../text/sanitize.js';
import { unknownFilterNote } from '../../../text/suggest.js';
import type { Focus, Rect } from '../../core/layout.js';
import type { TPos, Turn } from '../transcript/model.js';

/** The selected hit's turn as the runtime loaded it (or could not); runtime/preview.ts. */
export interface PreviewTurn {
  bates: string;
  /** null while it loads, or when it could not be read (`error`). */
  turn: Turn | null;
  /** Its session is archived now (after the search): shown read-only from its archive. */
  archived: boolean;
  error: string | null;
}

/** One line of the find box's results: what it shows of a store SearchHit, trimmed. */
/** A query's answer as the runtime hands it to the reducer (the 'found' action, less its timing). */
export interface Found {
  seq: number;
  hits: HitLine[];
  /** Turns in scope; null under a date filter (no count of a day's turns is kept: SearchResult.searched). */
  searched: number | null;
  corrections: string[];
  problems?: string[];
  match?: SearchMatch;
}

export interface HitLine {
  bates: string;
  sid: string;
  audit: string;
  /** Raw (unsanitised, possibly cut) question; `highlights` index into it (UTF-16, inclusive ranges). */
  question: string;
  label: string | null;
  highlights: [number, number][];
  /** The session's agent (source kind), null for a session asked in arborist. */
  agent: string | null;
  project: string | null;
  created_at: string;
  /** Where it matched: an answer-only match shows `snippet`, any other its question. */
  field: 'bates' | 'label' | 'question' | 'answer';
  /** Raw (unsanitised) answer snippet of an answer match, matched words between « and » (FTS5 snippet()). */
  snippet: string;
}

/** The `/` overlay. Results carry the `seq` of the query they answer; only the latest query's are shown. */
export interface FindOverlay {
  kind: 'find';
  text: string;
  /** All sessions, or only `sid` (the session of the selection when the overlay opened). */
  scope: 'all' | 'session';
  sid: string | null;
  /** The latest query asked for. */
  seq: number;
  /** The query whose results are shown (0: none yet); shown !== seq while a query is in flight. */
  shown: number;
  hits: HitLine[];
  /** The search found more than FIND_LIMIT: the count says "50+". */
  more: boolean;
  /** Turns in scope ("37 of 12,408"); null until the first answer, and under a date filter ("37 found"). */
  searched: number | null;
  /** One-edit corrections used ("also: lifetime"). */
  corrections: string[];
  /** Filters that could not be used (unknown, or a bad value), said in the box. */
  problems: string[];
  /** The words the shown hits matched (the preview marks them). */
  match: SearchMatch;
  error: string | null;
  sel: number;
  top: number;
  /** The selected hit's turn, as far as it is loaded; null when there is no hit or no preview. */
  preview: PreviewTurn | null;
  /** The preview's first line when scrolled by hand; null: at the first match. */
  pscroll: number | null;
  /** Where Esc returns to. */
  back: { selKey: string | null; top: number; tpos: TPos | null; focus: Focus };
}

/** Find state that outlives the overlay: the query counter, and the hits n/N step through. */
export interface FindMemory {
  seq: number;
  /** The preview was hidden (`find.preview`): it stays so the next time the box opens. */
  hidePreview: boolean;
  last: { query: string; hits: HitLine[]; at: number } | null;
}

/** Hits asked for per query: more than the tallest box shows, few enough to cost nothing to rank and send. */
export const FIND_LIMIT = 50;
/** A hit's question is cut to this many UTF-16 units before it leaves the search (a line shows far less). */
export const FIND_QUESTION_MAX = 600;

/**
 * A search answer as the TUI keeps it: hits trimmed to what a line can show, corrections flattened; a name typed as
 * a filter that is none said among the problems with the filter meant (as `arborist find` says it).
 */
export function toFound(r: SearchResult): {
  hits: HitLine[];
  searched: number | null;
  corrections: string[];
  problems: string[];
  match: SearchMatch;
} {
  return {
    hits: r.hits.map((h) => {
      const question =
        h.question.length > FIND_QUESTION_MAX ? h.question.slice(0, FIND_QUESTION_MAX) : h.question;
      return {
        bates: h.bates,
        sid: h.sid,
        audit: h.audit,
        question,
        label: h.label,
        highlights: wordHighlights(question, h.highlights),
        agent: h.agent,
        project: h.project,
        created_at: h.created_at,
        field: h.field,
        snippet: h.snippet.length > FIND_QUESTION_MAX ? h.snippet.slice(0, FIND_QUESTION_MAX) : h.snippet,
      };
    }),
    searched: r.searched,
    corrections: [...new Set(Object.values(r.corrections).flat())],
    problems: [...r.unknownFilters.map((name) => unknownFilterNote(name, FILTER_NAMES)), ...r.problems],
    match: r.match,
  };
}

/** No words to mark (before the first answer, a Bates id or a label). */
export const NO_MATCH: SearchMatch = { words: [], prefix: null };

const WORD = /[\p{L}\p{N}]/u;

/**
 * The ranges worth highlighting: those that start a word and are at least two characters long. The engine
 * also passes on fuse.js's ranges, which for a turn found by its answer are scattered single letters of the
 * question ("e", "t", "efe"): noise that would only look like a match.
 */
export function wordHighlights(question: string, ranges: readonly [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (const [a, b0] of ranges) {
    if (a < 0 || a >= question.length || b0 < a) continue;
    const b = Math.min(b0, question.length - 1);
    if (b > a && (a === 0 || !WORD.test(question[a - 1]))) out.push([a, b]);
  }
  return out;
}

export interface Segment {
  text: string;
  hl: boolean;
}

const OPEN = '\ue000';
const CLOSE = '\ue001';

/**
 * The question as one sanitised line cut into plain and highlighted runs. `highlights` index the RAW text, which
 * sanitising shortens (escape sequences, controls), so the ranges are marked in the raw text with two private-use
 * characters that sanitising keeps, and the runs are read off the clean result.
 */
export function highlightSegments(question: string, highlights: readonly [number, number][]): Segment[] {
  // Same length, so the ranges stay valid; the markers cannot be forged by the text itself.
  const q = question.replace(/[\ue000\ue001]/g, '\ufffd');
  const ranges = highlights
    .filter(([a, b]) => Number.isInteger(a) && Number.isInteger(b) && b >= a && a >= 0 && a < q.length)
    .map(([a, b]) => [a, Math.min(b, q.length - 1)] as const)
    .sort((x, y) => x[0] - y[0]);
  let marked = '';
  let pos = 0;
  for (const [a, b] of ranges) {
    if (b < pos) continue;
    const from = Math.max(a, pos);
    marked += `${q.slice(pos, from)}${OPEN}${q.slice(from, b + 1)}${CLOSE}`;
    pos = b + 1;
  }
  marked += q.slice(pos);
  const clean = oneLine(marked).trimStart();
  const out: Segment[] = [];
  let hl = false;
  let cur = '';
  const push = () => {
    if (cur === '') return;
    const last = out[out.length - 1];
    if (last && last.hl === hl) last.text += cur;
    else out.push({ text: cur, hl });
    cur = '';
  };
  for (const ch of clean) {
    if (ch === OPEN || ch === CLOSE) {
      push();
      hl = ch === OPEN;
    } else cur += ch;
  }
  push();
  return out;
}

/**
 * An FTS5 snippet (matched words between « and ») as its text and the ranges to highlight, in the form
 * highlightSegments takes. A « or » in the text itself only moves a highlight; it never reaches the terminal raw.
 */
export function snippetMarks(snippet: string): { text: string; highlights: [number, number][] } {
  let text = '';
  const highlights: [number, number][] = [];
  let open = -1;
  for (const ch of snippet) {
    if (ch === '«' && open < 0) open = text.length;
    else if (ch === '»' && open >= 0) {
      if (text.length > open) highlights.push([open, text.length - 1]);
      open = -1;
    } else text += ch;
  }
  return { text, highlights };
}

/** Screen lines per hit: the question with its agent, project and age; then where it matched. */
export const HIT_LINES = 2;

/**
 * The find box: wide, and tall enough for a useful list, over the panes (the status bar stays visible). `wide`: the
 * preview sits beside the list, so the box takes the terminal's width.
 */
export function findBox(cols: number, rows: number, wide = false): Rect {
  const w = Math.max(10, Math.min(cols - 4, wide ? 240 : 120));
  const h = Math.max(7, Math.min(rows - 3, 26));
  return { x: Math.max(0, Math.floor((cols - w) / 2)), y: Math.max(0, Math.floor((rows - 1 - h) / 2)), w, h };
}
