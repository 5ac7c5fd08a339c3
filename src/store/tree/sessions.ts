import type Database from 'better-sqlite3';
import { badInput, notFound } from '../base/errors.js';
import type { EventPayloads } from '../chain/events.js';
import type { AuditLog } from '../chain/log.js';
import { cachedStatement } from '../db/statements.js';
import { canon, sessionRoot } from '../model/hash.js';
import { parseBates, randomId, SID_RE } from '../model/ids.js';
import { SESSION_COLUMNS, type Session, type SessionRow, toSession } from '../model/rows.js';
import { type SessionSourceInfo, sessionForSource } from '../write/sources.js';
import { cleanLabel } from '../write/turns.js';

/** Reading sessions: by sid, by label, all of them. Creating one is Shard.createSession (a write with its event). */

const BY_SID = `SELECT ${SESSION_COLUMNS} FROM sessions WHERE sid = ?`;
const BY_LABEL = `SELECT ${SESSION_COLUMNS} FROM sessions WHERE label = ?`;
const ALL = `SELECT ${SESSION_COLUMNS} FROM sessions ORDER BY created_at, sid`;
const SUMMARIES = 'SELECT sid, label, created_at, n_nodes FROM sessions ORDER BY created_at DESC, sid DESC';
/** The same order from a place in it on: what a page of it that ended at (created_at, sid) is followed by. */
const SUMMARIES_BEFORE =
  'SELECT sid, label, created_at, n_nodes FROM sessions WHERE (created_at, sid) < (?, ?) ORDER BY created_at DESC, sid DESC LIMIT ?';
const ARCHIVED_SID = 'SELECT 1 FROM session_archives WHERE sid = ?';

export function getSession(db: Database.Database, sid: string): Session | undefined {
  const r = cachedStatement(db, BY_SID).get(sid) as SessionRow | undefined;
  return r ? toSession(r) : undefined;
}

export function listSessions(db: Database.Database): Session[] {
  return (cachedStatement(db, ALL).all() as SessionRow[]).map(toSession);
}

/** A session browser's row: a session without its root hash. */
export interface SessionListing {
  sid: string;
  label: string | null;
  created_at: string;
  n_nodes: number;
}

/** Every session, newest first, without its root hash: the light list a session browser shows. */
export function sessionSummaries(db: Database.Database): SessionListing[] {
  return cachedStatement(db, SUMMARIES).all() as SessionListing[];
}

/**
 * The `limit` newest sessions, in the order of sessionSummaries (its first rows): what a browser's first screen
 * shows before the rest is read. A walk of the sessions_newest index from its end, not a sort of every session.
 * With `before`, the ones after that session in the order (a next page that sessions made meanwhile do not shift).
 */
export function newestSessions(
  db: Database.Database,
  limit: number,
  before?: { created_at: string; sid: string },
): SessionListing[] {
  const n = Math.max(0, Math.floor(limit));
  if (before === undefined) return cachedStatement(db, `${SUMMARIES} LIMIT ?`).all(n) as SessionListing[];
  return cachedStatement(db, SUMMARIES_BEFORE).all(before.created_at, before.sid, n) as SessionListing[];
}

/** How many live sessions there are. */
export function sessionCount(db: Database.Database): number {
  return (cachedStatement(db, 'SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
}

const FIRST_QUESTION =
  'SELECT substr(CAST(question AS TEXT), 1, ?) AS q FROM nodes WHERE sid = ? AND seq = 1';

/**
 * The first turn's question of each session, cut to `chars` characters ('' for a session without one): what a
 * session browser shows for an unlabelled session. Only that column of one row each, not the whole turn.
 */
export function firstQuestions(
  db: Database.Database,
  sids: readonly string[],
  chars: number,
): [string, string][] {
  const st = cachedStatement(db, FIRST_QUESTION);
  return sids.map((sid) => [sid, (st.get(chars, sid) as { q: string | null } | undefined)?.q ?? '']);
}

/** True when `sid` names an archived session: its id stays reserved (archive.ts). */
export function isArchivedSid(db: Database.Database, sid: string): boolean {
  return cachedStatement(db, ARCHIVED_SID).get(sid) !== undefined;
}

/** A fresh random sid, neither live nor archived: archived sids are never minted again. */
export function newSid(db: Database.Database): string {
  for (;;) {
    const sid = randomId();
    if (!cachedStatement(db, BY_SID).get(sid) && !isArchivedSid(db, sid)) return sid;
  }
}

/** A session by sid, else by label (an ambiguous label is an error, not a guess). */
export function resolveSession(db: Database.Database, x: string): Session {
  const bySid = getSession(db, x);
  if (bySid) return bySid;
  const byLabel = cachedStatement(db, BY_LABEL).all(x) as SessionRow[];
  if (byLabel.length === 1) return toSession(byLabel[0]);
  if (byLabel.length > 1) {
    throw badInput(
      `label '${x}' names ${byLabel.length} sessions (${byLabel.map((s) => s.sid).join(', ')}); use a sid`,
    );
  }
  if (isArchivedSid(db, x)) throw notFound(`session '${x}' is archived (arborist archive restore ${x})`);
  // A turn's Bates id where a session was wanted (an agent passing a find hit to tree): say which session it is in.
  const turn = parseBates(x);
  if (turn && getSession(db, turn.sid))
    throw notFound(`'${x}' is a turn's Bates id, not a session: its session is ${turn.sid}`);
  throw notFound(`no session '${x}'`);
}

export interface NewSession {
  label?: string | null;
  created_at?: string;
  sid?: string;
  /** Another tool's session this one is made for (an import). */
  source?: { source: string; source_session: string; info?: SessionSourceInfo };
}

/**
 * Creates a session inside the caller's write, with its `session.create` event. A `source` maps another tool's
 * session to it: the mapping is recorded in the event (so verify sees it changed) and a second import of the same
 * source session finds this one.
 */
export function insertSession(db: Database.Database, audit: AuditLog, opts: NewSession): Session {
  const label = cleanLabel(opts.label);
  const sid = opts.sid ?? newSid(db);
  if (!SID_RE.test(sid)) throw badInput(`session id '${sid}' must be 1-32 lowercase letters or digits`);
  if (getSession(db, sid)) throw badInput(`session ${sid} already exists`);
  if (isArchivedSid(db, sid)) throw badInput(`session ${sid} is archived; its id stays reserved`);
  const created_at = opts.created_at ?? new Date().toISOString();
  const root = sessionRoot(sid, []);
  cachedStatement(db, 'INSERT INTO sessions (sid, label, created_at, session_root) VALUES (?, ?, ?, ?)').run(
    sid,
    label,
    created_at,
    root,
  );
  const body: EventPayloads['session.create'] = { label, session_root: root.toString('hex'), sid };
  if (opts.source) {
    const { source, source_session } = opts.source;
    if (typeof source !== 'string' || typeof source_session !== 'string' || source_session === '')
      throw badInput('a session source needs a source and a session id');
    if (sessionForSource(db, source, source_session))
      throw badInput(`${source} session ${source_session} was already imported`);
    const info_json = canon(opts.source.info ?? {});
    cachedStatement(
      db,
      'INSERT INTO session_sources (source, source_session, sid, info_json) VALUES (?, ?, ?, ?)',
    ).run(source, source_session, sid, info_json);
    body.source = { info_json, source, source_session };
  }
  audit.append('session.create', body);
  return { sid, label, created_at, n_nodes: 0, session_root: root.toString('hex') };
}
