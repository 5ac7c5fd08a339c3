/**
 * The right pane's model, pure: the path from the root to the selected turn (crossing sessions) laid out as
 * wrapped lines, one block per turn, computed lazily and cached, so a 300-turn path with long answers costs only
 * the blocks on screen. A scroll position is (block, line in block).
 */
import type { TurnNode } from '../../../store/index.js';
import { shortTime } from '../../../text/format.js';
import { oneLine, sanitize } from '../../../text/sanitize.js';
import { wrap } from '../../../text/width.js';

export type Role =
  | 'session'
  | 'cross'
  | 'header'
  | 'meta'
  | 'q'
  | 'a'
  | 'cite'
  | 'blank'
  | 'pending'
  | 'info'
  | 'error';

export interface TLine {
  role: Role;
  text: string;
  /** For q/a lines: the first line carries the "Q "/"A " label. */
  lead?: boolean;
}

export type Turn = Pick<
  TurnNode,
  | 'bates'
  | 'sid'
  | 'parent_bates'
  | 'is_top'
  | 'question'
  | 'answer_text'
  | 'cited_titles'
  | 'audit'
  | 'created_at'
  | 'node_hash'
  | 'subtree_hash'
  | 'n_children'
  | 'depth'
>;

export interface Doc {
  n: number;
  block(i: number): TLine[];
}

export interface TPos {
  turn: number;
  line: number;
}

const cache = new Map<string, TLine[]>();
const CACHE_MAX = 600;

/** Appends every line: push(...lines) passes them as arguments, and an answer of 200,000 lines overflows the stack. */
function pushAll(out: TLine[], lines: readonly TLine[]): void {
  for (const l of lines) out.push(l);
}

function labelled(role: Role, text: string, width: number): TLine[] {
  const lines = wrap(text, Math.max(1, width - 2));
  return lines.map((l, i) => ({
    role,
    text: (i === 0 ? (role === 'q' ? 'Q ' : 'A ') : '  ') + l,
    lead: i === 0,
  }));
}

function sessionName(sid: string, label: string | null): string {
  return label ? `${sid} · ${oneLine(label)}` : sid;
}

/** The lines of one turn of a path; `prev` is the turn above it (null at the root). */
export function turnBlock(turn: Turn, prev: Turn | null, width: number, label: string | null): TLine[] {
  const key = `${turn.bates}|${turn.subtree_hash}|${width}|${prev ? prev.sid : '-'}|${label ?? ''}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const out: TLine[] = [];
  const w = Math.max(4, width);
  if (!prev) {
    for (const l of wrap(`session ${sessionName(turn.sid, label)}`, w))
      out.push({ role: 'session', text: l });
  } else if (prev.sid !== turn.sid) {
    const t = `⇢ crosses into session ${sessionName(turn.sid, label)}, forked from ${prev.bates}`;
    for (const l of wrap(t, w)) out.push({ role: 'cross', text: l });
  }
  const kids = turn.n_children === 0 ? '' : turn.n_children === 1 ? ' · 1 child' : ` · ⑂${turn.n_children}`;
  for (const l of wrap(`${turn.bates} · ${oneLine(turn.audit)} · ${shortTime(turn.created_at)}${kids}`, w)) {
    out.push({ role: 'header', text: l });
  }
  for (const l of wrap(
    `node ${turn.node_hash.slice(0, 12)} · subtree ${turn.subtree_hash.slice(0, 12)}`,
    w,
  )) {
    out.push({ role: 'meta', text: l });
  }
  pushAll(out, labelled('q', sanitize(turn.question), w));
  const answer = sanitize(turn.answer_text);
  if (answer.trim() === '') out.push({ role: 'a', text: 'A (no answer)', lead: true });
  else pushAll(out, labelled('a', answer, w));
  if (turn.cited_titles.length > 0) {
    const cited = `cited: ${turn.cited_titles.map((t) => oneLine(t)).join(' · ')}`;
    for (const l of wrap(cited, Math.max(1, w - 2))) out.push({ role: 'cite', text: `  ${l}` });
  }
  out.push({ role: 'blank', text: '' });
  cache.set(key, out);
  if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
  return out;
}

export interface PendingAsk {
  mode: 'ask' | 'fork';
  question: string;
  answer: string;
  parent: string | null;
}

export function pendingBlock(p: PendingAsk, width: number): TLine[] {
  const w = Math.max(4, width);
  const out: TLine[] = [];
  const head =
    p.mode === 'fork'
      ? `⇢ forking a new session from ${p.parent ?? 'the root'}… (Esc cancels)`
      : `asking under ${p.parent ?? 'a new root'}… (Esc cancels)`;
  for (const l of wrap(head, w)) out.push({ role: 'pending', text: l });
  pushAll(out, labelled('q', sanitize(p.question), w));
  const a = sanitize(p.answer);
  pushAll(out, labelled('a', a === '' ? '…' : `${a}▍`, w));
  return out;
}

/** The document for a path (and a running question hanging under it). */
export function pathDoc(
  path: readonly Turn[],
  width: number,
  labelOf: (sid: string) => string | null,
  pending?: PendingAsk | null,
): Doc {
  const n = path.length + (pending ? 1 : 0);
  return {
    n,
    block(i: number): TLine[] {
      if (i < path.length) return turnBlock(path[i], i > 0 ? path[i - 1] : null, width, labelOf(path[i].sid));
      return pending ? pendingBlock(pending, width) : [];
    },
  };
}

/** A document of plain lines (session summaries, messages). */
export function linesDoc(lines: TLine[]): Doc {
  return { n: 1, block: () => lines };
}

/** Where a freshly selected path starts on screen: the selected (last) turn's start, with as much of the turns
 * above as fits when it is short; with a running question, the tail of its answer. */
export function autoPos(doc: Doc, h: number, tail: boolean): TPos {
  if (doc.n === 0) return { turn: 0, line: 0 };
  const last = doc.n - 1;
  const len = doc.block(last).length;
  if (!tail && len >= h) return { turn: last, line: 0 };
  return back(doc, { turn: last, line: len }, h);
}

/** The position `k` lines above `pos` (clamped at the top). */
function back(doc: Doc, pos: TPos, k: number): TPos {
  let { turn, line } = pos;
  while (k > 0) {
    if (line >= k) return { turn, line: line - k };
    k -= line;
    if (turn === 0) return { turn: 0, line: 0 };
    turn--;
    line = doc.block(turn).length;
  }
  return { turn, line };
}

/** The last position that still fills the pane (the end of the document at the bottom). */
export function maxPos(doc: Doc, h: number): TPos {
  if (doc.n === 0) return { turn: 0, line: 0 };
  const last = doc.n - 1;
  return back(doc, { turn: last, line: doc.block(last).length }, h);
}

function cmp(a: TPos, b: TPos): number {
  return a.turn - b.turn || a.line - b.line;
}

/** Moves a position by `delta` lines, clamped to [start, maxPos]. */
export function scrollBy(doc: Doc, pos: TPos, delta: number, h: number): TPos {
  if (doc.n === 0) return { turn: 0, line: 0 };
  const max = maxPos(doc, h);
  if (delta < 0) return back(doc, pos, -delta);
  let { turn, line } = pos;
  let k = delta;
  while (k > 0) {
    const len = doc.block(turn).length;
    if (line + k < len) {
      line += k;
      k = 0;
    } else if (turn + 1 < doc.n) {
      k -= len - line;
      turn++;
      line = 0;
    } else {
      line = len;
      k = 0;
    }
    if (cmp({ turn, line }, max) >= 0) return max;
  }
  const p = { turn, line };
  return cmp(p, max) > 0 ? max : p;
}

/** Up to `h` lines from `pos`, each with the index of its block. */
export function windowLines(doc: Doc, pos: TPos, h: number): { line: TLine; turn: number }[] {
  const out: { line: TLine; turn: number }[] = [];
  let { turn, line } = pos;
  while (out.length < h && turn < doc.n) {
    const b = doc.block(turn);
    for (; line < b.length && out.length < h; line++) out.push({ line: b[line], turn });
    turn++;
    line = 0;
  }
  return out;
}
