/**
 * The plan for llm 0.32's content-addressed tables (tree.ts describes them): which sessions to build, in what
 * order, which turns each holds (turns.ts says which thread owns a turn) and which legacy rows ride along
 * (copies.ts). It reads no content; build.ts reads it per session.
 */
import type Database from 'better-sqlite3';
import type { ImportProblem } from '../model.js';
import { findLegacyCopies, type LegacyCopies, noLegacyCopies } from './copies.js';
import type { Row } from './legacy.js';
import { cmp, minTime, NO_TIME, str } from './rows.js';
import type { LlmSchema } from './schema.js';
import {
  findReachable,
  markChains,
  orderReplies,
  type Report,
  readMessageTree,
  readModelCalls,
  readThreads,
  type ThreadRow,
} from './tree.js';
import { assignCalls, type PathTurn, placeTurns, splitIntoTurns } from './turns.js';

/** A thread as a session: the turns it owns and the legacy rows read with it. */
export interface ModernSession {
  id: string;
  title: string;
  first: string;
  turns: PathTurn[];
  /**
   * Legacy rows read with this session, by rowid (llm indexes neither responses.conversation_id nor
   * tool_calls.response_id, so they are found once in planMessages, not by a scan per session): the responses of
   * the legacy conversation whose id is this thread's id, and dual-write responses of its model calls.
   */
  responseRowids: number[];
  callRowids: number[];
  resultRowids: number[];
}

/** What planMessages found: the sessions in start order, the problems, the legacy copies. */
export interface ModernPlan {
  sessions: ModernSession[];
  problems: ImportProblem[];
  /** Response id -> the message turn it was copied into. */
  copies: Map<string, PathTurn>;
}

/** The sessions of a file, in order, with every problem found on the way (in the order found). */
export function planMessages(db: Database.Database, file: string, schema: LlmSchema): ModernPlan {
  const problems: ImportProblem[] = [];
  const report: Report = (line, reason) => problems.push({ file, line, reason });
  const tree = readMessageTree(db, report);
  const calls = readModelCalls(db, report);
  const threads = readThreads(db);
  markChains(tree, calls, threads);
  const reachable = findReachable(tree, report);
  orderReplies(tree);
  const turns = splitIntoTurns(tree, reachable, report);
  const ofCall = assignCalls(calls, tree, turns.claimed);
  placeTurns(tree, turns);
  const legacy = schema.legacy ? findLegacyCopies(db, tree, calls, threads, turns, ofCall) : noLegacyCopies();
  const sessions = new SessionSet(threads);
  for (const pt of turns.all) {
    if (pt.owner === null) {
      if (pt.primary) report(pt.user.rid, `message ${pt.user.hash}: in no turn or thread: not imported`);
      continue;
    }
    sessions.get(pt.owner).turns.push(pt);
  }
  const sessionOf = sessions.takeResponses(legacy);
  if (schema.tools && sessionOf.size > 0) readToolRowids(db, sessionOf);
  return { sessions: sessions.finish(legacy.firstTimes), problems, copies: legacy.copies };
}

/** The sessions by thread id, made on first use: a thread owning no turn and no legacy row yields none. */
class SessionSet {
  private readonly byId = new Map<string, ModernSession>();

  constructor(private readonly threads: Map<string, ThreadRow>) {}

  get(id: string): ModernSession {
    let s = this.byId.get(id);
    if (s === undefined) {
      s = {
        id,
        title: this.threads.get(id)?.name ?? '',
        first: '',
        turns: [],
        responseRowids: [],
        callRowids: [],
        resultRowids: [],
      };
      this.byId.set(id, s);
    }
    return s;
  }

  /**
   * Gives each legacy response to a session: a continued conversation's to its thread's, a dual-write response
   * to the session owning its copy. Answers response id -> session, for their tool rows.
   */
  takeResponses(legacy: LegacyCopies): Map<string, ModernSession> {
    const sessionOf = new Map<string, ModernSession>();
    for (const [cid, rows] of legacy.conversations) {
      const s = this.get(cid);
      for (const r of rows) {
        s.responseRowids.push(Number(r.rid));
        sessionOf.set(str(r.id), s);
      }
    }
    for (const r of legacy.dualWrites) {
      const owner = legacy.copies.get(str(r.id))?.owner ?? null;
      if (owner === null || sessionOf.has(str(r.id))) continue;
      const s = this.get(owner);
      s.responseRowids.push(Number(r.rid));
      sessionOf.set(str(r.id), s);
    }
    return sessionOf;
  }

  /** Each session's start and its turns in time order; the sessions by start (the order index.ts merges in). */
  finish(firstTimes: Map<string, string | null>): ModernSession[] {
    for (const s of this.byId.values()) {
      let first: string | null = firstTimes.get(s.id) ?? null;
      for (const pt of s.turns) first = minTime(first, pt.createdAt);
      s.first = first ?? this.threads.get(s.id)?.time ?? NO_TIME;
      s.turns.sort((a, b) => cmp(a.createdAt, b.createdAt) || a.user.rid - b.user.rid);
    }
    return [...this.byId.values()].sort((a, b) => cmp(a.first, b.first) || cmp(a.id, b.id));
  }
}

/** The tool_calls / tool_results rows of the sessions' legacy responses, found in one scan per table. */
function readToolRowids(db: Database.Database, sessionOf: Map<string, ModernSession>): void {
  for (const [table, key] of [
    ['tool_calls', 'callRowids'],
    ['tool_results', 'resultRowids'],
  ] as const)
    for (const t of db
      .prepare(
        `SELECT t.rowid AS rid, t.response_id FROM ${table} t JOIN responses r ON r.id = t.response_id
          WHERE r.conversation_id IN (SELECT id FROM threads) OR r.id IN (SELECT id FROM turns)`,
      )
      .iterate() as Iterable<Row>)
      sessionOf.get(str(t.response_id))?.[key].push(Number(t.rid));
}
