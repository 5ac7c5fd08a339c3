/**
 * The legacy tables (llm 0.5 to 0.31, and the history an upgraded 0.32 file keeps): one `responses` row per model
 * call, grouped by `conversation_id`, with `tool_calls` / `tool_results` rows pointing at the response that made or
 * received them. The format has no parent links, so a conversation is a line in `datetime_utc`, `id` order.
 */
import type Database from 'better-sqlite3';
import { AnswerBuilder } from '../answer.js';
import { append, type ImportProblem, type ParsedSource, type ParsedTurn } from '../model.js';
import {
  fitQuestion,
  fitText,
  isoTime,
  NO_TIME,
  OWN_COLUMN,
  parseJson,
  rowLine,
  str,
  strOrNull,
} from './rows.js';
import type { LlmSchema } from './schema.js';

export type Row = Record<string, unknown>;

interface Current {
  turn: ParsedTurn;
  /** Null for a response copied into the message store: that turn's answer comes from its messages. */
  builder: AnswerBuilder | null;
  /** The latest response folded into this turn asked for tools and nothing answered them yet. */
  pending: boolean;
}

function addResponse(b: AnswerBuilder, r: Row, calls: Row[], results: Row[]): void {
  // Inputs before outputs: the results this call was given, then what the model said, then what it asked for.
  for (const t of results) b.toolResult(str(t.output), str(t.exception) !== '');
  b.text(str(r.response));
  for (const t of calls) b.toolCall(str(t.name), parseJson(t.arguments) ?? str(t.arguments));
}

/**
 * Turns out of one conversation's responses, fed in order. A response with an empty prompt is a tool follow-up
 * (the chain sending tool results back): it is folded into the turn before it. `copy` names the message-store
 * turn a response was copied into (copies.ts finds them): its rows join that turn's raw and it adds no turn of
 * its own.
 */
export class LegacyConversation {
  private readonly out: { turn: ParsedTurn; builder: AnswerBuilder | null }[] = [];
  private cur: Current | null = null;
  private lastSystem = '';
  private lastTime: string | null = null;

  constructor(
    private readonly file: string,
    private readonly session: string,
    private readonly problems: ImportProblem[],
  ) {}

  add(r: Row, calls: Row[], results: Row[], copy?: ParsedTurn): void {
    const rowid = Number(r[`${OWN_COLUMN}rowid`] ?? 0);
    const id = strOrNull(r.id);
    if (id === null) {
      this.problems.push({ file: this.file, line: rowid, reason: 'responses row without an id: skipped' });
      return;
    }
    const raw = [
      rowLine('responses', r),
      ...results.map((t) => rowLine('tool_results', t)),
      ...calls.map((t) => rowLine('tool_calls', t)),
    ];
    const prompt = strOrNull(r.prompt);
    const system = str(r.system);
    const followUp = prompt === null || prompt === '';
    if (followUp && this.cur !== null) {
      append(this.cur.turn.raw, raw);
      if (this.cur.builder !== null) {
        addResponse(this.cur.builder, r, calls, results);
        this.cur.pending = calls.length > 0;
      }
      return;
    }
    let createdAt = isoTime(r.datetime_utc);
    if (createdAt === null) {
      this.problems.push({ file: this.file, line: rowid, reason: `response ${id}: unreadable datetime_utc` });
      createdAt = this.lastTime ?? NO_TIME;
    }
    this.lastTime = createdAt;
    if (copy !== undefined) {
      append(copy.raw, raw);
      this.cur = { turn: copy, builder: null, pending: false };
      if (system !== '') this.lastSystem = system;
      return;
    }
    if (followUp)
      this.problems.push({
        file: this.file,
        line: rowid,
        reason: `response ${id}: a tool follow-up (empty prompt) with no prompt before it`,
      });
    const b = new AnswerBuilder();
    // The system prompt is shown where it starts to apply: on the conversation's first turn, and again only when
    // a later response names a different one (llm logs the system only on the prompts that set it).
    if (system !== '' && system !== this.lastSystem) b.text(`[system] ${system}`);
    if (system !== '') this.lastSystem = system;
    addResponse(b, r, calls, results);
    const turn: ParsedTurn = {
      sourceId: `response:${id}`,
      parentSourceId: this.cur?.turn.sourceId ?? null,
      sourceSession: this.session,
      question: fitQuestion(prompt ?? '', this.file, rowid, this.problems),
      answer: '',
      createdAt,
      raw,
      line: rowid,
      complete: true,
    };
    if (followUp) turn.note = 'tool follow-up';
    this.out.push({ turn, builder: b });
    this.cur = { turn, builder: b, pending: calls.length > 0 };
  }

  /** The conversation's own turns (not the copies), answers written. */
  finish(): ParsedTurn[] {
    for (const { turn, builder } of this.out)
      if (builder !== null)
        turn.answer = fitText(builder.toString(), 'answer', this.file, turn.line, this.problems);
    // The newest turn still waits for tool results when its last call asked for tools: the chain may go on.
    if (this.cur !== null && this.cur.builder !== null && this.cur.pending) this.cur.turn.complete = false;
    return this.out.map((o) => o.turn);
  }
}

/** A one-row lookahead over a statement's iterator. */
export class Peek<T> {
  private buf: IteratorResult<T> | null = null;
  constructor(private readonly it: Iterator<T>) {}
  peek(): T | undefined {
    if (this.buf === null) this.buf = this.it.next();
    return this.buf.done ? undefined : this.buf.value;
  }
  next(): T | undefined {
    const v = this.peek();
    this.buf = null;
    return v;
  }
  /** Ends the underlying statement early (better-sqlite3 iterators hold the statement until closed). */
  close(): void {
    this.it.return?.();
  }
}

/** Takes the rows at the head of `p` whose `response_id` is `id`. */
export function takeFor(p: Peek<Row> | null, id: unknown): Row[] {
  const out: Row[] = [];
  if (p === null) return out;
  for (let t = p.peek(); t !== undefined && t.response_id === id; t = p.peek()) out.push(p.next()!);
  return out;
}

export interface LegacyExclusions {
  /** Skip conversations whose id is a thread id: the message store reads them (index.ts). */
  threads: boolean;
  /** Skip responses whose id is a turn id (dual-write era rows). */
  turns: boolean;
}

/**
 * Every legacy conversation not handled by the message store, one ParsedSource each, ordered by the
 * conversation's first `datetime_utc`. Three ordered queries (responses, tool_calls, tool_results) are walked in
 * step, so memory holds one conversation and no query runs per row.
 */
export function* legacySources(
  db: Database.Database,
  file: string,
  schema: LlmSchema,
  exclude: LegacyExclusions,
): Generator<ParsedSource> {
  const where = ['r.id IS NOT NULL'];
  if (exclude.turns) where.push('r.id NOT IN (SELECT id FROM turns WHERE id IS NOT NULL)');
  if (exclude.threads)
    where.push("coalesce(r.conversation_id, '') NOT IN (SELECT id FROM threads WHERE id IS NOT NULL)");
  // Old llm wrote `2023-07-12 19:33:56` and newer `2025-02-16T22:34:30+00:00`: order on the T form of both.
  const keyed = `WITH keyed AS (
      SELECT r.rowid AS rid, coalesce(r.conversation_id, 'response:' || r.id) AS ckey,
             replace(coalesce(r.datetime_utc, ''), ' ', 'T') AS dt
        FROM responses r WHERE ${where.join(' AND ')}
    ), firsts AS (SELECT ckey, min(dt) AS first FROM keyed GROUP BY ckey)`;
  const order = 'f.first, k.ckey, k.dt, r.id';
  const responses = db
    .prepare(
      `${keyed}
      SELECT k.rid AS ${OWN_COLUMN}rowid, k.ckey AS ${OWN_COLUMN}ckey, c.name AS ${OWN_COLUMN}title, r.*
        FROM keyed k JOIN responses r ON r.rowid = k.rid JOIN firsts f ON f.ckey = k.ckey
        LEFT JOIN conversations c ON c.id = r.conversation_id
       ORDER BY ${order}`,
    )
    .iterate() as Iterator<Row>;
  const toolRows = (table: string): Peek<Row> =>
    new Peek(
      db
        .prepare(
          `${keyed}
          SELECT t.*
            FROM ${table} t JOIN responses r ON r.id = t.response_id JOIN keyed k ON k.rid = r.rowid
            JOIN firsts f ON f.ckey = k.ckey
           ORDER BY ${order}, t.id`,
        )
        .iterate() as Iterator<Row>,
    );
  const rows = new Peek(responses);
  const calls = schema.tools ? toolRows('tool_calls') : null;
  const results = schema.tools ? toolRows('tool_results') : null;
  try {
    for (let first = rows.peek(); first !== undefined; first = rows.peek()) {
      const ckey = str(first[`${OWN_COLUMN}ckey`]);
      const title = str(first[`${OWN_COLUMN}title`]);
      const problems: ImportProblem[] = [];
      const conv = new LegacyConversation(file, ckey, problems);
      for (let r = rows.peek(); r !== undefined && str(r[`${OWN_COLUMN}ckey`]) === ckey; r = rows.peek()) {
        rows.next();
        conv.add(r, takeFor(calls, r.id), takeFor(results, r.id));
      }
      const turns = conv.finish();
      const createdAt = turns.reduce<string | null>(
        (m, t) => (m === null || t.createdAt < m ? t.createdAt : m),
        null,
      );
      yield {
        kind: 'llm',
        file,
        sessions:
          turns.length > 0
            ? [{ sourceSession: ckey, createdAt: createdAt ?? NO_TIME, ...(title !== '' ? { title } : {}) }]
            : [],
        turns,
        entries: [],
        problems,
      };
    }
  } finally {
    rows.close();
    calls?.close();
    results?.close();
  }
}
