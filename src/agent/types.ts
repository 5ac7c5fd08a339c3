/**
 * What every resume adapter shares: the refusals (one line, nothing written), what a planned session holds per
 * turn, and what an adapter is given and gives back (plan.ts does the parts common to every agent).
 */
import type { SourceReader } from '../import/model.js';
import { ArboristError, type ErrorKind, type Shard, type TurnNode } from '../store/index.js';

export type ResumeRefusal =
  | 'not_resumable'
  | 'mixed_agents'
  | 'no_records'
  | 'subagent'
  | 'not_live'
  | 'no_cwd'
  | 'no_meta'
  | 'no_turn_ids'
  | 'cwd_missing'
  | 'no_agent'
  | 'bad_id';

const KIND: Record<ResumeRefusal, ErrorKind> = {
  not_resumable: 'input',
  mixed_agents: 'input',
  no_records: 'input',
  subagent: 'input',
  not_live: 'input',
  no_cwd: 'input',
  no_meta: 'input',
  no_turn_ids: 'input',
  cwd_missing: 'not_found',
  no_agent: 'not_found',
  bad_id: 'usage',
};

/** Why a turn cannot be resumed: one line, nothing written (exit 2). `code` lets the TUI say what to do instead. */
export class ResumeError extends ArboristError {
  readonly code: ResumeRefusal;
  constructor(code: ResumeRefusal, message: string) {
    super(KIND[code], message);
    this.code = code;
    this.name = 'ResumeError';
  }
}

export interface ResumeTurn {
  bates: string;
  sid: string;
  /** Lines of this turn written. */
  lines: number;
}

/** What an adapter is given: the path (root first, all of its agent), each turn's stored source records. */
export interface AdapterInput {
  shard: Shard;
  node: TurnNode;
  path: TurnNode[];
  records: Map<string, Buffer>;
  /** The new session id (a lower-case UUID). */
  sessionId: string;
  env: NodeJS.ProcessEnv;
  /** The time the session is written at (its file name, its start). */
  now: Date;
}

/** What an adapter works out: the file's lines and where it goes, and where the agent runs. */
export interface AdapterOutput {
  /** The file, one line each, without newlines. */
  lines: string[];
  turns: ResumeTurn[];
  /** Lines of the turns' records not written (another branch's, a repeat, one the agent would misread). */
  leftOut: number;
  /** Lines written, by their `type`. */
  types: Record<string, number>;
  /** Where the agent runs (checked by plan.ts: not empty, no NUL). */
  cwd: string;
  file: string;
  /** The folder the file goes to, relative to `projectsDir` (Claude Code: the project folder). */
  project: string;
  projectsDir: string;
}

/** An agent arborist can resume into. */
export interface ResumeAdapter {
  readonly resumes: true;
  /** What a person calls it. */
  readonly name: string;
  /** The command, placeholders `{sessionId}`, `{sessionFile}`, `{cwd}` (config.json can replace it). */
  readonly command: readonly string[];
  plan(input: AdapterInput): AdapterOutput;
  /** The reader that imports the written file back (loaded on first use: the browser starts without it). */
  reader(): Promise<SourceReader>;
}

/** A source whose agent arborist cannot resume into, and why (one line). */
export interface NoResume {
  readonly resumes: false;
  readonly name: string;
  readonly why: string;
}

export type Resumability = ResumeAdapter | NoResume;

/** A stored record that no longer parses is damage verify names; here it stops the plan. */
export function damagedRecord(bates: string): ArboristError {
  return new ArboristError('damaged', `a source record of ${bates} is not a JSON object`);
}

/** The lines of a turn's stored records (a byte-order mark dropped: inside a new file it would break the line). */
export function recordLines(records: Buffer): string[] {
  const out: string[] = [];
  for (let text of records.toString('utf8').split('\n')) {
    if (text === '') continue;
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    out.push(text);
  }
  return out;
}

export function parseObject(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text) as unknown;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // the caller reports it
  }
  return null;
}

export function count(types: Record<string, number>, type: unknown): void {
  const t = typeof type === 'string' ? type : '(none)';
  types[t] = (types[t] ?? 0) + 1;
}
