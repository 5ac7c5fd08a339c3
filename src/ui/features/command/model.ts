/** The `:` command line's state: the line being typed, what the last Tab found, why the last Enter did nothing. */
export interface CommandOverlay {
  kind: 'command';
  text: string;
  /** The candidates of the last Tab when there was more than one (shown under the line). */
  matches: string[];
  /** One line: an unknown command, a missing argument, turns that are being loaded for completion. */
  note: { text: string; level: 'info' | 'error' } | null;
  /** A Tab is waiting for this session's turns (being read): it completes when they arrive. */
  waiting?: string;
}

/**
 * What the browser does after `:cd`-like moves land (or at once, with no argument): the view the command names.
 * `null`: only the move.
 */
export type Follow = 'branches' | 'tree' | 'path' | 'show' | null;
