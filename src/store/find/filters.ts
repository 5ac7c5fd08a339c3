import type Database from 'better-sqlite3';
import { cachedStatement } from '../db/statements.js';
import { agentOf, type SessionSource, sessionOrigins } from '../write/sources.js';

/**
 * Filters typed in the find box and in `arborist find` (docs/find.md, "Filters"): `agent:codex`, `project:NAME`,
 * `after:2026-11-01`, `before:2026-12-01`, `in:question`. They are cut out of the query text here and applied by
 * the candidate queries themselves (candidates.ts, a condition on each FTS5 match as it is walked newest first), so
 * the hits are the newest matches that pass, never a page of hits thinned afterwards.
 */

export const FILTER_NAMES = ['agent', 'project', 'after', 'before', 'in'] as const;
export type FilterName = (typeof FILTER_NAMES)[number];

/** What a query asked for, before it is resolved against the shard. */
export interface QueryFilters {
  agent?: string;
  project?: string;
  /** Inclusive lower bound on a turn's created_at (an ISO prefix: a day starts at its midnight, UTC). */
  after?: string;
  /** Exclusive upper bound on created_at. */
  before?: string;
  in?: 'question';
}

export interface ParsedQuery {
  /** The query without its filters. */
  text: string;
  filters: QueryFilters;
  /** One line each: a value that cannot be used. */
  problems: string[];
  /**
   * Names typed as filters that are none (`agnt:x`), lower-cased: their tokens are searched as words. Said by the
   * CLI, the find box and the MCP server with the filter most likely meant (src/text/suggest.ts, which the store may
   * not import).
   */
  unknownFilters: string[];
  /** A filter's value is unusable: nothing is searched (a wrong filter must not widen the search silently). */
  invalid: boolean;
  /** The query ends in a word being typed (not a filter, not a space): that word is the prefix. */
  endsInWord: boolean;
}

/** `name:value`, the value not starting with ':' or '/' (so `std::vector` and `http://x` stay text). */
const TOKEN = /^([a-z]+):([^\s:/][^\s]*)$/i;
const DAY = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/;

/** An ISO day (or month) as the created_at prefix it stands for, or null when it is no calendar date. */
function day(v: string): string | null {
  const m = DAY.exec(v);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), m[3] === undefined ? 1 : Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  if (t.getUTCFullYear() !== y || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d) return null;
  // `before:2026-11` means before November; `after:2026-11` from its first day: both are the month's start.
  return t.toISOString().slice(0, 10);
}

/** Cuts the filters out of a query. Pure: agents and projects are checked against the shard by resolveFilters. */
export function parseQuery(query: string): ParsedQuery {
  const filters: QueryFilters = {};
  const problems: string[] = [];
  const unknownFilters: string[] = [];
  let invalid = false;
  const words: string[] = [];
  let endsInWord = false;
  for (const tok of query.split(/(\s+)/)) {
    if (tok !== '') endsInWord = false;
    const m = TOKEN.exec(tok);
    if (!m) {
      if (tok !== '' && !/^\s+$/.test(tok)) endsInWord = true;
      words.push(tok);
      continue;
    }
    const name = m[1].toLowerCase();
    const value = m[2];
    switch (name) {
      case 'agent':
      case 'project':
        filters[name] = value;
        break;
      case 'after':
      case 'before': {
        const d = day(value);
        if (d === null) {
          problems.push(`${name}: wants a date like 2026-11-01, not '${value}'`);
          invalid = true;
        } else filters[name] = d;
        break;
      }
      case 'in':
        if (value.toLowerCase() === 'question') filters.in = 'question';
        else {
          problems.push(`in: takes 'question', not '${value}'`);
          invalid = true;
        }
        break;
      default:
        if (!unknownFilters.includes(name)) unknownFilters.push(name);
        words.push(tok);
        endsInWord = true;
    }
  }
  // A range no day is in finds nothing for certain: said, not searched (it read as "no turns match").
  if (filters.after !== undefined && filters.before !== undefined && filters.after >= filters.before) {
    problems.push(`after:${filters.after} is not before before:${filters.before}: no day is in both`);
    invalid = true;
  }
  return { text: words.join('').trim(), filters, problems, unknownFilters, invalid, endsInWord };
}

/** The session-level part of the filters, as the candidate queries apply it. */
export interface TurnFilter {
  /** Only turns of these sessions. */
  sids?: string[];
  /** No turns of these sessions (`agent:arborist`: sessions that were not imported). */
  notSids?: string[];
  after?: string;
  before?: string;
  /**
   * Turn ids the dates allow (node_days, db/migrations.ts 12): no turn created before `before` has a larger id, none
   * created on or after `after` a smaller one. FTS5 starts its newest-first walk at the one and stops at the other.
   */
  maxId?: number;
  minId?: number;
  questionOnly: boolean;
}

/** Largest id of a turn created before a day, smallest of one created on or after it (null: there is none). */
const MAX_ID_BEFORE = 'SELECT max(max_id) FROM node_days WHERE day < ?';
const MIN_ID_FROM = 'SELECT min(min_id) FROM node_days WHERE day >= ?';

/**
 * The id bounds of the date filters. A turn's created_at is before a day exactly when its first ten characters
 * are (the day is ten characters), so the bounds read per day are exact, and an id past them cannot pass.
 */
function idBounds(db: Database.Database, f: QueryFilters): Pick<TurnFilter, 'maxId' | 'minId'> {
  const out: Pick<TurnFilter, 'maxId' | 'minId'> = {};
  if (f.before !== undefined)
    out.maxId = (cachedStatement(db, MAX_ID_BEFORE, 'pluck').get(f.before) as number | null) ?? 0;
  if (f.after !== undefined)
    out.minId =
      (cachedStatement(db, MIN_ID_FROM, 'pluck').get(f.after) as number | null) ?? Number.MAX_SAFE_INTEGER;
  return out;
}

/** The name of sessions asked in arborist itself, which have no source. */
export const ARBORIST_AGENT = 'arborist';

/**
 * Resolves agent and project against the shard's imported sessions (session_sources, one small pass). An agent is
 * named by its source kind (`claude`, `codex`) or a prefix naming one kind; `arborist` means sessions asked here.
 * A project matches when its name or working directory contains the text (case folded).
 */
export function resolveFilters(
  db: Database.Database,
  f: QueryFilters,
  version: string,
): { filter: TurnFilter | null; problems: string[] } {
  const problems: string[] = [];
  const base: TurnFilter = {
    after: f.after,
    before: f.before,
    ...idBounds(db, f),
    questionOnly: f.in === 'question',
  };
  if (f.agent === undefined && f.project === undefined) {
    const any = base.after !== undefined || base.before !== undefined || base.questionOnly;
    return { filter: any ? base : null, problems };
  }
  const origins = originList(db, version);
  let sids: string[] | undefined;
  let notSids: string[] | undefined;
  if (f.agent !== undefined) {
    const want = f.agent.toLowerCase();
    const kinds = [...new Set(origins.map((o) => agentOf(o) ?? o.source)), ARBORIST_AGENT].sort();
    const kind = kinds.includes(want) ? want : pickOne(kinds.filter((k) => k.startsWith(want)));
    if (kind === undefined) {
      problems.push(`no agent '${f.agent}' in this shard (agents: ${kinds.join(', ')})`);
      return { filter: null, problems };
    }
    if (kind === ARBORIST_AGENT)
      notSids = origins.filter((o) => agentOf(o) !== ARBORIST_AGENT).map((o) => o.sid);
    else sids = origins.filter((o) => (agentOf(o) ?? o.source) === kind).map((o) => o.sid);
  }
  if (f.project !== undefined) {
    const want = f.project.toLowerCase();
    const inProject = origins
      .filter((o) => `${o.info.project ?? ''}\n${o.info.cwd ?? ''}`.toLowerCase().includes(want))
      .map((o) => o.sid);
    if (notSids !== undefined) {
      // arborist's own sessions have no project: none of them can match
      sids = [];
      notSids = undefined;
    } else if (sids === undefined) sids = inProject;
    else {
      const keep = new Set(inProject);
      sids = sids.filter((s) => keep.has(s));
    }
  }
  return { filter: { ...base, sids, notSids }, problems };
}

/** The imported sessions' origins, read once per shard version: a filter typed once serves every keystroke. */
const originsCache = new WeakMap<Database.Database, { version: string; list: SessionSource[] }>();
function originList(db: Database.Database, version: string): SessionSource[] {
  const c = originsCache.get(db);
  if (c && c.version === version) return c.list;
  const list = [...sessionOrigins(db).values()];
  originsCache.set(db, { version, list });
  return list;
}

function pickOne(xs: string[]): string | undefined {
  return xs.length === 1 ? xs[0] : undefined;
}

/**
 * The filter as a condition over `n` (a nodes row) with named parameters. Only these fixed fragments are ever
 * joined, so the statement cache holds a handful of shapes, and user text is only ever a bound parameter.
 */
export function filterSql(
  f: TurnFilter | null,
  scope?: string,
): { where: string; params: Record<string, unknown>; bounds: string } {
  const parts: string[] = [];
  const params: Record<string, unknown> = {};
  if (scope !== undefined) {
    parts.push('n.sid = @scope');
    params.scope = scope;
  }
  if (f?.sids !== undefined) {
    parts.push('n.sid IN (SELECT value FROM json_each(@sids))');
    params.sids = JSON.stringify(f.sids);
  }
  if (f?.notSids !== undefined) {
    parts.push('n.sid NOT IN (SELECT value FROM json_each(@notSids))');
    params.notSids = JSON.stringify(f.notSids);
  }
  if (f?.after !== undefined) {
    parts.push('n.created_at >= @after');
    params.after = f.after;
  }
  if (f?.before !== undefined) {
    parts.push('n.created_at < @before');
    params.before = f.before;
  }
  // The ids the dates allow, as a range on the id: a walk of nodes by id (newestPassing) seeks to it.
  if (f?.maxId !== undefined) {
    parts.push('n.id <= @maxId');
    params.maxId = f.maxId;
  }
  if (f?.minId !== undefined) {
    parts.push('n.id >= @minId');
    params.minId = f.minId;
  }
  return { where: parts.join(' AND '), params, bounds: rowidBounds(f, 'f') };
}

/**
 * The same id bounds as a condition on an FTS5 table's rowid (`alias.rowid`): SQLite does not carry a range on
 * `n.id` across the join to the FTS5 walk, which starts at the newest match unless told so itself.
 */
export function rowidBounds(f: TurnFilter | null, alias: string): string {
  const parts: string[] = [];
  if (f?.maxId !== undefined) parts.push(`${alias}.rowid <= @maxId`);
  if (f?.minId !== undefined) parts.push(`${alias}.rowid >= @minId`);
  return parts.map((p) => ` AND ${p}`).join('');
}

/** Ids among `ids` whose turns pass the filter (for the few Bates and label hits, which skip FTS5). */
export function passing(
  db: Database.Database,
  ids: number[],
  f: TurnFilter | null,
  scope?: string,
): number[] {
  const { where, params } = filterSql(f, scope);
  if (where === '' || ids.length === 0) return ids;
  const keep = new Set(
    cachedStatement(
      db,
      `SELECT n.id FROM nodes n WHERE n.id IN (SELECT value FROM json_each(@ids)) AND ${where}`,
      'pluck',
    ).all({ ...params, ids: JSON.stringify(ids) }) as number[],
  );
  return ids.filter((id) => keep.has(id));
}
