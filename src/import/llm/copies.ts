/**
 * Legacy rows the message store already holds (docs/import.md (llm), "Upgraded files"), found so each prompt of an
 * upgraded file is counted once: their rows join the raw of the message turn they were copied into.
 */
import type Database from 'better-sqlite3';
import type { Row } from './legacy.js';
import { textOf } from './parts.js';
import { groupBy, IN_LIST, isoTime, minTime, str } from './rows.js';
import { chainTo, type MessageTree, type ModelCall, type MsgNode, type ThreadRow } from './tree.js';
import type { MessageTurns, PathTurn } from './turns.js';

export interface LegacyCopies {
  /** Response id -> the message turn it was copied into. */
  copies: Map<string, PathTurn>;
  /** The responses of each continued legacy conversation (its id is a thread's id), in time order. */
  conversations: Map<string, Row[]>;
  /** Each continued conversation's earliest response time: its session starts there at the latest. */
  firstTimes: Map<string, string | null>;
  /** Dual-write era responses: the same model call in responses and in turns, under one id. */
  dualWrites: Row[];
}

/** What a file without legacy tables has: no copies. */
export function noLegacyCopies(): LegacyCopies {
  return { copies: new Map(), conversations: new Map(), firstTimes: new Map(), dualWrites: [] };
}

/** A continued conversation's responses and the user messages of its thread they may be copies of. */
interface Opening {
  rows: Row[];
  users: { node: MsgNode; pt: PathTurn }[];
}

/** Whether a legacy prompt is the text of a copied user message (fragments, when inlined, come before it). */
function samePrompt(message: string, prompt: string): boolean {
  const m = message.trim();
  const p = prompt.trim();
  return p !== '' && (m === p || m.endsWith(`\n${p}`));
}

/**
 * The legacy responses that are copies of message turns: (a) dual-write responses of a model call, and (b) the
 * first prompts of a continued legacy conversation, which llm copied in with no model call of their own. Copied
 * turns take the legacy time (their messages carry none).
 */
export function findLegacyCopies(
  db: Database.Database,
  tree: MessageTree,
  calls: ModelCall[],
  threads: Map<string, ThreadRow>,
  turns: MessageTurns,
  ofCall: Map<string, PathTurn>,
): LegacyCopies {
  const copies = new Map<string, PathTurn>();
  const dualWrites = findDualWrites(db, ofCall, copies);
  const conversations = readContinuedConversations(db);
  const firstTimes = new Map<string, string | null>();
  const openings: Opening[] = [];
  const need = new Set<string>();
  for (const [cid, rows] of conversations) {
    let first: string | null = null;
    for (const r of rows) first = minTime(first, isoTime(r.datetime_utc));
    firstTimes.set(cid, first);
    const users = openingUsers(tree, calls, threads.get(cid)!, rows, turns.claimed);
    for (const u of users) need.add(u.node.hash);
    openings.push({ rows, users });
  }
  const texts = readUserTexts(db, need);
  for (const opening of openings) matchCopies(opening, texts, copies);
  for (const pt of turns.all) if (pt.legacyTime !== null) pt.createdAt = pt.legacyTime;
  return { copies, conversations, firstTimes, dualWrites };
}

/** (a) Responses whose id is a model call's: copies of the turn that call belongs to. */
function findDualWrites(
  db: Database.Database,
  ofCall: Map<string, PathTurn>,
  copies: Map<string, PathTurn>,
): Row[] {
  const dual: Row[] = [];
  for (const r of db
    .prepare('SELECT r.rowid AS rid, r.id FROM responses r JOIN turns t ON t.id = r.id')
    .iterate() as Iterable<Row>) {
    const pt = ofCall.get(str(r.id));
    if (pt === undefined) continue;
    copies.set(str(r.id), pt);
    dual.push(r);
  }
  return dual;
}

/** (b) The responses of each legacy conversation continued under 0.32 (thread id = conversation id). */
function readContinuedConversations(db: Database.Database): Map<string, Row[]> {
  return groupBy(
    db
      .prepare(
        `SELECT r.rowid AS rid, r.id, r.conversation_id AS cid, r.prompt, r.datetime_utc FROM responses r
          WHERE r.conversation_id IN (SELECT id FROM threads) AND r.id IS NOT NULL
          ORDER BY r.conversation_id, replace(coalesce(r.datetime_utc, ''), ' ', 'T'), r.id`,
      )
      .iterate() as Iterable<Row>,
    'cid',
  );
}

/**
 * The first user messages of thread `th`'s chain, as many as the conversation has prompts, with the turn each is
 * shown in: the candidates for copies of those prompts.
 */
function openingUsers(
  tree: MessageTree,
  calls: ModelCall[],
  th: ThreadRow,
  rows: Row[],
  claimed: Map<MsgNode, PathTurn>,
): { node: MsgNode; pt: PathTurn }[] {
  let tipHash = th.tip;
  // A thread with no tip of its own ends at its newest call's tip (calls are in time order).
  if (tipHash === null) for (const t of calls) if (t.thread === th.id && t.tip !== null) tipHash = t.tip;
  const chain = chainTo(tree, tipHash);
  const users: { node: MsgNode; pt: PathTurn }[] = [];
  const prompts = rows.filter((r) => str(r.prompt) !== '').length;
  chain.forEach((n, i) => {
    if (n.kind !== 'user' || users.length >= prompts) return;
    const after = chain[i + 1];
    const pt =
      (after !== undefined && after.kind === 'other' ? claimed.get(after) : undefined) ?? claimed.get(n);
    if (pt === undefined) return;
    users.push({ node: n, pt });
  });
  return users;
}

/** The text parts of the candidate user messages, in one query, to compare with the legacy prompts. */
function readUserTexts(db: Database.Database, need: Set<string>): Map<string, Row[]> {
  if (need.size === 0) return new Map<string, Row[]>();
  return groupBy(
    db
      .prepare(
        `SELECT * FROM parts WHERE message_hash IN (${IN_LIST}) AND type = 'text'
          ORDER BY message_hash, position`,
      )
      .iterate(JSON.stringify([...need])) as Iterable<Row>,
    'message_hash',
  );
}

/**
 * Pairs a conversation's prompts with its thread's first user messages in order, up to the first that differs
 * or has a model call of its own (llm wrote it, so it is no copy); a tool follow-up goes with the prompt before it.
 */
function matchCopies(
  { rows, users }: Opening,
  texts: Map<string, Row[]>,
  copies: Map<string, PathTurn>,
): void {
  let i = 0;
  let current: PathTurn | null = null;
  for (const r of rows) {
    const prompt = str(r.prompt);
    if (prompt === '') {
      // A tool follow-up belongs with the prompt before it, copied or not.
      if (current !== null) copies.set(str(r.id), current);
      continue;
    }
    const u = users[i++];
    current = null;
    if (u === undefined || u.pt.calls.length > 0 || !samePrompt(textOf(texts.get(u.node.hash) ?? []), prompt))
      break;
    current = u.pt;
    copies.set(str(r.id), u.pt);
    u.pt.legacyTime = minTime(u.pt.legacyTime, isoTime(r.datetime_utc));
  }
}
