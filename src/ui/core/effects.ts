/** What the reducer asks the runtime to do (runtime/runtime.ts); each is answered with actions. */
import type { Follow } from '../features/command/model.js';
import type { MaintenanceEffect } from '../features/maintenance/model.js';
import type { ResumeEffect } from '../features/resume/model.js';
import type { SyncEffect } from '../features/sync/model.js';

export type Effect =
  | { type: 'loadSessions' }
  | { type: 'loadOutline'; sid: string; reveal?: string }
  | { type: 'loadPath'; bates: string }
  /** The details of these turns (the ones on screen), from their source records; answered by `details`, later. */
  | { type: 'loadDetails'; turns: { bates: string; sid: string }[] }
  /** The titles and origins of these sessions (the visible rows). */
  | { type: 'loadTitles'; sids: string[] }
  /** The origins of every session the state lists that it lacks (once the pane is grouped or filtered). */
  | { type: 'loadOrigins' }
  /** Find the turn's session, load its outline, expand it and select the turn. */
  | { type: 'reveal'; bates: string }
  /**
   * `:cd TARGET`: resolve it (a Bates id, a turn number of `sid`, a session for its newest turn, `..` for the parent
   * of `from`), reveal the turn, then answer `arrived` so the command's view (`follow`) opens there.
   */
  | { type: 'goto'; target: string; sid: string | null; from: string | null; follow: Follow }
  | { type: 'ask'; mode: 'ask' | 'fork'; question: string; parent: string | null; session: string | null }
  | { type: 'cancelAsk' }
  | { type: 'checkChain'; full: true }
  /** After a change: check new events incrementally, or everything when the old ones may have changed. */
  | { type: 'syncChain' }
  | { type: 'loadBranches'; sid: string }
  | { type: 'buildDemo' }
  /** Every history the first start found, in one child import (runtime/import-histories.ts). */
  | { type: 'importHistories' }
  /** Run a find query (off the main thread); answered by `found` (or `findFailed`) with the same seq. */
  | { type: 'search'; seq: number; query: string; scope: string | null; limit: number }
  /** Load a turn for the find preview, once the keys typed meanwhile are answered; answered by `previewed`. */
  | { type: 'previewTurn'; bates: string }
  | MaintenanceEffect
  | ResumeEffect
  | SyncEffect
  | { type: 'quit' };
