import {
  ArboristError,
  agentOf,
  FILTER_NAMES,
  parseBates,
  projectOf,
  type SessionSource,
  type Shard,
  type TurnNode,
} from '../store/index.js';
import { oneLine, stripControls } from '../text/sanitize.js';
import { unknownFilterNote } from '../text/suggest.js';
import { BUDGET_BYTES, cursorAt, cursorOffset, jsonBytes, makeCursor, takePage } from './page.js';

/**
 * What each MCP tool does with the shard, without the protocol: plain arguments in, a plain JSON-able value out, an
 * ArboristError for a bad argument. server.ts wires these to the SDK; bench/mcp.ts calls them in-process as the
 * floor a call over stdio is measured against. Every text that leaves here is stored text made safe (src/text):
 * one line for listings, controls stripped for a turn's own text, so no escape sequence reaches a client's screen.
 */

/** The longest query taken: a query is words, and a pasted document would only cost time (typo variants per word). */
export const MAX_QUERY_CHARS = 1000;
/** Characters of a question (or an answer's start) in a listing; `show` gives the whole turn. */
const LINE_CHARS = 300;
/** Hits a find can page through: the find engine ranks a bounded set of the newest matches (docs/find.md). */
const FIND_MAX = 1000;
/**
 * Bytes of JSON a turn's cited titles take in show at most. The titles are stored unbounded (an imported export
 * can carry thousands); without a cap they alone outgrew the budget, and show then spun for ever on its first page.
 */
const CITED_BYTES = 4 * 1024;

export interface FindArgs {
  query: string;
  agent?: string;
  project?: string;
  after?: string;
  before?: string;
  in?: 'question';
  session?: string;
  limit?: number;
  cursor?: string;
}
export interface ShowArgs {
  bates: string;
  cursor?: string;
}
export interface PathArgs {
  bates: string;
  limit?: number;
  cursor?: string;
}
export interface TreeArgs {
  session: string;
  limit?: number;
  cursor?: string;
}
export interface ListArgs {
  limit?: number;
  cursor?: string;
}

/** Stored text as one safe line, cut to `max` characters (never inside a surrogate pair). */
function line(s: string | null | undefined, max = LINE_CHARS): string {
  const t = oneLine(s ?? '');
  if (t.length <= max) return t;
  let n = max;
  if (/[\ud800-\udbff]/.test(t[n - 1])) n--;
  return `${t.slice(0, n)}…`;
}

/** A session's agent and project as its source recorded them (`arborist` for one asked in arborist itself). */
function origin(o: SessionSource | undefined): { agent: string; project: string | null } {
  const p = projectOf(o?.info);
  return {
    agent: o ? line(agentOf(o) ?? o.source, 40) : 'arborist',
    project: p === null ? null : line(p),
  };
}

/** `name:value` as the find engine's filter syntax takes it (src/store/find/filters.ts): one word, no leading : or /. */
function filterToken(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^[^\s:/]\S*$/.test(value))
    throw new ArboristError(
      'usage',
      `${name}: '${line(value, 60)}' cannot be used: give one word without spaces, not starting with ':' or '/' (a part of the name is enough)`,
    );
  return `${name}:${value}`;
}

function pageOf(limit: number | undefined, fallback: number, max: number): number {
  const n = limit ?? fallback;
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new ArboristError('usage', `limit takes a whole number from 1 to ${max}`);
  return n;
}

export function find(shard: Shard, args: FindArgs) {
  const text = args.query.trim();
  if (text.length > MAX_QUERY_CHARS)
    throw new ArboristError(
      'usage',
      `query is ${args.query.length} characters; at most ${MAX_QUERY_CHARS} (a few words find more than a pasted text)`,
    );
  const filters = [
    filterToken('agent', args.agent),
    filterToken('project', args.project),
    filterToken('after', args.after),
    filterToken('before', args.before),
    filterToken('in', args.in),
  ].filter((x): x is string => x !== undefined);
  if (text === '' && filters.length === 0)
    throw new ArboristError(
      'usage',
      'query is empty: give words to search for, or a filter (agent, project, after, before)',
    );
  const limit = pageOf(args.limit, 10, 50);
  const offset = cursorOffset('find', { ...args });
  const scope = args.session === undefined ? undefined : shard.resolveSession(args.session).sid;
  const want = Math.min(FIND_MAX, offset + limit + 1);
  const r = shard.search([text, ...filters].join(' '), { limit: want, scope, prefix: false });
  // A filter that cannot be used stops the search, as in `arborist find`: it would widen the search silently.
  if (r.refused) throw new ArboristError('usage', r.problems.map((p) => oneLine(p)).join('; '));
  const items = r.hits.map((h) => ({
    bates: h.bates,
    sid: h.sid,
    agent: line(h.agent ?? 'arborist', 40),
    project: h.project === null ? null : line(h.project),
    created_at: line(h.created_at, 40),
    question: line(h.question),
    snippet: line(h.snippet, 400),
    matched: h.field,
  }));
  const notes = [
    ...r.unknownFilters.map((name) => unknownFilterNote(name, FILTER_NAMES)),
    ...r.problems.map((p) => line(p)),
    ...Object.entries(r.corrections).map(
      ([typo, alts]) =>
        `no '${line(typo, 60)}' in the shard; also searched ${alts.map((a) => line(a, 60)).join(', ')}`,
    ),
  ];
  const head = { searched: r.searched, ...(notes.length > 0 ? { notes } : {}) };
  const { page, next } = takePage(items, offset, limit, jsonBytes(head) + 200);
  return {
    ...head,
    hits: page,
    ...(next !== null && next < FIND_MAX ? { next_cursor: makeCursor('find', { ...args }, next) } : {}),
  };
}

/**
 * The largest prefix of `s` whose JSON string is at most `room` bytes, never ending inside a surrogate pair. By
 * characters first, then shrunk in proportion: JSON escapes and UTF-8 make a character 1 to 6 bytes.
 */
function fitText(s: string, room: number): string {
  if (room <= 2) return '';
  let n = Math.min(s.length, room);
  for (;;) {
    if (n > 0 && /[\ud800-\udbff]/.test(s[n - 1])) n--;
    const b = jsonBytes(s.slice(0, n));
    if (b <= room || n === 0) return s.slice(0, n);
    n = Math.floor((n * room) / b) - 1;
  }
}

/** A turn's cited titles, as many as fit CITED_BYTES; cited_total says how many it has when some are left out. */
function citedOf(titles: readonly string[]): { cited: string[]; cited_total?: number } {
  const cited: string[] = [];
  let bytes = 2;
  for (const t of titles) {
    const l = line(t);
    bytes += jsonBytes(l) + 1;
    if (bytes > CITED_BYTES) return { cited, cited_total: titles.length };
    cited.push(l);
  }
  return { cited };
}

/**
 * The turn a Bates id names. A session (or label) is resolved only to say a turn is wanted; anything else is told
 * what a Bates id looks like, not "no session 'x'" (resolve's answer for a word), which reads as if one was asked for.
 */
function turnOf(shard: Shard, id: string): TurnNode {
  let r: ReturnType<Shard['resolve']>;
  try {
    r = shard.resolve(id);
  } catch (err) {
    if (err instanceof ArboristError && err.kind === 'not_found' && !parseBates(id.trim()))
      throw new ArboristError(
        'not_found',
        `'${line(id, 60)}' is not a Bates id (<sid>-<6 digits>, e.g. abcd1234-000042: find, path and tree give them)`,
      );
    throw err;
  }
  if (r.kind !== 'node')
    throw new ArboristError(
      'usage',
      `'${line(id, 60)}' is a session, not a turn: give a turn's Bates id (tree lists them)`,
    );
  return r.node;
}

/** A turn as show gives it, before its texts are cut to a page. */
function shownTurn(shard: Shard, id: string) {
  const n = turnOf(shard, id);
  const q = stripControls(n.question);
  const a = stripControls(n.answer_text);
  const o = origin(shard.sourceOfSession(n.sid));
  const fields = {
    bates: n.bates,
    sid: n.sid,
    agent: n.source ? line(n.source, 40) : 'arborist',
    project: o.project,
    parent: n.parent_bates,
    created_at: line(n.created_at, 40),
    audit: line(n.audit, 80),
    children: n.n_children,
    depth: n.depth,
    ...citedOf(n.cited_titles),
    ...(n.cache_key ? { cache_key: line(n.cache_key, 200) } : {}),
    node_hash: n.node_hash,
    ...(n.damaged ? { damaged: n.damaged } : {}),
    question_chars: q.length,
    answer_chars: a.length,
  };
  return { fields, q, a };
}

/**
 * The turn show gave last, while the shard is unchanged (data_version: this connection never writes, so only other
 * connections' commits move it). Paging a 2 MB answer re-read and re-cleaned it for each page: ~75 ms a page.
 */
const lastShown = new WeakMap<Shard, { id: string; version: number; turn: ReturnType<typeof shownTurn> }>();

/**
 * One turn: every field, and its question and answer in full over as many calls as they need. The two texts are
 * read as one run (question, then answer); a cursor says where the next window of it starts.
 */
export function show(shard: Shard, args: ShowArgs) {
  const from = cursorOffset('show', { ...args });
  const version = shard.dataVersion();
  const last = lastShown.get(shard);
  const turn =
    last && last.id === args.bates && last.version === version ? last.turn : shownTurn(shard, args.bates);
  lastShown.set(shard, { id: args.bates, version, turn });
  const { fields, q, a } = turn;
  const total = q.length + a.length;
  if (from > total)
    throw new ArboristError('usage', 'cursor is past the end of this turn: call again without it');
  // Room for the texts: the budget less the fields, the range markers and the cursor.
  let room = BUDGET_BYTES - jsonBytes(fields) - 300;
  const qPart = from < q.length || from === 0 ? fitText(q.slice(from), room) : undefined;
  if (qPart !== undefined) room -= jsonBytes(qPart);
  const aFrom = Math.max(0, from - q.length);
  const aPart =
    from + (qPart?.length ?? 0) >= q.length && room > 0 ? fitText(a.slice(aFrom), room) : undefined;
  const end = aPart !== undefined ? q.length + aFrom + aPart.length : from + (qPart?.length ?? 0);
  // A page that moves on by nothing would hand out its own cursor again: an agent paging it would never stop.
  if (end === from && end < total) throw new Error(`show ${args.bates}: no room for text at ${from}`);
  const whole = from === 0 && end === total;
  return {
    ...fields,
    ...(qPart !== undefined ? { question: qPart } : {}),
    ...(aPart !== undefined ? { answer: aPart } : {}),
    ...(whole
      ? {}
      : {
          ...(qPart !== undefined ? { question_range: [from, from + qPart.length] } : {}),
          ...(aPart !== undefined ? { answer_range: [aFrom, aFrom + aPart.length] } : {}),
          ...(end < total ? { next_cursor: makeCursor('show', { ...args }, end) } : {}),
        }),
  };
}

/** A turn in a listing: who, when, and the start of its question and answer. */
function turnLine(n: TurnNode) {
  return {
    bates: n.bates,
    agent: n.source ? line(n.source, 40) : 'arborist',
    created_at: line(n.created_at, 40),
    question: line(n.question),
    answer: line(n.answer_text),
    children: n.n_children,
  };
}

/** The turns from the root down to a turn, across sessions (a fork's path runs through the session it forked). */
export function path(shard: Shard, args: PathArgs) {
  const nodes = shard.pathTo(args.bates.trim());
  const limit = pageOf(args.limit, 50, 200);
  const offset = cursorOffset('path', { ...args });
  const items = nodes.slice(offset, offset + limit).map(turnLine);
  const { page, next } = takePage(items, 0, limit, 300);
  const after = offset + (next ?? page.length);
  return {
    turns_in_path: nodes.length,
    from: offset,
    turns: page,
    ...(after < nodes.length ? { next_cursor: makeCursor('path', { ...args }, after) } : {}),
  };
}

/** A session's turns depth-first, each with its depth in the session; children in other sessions are marked. */
export function tree(shard: Shard, args: TreeArgs) {
  const s = shard.resolveSession(args.session.trim());
  const limit = pageOf(args.limit, 100, 500);
  const offset = cursorOffset('tree', { ...args });
  const outline = shard.sessionOutline(s.sid, LINE_CHARS);
  const items = outline.slice(offset, offset + limit).map((n) => ({
    bates: n.bates,
    depth: n.local_depth,
    created_at: line(n.created_at, 40),
    question: line(n.question),
    children: n.n_children,
    ...(n.cross ? { other_session: true } : {}),
  }));
  const { page, next } = takePage(items, 0, limit, 300);
  const after = offset + (next ?? page.length);
  // The session's title as list gives it (its label, else its agent's own title): an imported session has no label.
  const source = shard.sourceOfSession(s.sid);
  return {
    sid: s.sid,
    label: s.label === null ? null : line(s.label),
    title: line(s.label ?? source?.info.title ?? null) || null,
    ...origin(source),
    turns: outline.length,
    from: offset,
    tree: page,
    ...(after < outline.length ? { next_cursor: makeCursor('tree', { ...args }, after) } : {}),
  };
}

/**
 * Sessions, newest first: agent, project, title and first question, so an agent can pick one to open. A next page
 * goes on after the last session given (its cursor names it), not after a count: sessions a keeper writes while an
 * agent pages would otherwise push the ones already given onto the next page again.
 */
export function list(shard: Shard, args: ListArgs) {
  const limit = pageOf(args.limit, 20, 100);
  const { offset, anchor } = cursorAt('list', { ...args });
  const rows = anchor
    ? shard.newestSessions(limit + 1, { created_at: anchor[0], sid: anchor[1] })
    : shard.newestSessions(offset + limit + 1).slice(offset);
  const sids = rows.map((r) => r.sid);
  const origins = shard.sessionOriginsOf(sids);
  const firsts = new Map(shard.firstQuestions(sids, LINE_CHARS));
  const items = rows.slice(0, limit).map((s) => {
    const o = origins.get(s.sid);
    return {
      sid: s.sid,
      ...origin(o),
      title: line(s.label ?? o?.info.title ?? null) || null,
      turns: s.n_nodes,
      created_at: line(s.created_at, 40),
      first_question: line(firsts.get(s.sid)),
    };
  });
  const { page, next } = takePage(items, 0, limit, 300);
  const given = next ?? page.length;
  const last = rows[given - 1];
  return {
    sessions_total: shard.sessionCount(),
    from: offset,
    sessions: page,
    ...(given < rows.length && last
      ? { next_cursor: makeCursor('list', { ...args }, offset + given, [last.created_at, last.sid]) }
      : {}),
  };
}

/** The audit chain's state: every event's hash checked against its predecessor, and the head to quote elsewhere. */
export function check(shard: Shard) {
  const r = shard.chainCheck();
  return {
    ok: r.ok,
    events: r.events,
    head: r.head,
    first_broken_seq: r.first_broken_seq,
    ...(r.reason ? { reason: line(r.reason, 400) } : {}),
  };
}

/** A turn whole, for a resource read: clients that open a resource asked for it, so it is not paged. */
export function turnText(shard: Shard, bates: string): string {
  const n = turnOf(shard, bates);
  const o = origin(shard.sourceOfSession(n.sid));
  const head = [
    `bates: ${n.bates}`,
    `agent: ${n.source ? line(n.source, 40) : 'arborist'}`,
    ...(o.project ? [`project: ${o.project}`] : []),
    `created: ${line(n.created_at, 40)}`,
    `parent: ${n.parent_bates ?? '(root)'}`,
  ];
  return `${head.join('\n')}\n\n## Question\n\n${stripControls(n.question)}\n\n## Answer\n\n${stripControls(n.answer_text)}\n`;
}
