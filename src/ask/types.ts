import type { AddedTurn } from '../store/index.js';

/**
 * The contract between callers (CLI `ask`, the TUI's `a` and `f` keys) and the answer providers.
 * Implemented in src/ask/index.ts as `ask(shard, request): Promise<AskResult>`.
 */
export type ProviderSpec =
  | { kind: 'builtin' }
  /** Run without a shell: argv[0] is the program. */
  | { kind: 'command'; argv: string[]; timeoutMs?: number; maxBytes?: number }
  /** A given answer (scripts, imports): audit tag `manual`. */
  | { kind: 'manual'; answer: string };

export interface AskRequest {
  question: string;
  /** Bates id of the turn this one follows, in any session. */
  parent?: string;
  /** sid or label of the session the turn joins. */
  session?: string;
  /** Fork: create a new session whose first turn hangs under `parent`. */
  fork?: boolean;
  /** Label for a newly created session. */
  label?: string;
  provider?: ProviderSpec;
  cited_titles?: string[];
  noCache?: boolean;
  /** Receives the answer text as it arrives (streamed for external commands). */
  onChunk?: (text: string) => void;
  signal?: AbortSignal;
}

export interface AskResult extends AddedTurn {
  /** `grounded` / `ungrounded` (built-in), `fresh` (command), `cached`, `manual`. */
  audit: string;
  cache_key: string;
  answer_text: string;
  cited_titles: string[];
  n_cited_sources: number;
  /** The provider policy in the cache key: `builtin/1`, `command:["llm","-m","4o"]`, `manual`. */
  provider: string;
}
