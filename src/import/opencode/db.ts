/**
 * The database generation (OpenCode 1.2+): `<data>/opencode.db`, SQLite through drizzle: `session` (one row a
 * session: id, project_id, parent_id, title, directory, time_created...), `message` (id, session_id, time_created,
 * `data` = the message's JSON without id and sessionID) and `part` (id, message_id, session_id, `data` = the part's
 * JSON without id, sessionID and messageID): anomalyco/opencode packages/opencode/src/session/session.sql.ts. The
 * file is opened read-only, never written, the way the llm reader opens logs.db (../sqlite-open.ts). One ParsedSource
 * per session, oldest first.
 */

import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { emptySource, type ImportProblem, type ParsedSource } from '../model.js';
import { OWN_COLUMN, oneLine, rowLine } from '../sql-rows.js';
import { openReadOnlyDb } from '../sqlite-open.js';
import { sessionSource } from './links.js';
import {
  FORK_TITLE,
  isJson,
  type Json,
  type OcMessage,
  type OcPart,
  type OcSession,
  type SessionSource,
  str,
} from './records.js';

type Row = Record<string, unknown>;

const ROWID = `${OWN_COLUMN}rowid`;

function only(file: string, reason: string): ParsedSource {
  return emptySource('opencode', file, [{ file, line: 0, reason }]);
}

/**
 * The columns of `table` when it is a table whose columns are stored: a view (a recursive one never ends) or a
 * virtual generated column (an expression run for every row read) is none of OpenCode's, and has none here.
 */
function columns(db: Database.Database, table: string): Set<string> {
  const kind = db.prepare('SELECT type FROM sqlite_master WHERE name = ?').pluck().get(table);
  if (kind !== 'table') return new Set();
  const cols = db.prepare('SELECT name, hidden FROM pragma_table_xinfo(?)').all(table) as {
    name: string;
    hidden: number;
  }[];
  if (cols.some((c) => c.hidden === 2)) return new Set();
  return new Set(cols.map((c) => c.name));
}

function hasAll(cols: Set<string>, names: string[]): boolean {
  return names.every((n) => cols.has(n));
}

/** The tables this reader needs, with the columns it reads. */
function isOpencodeDb(db: Database.Database): boolean {
  return (
    hasAll(columns(db, 'session'), ['id', 'parent_id', 'title', 'time_created']) &&
    hasAll(columns(db, 'message'), ['id', 'session_id', 'data']) &&
    hasAll(columns(db, 'part'), ['id', 'message_id', 'session_id', 'data'])
  );
}

function parseData(v: unknown): Json | null {
  if (typeof v !== 'string') return null;
  try {
    const o = JSON.parse(v);
    return isJson(o) ? o : null;
  } catch {
    return null;
  }
}

const num = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined);

/** The session row in the shape of the storage generation's session file (what links.ts and turns.ts read). */
function infoOf(row: Row): Json {
  const info: Json = { id: row.id, title: row.title ?? '', projectID: row.project_id };
  if (typeof row.directory === 'string') info.directory = row.directory;
  if (typeof row.parent_id === 'string' && row.parent_id !== '') info.parentID = row.parent_id;
  info.time = {
    created: num(row.time_created),
    updated: num(row.time_updated),
    archived: num(row.time_archived),
  };
  return info;
}

class DbSessions implements SessionSource {
  private readonly sessionQ;
  private readonly messagesQ;
  private readonly partsQ;
  private readonly forksQ;

  constructor(
    db: Database.Database,
    private readonly file: string,
  ) {
    this.sessionQ = db.prepare(`SELECT rowid AS ${ROWID}, * FROM session WHERE id = ?`);
    this.messagesQ = db.prepare(`SELECT rowid AS ${ROWID}, * FROM message WHERE session_id = ? ORDER BY id`);
    this.partsQ = db.prepare('SELECT * FROM part WHERE session_id = ? ORDER BY message_id, id');
    this.forksQ = db.prepare(
      `SELECT id FROM session WHERE id <> ? AND time_created <= ? AND (title = ? OR substr(title, 1, length(?) + 8) = ? || ' (fork #')
        ORDER BY time_created, id`,
    );
  }

  load(id: string): OcSession | undefined {
    const row = this.sessionQ.get(id) as Row | undefined;
    if (row === undefined) return undefined;
    const problems: ImportProblem[] = [];
    const parts = new Map<string, OcPart[]>();
    for (const p of this.partsQ.iterate(id) as Iterable<Row>) {
      const data = parseData(p.data);
      if (data === null) {
        problems.push({
          file: this.file,
          line: 0,
          reason: `part ${str(p.id)}: data is not a JSON object: skipped`,
        });
        continue;
      }
      const mid = str(p.message_id);
      const list = parts.get(mid) ?? [];
      list.push({ id: str(p.id), data, raw: rowLine('part', p) });
      parts.set(mid, list);
    }
    const messages: OcMessage[] = [];
    for (const m of this.messagesQ.iterate(id) as Iterable<Row>) {
      const line = Number(m[ROWID]);
      const data = parseData(m.data);
      if (data === null || typeof data.role !== 'string') {
        problems.push({
          file: this.file,
          line,
          reason: `message ${str(m.id)}: data is not a message: skipped`,
        });
        continue;
      }
      messages.push({
        id: str(m.id),
        data,
        raw: rowLine('message', m),
        file: this.file,
        line,
        parts: parts.get(str(m.id)) ?? [],
      });
    }
    return {
      id,
      info: infoOf(row),
      raw: rowLine('session', row),
      file: this.file,
      line: Number(row[ROWID]),
      messages,
      problems,
    };
  }

  forkCandidates(s: OcSession): OcSession[] {
    const base = FORK_TITLE.exec(str(s.info.title))?.[1] ?? '';
    const created = num((s.info.time as Json | undefined)?.created) ?? Number.MAX_SAFE_INTEGER;
    const ids = this.forksQ.pluck().all(s.id, created, base, base, base) as string[];
    return ids.map((i) => this.load(i)).filter((o): o is OcSession => o !== undefined);
  }
}

/** Every session of the database, oldest first, each read when reached (memory bounded by one session). */
export function* readDb(file: string): Generator<ParsedSource> {
  try {
    const st = statSync(file);
    // An empty file is an empty SQLite database: none of OpenCode's tables (a FIFO is refused by the opener).
    if (st.isFile() && st.size === 0) {
      yield only(file, 'not an OpenCode database');
      return;
    }
  } catch {
    // openReadOnlyDb says why it cannot be opened
  }
  const open = openReadOnlyDb(file, 'an OpenCode database');
  if (!open.ok) {
    yield only(file, open.reason);
    return;
  }
  const { db } = open.opened;
  let pending: ImportProblem[] = [];
  try {
    if (!isOpencodeDb(db)) {
      yield only(file, 'not an OpenCode database');
      return;
    }
    const v2 =
      columns(db, 'session_message').size > 0
        ? Number(db.prepare('SELECT count(*) FROM session_message').pluck().get())
        : 0;
    if (v2 > 0)
      pending.push({
        file,
        line: 0,
        reason: `${v2} rows of session_message (OpenCode's newer message log) are not imported`,
      });
    const sessions = new DbSessions(db, file);
    for (const id of db
      .prepare('SELECT id FROM session ORDER BY time_created, id')
      .pluck()
      .iterate() as Iterable<string>) {
      const s = sessions.load(id);
      if (s === undefined) continue;
      const out = sessionSource(s, sessions, file);
      if (pending.length > 0) {
        out.problems.unshift(...pending);
        pending = [];
      }
      if (out.turns.length > 0 || out.problems.length > 0) yield out;
    }
    if (pending.length > 0) yield emptySource('opencode', file, pending);
  } catch (e) {
    // A file that opens but breaks while read (a corrupt page, a truncated copy): reported, never thrown.
    const reason = `cannot read: ${oneLine((e as Error).message ?? String(e))}`;
    yield emptySource('opencode', file, [...pending, { file, line: 0, reason }]);
  } finally {
    open.opened.close();
  }
}
