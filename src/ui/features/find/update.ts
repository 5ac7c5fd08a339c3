/** The `/` find box: opening it, its keys, the answers to its queries, and n/N stepping through the last hits. */
import type { KeyAction } from '../../../keymap/index.js';
import { oneLine } from '../../../text/sanitize.js';
import type { Effect } from '../../core/effects.js';
import { labelOf, msg, type Result, selectedSid, treeHeight } from '../../core/selectors.js';
import type { State } from '../../core/state.js';
import { cursorAt } from '../../widgets/list.js';
import { editText } from '../../widgets/text-input.js';
import type { Turn } from '../transcript/model.js';
import { keyOfRow } from '../tree/model.js';
import { select } from '../tree/select.js';
import { FIND_LIMIT, type FindOverlay, type Found, NO_MATCH } from './model.js';
import { findLayout, findListHeight, maxTop, previewLines, previewTop } from './preview.js';

/** Typing stops here: a query this long already finds nothing more. */
const QUERY_MAX = 500;

/**
 * Opens the find box; the first (empty) query only counts the turns in scope, and starts the search worker. With
 * `text` (`:find wal`) the box opens with that query asked.
 */
export function openFind(s: State, text = ''): Result {
  const ov: FindOverlay = {
    kind: 'find',
    text: oneLine(text).slice(0, QUERY_MAX),
    scope: 'all',
    sid: selectedSid(s),
    seq: 0,
    shown: 0,
    hits: [],
    more: false,
    searched: null,
    corrections: [],
    problems: [],
    match: NO_MATCH,
    error: null,
    sel: 0,
    top: 0,
    preview: null,
    pscroll: null,
    back: { selKey: s.selKey, top: s.top, tpos: s.tpos, focus: s.focus },
  };
  return findQuery(s, ov);
}

/** Asks for the overlay's query under a new sequence number: whatever older query is still out is stale now. */
function findQuery(s: State, ov: FindOverlay): Result {
  const seq = s.find.seq + 1;
  return [
    { ...s, overlay: { ...ov, seq }, find: { ...s.find, seq } },
    [
      {
        type: 'search',
        seq,
        query: ov.text,
        scope: ov.scope === 'session' ? ov.sid : null,
        // One more than the list keeps: whether there are more hits than it shows (onFound drops it).
        limit: FIND_LIMIT + 1,
      },
    ],
  ];
}

/** Hits a page key moves by: those the list shows. */
function listPage(s: State): number {
  return findListHeight(s.cols, s.rows, !s.find.hidePreview);
}

function findMove(s: State, ov: FindOverlay, to: number): Result {
  const page = listPage(s);
  return [{ ...s, overlay: { ...ov, ...cursorAt(ov, to, ov.hits.length, page, true) } }, []];
}

/** Esc: the overlay goes, and the selection, the tree's scroll, the transcript's scroll and the focus come back. */
function closeFind(s: State, ov: FindOverlay): Result {
  const b = ov.back;
  const n: State = { ...s, overlay: null, focus: b.focus };
  if (b.selKey === null) return [n, []];
  const i = n.list.findIndex((r) => keyOfRow(r, n.sessions, n.outlines) === b.selKey);
  if (i < 0) return [n, []];
  const h = treeHeight(n);
  const top = Math.max(0, Math.min(b.top, n.list.length - h));
  if (i < top || i >= top + h) return [select(n, i), []];
  return [{ ...n, sel: i, selKey: b.selKey, top, tpos: b.tpos }, []];
}

/** Enter: go to the selected hit, remembering the hits for n/N. */
function goToHit(s: State, ov: FindOverlay): Result {
  const hit = ov.hits[ov.sel];
  if (!hit) return [s, []];
  const last = { query: ov.text.trim(), hits: ov.hits, at: ov.sel };
  return [
    { ...s, overlay: null, focus: 'tree', message: null, find: { ...s.find, last } },
    [{ type: 'reveal', bates: hit.bates }],
  ];
}

/** A key of the find context (src/keymap/contexts.ts). */
export function keyFind(s: State, ov: FindOverlay, id: KeyAction, ch: string | undefined): Result {
  const page = listPage(s);
  switch (id) {
    case 'close':
      return closeFind(s, ov);
    case 'find.go':
      return goToHit(s, ov);
    case 'find.down':
      return findMove(s, ov, ov.sel + 1);
    case 'find.up':
      return findMove(s, ov, ov.sel - 1);
    case 'page.down':
      return findMove(s, ov, ov.sel + page);
    case 'page.up':
      return findMove(s, ov, ov.sel - page);
    case 'find.scope':
      if (ov.sid === null) return [s, []];
      return findQuery(s, { ...ov, scope: ov.scope === 'all' ? 'session' : 'all' });
    case 'preview.down':
      return [scrollPreview(s, ov, 1), []];
    case 'preview.up':
      return [scrollPreview(s, ov, -1), []];
    case 'find.preview': {
      const hidePreview = !s.find.hidePreview;
      const find = { ...s.find, hidePreview };
      // Hidden, the loaded turn is let go (it is asked for again when the preview comes back).
      return [{ ...s, find, overlay: hidePreview ? { ...ov, preview: null, pscroll: null } : ov }, []];
    }
    case 'quit':
      return [{ ...s, quitting: true }, [{ type: 'quit' }]];
    default: {
      const text = editText(ov.text, id, ch, QUERY_MAX);
      return text === null ? [s, []] : findQuery(s, { ...ov, text });
    }
  }
}

/** n / N: the next or previous hit of the last find, revealed in its session (wrapping at the ends). */
export function findStep(s: State, dir: 1 | -1): Result {
  const last = s.find.last;
  if (!last || last.hits.length === 0)
    return [{ ...s, message: msg(s, `no hits to step through: ${s.keyOf.find ?? '/'} finds`) }, []];
  const n = last.hits.length;
  let at = last.at + dir;
  let wrapped = '';
  if (at >= n) {
    at = 0;
    wrapped = ', from the top';
  } else if (at < 0) {
    at = n - 1;
    wrapped = ', from the bottom';
  }
  return [
    {
      ...s,
      find: { ...s.find, last: { ...last, at } },
      message: msg(s, `find "${last.query}": ${at + 1} of ${n}${wrapped}`),
    },
    [{ type: 'reveal', bates: last.hits[at].bates }],
  ];
}

/** A query's answer; only the latest query's is shown (an older one, typed over since, is dropped). */
export function onFound(s: State, a: Found): Result {
  const ov = s.overlay;
  if (ov?.kind !== 'find' || a.seq !== ov.seq) return [s, []];
  const { searched, corrections } = a;
  const more = a.hits.length > FIND_LIMIT;
  const hits = more ? a.hits.slice(0, FIND_LIMIT) : a.hits;
  const problems = a.problems ?? [];
  const match = a.match ?? NO_MATCH;
  return [
    {
      ...s,
      overlay: {
        ...ov,
        shown: a.seq,
        hits,
        more,
        searched,
        corrections,
        problems,
        match,
        error: null,
        sel: 0,
        top: 0,
      },
    },
    [],
  ];
}

/** The preview's lines and height as the view lays them out (null: no preview, or no turn in it yet). */
function previewOf(s: State, ov: FindOverlay): { lines: ReturnType<typeof previewLines>; h: number } | null {
  const r = findLayout(s.cols, s.rows, !s.find.hidePreview).preview;
  const t = ov.preview?.turn;
  if (!r || !t) return null;
  return { lines: previewLines(t, r.w, labelOf(s)(t.sid)), h: Math.max(1, r.h - 1) };
}

/** Scrolls the preview by half its height (it is a few lines tall under the list: one line a key is too slow). */
function scrollPreview(s: State, ov: FindOverlay, dir: 1 | -1): State {
  const p = previewOf(s, ov);
  if (!p) return s;
  const at = previewTop(p.lines, ov.match, p.h, ov.pscroll);
  const step = Math.max(1, Math.floor(p.h / 2));
  const pscroll = Math.min(Math.max(0, at + dir * step), maxTop(p.lines.length, p.h));
  return { ...s, overlay: { ...ov, pscroll } };
}

/**
 * After any step: when the preview shows and the selected hit is not the turn it holds, the turn is asked for (the
 * runtime loads it after the list has painted) and the preview says it is loading. No hit, no preview.
 */
export function withPreview(s: State, fx: Effect[]): State {
  const ov = s.overlay;
  if (ov?.kind !== 'find') return s;
  const shown = findLayout(s.cols, s.rows, !s.find.hidePreview).preview !== null;
  const hit = shown ? ov.hits[ov.sel] : undefined;
  if (!hit) return ov.preview === null ? s : { ...s, overlay: { ...ov, preview: null, pscroll: null } };
  if (ov.preview?.bates === hit.bates) return s;
  fx.push({ type: 'previewTurn', bates: hit.bates });
  const preview = { bates: hit.bates, turn: null, archived: false, error: null };
  return { ...s, overlay: { ...ov, preview, pscroll: null } };
}

/** The runtime's answer: kept only while that hit is still the one selected (a stale load is dropped). */
export function onPreviewed(
  s: State,
  a: { bates: string; turn: Turn | null; archived: boolean; error?: string },
): Result {
  const ov = s.overlay;
  if (ov?.kind !== 'find' || ov.preview?.bates !== a.bates || ov.hits[ov.sel]?.bates !== a.bates)
    return [s, []];
  const preview = { bates: a.bates, turn: a.turn, archived: a.archived, error: a.error ?? null };
  return [{ ...s, overlay: { ...ov, preview } }, []];
}

export function onFindFailed(s: State, seq: number, error: string): Result {
  const ov = s.overlay;
  if (ov?.kind !== 'find' || seq !== ov.seq) return [s, []];
  const overlay = {
    ...ov,
    shown: seq,
    hits: [],
    corrections: [],
    problems: [],
    error: oneLine(error),
    sel: 0,
    top: 0,
  };
  return [{ ...s, overlay }, []];
}
