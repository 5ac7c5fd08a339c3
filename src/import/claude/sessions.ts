/**
 * The sessions a unit holds and what names them: the file's own session (lines without a sessionId belong to
 * it), each session's start, cwd and title (a custom title, else Claude Code's ai title, else a summary line).
 */
import { basename, dirname } from 'node:path';
import type { ParsedSession, ParsedTurn } from '../model.js';
import { iso } from './times.js';
import type { Node, Unit } from './unit.js';

/** The file's own session: the one its name gives, else the newest main-chain line's, else any line's. */
export function fileSessionOf(file: string, nodes: Node[]): string {
  const stem = basename(file).replace(/\.jsonl$/, '');
  if (nodes.some((n) => n.sid === stem)) return stem;
  const last = (side: boolean) => {
    for (let i = nodes.length - 1; i >= 0; i--)
      if (nodes[i].sid !== '' && nodes[i].side === side) return nodes[i].sid;
    return undefined;
  };
  return last(false) ?? last(true) ?? stem;
}

export function sessionsOf(u: Unit, turns: ParsedTurn[], time: Float64Array): ParsedSession[] {
  const { nodes, file, fileSession, byUuid } = u;
  if (turns.length === 0) return [];
  const wanted = new Set<string>(turns.map((t) => t.sourceSession));
  wanted.add(fileSession);
  const first = new Map<string, number>();
  const cwd = new Map<string, string>();
  for (let i = 0; i < nodes.length; i++) {
    const sid = nodes[i].sid || fileSession;
    const t = time[i];
    const f = first.get(sid);
    if (f === undefined || t < f) first.set(sid, t);
    const c = nodes[i].cwd;
    if (c !== undefined && !cwd.has(sid)) cwd.set(sid, c);
  }
  const summary = new Map<string, string>();
  // a summary names the session of its leaf line; one whose leaf is in another file is left out
  for (const s of u.summaries) {
    const leaf = s.leaf !== undefined ? byUuid.get(s.leaf) : undefined;
    if (leaf !== undefined) summary.set(nodes[leaf].sid || fileSession, s.text);
  }
  const titleOf = (sid: string) =>
    u.titles.custom.get(sid) ??
    (sid === fileSession ? u.titles.custom.get('') : undefined) ??
    u.titles.ai.get(sid) ??
    (sid === fileSession ? u.titles.ai.get('') : undefined) ??
    summary.get(sid);
  const project = basename(dirname(file));
  return [...wanted].map((sid) => {
    const s: ParsedSession = { sourceSession: sid, createdAt: iso(first.get(sid) ?? time[0]), project };
    const title = titleOf(sid);
    if (title !== undefined) s.title = title;
    const c = cwd.get(sid);
    if (c !== undefined) s.cwd = c;
    return s;
  });
}
