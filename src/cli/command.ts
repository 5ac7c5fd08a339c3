import type { OptionSpec, Parsed } from './args.js';
import type { Context } from './context.js';

/**
 * One `arborist COMMAND`: the dispatcher (main.ts) parses `options` (plus the global ones), answers --help from
 * `usage` and `summary`, and calls `run`, whose result is the exit code. Its own module, so that command files
 * and the dispatcher all import it and none imports another.
 */
export interface Command {
  name: string;
  usage: string;
  summary: string;
  /** More lines for `arborist COMMAND --help`, after the summary. */
  details?: () => string;
  options: OptionSpec;
  run(p: Parsed, ctx: Context): Promise<number> | number;
}
