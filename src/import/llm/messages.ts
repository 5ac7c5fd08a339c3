/**
 * llm 0.32's content-addressed tables. `messages` rows (`b2:` hash, `parent_hash`, role system / user / assistant
 * / tool) form a tree whose identical openings are shared rows; `parts` hold each message's content; a `turns` row
 * is one model call (`parent_message_hash` = the last input message, `tip_message_hash` = the chain tip after the
 * output) in a `threads` row (a named pointer at a tip; a fork is a second pointer, `forked_from`).
 *
 * An arborist turn is a user message and the assistant / tool messages under it up to the next user message: its
 * sourceId is the user message's hash, so a prompt shared by many threads is one turn. It belongs to the session
 * of the thread that first wrote it (the earliest model call whose chain holds it); a thread that repeats or forks
 * another's turns owns only its new ones, whose parent is then a turn of the other session. docs/import-llm.md
 * states every rule and assumption.
 */
import type Database from 'better-sqlite3';
import { AnswerBuilder } from '../answer.js';
import type { ImportProblem, ParsedSource, ParsedTurn } from '../model.js';
import { LegacyConversation, type Row } from './legacy.js';
import {
  fitQuestion,
  fitText,
  isoTime,
  NO_TIME,
  OWN_COLUMN,
  parseJson,
  rowLine,
  stmt,
  str,
  strOrNull,
} from './rows.js';
import type { LlmSchema } from './schema.js';

/** Reply paths kept per user message (a prompt re-asked with different answers branches); the rest reported. */
export const MAX_REPLY_PATHS = 256;

interface Mark {
  thread: string;
  time: string;
  key: string;
}

interface MsgNode {
  hash: string;
  parentHash: string | null;
  role: string;
  rid: number;
  /** `user` starts a turn; `system` is shown on the turn it opens; `other` (assistant, tool) is answer. */
  kind: 'user' | 'system' | 'other';
  parent: MsgNode | null;
  children: MsgNode[];
  /** The earliest model call (or thread tip) whose chain holds this message. */
  mark: Mark | null;
}

interface LlmTurn {
  rid: number;
  id: string;
  thread: string;
  parent: string | null;
  tip: string | null;
  time: string | null;
}

interface ThreadRow {
  id: string;
  name: string;
  tip: string | null;
  time: string | null;
}

/** One arborist turn of the message tree: a user message and one reply path under it. */
export interface PathTurn {
  sourceId: string;
  user: MsgNode;
  nodes: MsgNode[];
  systems: MsgNode[];
  primary: boolean;
  llm: LlmTurn[];
  owner: string | null;
  parentSourceId: string | null;
  createdAt: string;
  /** Legacy responses this turn is a copy of (their rows join its raw). */
  legacyTime: string | null;
}

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

export interface ModernPlan {
  sessions: ModernSession[];
  problems: ImportProblem[];
  /** Response id -> the message turn it was copied into. */
  copies: Map<string, PathTurn>;
}

/** Code-unit order (ISO times, ULIDs, hashes): the same on every machine, unlike localeCompare. */
function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function minTime(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return b < a ? b : a;
}

/** A text part's text: the `text` column, else a payload `text` (pre-m027 rows), else a `text_ref` rebuilt. */
function partText(p: Row): string {
  if (p.text !== null && p.text !== undefined) return str(p.text);
  const payload = parseJson(p.payload) as Record<string, unknown> | undefined;
  if (payload === undefined || payload === null || typeof payload !== 'object') return '';
  if (typeof payload.text === 'string') return payload.text;
  if (Array.isArray(payload.text_ref))
    // Fragment content is not inlined (a fragment can be a whole file): a placeholder marks where it was.
    return payload.text_ref
      .map((piece: Record<string, unknown>) =>
        typeof piece?.literal === 'string'
          ? piece.literal
          : piece?.fragment !== undefined
            ? `[fragment ${str(piece.fragment)}]`
            : '',
      )
      .join('');
  return '';
}

function textOf(parts: Row[]): string {
  return parts
    .filter((p) => p.type === 'text')
    .map(partText)
    .join('');
}

/** Whether a legacy prompt is the text of a copied user message (fragments, when inlined, come before it). */
function samePrompt(message: string, prompt: string): boolean {
  const m = message.trim();
  const p = prompt.trim();
  return p !== '' && (m === p || m.endsWith(`\n${p}`));
}

const inList = 'SELECT value FROM json_each(?)';

function groupBy(rows: Iterable<Row>, key: string): Map<string, Row[]> {
  const m = new Map<string, Row[]>();
  for (const r of rows) {
    const k = str(r[key]);
    const g = m.get(k);
    if (g === undefined) m.set(k, [r]);
    else g.push(r);
  }
  return m;
}

export function planMessages(db: Database.Database, file: string, schema: LlmSchema): ModernPlan {
  const problems: ImportProblem[] = [];
  const problem = (line: number, reason: string) => problems.push({ file, line, reason });

  // 1. The tree's skeleton: every message, no content (content is read per session).
  const nodes = new Map<string, MsgNode>();
  const ordered: MsgNode[] = [];
  const skeleton = db.prepare(
    `SELECT m.rowid AS rid, m.hash, m.parent_hash, m.role,
            (m.role = 'user'
             AND NOT EXISTS(SELECT 1 FROM parts p WHERE p.message_hash = m.hash AND coalesce(p.type, '') <> 'tool_result')
             AND EXISTS(SELECT 1 FROM parts p WHERE p.message_hash = m.hash)) AS tool_only
       FROM messages m ORDER BY m.rowid`,
  );
  for (const row of skeleton.iterate() as Iterable<Row>) {
    const rid = Number(row.rid);
    const hash = strOrNull(row.hash);
    if (hash === null) {
      problem(rid, 'messages row without a hash: skipped');
      continue;
    }
    const role = str(row.role);
    // A user-role message holding only tool results is tool output, not a prompt.
    const toolOnly = Number(row.tool_only) === 1;
    const kind = role === 'user' && !toolOnly ? 'user' : role === 'system' ? 'system' : 'other';
    const node: MsgNode = {
      hash,
      parentHash: strOrNull(row.parent_hash),
      role,
      rid,
      kind,
      parent: null,
      children: [],
      mark: null,
    };
    nodes.set(hash, node);
    ordered.push(node);
  }
  for (const n of ordered) {
    if (n.parentHash === null) continue;
    const p = nodes.get(n.parentHash);
    if (p === undefined) {
      problem(n.rid, `message ${n.hash}: parent message ${n.parentHash} is missing`);
      continue;
    }
    n.parent = p;
    p.children.push(n);
  }

  // 2. Model calls and threads.
  const turns: LlmTurn[] = [];
  for (const row of db
    .prepare(
      'SELECT rowid AS rid, id, thread_id, parent_message_hash, tip_message_hash, datetime_utc FROM turns',
    )
    .iterate() as Iterable<Row>) {
    const rid = Number(row.rid);
    const id = strOrNull(row.id);
    if (id === null) {
      problem(rid, 'turns row without an id: skipped');
      continue;
    }
    const time = isoTime(row.datetime_utc);
    if (time === null) problem(rid, `turn ${id}: unreadable datetime_utc`);
    turns.push({
      rid,
      id,
      thread: str(row.thread_id),
      parent: strOrNull(row.parent_message_hash),
      tip: strOrNull(row.tip_message_hash),
      time,
    });
  }
  const byTime = (a: { time: string | null; id: string }, b: { time: string | null; id: string }) =>
    cmp(a.time ?? '\uffff', b.time ?? '\uffff') || cmp(a.id, b.id);
  turns.sort(byTime);
  const threads = new Map<string, ThreadRow>();
  for (const row of db
    .prepare('SELECT id, name, tip_message_hash, datetime_utc FROM threads')
    .iterate() as Iterable<Row>) {
    const id = strOrNull(row.id);
    if (id === null) continue;
    threads.set(id, {
      id,
      name: str(row.name),
      tip: strOrNull(row.tip_message_hash),
      time: isoTime(row.datetime_utc),
    });
  }

  // 3. Marks: walk up from each call's tip in time order, stopping at the first message already marked (its
  // ancestors are marked too), so every message is visited once. Then thread tips, for chains no call covers.
  const markUp = (start: MsgNode | undefined, m: Mark) => {
    let steps = 0;
    for (let n = start; n !== undefined && n !== null && n.mark === null && steps <= nodes.size; steps++) {
      n.mark = m;
      n = n.parent ?? undefined;
    }
  };
  for (const t of turns) {
    if (t.thread === '') continue;
    const start = nodes.get(t.tip ?? t.parent ?? '');
    markUp(start, { thread: t.thread, time: t.time ?? NO_TIME, key: `0${t.time ?? '\uffff'}\u0000${t.id}` });
  }
  for (const th of [...threads.values()].sort(byTime))
    if (th.tip !== null)
      markUp(nodes.get(th.tip), {
        thread: th.id,
        time: th.time ?? NO_TIME,
        key: `1${th.time}\u0000${th.id}`,
      });

  // 4. Reachability from the roots (bounded: each message once). What is not reached sits on a parent cycle.
  const visited = new Set<MsgNode>();
  const stack: MsgNode[] = ordered.filter((n) => n.parent === null);
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (visited.has(n)) continue;
    visited.add(n);
    for (const c of n.children) stack.push(c);
  }
  for (const n of ordered)
    if (!visited.has(n) && n.kind === 'user')
      problem(n.rid, `message ${n.hash}: its parent links form a cycle: not imported`);
  // Earliest-written reply first: the first reply path of a prompt is the one its first model call produced.
  for (const n of ordered)
    n.children.sort(
      (a, b) =>
        (a.mark === null ? 1 : 0) - (b.mark === null ? 1 : 0) ||
        cmp(a.mark?.key ?? '', b.mark?.key ?? '') ||
        a.rid - b.rid,
    );

  // 5. Turns: each user message, one per reply path (the paths through assistant and tool messages under it).
  const claimed = new Map<MsgNode, PathTurn>();
  const all: PathTurn[] = [];
  for (const u of ordered) {
    if (u.kind !== 'user' || !visited.has(u)) continue;
    const paths: MsgNode[][] = [];
    const todo: { node: MsgNode; path: MsgNode[] }[] = [{ node: u, path: [] }];
    let cut = false;
    while (todo.length > 0 && !cut) {
      let { node, path } = todo.pop()!;
      for (;;) {
        const next = node.children.filter((c) => c.kind === 'other');
        if (next.length === 0) {
          if (paths.length >= MAX_REPLY_PATHS) cut = true;
          else paths.push(path);
          break;
        }
        for (let i = next.length - 1; i >= 1; i--) todo.push({ node: next[i], path: [...path, next[i]] });
        path.push(next[0]);
        node = next[0];
      }
    }
    if (cut) problem(u.rid, `message ${u.hash}: more than ${MAX_REPLY_PATHS} reply paths: the rest skipped`);
    paths.forEach((path, i) => {
      const leaf = path[path.length - 1];
      const pt: PathTurn = {
        sourceId: i === 0 ? u.hash : `${u.hash}/${leaf.hash}`,
        user: u,
        nodes: path,
        systems: [],
        primary: i === 0,
        llm: [],
        owner: null,
        parentSourceId: null,
        createdAt: NO_TIME,
        legacyTime: null,
      };
      all.push(pt);
      if (i === 0) claimed.set(u, pt);
      for (const n of path) if (!claimed.has(n)) claimed.set(n, pt);
    });
  }

  // 6. Each model call belongs to the turn holding its output (or its input, when it produced nothing).
  const ofCall = new Map<string, PathTurn>();
  for (const t of turns) {
    const anchor = t.tip !== null && t.tip !== t.parent ? t.tip : t.parent;
    const n = anchor === null ? undefined : nodes.get(anchor);
    const pt = n === undefined ? undefined : claimed.get(n);
    if (pt === undefined) continue;
    pt.llm.push(t);
    ofCall.set(t.id, pt);
  }

  // 7. Owner, time, parent, system prompts.
  for (const pt of all) {
    const chain = [pt.user, ...pt.nodes];
    let deepest: MsgNode | undefined;
    for (const n of chain) if (n.mark !== null) deepest = n;
    pt.owner = deepest?.mark?.thread ?? null;
    let t: string | null = null;
    for (const c of pt.llm) t = minTime(t, c.time);
    pt.createdAt = t ?? deepest?.mark?.time ?? NO_TIME;
    let n = pt.user.parent;
    for (let steps = 0; n !== null && n.kind === 'system' && steps <= nodes.size; steps++) {
      pt.systems.unshift(n);
      n = n.parent;
    }
    for (let steps = 0; n !== null && !claimed.has(n) && steps <= nodes.size; steps++) n = n.parent;
    pt.parentSourceId = n === null ? null : claimed.get(n)!.sourceId;
  }

  // 8. Legacy rows the message store already holds (docs/import-llm.md, "Upgraded files").
  const copies = new Map<string, PathTurn>();
  const legacyThreads = new Map<string, string | null>();
  let groups = new Map<string, Row[]>();
  const dual: Row[] = [];
  if (schema.legacy) {
    // (a) A dual-write era row: the same model call in responses and in turns, under one id.
    for (const r of db
      .prepare('SELECT r.rowid AS rid, r.id FROM responses r JOIN turns t ON t.id = r.id')
      .iterate() as Iterable<Row>) {
      const pt = ofCall.get(str(r.id));
      if (pt === undefined) continue;
      copies.set(str(r.id), pt);
      dual.push(r);
    }
    // (b) A continued legacy conversation: thread id = conversation id, and its chain's first prompts are the
    // conversation's prompts, copied in by llm when the conversation was continued, with no model call of their own.
    groups = groupBy(
      db
        .prepare(
          `SELECT r.rowid AS rid, r.id, r.conversation_id AS cid, r.prompt, r.datetime_utc FROM responses r
            WHERE r.conversation_id IN (SELECT id FROM threads) AND r.id IS NOT NULL
            ORDER BY r.conversation_id, replace(coalesce(r.datetime_utc, ''), ' ', 'T'), r.id`,
        )
        .iterate() as Iterable<Row>,
      'cid',
    );
    const wanted: { cid: string; rows: Row[]; users: { node: MsgNode; pt: PathTurn }[] }[] = [];
    const need = new Set<string>();
    for (const [cid, rows] of groups) {
      let first: string | null = null;
      for (const r of rows) first = minTime(first, isoTime(r.datetime_utc));
      legacyThreads.set(cid, first);
      const th = threads.get(cid)!;
      let tipHash = th.tip;
      if (tipHash === null) for (const t of turns) if (t.thread === cid && t.tip !== null) tipHash = t.tip; // the newest call's tip
      const chain: MsgNode[] = [];
      let steps = 0;
      for (
        let n = tipHash === null ? null : (nodes.get(tipHash) ?? null);
        n !== null && steps <= nodes.size;
        steps++
      ) {
        chain.push(n);
        n = n.parent;
      }
      chain.reverse();
      const users: { node: MsgNode; pt: PathTurn }[] = [];
      const prompts = rows.filter((r) => str(r.prompt) !== '').length;
      chain.forEach((n, i) => {
        if (n.kind !== 'user' || users.length >= prompts) return;
        const after = chain[i + 1];
        const pt =
          (after !== undefined && after.kind === 'other' ? claimed.get(after) : undefined) ?? claimed.get(n);
        if (pt === undefined) return;
        users.push({ node: n, pt });
        need.add(n.hash);
      });
      wanted.push({ cid, rows, users });
    }
    const texts =
      need.size === 0
        ? new Map<string, Row[]>()
        : groupBy(
            db
              .prepare(
                `SELECT * FROM parts WHERE message_hash IN (${inList}) AND type = 'text'
                  ORDER BY message_hash, position`,
              )
              .iterate(JSON.stringify([...need])) as Iterable<Row>,
            'message_hash',
          );
    for (const { rows, users } of wanted) {
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
        if (
          u === undefined ||
          u.pt.llm.length > 0 ||
          !samePrompt(textOf(texts.get(u.node.hash) ?? []), prompt)
        )
          break;
        current = u.pt;
        copies.set(str(r.id), u.pt);
        u.pt.legacyTime = minTime(u.pt.legacyTime, isoTime(r.datetime_utc));
      }
    }
    for (const pt of all) if (pt.legacyTime !== null) pt.createdAt = pt.legacyTime;
  }

  // 9. Sessions: the turns each thread owns, and the threads that are continued legacy conversations.
  const sessions = new Map<string, ModernSession>();
  const session = (id: string): ModernSession => {
    let s = sessions.get(id);
    if (s === undefined) {
      s = {
        id,
        title: threads.get(id)?.name ?? '',
        first: '',
        turns: [],
        responseRowids: [],
        callRowids: [],
        resultRowids: [],
      };
      sessions.set(id, s);
    }
    return s;
  };
  for (const pt of all) {
    if (pt.owner === null) {
      if (pt.primary) problem(pt.user.rid, `message ${pt.user.hash}: in no turn or thread: not imported`);
      continue;
    }
    session(pt.owner).turns.push(pt);
  }
  const sessionOf = new Map<string, ModernSession>();
  for (const [cid, rows] of groups) {
    const s = session(cid);
    for (const r of rows) {
      s.responseRowids.push(Number(r.rid));
      sessionOf.set(str(r.id), s);
    }
  }
  for (const r of dual) {
    const owner = copies.get(str(r.id))?.owner ?? null;
    if (owner === null || sessionOf.has(str(r.id))) continue;
    const s = session(owner);
    s.responseRowids.push(Number(r.rid));
    sessionOf.set(str(r.id), s);
  }
  if (schema.tools && sessionOf.size > 0)
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
  for (const s of sessions.values()) {
    let first: string | null = legacyThreads.get(s.id) ?? null;
    for (const pt of s.turns) first = minTime(first, pt.createdAt);
    s.first = first ?? threads.get(s.id)?.time ?? NO_TIME;
    s.turns.sort((a, b) => cmp(a.createdAt, b.createdAt) || a.user.rid - b.user.rid);
  }
  return {
    sessions: [...sessions.values()].sort((a, b) => cmp(a.first, b.first) || cmp(a.id, b.id)),
    problems,
    copies,
  };
}

function payloadOf(p: Row): Record<string, unknown> {
  const v = parseJson(p.payload);
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** One session's ParsedSource: its turns' content in one query per table, not per message. */
export function buildSession(
  db: Database.Database,
  file: string,
  schema: LlmSchema,
  plan: ModernPlan,
  s: ModernSession,
): ParsedSource {
  const problems: ImportProblem[] = [];
  const hashes = new Set<string>();
  for (const pt of s.turns) for (const n of [...pt.systems, pt.user, ...pt.nodes]) hashes.add(n.hash);
  const list = JSON.stringify([...hashes]);
  const messageRows = new Map<string, Row>();
  for (const r of stmt(db, `SELECT * FROM messages WHERE hash IN (${inList})`).iterate(list) as Iterable<Row>)
    messageRows.set(str(r.hash), r);
  const parts = groupBy(
    stmt(db, `SELECT * FROM parts WHERE message_hash IN (${inList}) ORDER BY message_hash, position`).iterate(
      list,
    ) as Iterable<Row>,
    'message_hash',
  );
  const callIds = JSON.stringify(s.turns.flatMap((pt) => pt.llm.map((t) => t.id)));
  const turnRows = new Map<string, Row>();
  for (const r of stmt(db, `SELECT * FROM turns WHERE id IN (${inList})`).iterate(callIds) as Iterable<Row>)
    turnRows.set(str(r.id), r);

  const built = new Map<PathTurn, ParsedTurn>();
  const turns: ParsedTurn[] = [];
  for (const pt of s.turns) {
    const raw: string[] = [];
    for (const n of [...pt.systems, pt.user, ...pt.nodes]) {
      const m = messageRows.get(n.hash);
      if (m !== undefined) raw.push(rowLine('messages', m));
      for (const p of parts.get(n.hash) ?? []) raw.push(rowLine('parts', p));
    }
    for (const c of pt.llm) {
      const r = turnRows.get(c.id);
      if (r !== undefined) raw.push(rowLine('turns', r));
    }
    const b = new AnswerBuilder();
    for (const sys of pt.systems) {
      const text = textOf(parts.get(sys.hash) ?? []);
      if (text.trim() !== '') b.text(`[system] ${text}`);
    }
    for (const n of pt.nodes)
      for (const p of parts.get(n.hash) ?? []) {
        const payload = payloadOf(p);
        if (p.type === 'text') {
          if (n.role === 'tool') b.toolResult(partText(p));
          else b.text(partText(p));
        } else if (p.type === 'tool_call') {
          b.toolCall(str(p.tool_name ?? payload.name), payload.arguments ?? '');
        } else if (p.type === 'tool_result') {
          const exception = str(payload.exception);
          b.toolResult(str(payload.output) || exception, exception !== '');
        }
      }
    const leaf = pt.nodes[pt.nodes.length - 1];
    const waiting =
      leaf !== undefined &&
      leaf.children.length === 0 &&
      (parts.get(leaf.hash) ?? []).some(
        (p) => p.type === 'tool_call' && payloadOf(p).server_executed !== true,
      );
    const turn: ParsedTurn = {
      sourceId: pt.sourceId,
      parentSourceId: pt.parentSourceId,
      sourceSession: s.id,
      question: fitQuestion(textOf(parts.get(pt.user.hash) ?? []), file, pt.user.rid, problems),
      answer: fitText(b.toString(), 'answer', file, pt.user.rid, problems),
      createdAt: pt.createdAt,
      raw,
      line: pt.user.rid,
      complete: !waiting,
    };
    if (!pt.primary) turn.note = 'another reply';
    if (pt.createdAt === NO_TIME)
      problems.push({ file, line: pt.user.rid, reason: `message ${pt.user.hash}: no readable time` });
    built.set(pt, turn);
    turns.push(turn);
  }

  if (schema.legacy && s.responseRowids.length > 0) {
    const byRowid = (table: string, rowids: number[]) =>
      groupBy(
        stmt(db, `SELECT * FROM ${table} WHERE rowid IN (${inList}) ORDER BY response_id, id`).iterate(
          JSON.stringify(rowids),
        ) as Iterable<Row>,
        'response_id',
      );
    const calls = byRowid('tool_calls', s.callRowids);
    const results = byRowid('tool_results', s.resultRowids);
    const conv = new LegacyConversation(file, s.id, problems);
    for (const r of stmt(
      db,
      `SELECT rowid AS ${OWN_COLUMN}rowid, * FROM responses WHERE rowid IN (${inList})
          ORDER BY replace(coalesce(datetime_utc, ''), ' ', 'T'), id`,
    ).iterate(JSON.stringify(s.responseRowids)) as Iterable<Row>) {
      const id = str(r.id);
      const target = plan.copies.get(id);
      // A copy into a turn of another session keeps its rows with neither (there is no turn here to hold them).
      const copy =
        target === undefined ? undefined : (built.get(target) ?? ({ raw: [] } as unknown as ParsedTurn));
      conv.add(r, calls.get(id) ?? [], results.get(id) ?? [], copy);
    }
    turns.push(...conv.finish());
  }
  turns.sort((a, b) => cmp(a.createdAt, b.createdAt) || a.line - b.line);
  return {
    kind: 'llm',
    file,
    sessions:
      turns.length > 0
        ? [{ sourceSession: s.id, createdAt: s.first, ...(s.title !== '' ? { title: s.title } : {}) }]
        : [],
    turns,
    entries: [],
    problems,
  };
}
