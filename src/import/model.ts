/**
 * What every importer reads out of another tool's history: plain data, no store, no SQL. A reader (claude/,
 * openclaw/, llm/, arborist/) turns files into `ParsedSource`s; the one writer (writer.ts) turns those into
 * sessions, turns, entries and archives through the store's bulk API. Keeping the readers pure means each format is
 * tested on its own, and idempotence, parent resolution across files and the audit trail live in one place.
 */

import type { SessionSourceInfo, TurnContent } from '../store/index.js';
import type { FileInputs, ListingCache } from './fingerprint.js';

export type SourceKind =
  | 'claude'
  | 'openclaw'
  | 'llm'
  | 'codex'
  | 'gemini'
  | 'copilot'
  | 'opencode'
  | 'pi'
  | 'aider'
  | 'arborist';

/** One turn: a user prompt and everything up to the next user prompt. */
export interface ParsedTurn {
  /**
   * Unique within its source kind and stable across re-imports: the idempotence key. claude: the prompt line's
   * uuid; openclaw: `<sessionId>/<entryId>`; llm: the message id (0.32+) or `response:<id>` (legacy).
   */
  sourceId: string;
  /**
   * The sourceId of the turn this one continues, or null at a root. It may name a turn of another session or file
   * (imported earlier or in the same run): the writer resolves it, and reports it when it resolves nowhere.
   */
  parentSourceId: string | null;
  /** The source's own session id (claude sessionId, openclaw session id, llm conversation id). */
  sourceSession: string;
  /** The prompt text. Never a tool result, never a compaction summary. */
  question: string;
  /** The assistant's text, each tool call summarised on one line and its result's first lines kept. */
  answer: string;
  /** ISO 8601 (UTC, with milliseconds when the source has them): the prompt's own time in the source. */
  createdAt: string;
  /**
   * The turn's source records exactly as read, in the order read, without line ends: every line (claude,
   * openclaw files) or row as JSON (databases) from the prompt up to the next prompt. `export --format source`
   * writes these back.
   */
  raw: string[];
  /** 1-based line (or row number) where the turn starts, for problem reports. */
  line: number;
  /**
   * False when the turn may still be growing: the newest turn of a transcript whose last reply has no end-of-turn
   * marker yet. `import --follow` waits for such turns; a one-shot import takes them as they are.
   */
  complete: boolean;
  /**
   * The file ends in the middle of a record and this is the newest turn: the tool is writing it right now. Such a
   * turn waits (unless its file has been quiet for a while: the tool that wrote it is gone), since a turn once
   * stored never changes and would keep half an answer. Implies `complete: false`.
   */
  cut?: boolean;
  /** The working directory the source recorded for this turn, when it did. */
  cwd?: string;
  /** A short note shown beside the turn (e.g. `sidechain`, `error`, `subagent <id>`), when the source says so. */
  note?: string;
  /**
   * arborist exports only: every hashed field of the turn as the exporting shard stored it, so that the writer can
   * re-create it under the same Bates id and check that it hashes to the same node_hash (docs/export.md). Absent
   * when the reader had to change the turn (e.g. re-attached it under another parent): then it is imported anew.
   */
  exact?: ParsedExactTurn;
}

/** The fields of an exported turn that the other ParsedTurn fields do not carry (arborist reader). */
export interface ParsedExactTurn
  extends Pick<
    TurnContent,
    'bates' | 'audit' | 'cache_key' | 'cited_titles' | 'n_cited_sources' | 'source' | 'source_id'
  > {
  node_hash: string;
}

export interface ParsedSession {
  sourceSession: string;
  /** ISO 8601: the session's first time in the source. */
  createdAt: string;
  /** A title the source gave it (llm conversation name, claude summary), when there is one. */
  title?: string;
  cwd?: string;
  /** claude: the folder under ~/.claude/projects the transcript came from (needed to resume into it). */
  project?: string;
  /** The source archived this session (OpenClaw `.reset.<stamp>` / `.deleted.<stamp>`, transcript archives). */
  archived?: { reason: 'reset' | 'deleted'; at: string };
  /** arborist exports only: the session as the exporting shard had it, for an exact re-import (docs/export.md). */
  exact?: {
    sid: string;
    label: string | null;
    session_root: string;
    /**
     * Sync only (docs/sync.md): the session_sources row the session is created with, so that a pulled session is
     * known as pulled (never pushed as this host's own) from the same transaction that creates it.
     */
    origin?: { source: string; source_session: string; info: SessionSourceInfo };
  };
}

/** A checkpoint reference: the session and, when known, the turn just before (pre) or after (post). */
export interface ParsedCheckpointRef {
  sourceSession: string;
  turnSourceId?: string;
}

export interface ParsedCheckpoint {
  checkpointId: string;
  reason: string;
  createdAt: string;
  summary?: string;
  preCompaction: ParsedCheckpointRef;
  postCompaction: ParsedCheckpointRef;
}

/**
 * A named handle on a current session (OpenClaw `sessions.json`; claude compactions as `claude:<sessionId>`):
 * becomes an arborist session entry, with its checkpoints and usage family mapped to arborist sids.
 */
export interface ParsedEntry {
  key: string;
  sourceSession: string;
  compactionCheckpoints: ParsedCheckpoint[];
  usageFamilySessions: string[];
}

export interface ImportProblem {
  file: string;
  /** 1-based line or row; 0 when the problem is the whole file. */
  line: number;
  reason: string;
}

/**
 * Appends `items` to `to` one at a time: spreading a long array into push() throws RangeError past about 120000
 * arguments (a file of 300000 bad lines, a session of that many turns).
 */
export function append<T>(to: T[], items: readonly T[]): void {
  for (const x of items) to.push(x);
}

/**
 * The problems of one file's lines listed at most: a file of a million bad lines is not a million problems held in
 * memory and printed (4 MB of `x` lines took 1.8 GB), but a thousand and one line counting the rest.
 */
export const MAX_LISTED_PROBLEMS = 1000;

/** A list of one file's problems that stops listing at MAX_LISTED_PROBLEMS and counts the rest in one last problem. */
export class ProblemList {
  private more: ImportProblem | undefined;
  private unlisted = 0;
  constructor(
    readonly list: ImportProblem[],
    private readonly file: string,
  ) {}

  /** True once problems are only counted: a caller may then skip work done only to word one. */
  get full(): boolean {
    return this.more !== undefined;
  }

  add(line: number, reason: string): void {
    if (this.more === undefined && this.list.length < MAX_LISTED_PROBLEMS) {
      this.list.push({ file: this.file, line, reason });
      return;
    }
    if (this.more === undefined) {
      this.more = { file: this.file, line, reason: '' };
      this.list.push(this.more);
    }
    this.unlisted++;
    this.more.reason = `${this.unlisted} more problems in this file, not listed`;
  }
}

/** Appends a file's problems, the first MAX_LISTED_PROBLEMS of them and then one line counting the rest. */
export function appendListed(to: ImportProblem[], file: string, items: readonly ImportProblem[]): void {
  // A reader's own list already stops at MAX_LISTED_PROBLEMS lines plus a few of the file's: this is the backstop.
  const n = Math.min(items.length, 2 * MAX_LISTED_PROBLEMS);
  for (let i = 0; i < n; i++) to.push(items[i]);
  const rest = items.length - n;
  if (rest > 0)
    to.push({ file, line: items[n].line, reason: `${rest} more problems in this file, not listed` });
}

/** A folder a reader's discover cannot read, as its problem (one gone since it was listed is none: nothing is lost). */
export function unreadableFolder(dir: string, err: unknown, problems: ImportProblem[] | undefined): void {
  const code = (err as NodeJS.ErrnoException).code ?? String(err);
  if (code === 'ENOENT') return;
  problems?.push({
    file: dir,
    line: 0,
    reason: `cannot read this folder (${code}); its files are not imported`,
  });
}

/** One unit of import: a file, or a file with the files that belong to it (claude subagents), or one database. */
export interface ParsedSource {
  kind: SourceKind;
  /** The file (or folder, or database) this unit was read from, as given. */
  file: string;
  sessions: ParsedSession[];
  /** Any order: the writer places parents before children. */
  turns: ParsedTurn[];
  entries: ParsedEntry[];
  problems: ImportProblem[];
}

/** A reader: the units to import below the given paths (files or folders), one at a time, lazily. */
export interface SourceReader {
  kind: SourceKind;
  /** The default paths on this machine (e.g. ~/.claude/projects), whether or not they exist. */
  defaultPaths(env: NodeJS.ProcessEnv): string[];
  /**
   * The files a path stands for, in import order (oldest first), for progress and for `--follow`. A folder below
   * the path that cannot be read (no permission, an I/O error) is a problem `folder:0: reason` in `problems`, when
   * given: its files are not imported, and the user is told so.
   */
  discover(path: string, problems?: ImportProblem[]): string[];
  /**
   * Reads one discovered file into ParsedSources, lazily (a database yields one per session, so memory is bounded
   * by the largest session, not the file). Never throws for bad content: it reports problems and goes on. May
   * throw an Error with a one-line message when the file cannot be read at all (the writer reports it as
   * `file:0: reason`).
   */
  read(file: string): Iterable<ParsedSource>;
  /**
   * The files that decide what read(file) yields, when files are all it depends on besides the shard: an import
   * then passes over a file whose fingerprint (fingerprint.ts) is what it was when an import last read it whole
   * and left nothing in it to import. Absent, the file is read every time (a database beside its WAL, a file read
   * with others the reader cannot name beforehand); undefined for a file of such a kind (a pi fork, whose reading
   * depends on the file its header names).
   */
  inputs?(file: string, listings: ListingCache): FileInputs | undefined;
}

/** A unit with no sessions or turns: a file that could not be read, or whose only news is its problems. */
export function emptySource(kind: SourceKind, file: string, problems: ImportProblem[] = []): ParsedSource {
  return { kind, file, sessions: [], turns: [], entries: [], problems };
}
