import { badInput } from '../base/errors.js';
import { parseBates } from '../model/ids.js';
import type { Shard } from '../shard.js';

/**
 * `arborist resume` (docs/sessions.md, "Resuming in Claude Code"): a Claude Code transcript written from the path
 * to an imported turn, so that Claude Code continues from there. It changes no turn, session or entry (the new
 * turns arrive later, through an import), so verify's claims learn nothing from it; it is recorded so that the
 * chain says which files arborist wrote outside the shard, and from which turn.
 */
export interface ResumeRecord {
  /** The turn resumed from. */
  source_bates: string;
  /** The Claude Code session id the written transcript carries (a new UUID). */
  new_session_id: string;
  /** The transcript written (absolute path). */
  file: string;
  /** How many lines it holds. */
  lines: number;
}

/**
 * Appends the one `session.resume` event and returns its seq. Call it inside the caller's write (the one that creates the file), so
 * a failed commit leaves no event for a file that the caller then removes; alone, it opens its own transaction.
 */
export function recordResume(shard: Shard, r: ResumeRecord): number {
  if (!parseBates(r.source_bates)) throw badInput(`'${r.source_bates}' is not a Bates id`);
  if (!Number.isInteger(r.lines) || r.lines < 1) throw badInput('a resumed session holds at least one line');
  if (r.new_session_id === '' || r.file === '') throw badInput('a resume names its session and its file');
  const data = {
    source_bates: r.source_bates,
    new_session_id: r.new_session_id,
    file: r.file,
    lines: r.lines,
  };
  return shard.write(() => shard.audit.append('session.resume', data).seq);
}
