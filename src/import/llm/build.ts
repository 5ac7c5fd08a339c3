/**
 * One planned session (plan.ts) as a ParsedSource: its turns' content read in one query per table, not per
 * message, then the legacy rows read with it, as turns of their own or joined to the turns they were copied into.
 */
import type Database from 'better-sqlite3';
import { AnswerBuilder } from '../answer.js';
import { append, type ImportProblem, type ParsedSource, type ParsedTurn } from '../model.js';
import { LegacyConversation, type Row } from './legacy.js';
import { partText, payloadOf, textOf } from './parts.js';
import type { ModernPlan, ModernSession } from './plan.js';
import {
  cmp,
  fitQuestion,
  fitText,
  groupBy,
  IN_LIST,
  NO_TIME,
  OWN_COLUMN,
  rowLine,
  stmt,
  str,
} from './rows.js';
import type { LlmSchema } from './schema.js';
import type { PathTurn } from './turns.js';

/** A session's rows of the message store: `messages` and `turns` rows by hash / id, `parts` rows by message. */
interface SessionRows {
  messages: Map<string, Row>;
  parts: Map<string, Row[]>;
  turns: Map<string, Row>;
}

/** One session's ParsedSource, built when index.ts's merge reaches it: only then is its content read. */
export function buildSession(
  db: Database.Database,
  file: string,
  schema: LlmSchema,
  plan: ModernPlan,
  s: ModernSession,
): ParsedSource {
  const problems: ImportProblem[] = [];
  const rows = readSessionRows(db, s);
  const built = new Map<PathTurn, ParsedTurn>();
  const turns: ParsedTurn[] = [];
  for (const pt of s.turns) {
    const turn = buildTurn(file, s, pt, rows, problems);
    built.set(pt, turn);
    turns.push(turn);
  }
  if (schema.legacy && s.responseRowids.length > 0)
    append(turns, legacyTurns(db, file, plan, s, built, problems));
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

/** Every row the session's turns show or keep as raw, in three queries (sessions are many: no query per turn). */
function readSessionRows(db: Database.Database, s: ModernSession): SessionRows {
  const hashes = new Set<string>();
  for (const pt of s.turns) for (const n of [...pt.systems, pt.user, ...pt.nodes]) hashes.add(n.hash);
  const list = JSON.stringify([...hashes]);
  const messages = new Map<string, Row>();
  for (const r of stmt(db, `SELECT * FROM messages WHERE hash IN (${IN_LIST})`).iterate(
    list,
  ) as Iterable<Row>)
    messages.set(str(r.hash), r);
  const parts = groupBy(
    stmt(
      db,
      `SELECT * FROM parts WHERE message_hash IN (${IN_LIST}) ORDER BY message_hash, position`,
    ).iterate(list) as Iterable<Row>,
    'message_hash',
  );
  const callIds = JSON.stringify(s.turns.flatMap((pt) => pt.calls.map((t) => t.id)));
  const turns = new Map<string, Row>();
  for (const r of stmt(db, `SELECT * FROM turns WHERE id IN (${IN_LIST})`).iterate(callIds) as Iterable<Row>)
    turns.set(str(r.id), r);
  return { messages, parts, turns };
}

/** One message turn as arborist stores it. */
function buildTurn(
  file: string,
  s: ModernSession,
  pt: PathTurn,
  rows: SessionRows,
  problems: ImportProblem[],
): ParsedTurn {
  const turn: ParsedTurn = {
    sourceId: pt.sourceId,
    parentSourceId: pt.parentSourceId,
    sourceSession: s.id,
    question: fitQuestion(textOf(rows.parts.get(pt.user.hash) ?? []), file, pt.user.rid, problems),
    answer: fitText(answerOf(pt, rows.parts), 'answer', file, pt.user.rid, problems),
    createdAt: pt.createdAt,
    raw: rawOf(pt, rows),
    line: pt.user.rid,
    complete: !waitsForTools(pt, rows.parts),
  };
  if (!pt.primary) turn.note = 'another reply';
  if (pt.createdAt === NO_TIME)
    problems.push({ file, line: pt.user.rid, reason: `message ${pt.user.hash}: no readable time` });
  return turn;
}

/** The turn's rows as they are: each message's row then its parts, in chain order, then its model calls. */
function rawOf(pt: PathTurn, rows: SessionRows): string[] {
  const raw: string[] = [];
  for (const n of [...pt.systems, pt.user, ...pt.nodes]) {
    const m = rows.messages.get(n.hash);
    if (m !== undefined) raw.push(rowLine('messages', m));
    for (const p of rows.parts.get(n.hash) ?? []) raw.push(rowLine('parts', p));
  }
  for (const c of pt.calls) {
    const r = rows.turns.get(c.id);
    if (r !== undefined) raw.push(rowLine('turns', r));
  }
  return raw;
}

/** The answer: the system prompts shown on the turn, then each reply message's text and tool calls / results. */
function answerOf(pt: PathTurn, parts: Map<string, Row[]>): string {
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
  return b.toString();
}

/** Whether the turn ends asking for tools (not server-executed) that nothing has answered yet: not complete. */
function waitsForTools(pt: PathTurn, parts: Map<string, Row[]>): boolean {
  const leaf = pt.nodes[pt.nodes.length - 1];
  return (
    leaf !== undefined &&
    leaf.children.length === 0 &&
    (parts.get(leaf.hash) ?? []).some((p) => p.type === 'tool_call' && payloadOf(p).server_executed !== true)
  );
}

/**
 * The session's legacy responses: turns of their own, except copies (plan.copies), whose rows join the raw of
 * the message turn they were copied into.
 */
function legacyTurns(
  db: Database.Database,
  file: string,
  plan: ModernPlan,
  s: ModernSession,
  built: Map<PathTurn, ParsedTurn>,
  problems: ImportProblem[],
): ParsedTurn[] {
  const byRowid = (table: string, rowids: number[]) =>
    groupBy(
      stmt(db, `SELECT * FROM ${table} WHERE rowid IN (${IN_LIST}) ORDER BY response_id, id`).iterate(
        JSON.stringify(rowids),
      ) as Iterable<Row>,
      'response_id',
    );
  const calls = byRowid('tool_calls', s.callRowids);
  const results = byRowid('tool_results', s.resultRowids);
  const conv = new LegacyConversation(file, s.id, problems);
  for (const r of stmt(
    db,
    `SELECT rowid AS ${OWN_COLUMN}rowid, * FROM responses WHERE rowid IN (${IN_LIST})
        ORDER BY replace(coalesce(datetime_utc, ''), ' ', 'T'), id`,
  ).iterate(JSON.stringify(s.responseRowids)) as Iterable<Row>) {
    const id = str(r.id);
    const target = plan.copies.get(id);
    // A copy into a turn of another session keeps its rows with neither (there is no turn here to hold them).
    const copy =
      target === undefined ? undefined : (built.get(target) ?? ({ raw: [] } as unknown as ParsedTurn));
    conv.add(r, calls.get(id) ?? [], results.get(id) ?? [], copy);
  }
  return conv.finish();
}
