import type Database from 'better-sqlite3';
import { cachedStatement } from './db/statements.js';
import { badInput, notFound } from './errors.js';
import { randomId } from './ids.js';
import { SESSION_COLUMNS, type Session, type SessionRow, toSession } from './rows.js';

/** Reading sessions: by sid, by label, all of them. Creating one is Shard.createSession (a write with its event). */

const BY_SID = `SELECT ${SESSION_COLUMNS} FROM sessions WHERE sid = ?`;
const BY_LABEL = `SELECT ${SESSION_COLUMNS} FROM sessions WHERE label = ?`;
const ALL = `SELECT ${SESSION_COLUMNS} FROM sessions ORDER BY created_at, sid`;
const SUMMARIES = 'SELECT sid, label, created_at, n_nodes FROM sessions ORDER BY created_at DESC, sid DESC';
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
  throw notFound(`no session '${x}'`);
}
