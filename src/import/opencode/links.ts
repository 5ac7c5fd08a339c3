/**
 * Where a session's turns hang. Within a session each turn follows the one before. A child session (a subagent
 * the `task` tool started: `parentID` set) hangs under the parent's turn whose task call names it
 * (`state.metadata.sessionId`), else under the parent's last turn before it began. A fork (OpenCode's
 * Session.fork: a new session, no parentID, titled `... (fork #N)`, holding copies of the original's messages
 * under new ids with their times kept) keeps only its own turns: the copies are recognised by role, time and
 * prompt text, left out, and its first own turn hangs under the original's turn it was copied after.
 */
import type { ImportProblem, ParsedSource, ParsedTurn } from '../model.js';
import {
  createdOf,
  dig,
  FORK_TITLE,
  msOf,
  type OcMessage,
  type OcSession,
  role,
  type SessionSource,
  str,
} from './records.js';
import { type DraftTurn, draftTurns, finishTurn, isPrompt, questionOf } from './turns.js';

/** Forks of forks are followed this deep to the turn that was first written. */
const MAX_FORK_DEPTH = 16;

function sameMessage(a: OcMessage, b: OcMessage): boolean {
  if (role(a) !== role(b) || createdOf(a) === null || createdOf(a) !== createdOf(b)) return false;
  return role(a) !== 'user' || (isPrompt(a) === isPrompt(b) && questionOf(a) === questionOf(b));
}

/** How many leading messages of `fork` are copies of `original`'s. */
function copiedPrefix(fork: OcSession, original: OcSession): number {
  let k = 0;
  while (
    k < fork.messages.length &&
    k < original.messages.length &&
    sameMessage(fork.messages[k], original.messages[k])
  )
    k++;
  return k;
}

interface ForkOrigin {
  original: OcSession;
  /** The number of leading messages copied. */
  copied: number;
}

/** The session a fork was copied from, with the longest copied prefix (none when nothing matches). */
function forkOrigin(s: OcSession, source: SessionSource): ForkOrigin | null {
  if (str(s.info.parentID) !== '' || !FORK_TITLE.test(str(s.info.title))) return null;
  let best: ForkOrigin | null = null;
  for (const o of source.forkCandidates(s)) {
    if (o.id === s.id) continue;
    const copied = copiedPrefix(s, o);
    if (copied > 0 && (best === null || copied > best.copied)) best = { original: o, copied };
  }
  return best;
}

/**
 * The sourceId of the turn whose prompt is message `index` of `s`, following forks to the session that wrote
 * it first (a copy is no turn of its own).
 */
function turnIdAt(s: OcSession, index: number, source: SessionSource, depth: number): string {
  if (depth < MAX_FORK_DEPTH) {
    const origin = forkOrigin(s, source);
    if (origin !== null && index < origin.copied) return turnIdAt(origin.original, index, source, depth + 1);
  }
  return s.messages[index].id;
}

/** The parent's turn a child session hangs under, or null (with a problem) when the parent is not there. */
function childParent(s: OcSession, source: SessionSource, problems: ImportProblem[]): string | null {
  const parentId = str(s.info.parentID);
  const parent = source.load(parentId);
  if (parent === undefined) {
    problems.push({
      file: s.file,
      line: s.line,
      reason: `parent session ${parentId} not found: imported as a root`,
    });
    return null;
  }
  const drafts = draftTurns(parent);
  const calls = drafts.find((d) =>
    d.messages.some((m) =>
      m.parts.some(
        (p) => p.data.type === 'tool' && str(dig(p.data, 'state', 'metadata', 'sessionId')) === s.id,
      ),
    ),
  );
  const started = msOf(dig(s.info, 'time', 'created'));
  const before =
    calls ??
    [...drafts]
      .reverse()
      .find((d) => started === null || (createdOf(d.user) ?? Number.POSITIVE_INFINITY) <= started);
  if (before === undefined) return null;
  return turnIdAt(parent, parent.messages.indexOf(before.user), source, 0);
}

/** A session's ParsedSource: its own turns placed, copies left out. */
export function sessionSource(s: OcSession, source: SessionSource, kindFile: string): ParsedSource {
  const problems = [...s.problems];
  const drafts = draftTurns(s);
  let parent: string | null = null;
  let own = drafts;
  let carried: string[] = [];
  if (str(s.info.parentID) !== '') parent = childParent(s, source, problems);
  else {
    const origin = forkOrigin(s, source);
    if (origin !== null) {
      const index = (d: DraftTurn) => s.messages.indexOf(d.messages[d.messages.length - 1]);
      const copies = drafts.filter((d) => index(d) < origin.copied);
      own = drafts.slice(copies.length);
      const last = copies[copies.length - 1];
      if (last !== undefined) {
        parent = turnIdAt(origin.original, s.messages.indexOf(last.user), source, 1);
        // The copies' records travel with the fork's first own turn (nothing of the file is dropped).
        carried = copies.flatMap((d) => [
          ...d.lead,
          ...d.messages.flatMap((m) => [m.raw, ...m.parts.map((p) => p.raw)]),
        ]);
      }
    }
  }
  const note = str(s.info.parentID) !== '' ? subagentNote(s) : undefined;
  const turns: ParsedTurn[] = [];
  own.forEach((d, i) => {
    const t = finishTurn(s, d, parent, i === own.length - 1, note, problems);
    if (i === 0 && carried.length > 0) t.raw = [...carried, ...t.raw];
    turns.push(t);
    parent = t.sourceId;
  });
  const title = str(s.info.title);
  const created =
    msOf(dig(s.info, 'time', 'created')) ?? (turns.length > 0 ? Date.parse(turns[0].createdAt) : 0);
  const dir = str(s.info.directory);
  return {
    kind: 'opencode',
    file: kindFile,
    sessions:
      turns.length > 0
        ? [
            {
              sourceSession: s.id,
              createdAt: new Date(created).toISOString(),
              ...(title !== '' ? { title } : {}),
              ...(dir !== '' ? { cwd: dir } : {}),
            },
          ]
        : [],
    turns,
    entries: [],
    problems,
  };
}

/** `subagent <agent>` on a child session's turns (the agent its prompt was sent to). */
function subagentNote(s: OcSession): string {
  const first = s.messages.find((m) => role(m) === 'user');
  const agent = first === undefined ? '' : str(first.data.agent);
  return agent !== '' ? `subagent ${agent}` : 'subagent';
}
