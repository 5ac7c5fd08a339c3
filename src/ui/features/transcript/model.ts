/**
 * The right pane's model, pure: the path from the root to the selected turn (crossing sessions) laid out as
 * wrapped lines, one block per turn, computed lazily and cached, so a 300-turn path with long answers costs only
 * the blocks on screen. A scroll position is (block, line in block).
 */
import type { TurnNode } from '../../../store/index.js';
import { shortTime } from '../../../text/format.js';
import { oneLine, sanitize } from '../../../text/sanitize.js';
import { truncate, wrap } from '../../../text/width.js';
import { Style } from '../../term/canvas.js';
import { foldedCall, type Piece, parseAnswer } from './calls.js';
import { alignCalls, openCallLines, type Shown, thinkingLines } from './details.js';
import { renderMarkdown, type Span } from './markdown.js';

/** What a turn shows beyond its answer: its details once loaded, whether thinking is shown, the key that shows it. */
export interface TurnExtra {
  details?: Shown | null;
  thinking: boolean;
  key: string;
}

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
  | 'error'
  | 'tool'
  | 'result'
  /** From the turn's source records (details.ts): thinking, a call's input, an edit's diff lines. */
  | 'thinking'
  | 'input'
  | 'diffAdd'
  | 'diffDel'
  | 'diffHunk';

export interface TLine {
  role: Role;
  text: string;
  /** For q/a lines: the first line carries the "Q "/"A " label. */
  lead?: boolean;
  /** On the first line of a tool call: its index among the turn's calls (what the fold keys act on). */
  call?: number;
  /** Rendered markdown: the line's text in styled runs (their texts joined are `text`); without, one style. */
  spans?: Span[];
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

/** A turn's answer as pieces, parsed once per loaded turn (kept with the turn object, gone with it). */
const parsed = new WeakMap<Turn, Piece[]>();

export function answerPieces(turn: Turn): Piece[] {
  let pieces = parsed.get(turn);
  if (!pieces) {
    pieces = parseAnswer(sanitize(turn.answer_text));
    parsed.set(turn, pieces);
  }
  return pieces;
}

/** A piece laid out at a width: its lines folded, and (for a call) open. Indented two columns for the "A " label. */
interface Laid {
  folded: TLine[];
  open: TLine[] | null;
}
const laidCache = new WeakMap<Turn, Map<number | string, Laid[]>>();

/** The pieces laid out at a width, once per turn, width and details, so opening a call only joins ready lines. */
function layPieces(turn: Turn, w: number, extra?: TurnExtra): Laid[] {
  let byWidth = laidCache.get(turn);
  if (!byWidth) {
    byWidth = new Map();
    laidCache.set(turn, byWidth);
  }
  const d = extra?.details ?? null;
  const cacheKey = d ? `${w}|d|${extra?.thinking ? 't' : ''}|${extra?.key}` : w;
  const hit = byWidth.get(cacheKey);
  if (hit) return hit;
  const inner = Math.max(1, w - 2);
  const lines = (role: Role, text: string): TLine[] =>
    wrap(text, inner).map((l) => ({ role, text: `  ${l}` }));
  const pieces = answerPieces(turn);
  const names = pieces.flatMap((p) => (p.kind === 'call' ? [p.name] : []));
  const args = pieces.flatMap((p) => (p.kind === 'call' ? [p.arg] : []));
  const aligned = d ? alignCalls(names, d.calls, args) : [];
  // Thinking stands where it was: after the calls that came before it (grouped, so a run of blocks is one line).
  const thinking = new Map<number, Shown['thinking']>();
  for (const t of d?.thinking ?? []) {
    const at = Math.min(t.before, names.length);
    thinking.set(at, [...(thinking.get(at) ?? []), t]);
  }
  const thinkingAt = (k: number): Laid[] => {
    const g = thinking.get(k);
    if (!g) return [];
    const folded = thinkingLines(g, extra?.thinking === true, extra?.key ?? '', inner).map((l) => ({
      role: l.role,
      text: `  ${l.text}`,
    }));
    return [{ folded, open: null }];
  };
  let calls = 0;
  const laid = thinkingAt(0);
  for (const p of pieces) laid.push(layPiece(p), ...(p.kind === 'call' ? thinkingAt(calls) : []));
  byWidth.set(cacheKey, laid);
  return laid;

  function layPiece(p: Piece): Laid {
    switch (p.kind) {
      case 'text':
        return { folded: markdownLines(p.lines.join('\n'), inner), open: null };
      case 'error':
        return { folded: lines('error', `[error] ${p.text}`), open: null };
      case 'steer':
        return { folded: lines('meta', p.lines.join('\n')), open: null };
      default: {
        const call = calls++;
        const folded: TLine[] = [{ role: 'tool', text: `  ${foldedCall(p, inner)}`, call }];
        const head = `→ ${p.name}${p.arg === '' ? '' : `  ${p.arg}`}`;
        const detail = aligned[call];
        // With details the whole input follows, field by field: the answer's cut argument stays on one row.
        const open = detail
          ? [{ role: 'tool' as const, text: `  ${truncate(head, inner)}` }]
          : lines('tool', head);
        open[0] = { ...open[0], call };
        if (detail) {
          for (const l of openCallLines(p, detail, inner)) open.push({ role: l.role, text: `  ${l.text}` });
          return { folded, open };
        }
        // Result lines sit two columns under their call, continuation lines too.
        const under = (role: Role, text: string): void => {
          for (const l of wrap(text, Math.max(1, inner - 2))) open.push({ role, text: `    ${l}` });
        };
        p.result.forEach((r, i) => {
          if (i === 0 && p.error) under('error', `error: ${r.trimStart()}`);
          else under('result', r);
        });
        if (p.result.length === 0) under('result', '(no result under it)');
        if (p.more > 0)
          under('result', `… ${p.more} more ${p.more === 1 ? 'line' : 'lines'}, not kept by the import`);
        return { folded, open };
      }
    }
  }
}

const INDENT: Span = ['  ', Style.normal];

/** An answer's prose rendered as markdown, indented two columns for the "A " label. */
function markdownLines(text: string, inner: number): TLine[] {
  return renderMarkdown(text, inner).map((l) => ({
    role: 'a',
    text: `  ${l.text}`,
    spans: [INDENT, ...l.spans],
  }));
}

/** How many tool calls a turn's answer holds. */
export function callCount(turn: Turn): number {
  let n = 0;
  for (const p of answerPieces(turn)) if (p.kind === 'call') n++;
  return n;
}

/** The answer's lines: each call one line unless `open` holds its index; a blank line between pieces, none
 * between two calls, so a run of calls reads as a list. */
function answerLines(turn: Turn, w: number, open: ReadonlySet<number>, extra?: TurnExtra): TLine[] {
  const laid = layPieces(turn, w, extra);
  const out: TLine[] = [];
  let prevCall: boolean | null = null;
  let call = 0;
  for (const p of laid) {
    const isCall = p.open !== null;
    if (prevCall !== null && !(prevCall && isCall)) out.push({ role: 'blank', text: '' });
    pushAll(out, isCall && open.has(call) ? p.open! : p.folded);
    if (isCall) call++;
    prevCall = isCall;
  }
  if (out.length === 0) return [{ role: 'a', text: 'A (no answer)', lead: true }];
  out[0] = { ...out[0], text: `A ${out[0].text.slice(2)}`, lead: true };
  return out;
}

const NONE: ReadonlySet<number> = new Set();

/** The lines of one turn of a path; `prev` is the turn above it (null at the root); `open`, its calls shown whole. */
export function turnBlock(
  turn: Turn,
  prev: Turn | null,
  width: number,
  label: string | null,
  open: ReadonlySet<number> = NONE,
  extra?: TurnExtra,
): TLine[] {
  const openKey = open.size === 0 ? '' : [...open].sort((a, b) => a - b).join(',');
  // Details change the lines once they arrive; thinking shown or not, only when there are details.
  const extraKey = extra?.details ? `|d${extra.thinking ? 't' : ''}|${extra.key}` : '';
  const key = `${turn.bates}|${turn.subtree_hash}|${width}|${prev ? prev.sid : '-'}|${label ?? ''}|${openKey}${extraKey}`;
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
  pushAll(out, answerLines(turn, w, open, extra));
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
  open: (bates: string) => ReadonlySet<number> | undefined = () => undefined,
  extra: (bates: string) => TurnExtra | undefined = () => undefined,
): Doc {
  const n = path.length + (pending ? 1 : 0);
  return {
    n,
    block(i: number): TLine[] {
      if (i < path.length)
        return turnBlock(
          path[i],
          i > 0 ? path[i - 1] : null,
          width,
          labelOf(path[i].sid),
          open(path[i].bates),
          extra(path[i].bates),
        );
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
