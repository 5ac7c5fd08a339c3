/** The `/` find box: opening it, its keys, the answers to its queries, and n/N stepping through the last hits. */
import type { KeyAction } from '../../../keymap/index.js';
import { oneLine } from '../../../text/sanitize.js';
import { msg, type Result, selectedSid, treeHeight } from '../../core/selectors.js';
import type { State } from '../../core/state.js';
import { cursorAt } from '../../widgets/list.js';
import { editText } from '../../widgets/text-input.js';
import { keyOfRow } from '../tree/model.js';
import { select } from '../tree/select.js';
import { FIND_LIMIT, type FindOverlay, findListHeight, type HitLine } from './model.js';

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
    searched: null,
    corrections: [],
    problems: [],
    error: null,
    sel: 0,
    top: 0,
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
        limit: FIND_LIMIT,
      },
    ],
  ];
}

function findMove(s: State, ov: FindOverlay, to: number): Result {
  const page = findListHeight(s.cols, s.rows);
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
  const page = findListHeight(s.cols, s.rows);
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
export function onFound(
  s: State,
  a: { seq: number; hits: HitLine[]; searched: number; corrections: string[]; problems?: string[] },
): Result {
  const ov = s.overlay;
  if (ov?.kind !== 'find' || a.seq !== ov.seq) return [s, []];
  const { hits, searched, corrections } = a;
  const problems = a.problems ?? [];
  return [
    {
      ...s,
      overlay: { ...ov, shown: a.seq, hits, searched, corrections, problems, error: null, sel: 0, top: 0 },
    },
    [],
  ];
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
