/**
 * Resuming into aider (docs/import.md, aider, "Resume"): aider has no session to name, but
 * `--chat-history-file F --restore-chat-history` makes every chat message of F the chat's history and appends the
 * new session to F. So F is a new file holding exactly the path's lines (each turn's stored lines, which are the
 * file's own lines: a session's header and announcements travel with its first turn), in the turn's folder. The
 * reader names a session by its header's time and a digest of its lines through its first prompt and a turn by
 * its number in the session, so the copied turns read back as the ones they are; aider's new session announces
 * `Restored previous conversation history.`, which hangs its first turn under the last turn before it: the
 * resumed one.
 */
import { join } from 'node:path';
import {
  type AdapterInput,
  type AdapterOutput,
  type ResumeAdapter,
  ResumeError,
  type ResumeTurn,
} from './types.js';

function plan({ shard, node, path, records, sessionId }: AdapterInput): AdapterOutput {
  const lines: string[] = [];
  const turns: ResumeTurn[] = [];
  // The lines as stored (a history is Markdown, not JSON): split on LF only, a blank line kept.
  for (const t of path) {
    const text = records.get(t.bates)!.toString('utf8');
    const own = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
    lines.push(...own);
    turns.push({ bates: t.bates, sid: t.sid, lines: own.length });
  }
  const recorded: unknown = shard.sourceOfSession(node.sid)?.info.cwd;
  if (typeof recorded !== 'string')
    throw new ResumeError('no_cwd', `the session of ${node.bates} records no folder to resume in`);
  // Beside the project's own history, under a name aider's suggested `.aider*` ignore line covers.
  return {
    lines,
    turns,
    leftOut: 0,
    types: { line: lines.length },
    cwd: recorded,
    file: join(recorded, `.aider.chat.history.resume-${sessionId}.md`),
    project: '.',
    projectsDir: recorded,
  };
}

export const aiderResume: ResumeAdapter = {
  resumes: true,
  name: 'aider',
  command: ['aider', '--chat-history-file', '{sessionFile}', '--restore-chat-history'],
  plan,
  reader: async () => (await import('../import/aider/index.js')).aiderReader,
};
