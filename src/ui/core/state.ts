/**
 * The TUI's view state: plain data, no terminal, no SQLite. The reducer (core/update.ts and the features) turns
 * (state, action) into (state, effects); the runtime (runtime/) performs the effects and feeds their results back
 * as actions (core/actions.ts, core/effects.ts); the view (core/view.ts) draws a state into a Frame.
 */
import type { ActionId, Keymap, KeyNames } from '../../keymap/index.js';
import { ACTIONS, helpRows, prettyKey } from '../../keymap/index.js';
import type { CommandOverlay } from '../features/command/model.js';
import type { FindMemory, FindOverlay } from '../features/find/model.js';
import type { ConfirmOverlay, EntriesOverlay } from '../features/maintenance/model.js';
import type { ResumeOverlay } from '../features/resume/model.js';
import type { SyncRun } from '../features/sync/model.js';
import type { DetailsEntry } from '../features/transcript/details.js';
import type { TPos, Turn } from '../features/transcript/model.js';
import {
  type AgentLabel,
  type FilterOverlay,
  type Grouping,
  HERE_AGENT,
  HERE_BADGE,
  type Origin,
} from '../features/tree/groups.js';
import type { Outline, Row, SessionLike } from '../features/tree/model.js';
import type { Focus } from './layout.js';

/** What the status bar needs of a verify report (runtime/state-check.ts). */
/** A history found on this machine (the CLI looks; the TUI offers it on an empty shard). */
export interface HistoryOffer {
  kind: string;
  label: string;
  path: string;
  files: number;
}

export interface StateResult {
  ok: boolean;
  /** The first problem, in a few words: "turn k3m9x2qa-000042: its content differs from ...". */
  summary: string | null;
  problems: number;
}

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
  /** The last state check (verify, runtime/state-check.ts): damage the chain check alone cannot see. */
  state: StateResult | null;
}

export interface BranchItem {
  bates: string;
  n_children: number;
  q: string;
}

/** The `b` overlay; `items` is null while it is being loaded. */
export interface BranchesOverlay {
  kind: 'branches';
  sid: string;
  items: BranchItem[] | null;
  sel: number;
  top: number;
}

/** Overlays float above the panes; one at a time. */
export type Overlay =
  | { kind: 'help'; scroll: number }
  | InputOverlay
  | BranchesOverlay
  | FindOverlay
  /** The `:` command line: features/command. */
  | CommandOverlay
  /** Entries (`E`) and the reset/delete/restore confirmation: features/maintenance. */
  | EntriesOverlay
  | ConfirmOverlay
  /** `r`: resume a Claude Code turn in the real agent: features/resume. */
  | ResumeOverlay
  /** The sessions pane's filter prompt: features/tree/filter.ts. */
  | FilterOverlay;

/** The question box of `ask` and `fork`. */
export interface InputOverlay {
  kind: 'input';
  mode: 'ask' | 'fork';
  parent: string | null;
  session: string | null;
  text: string;
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
  sessions: readonly SessionLike[];
  /** The first question of sessions without a label, shown in their place (loaded for visible rows only). */
  titles: ReadonlyMap<string, string>;
  /** Each session's agent and project (loaded for visible rows, and for all once grouped or filtered). */
  origins: ReadonlyMap<string, Origin>;
  /** The sessions list whose every origin is loaded (grouping and filtering need them all); null: not yet. */
  originsFor: readonly SessionLike[] | null;
  /** The agents' names and badges, by source kind (src/import/agents.ts, handed in by the CLI). */
  agents: ReadonlyMap<string, AgentLabel>;
  /** The sessions pane grouped by project, or not. */
  grouping: Grouping;
  /** The projects whose heading is closed. */
  closedGroups: ReadonlySet<string>;
  /** The sessions pane's filter (features/tree/groups.ts parseFilter); '' for none. */
  filter: string;
  loaded: boolean;
  /**
   * Live sessions not in `sessions` yet: the first screen is drawn from the newest ones that fit on it, and the
   * rest follow right after it (term/app.ts, before any key is handled). 0 once the list is whole.
   */
  sessionsMore: number;
  expanded: ReadonlySet<string>;
  outlines: ReadonlyMap<string, Outline>;
  collapsed: ReadonlySet<string>;
  /** Visible rows of the tree (derived from the four fields above; rebuilt when they change). */
  list: Row[];
  sel: number;
  selKey: string | null;
  top: number;
  /** The path shown in the transcript (root first), for the selected turn. */
  /** The selected turn's path; `error` when it could not be read (a damaged shard: shown, never retried in a loop). */
  path: { bates: string; turns: Turn[]; error?: string } | null;
  /** Transcript scroll position; null follows the selection automatically. */
  tpos: TPos | null;
  /** Per turn (bates), the tool calls shown whole in the transcript; the others are one line each. */
  toolsOpen: ReadonlyMap<string, ReadonlySet<number>>;
  /**
   * The fold keys act on the k-th call line on screen (else the first) while the pane stays at `at` for the turn
   * `bates`: at the transcript's end j/k move on to the calls below the first, which can never scroll to the top.
   */
  callPick: { bates: string; at: TPos; k: number } | null;
  /** Per turn (bates), what its source records add (thinking, whole calls), loaded for the turns on screen. */
  details: ReadonlyMap<string, DetailsEntry>;
  /** Thinking shown in the transcript (hidden by default: one line says where it was). */
  showThinking: boolean;
  overlay: Overlay | null;
  ask: AskRun | null;
  chain: ChainView;
  message: Message | null;
  offerDemo: boolean;
  /** Histories found on this machine, offered for import on an empty shard. */
  histories: HistoryOffer[];
  busy: string | null;
  /** A sync running in the background (`S`), its last progress. */
  sync: SyncRun | null;
  help: { group: string; rows: [string, string][] }[];
  /** Keys to show in the status bar: [key, label]. */
  hints: [string, string][];
  /** The first key of each action, as a person reads it (for messages: "Press d to load a demo"). */
  keyOf: KeyNames;
  /** What keys mean in each context (the reducer resolves every key press against it). */
  keymap: Keymap;
  now: number;
  quitting: boolean;
  find: FindMemory;
  /** Archived sessions are listed after the live ones (`A`), marked and read-only. */
  showArchived: boolean;
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
  histories?: HistoryOffer[];
  now?: number;
  /** The agents' names and badges by source kind (shown on the sessions' rows and explained in the help). */
  agents?: Readonly<Record<string, AgentLabel>>;
}): State {
  const hints: [string, string][] = [];
  for (const [id, label] of DEFAULT_HINTS) {
    const k = opts.keymap.keysOf(id)[0];
    if (k) hints.push([prettyKey(k), label]);
  }
  const keyOf: KeyNames = {};
  for (const a of ACTIONS) {
    const k = opts.keymap.keysOf(a.id)[0];
    if (k) keyOf[a.id] = prettyKey(k);
  }
  const agents = new Map(Object.entries(opts.agents ?? {}));
  return {
    cols: opts.cols,
    rows: opts.rows,
    focus: 'tree',
    sessions: [],
    titles: new Map(),
    origins: new Map(),
    originsFor: null,
    agents,
    grouping: 'none',
    closedGroups: new Set(),
    filter: '',
    loaded: false,
    sessionsMore: 0,
    expanded: new Set(),
    outlines: new Map(),
    collapsed: new Set(),
    list: [],
    sel: 0,
    selKey: null,
    top: 0,
    path: null,
    tpos: null,
    toolsOpen: new Map(),
    callPick: null,
    details: new Map(),
    showThinking: false,
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
      state: null,
    },
    message: null,
    offerDemo: opts.offerDemo ?? true,
    histories: opts.histories ?? [],
    busy: null,
    sync: null,
    help: withBadges(helpRows(opts.keymap), agents),
    hints,
    keyOf,
    keymap: opts.keymap,
    now: opts.now ?? Date.now(),
    quitting: false,
    find: { seq: 0, last: null, hidePreview: false },
    showArchived: false,
  };
}

/** The help's groups with the badges explained before the last one (the commands, which `:help` ends on). */
function withBadges(
  groups: { group: string; rows: [string, string][] }[],
  agents: ReadonlyMap<string, AgentLabel>,
): { group: string; rows: [string, string][] }[] {
  return [...groups.slice(0, -1), badgeHelp(agents), ...groups.slice(-1)];
}

/** The help's explanation of the badges on the sessions' rows. */
function badgeHelp(agents: ReadonlyMap<string, AgentLabel>): { group: string; rows: [string, string][] } {
  const rows: [string, string][] = [];
  for (const [kind, a] of agents)
    rows.push([a.badge, kind === HERE_AGENT ? `${a.name}, or asked here in arborist` : a.name]);
  if (!agents.has(HERE_AGENT)) rows.push([HERE_BADGE, 'Asked here in arborist']);
  return { group: 'Agents (badges in the sessions pane)', rows };
}
