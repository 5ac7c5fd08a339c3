/** What can happen to the TUI: key presses and the screen's events, and the runtime's answers to effects. */
import type { ChainCheck, OutlineNode } from '../../store/index.js';
import type { Follow } from '../features/command/model.js';
import type { Found } from '../features/find/model.js';
import type { MaintenanceAction } from '../features/maintenance/model.js';
import type { ResumeAction } from '../features/resume/model.js';
import type { SyncAction } from '../features/sync/model.js';
import type { Shown } from '../features/transcript/details.js';
import type { Turn } from '../features/transcript/model.js';
import type { Origin } from '../features/tree/groups.js';
import type { SessionLike } from '../features/tree/model.js';
import type { BranchItem, StateResult } from './state.js';

export type Action =
  /**
   * A key press; the reducer resolves `key` in the context of the state (Keymap.resolve). `action`, the global
   * table's reading, is informative only (callers may pass it; nothing depends on it).
   */
  | { type: 'key'; key: string; ch?: string; action?: string | null }
  | { type: 'resize'; cols: number; rows: number }
  | { type: 'mouse'; kind: 'mousedown' | 'wheelup' | 'wheeldown'; x: number; y: number }
  /**
   * `archived`: the archived sessions too, when they are shown (each with `archived` set). `total`, on the first
   * load only: `sessions` are the newest of that many live sessions, the rest follow in a second `sessions`.
   */
  | { type: 'sessions'; sessions: readonly SessionLike[]; archived?: readonly SessionLike[]; total?: number }
  | { type: 'outline'; sid: string; nodes: OutlineNode[]; reveal?: string }
  | { type: 'path'; bates: string; turns: Turn[]; error?: string }
  /** Turns' details read from their source records (null: none); `ms`, the reading's time (for the trace). */
  | { type: 'details'; entries: [bates: string, details: Shown | null][]; ms?: number }
  /** Titles (a source's own, else the first question) and the agent and project of the same sessions. */
  | { type: 'titles'; titles: [sid: string, title: string][]; origins?: [sid: string, origin: Origin][] }
  /** Origins of the sessions asked (loadOrigins); `of`: the sessions list they complete. */
  | { type: 'origins'; origins: [sid: string, origin: Origin][]; of: readonly SessionLike[] }
  | { type: 'chainStart'; full: boolean; total: number }
  | { type: 'chainProgress'; done: number }
  | { type: 'chainDone'; result: ChainCheck; full: boolean }
  | { type: 'stateDone'; result: StateResult }
  | { type: 'dataChanged' }
  | { type: 'askChunk'; text: string }
  | { type: 'askDone'; bates: string; sid: string; createdSession: boolean }
  /** `cancelled`: Esc stopped it; otherwise the question comes back in its box, to be asked again. */
  | { type: 'askFailed'; error: string; cancelled?: boolean }
  | { type: 'branches'; sid: string; items: BranchItem[] }
  /** A `goto` landed: the turn is selected. */
  | { type: 'arrived'; bates: string; follow: Follow }
  | { type: 'demoBuilt' }
  | { type: 'historiesImported'; turns: number; problems: number; failed: string | null }
  /** How far the first start's import is, as the status bar says it. */
  | { type: 'historiesProgress'; text: string }
  | { type: 'message'; text: string; level: 'info' | 'error' }
  | { type: 'tick'; now: number }
  /** `ms`: how long the query took where it ran (for the trace). */
  | ({ type: 'found'; ms?: number } & Found)
  /** The find preview's turn (previewTurn): null with `error` when it cannot be read. */
  | { type: 'previewed'; bates: string; turn: Turn | null; archived: boolean; error?: string }
  | { type: 'findFailed'; seq: number; error: string }
  | MaintenanceAction
  | ResumeAction
  | SyncAction;
