/**
 * The TUI's view state, its actions and the effects it asks for: plain data, no terminal, no SQLite. The reducer
 * (reducer.ts) turns (state, action) into (state, effects); the runtime (runtime.ts) performs the effects and
 * feeds their results back as actions; the view (view.ts) draws a state into a Frame.
 */
import type { ActionId, Keymap } from '../../keymap/index.js';
import { ACTIONS, helpRows, prettyKey } from '../../keymap/index.js';
import type { ChainCheck, OutlineNode } from '../../store/index.js';
import type {
  ConfirmOverlay,
  EntriesOverlay,
  MaintenanceAction,
  MaintenanceEffect,
} from '../features/maintenance/model.js';
import type { TPos, Turn } from '../features/transcript/model.js';
import type { Outline, Row, SessionLike } from '../features/tree/model.js';

export type Focus = 'tree' | 'transcript';

export interface ChainView {
  status: 'idle' | 'checking' | 'ok' | 'broken';
  /** The running (or last) check covered the whole chain. */
  full: boolean;
  events: number;
  head: string | null;
  checkedAt: number | null;
  brokenAt: number | null;
  reason: string | null;
  progress: { done: number; total: number } | null;
}

export interface BranchItem {
  bates: string;
  n_children: number;
  q: string;
}

/** Overlays float above the panes; one at a time. */
export type Overlay =
  | { kind: 'help'; scroll: number }
  | { kind: 'input'; mode: 'ask' | 'fork'; parent: string | null; session: string | null; text: string }
  | { kind: 'branches'; sid: string; items: BranchItem[] | null; sel: number; top: number }
  | FindOverlay
  /** Entries (`E`) and the reset/delete/restore confirmation: src/ui/archive.ts. */
  | EntriesOverlay
  | ConfirmOverlay;

/** One hit of the find box: what a result line shows (src/store/search.ts's SearchHit, trimmed). */
export interface FindHit {
  bates: string;
  sid: string;
  audit: string;
  /** Raw (unsanitised, possibly cut) question; `highlights` index into it (UTF-16, inclusive ranges). */
  question: string;
  label: string | null;
  highlights: [number, number][];
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
  hits: FindHit[];
  /** Turns in scope ("37 of 12,408"); null until the first answer. */
  searched: number | null;
  /** One-edit corrections used ("also: lifetime"). */
  corrections: string[];
  error: string | null;
  sel: number;
  top: number;
  /** Where Esc returns to. */
  back: { selKey: string | null; top: number; tpos: TPos | null; focus: Focus };
}

/** Find state that outlives the overlay: the query counter, and the hits n/N step through. */
export interface FindMemory {
  seq: number;
  last: { query: string; hits: FindHit[]; at: number } | null;
}

export interface AskRun {
  mode: 'ask' | 'fork';
  parent: string | null;
  session: string | null;
  question: string;
  answer: string;
}

export interface Message {
  text: string;
  level: 'info' | 'error';
  at: number;
}

export interface State {
  cols: number;
  rows: number;
  focus: Focus;
  /** Sessions, newest first. */
  sessions: SessionLike[];
  /** The first question of sessions without a label, shown in their place (loaded for visible rows only). */
  titles: ReadonlyMap<string, string>;
  loaded: boolean;
  expanded: ReadonlySet<string>;
  outlines: ReadonlyMap<string, Outline>;
  collapsed: ReadonlySet<string>;
  /** Visible rows of the tree (derived from the four fields above; rebuilt when they change). */
  list: Row[];
  sel: number;
  selKey: string | null;
  top: number;
  /** The path shown in the transcript (root first), for the selected turn. */
  path: { bates: string; turns: Turn[] } | null;
  /** Transcript scroll position; null follows the selection automatically. */
  tpos: TPos | null;
  overlay: Overlay | null;
  ask: AskRun | null;
  chain: ChainView;
  message: Message | null;
  offerDemo: boolean;
  busy: string | null;
  help: { group: string; rows: [string, string][] }[];
  /** Keys to show in the status bar: [key, label]. */
  hints: [string, string][];
  /** The first key of each action, as a person reads it (for messages: "Press d to load a demo"). */
  keyOf: Partial<Record<ActionId, string>>;
  now: number;
  quitting: boolean;
  find: FindMemory;
  /** Archived sessions are listed after the live ones (`A`), marked and read-only. */
  showArchived: boolean;
}

export type Action =
  | { type: 'key'; action: ActionId | null; key: string; ch?: string }
  | { type: 'resize'; cols: number; rows: number }
  | { type: 'mouse'; kind: 'mousedown' | 'wheelup' | 'wheeldown'; x: number; y: number }
  /** `archived`: the archived sessions too, when they are shown (each with `archived` set). */
  | { type: 'sessions'; sessions: SessionLike[]; archived?: SessionLike[] }
  | { type: 'outline'; sid: string; nodes: OutlineNode[]; reveal?: string }
  | { type: 'path'; bates: string; turns: Turn[] }
  | { type: 'titles'; titles: [sid: string, title: string][] }
  | { type: 'chainStart'; full: boolean; total: number }
  | { type: 'chainProgress'; done: number }
  | { type: 'chainDone'; result: ChainCheck; full: boolean }
  | { type: 'dataChanged' }
  | { type: 'askChunk'; text: string }
  | { type: 'askDone'; bates: string; sid: string; createdSession: boolean }
  | { type: 'askFailed'; error: string }
  | { type: 'branches'; sid: string; items: BranchItem[] }
  | { type: 'demoBuilt' }
  | { type: 'message'; text: string; level: 'info' | 'error' }
  | { type: 'tick'; now: number }
  /** `ms`: how long the query took where it ran (for the trace). */
  | { type: 'found'; seq: number; hits: FindHit[]; searched: number; corrections: string[]; ms?: number }
  | { type: 'findFailed'; seq: number; error: string }
  | MaintenanceAction;

export type Effect =
  | { type: 'loadSessions' }
  | { type: 'loadOutline'; sid: string; reveal?: string }
  | { type: 'loadPath'; bates: string }
  | { type: 'loadTitles'; sids: string[] }
  /** Find the turn's session, load its outline, expand it and select the turn. */
  | { type: 'reveal'; bates: string }
  | { type: 'ask'; mode: 'ask' | 'fork'; question: string; parent: string | null; session: string | null }
  | { type: 'cancelAsk' }
  | { type: 'checkChain'; full: true }
  /** After a change: check new events incrementally, or everything when the old ones may have changed. */
  | { type: 'syncChain' }
  | { type: 'loadBranches'; sid: string }
  | { type: 'buildDemo' }
  /** Run a find query (off the main thread); answered by `found` (or `findFailed`) with the same seq. */
  | { type: 'search'; seq: number; query: string; scope: string | null; limit: number }
  | MaintenanceEffect
  | { type: 'quit' };

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Layout {
  tree: Rect;
  transcript: Rect;
  /** Inner areas (inside the borders). */
  treeIn: Rect;
  textIn: Rect;
  status: Rect;
  tooSmall: boolean;
}

export const MIN_COLS = 40;
export const MIN_ROWS = 10;

export function layout(cols: number, rows: number): Layout {
  const tooSmall = cols < MIN_COLS || rows < MIN_ROWS;
  const bodyH = Math.max(3, rows - 1);
  let leftW = Math.floor(cols * 0.4);
  leftW = Math.max(26, Math.min(64, leftW));
  if (cols - leftW < 30) leftW = Math.max(10, Math.floor(cols / 2));
  const tree = { x: 0, y: 0, w: leftW, h: bodyH };
  const transcript = { x: leftW, y: 0, w: Math.max(4, cols - leftW), h: bodyH };
  const inner = (r: Rect): Rect => ({
    x: r.x + 1,
    y: r.y + 1,
    w: Math.max(1, r.w - 2),
    h: Math.max(1, r.h - 2),
  });
  return {
    tree,
    transcript,
    treeIn: inner(tree),
    // One column of padding on each side inside the transcript's border.
    textIn: { ...inner(transcript), x: transcript.x + 2, w: Math.max(1, transcript.w - 4) },
    status: { x: 0, y: rows - 1, w: cols, h: 1 },
    tooSmall,
  };
}

export const DEFAULT_HINTS: [ActionId, string][] = [
  ['help', 'help'],
  ['find', 'find'],
  ['ask', 'ask'],
  ['fork', 'fork'],
  ['branches', 'branches'],
  ['chain.check', 'check'],
  ['quit', 'quit'],
];

export function initialState(opts: {
  cols: number;
  rows: number;
  keymap: Keymap;
  offerDemo?: boolean;
  now?: number;
}): State {
  const hints: [string, string][] = [];
  for (const [id, label] of DEFAULT_HINTS) {
    const k = opts.keymap.keysOf(id)[0];
    if (k) hints.push([prettyKey(k), label]);
  }
  const keyOf: Partial<Record<ActionId, string>> = {};
  for (const a of ACTIONS) {
    const k = opts.keymap.keysOf(a.id)[0];
    if (k) keyOf[a.id] = prettyKey(k);
  }
  return {
    cols: opts.cols,
    rows: opts.rows,
    focus: 'tree',
    sessions: [],
    titles: new Map(),
    loaded: false,
    expanded: new Set(),
    outlines: new Map(),
    collapsed: new Set(),
    list: [],
    sel: 0,
    selKey: null,
    top: 0,
    path: null,
    tpos: null,
    overlay: null,
    ask: null,
    chain: {
      status: 'idle',
      full: false,
      events: 0,
      head: null,
      checkedAt: null,
      brokenAt: null,
      reason: null,
      progress: null,
    },
    message: null,
    offerDemo: opts.offerDemo ?? true,
    busy: null,
    help: helpRows(opts.keymap),
    hints,
    keyOf,
    now: opts.now ?? Date.now(),
    quitting: false,
    find: { seq: 0, last: null },
    showArchived: false,
  };
}
