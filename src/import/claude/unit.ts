/**
 * The shapes every stage of reading one session shares: the unit (a session file and its subagent files), its
 * nodes (the lines with a uuid) and the turn drafts built from them. Kept apart from the stages so that each
 * stage's file imports only this, never another stage.
 */

import type { ReadFile } from '../jsonl.js';
import type { ImportProblem } from '../model.js';
import type { Kind } from './content.js';
import type { AgentFile } from './subagents.js';

export interface ClaudeOptions {
  /** Import subagent / sidechain turns (default true). */
  sidechains: boolean;
}

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A line with a uuid: a node of the tree. */
export interface Node {
  /** Index of its file in the unit (0 = the session file). */
  f: number;
  line: number;
  uuid: string;
  /** parentUuid as written (null when null or absent). */
  parentUuid: string | null;
  /** The line's `type`. */
  type: string;
  /** message.content of a user or assistant line; the error text of a system line. */
  content: unknown;
  kind: Kind;
  side: boolean;
  /** Time in ms, NaN when missing or bad. */
  ts: number;
  /** The timestamp as written, when it is a string. */
  rawTime: string | undefined;
  sid: string;
  /** The parent node used (index), -1 at a root. */
  parent: number;
  boundary: boolean;
  cwd: string | undefined;
  /** agentId on the line: the subagent it belongs to (sidechain lines) or refers to (main lines). */
  agentId: string | undefined;
  /** toolUseResult.agentId: the subagent a tool result came from. */
  resultAgentId: string | undefined;
  /** message.stop_reason of an assistant line. */
  stop: unknown;
  apiError: boolean;
  /** A compaction boundary's logicalParentUuid and compactMetadata. */
  logicalParent: string | undefined;
  compactMeta: Obj | undefined;
}

/** A file of the unit and, for each of its JSON lines, the node it became (-1 none) or -2 (skipped). */
export interface UnitFile {
  rf: ReadFile;
  nodeOf: number[];
  agent?: AgentFile;
  /** Its nodes are nodes[start..end) (a file's nodes are contiguous). */
  start: number;
  end: number;
}

/** `UnitFile.nodeOf` of a line that was reported and left out (raw lines too). */
export const SKIPPED = -2;

/** Session titles by sessionId ('' for lines without one), as the uuid-less title lines give them. */
export interface Titles {
  custom: Map<string, string>;
  ai: Map<string, string>;
}

/** A `summary` line: the text and the leaf line it names. */
export interface SummaryLine {
  leaf: string | undefined;
  text: string;
}

/** What reading the unit's files gathers, before the tree is linked. */
export interface UnitLines {
  opts: ClaudeOptions;
  nodes: Node[];
  byUuid: Map<string, number>;
  files: UnitFile[];
  problems: ImportProblem[];
  titles: Titles;
  summaries: SummaryLine[];
  /** `queue-operation` `enqueue` lines: text typed while the agent worked, by file and line (turns.ts places it). */
  queued: { f: number; line: number; text: string }[];
}

/** The whole unit, once its session is known. */
export interface Unit extends UnitLines {
  /** The session file's path. */
  file: string;
  /** The file's own session: lines without a sessionId belong to it. */
  fileSession: string;
}

export interface TurnDraft {
  /** The node the turn starts at: its prompt, or the root of a chain with no prompt. */
  anchor: number;
  parent: number;
  start: number;
  end: number;
  lastAssistant: number;
  agentId: string | undefined;
  cwd: string | undefined;
  note: string | undefined;
}

/** The turns of the unit as drafts, and the turn each node belongs to (-1 none). */
export interface TurnDrafts {
  drafts: TurnDraft[];
  turnOf: (i: number) => number;
}

/** A value from the input made safe for a one-line reason. */
export function show(s: string): string {
  const flat = s.replace(/\s+/g, ' ');
  return flat.length > 60 ? `${flat.slice(0, 59)}…` : flat;
}
