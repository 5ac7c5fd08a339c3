/**
 * The SQLite generation (OpenClaw 2026.7.2+): `agents/<agent>/agent/openclaw-agent.sqlite`, opened read-only. Each
 * session's `transcript_events` rows (ordered by seq; `event_json`, or `event_zstd` + `event_utf8_bytes`) hold the
 * same entry shapes as the JSONL files and go through the same turn builder, so a session met in both generations
 * gets the same sourceIds, questions and answers. `session_transcript_archives` blobs are archived JSONL
 * transcripts; `session_nodes` rows are the session entries (key, current session, checkpoints, usage family).
 * One ParsedSource per session and per archive: memory is bounded by a session, not the file.
 */
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { checkSqliteFiles } from '../files.js';
import { append, emptySource, type ParsedEntry, type ParsedSource } from '../model.js';
import { sessionFromJsonl } from '../pi-format/jsonl.js';
import {
  type Header,
  holeFrom,
  MAX_LINE_BYTES,
  type Problems,
  problem,
  type Rec,
  recordFromText,
} from '../pi-format/records.js';
import { buildSession, type ForkSource, type SessionOutput } from '../pi-format/transcript.js';
import { isoOf } from '../times.js';
import { unzstd } from '../zstd.js';
import { classify } from './paths.js';
import { entryFromValue, type TurnResolver } from './store.js';

/** OpenClaw's own bound on one compressed event (the CHECK on transcript_events). */
const MAX_EVENT_BYTES = 4 * 1024 * 1024;
/** A bound on one archived transcript, decompressed. */
const MAX_ARCHIVE_BYTES = 512 * 1024 * 1024;

type Row = Record<string, unknown>;

const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A row as JSON for `raw`: blobs as base64. */
function rowJson(row: Row): string {
  const o: Row = {};
  for (const [k, v] of Object.entries(row))
    o[k] = Buffer.isBuffer(v) ? v.toString('base64') : typeof v === 'bigint' ? Number(v) : v;
  return JSON.stringify(o);
}

function num(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'bigint') return Number(v);
  return null;
}

/** One row's event text, or null (reported). */
function eventText(row: Row, line: number, p: Problems): { text: string } | { hole: Rec | null } {
  if (typeof row.event_json === 'string') return { text: row.event_json };
  const z = row.event_zstd;
  if (!Buffer.isBuffer(z)) {
    problem(p, line, 'row has neither event_json nor event_zstd; skipped');
    return { hole: null };
  }
  const size = num(row.event_utf8_bytes);
  if (size === null || size < 1 || size > MAX_EVENT_BYTES || z.length > MAX_EVENT_BYTES) {
    problem(
      p,
      line,
      `compressed event with a bad size (event_utf8_bytes ${String(row.event_utf8_bytes)}); skipped`,
    );
    return { hole: null };
  }
  let bytes: Buffer;
  try {
    bytes = unzstd(z, size);
  } catch (e) {
    problem(p, line, `compressed event: ${e instanceof Error ? e.message : String(e)}; skipped`);
    return { hole: null };
  }
  if (bytes.length !== size)
    problem(p, line, `compressed event is ${bytes.length} bytes, event_utf8_bytes says ${size}`);
  try {
    return { text: fatal.decode(bytes) };
  } catch {
    problem(p, line, 'compressed event is not valid UTF-8; its content is skipped');
    return { hole: holeFrom(bytes.toString('utf8', 0, 4096), line) };
  }
}

interface NodeInfo {
  key: string;
  forkSession: string | null;
  forkEntry: string | null;
  title: string | null;
}

class AgentDb {
  readonly db: Database.Database;
  readonly tables: Set<string>;
  private nodes: Map<string, NodeInfo> | null = null;
  private cache = new Map<string, SessionOutput | null>();

  constructor(readonly file: string) {
    try {
      checkSqliteFiles(file); // SQLite's own open would block on a FIFO
      this.db = new Database(file, { readonly: true, fileMustExist: true });
      this.tables = new Set(
        this.db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all() as string[],
      );
    } catch (e) {
      throw new Error(
        `cannot open ${file} as SQLite: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`,
      );
    }
  }

  columns(table: string): Set<string> {
    return new Set(this.db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[]);
  }

  /** session_nodes by current session id (one row per session key: small). */
  node(sessionId: string): NodeInfo | undefined {
    if (!this.nodes) {
      this.nodes = new Map();
      if (this.tables.has('session_nodes')) {
        const cols = this.columns('session_nodes');
        const pick = (c: string) => (cols.has(c) ? c : `NULL AS ${c}`);
        const sql = `SELECT session_key, current_session_id, ${pick('fork_source_session_id')}, ${pick('fork_source_entry_id')}, ${pick('label')}, ${pick('display_name')} FROM session_nodes`;
        for (const r of this.db.prepare(sql).iterate() as Iterable<Row>) {
          if (typeof r.current_session_id !== 'string') continue;
          this.nodes.set(r.current_session_id, {
            key: String(r.session_key),
            forkSession:
              typeof r.fork_source_session_id === 'string' && r.fork_source_session_id
                ? r.fork_source_session_id
                : null,
            forkEntry:
              typeof r.fork_source_entry_id === 'string' && r.fork_source_entry_id
                ? r.fork_source_entry_id
                : null,
            title:
              (typeof r.label === 'string' && r.label) ||
              (typeof r.display_name === 'string' && r.display_name) ||
              null,
          });
        }
      }
    }
    return this.nodes.get(sessionId);
  }

  sessionIds(): string[] {
    const cols = this.columns('transcript_events');
    const order = cols.has('created_at') ? 'MIN(created_at), session_id' : 'session_id';
    return this.db
      .prepare(`SELECT session_id FROM transcript_events GROUP BY session_id ORDER BY ${order}`)
      .pluck()
      .all()
      .filter((s): s is string => typeof s === 'string');
  }

  windowCreatedAt(sessionId: string): string | undefined {
    if (!this.tables.has('session_windows')) return undefined;
    const v = this.db
      .prepare('SELECT created_at FROM session_windows WHERE session_id = ?')
      .pluck()
      .get(sessionId);
    return isoOf(num(v)) ?? undefined;
  }

  /** Reads one session's rows into a session and its turns. */
  readSession(sessionId: string, p: Problems, withFork: boolean): { out: SessionOutput; rows: number } {
    const records: Rec[] = [];
    let header: Header | null = null;
    let rows = 0;
    let firstCreated: number | null = null;
    const stmt = this.db.prepare('SELECT * FROM transcript_events WHERE session_id = ? ORDER BY seq');
    for (const row of stmt.iterate(sessionId) as Iterable<Row>) {
      rows++;
      const line = num(row.seq) ?? rows;
      if (firstCreated === null) firstCreated = num(row.created_at);
      const ev = eventText(row, line, p);
      if ('hole' in ev) {
        if (ev.hole) records.push(ev.hole);
        continue;
      }
      if (Buffer.byteLength(ev.text) > MAX_LINE_BYTES) {
        problem(p, line, `event of more than ${MAX_LINE_BYTES} bytes; its content is skipped`);
        const hole = holeFrom(ev.text, line);
        if (hole) records.push(hole);
        continue;
      }
      const r = recordFromText(ev.text, line, rowJson(row), p, false);
      if (r.kind === 'header') {
        if (header === null && records.length === 0) {
          header = r.header;
          if (header.id !== sessionId) {
            problem(
              p,
              line,
              `session header id ${header.id} differs from the row's session_id; session_id is used`,
            );
            header = { ...header, id: sessionId };
          }
        } else problem(p, line, 'a second session header; skipped');
      } else if (r.kind === 'entry') records.push(r.rec);
    }
    const node = this.node(sessionId);
    let fork: ForkSource | undefined;
    if (withFork && node?.forkSession && node.forkSession !== sessionId) {
      fork = { sessionId: node.forkSession, entryId: node.forkEntry, parentTurn: null };
      const inHere = node.forkEntry !== null && records.some((r) => r.id === node.forkEntry);
      if (!inHere) fork.parentTurn = this.forkParent(node.forkSession, node.forkEntry, p);
    }
    const out = buildSession({
      header,
      fallbackSessionId: sessionId,
      records,
      p,
      growing: true,
      fork,
      fallbackCreatedAt: this.windowCreatedAt(sessionId) ?? isoOf(firstCreated) ?? undefined,
      title: node?.title ?? undefined,
    });
    return { out, rows };
  }

  /** A session read quietly, for lookups (fork parents, checkpoint turns); a few are cached. */
  lookup(sessionId: string): SessionOutput | null {
    if (this.cache.has(sessionId)) return this.cache.get(sessionId)!;
    const quiet: Problems = { file: this.file, prefix: '', list: [] };
    const { out, rows } = this.readSession(sessionId, quiet, false);
    const v = rows === 0 ? null : out;
    if (this.cache.size >= 4) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(sessionId, v);
    return v;
  }

  /** The sourceId of the source session's turn that holds the fork entry (its newest turn when no entry is named). */
  private forkParent(source: string, entryId: string | null, p: Problems): string | null {
    const s = this.lookup(source);
    if (s) {
      if (entryId === null) return s.turns.length > 0 ? s.turns[s.turns.length - 1].sourceId : null;
      const prompt = s.turnOf(entryId);
      if (prompt) return `${source}/${prompt}`;
    }
    problem(
      p,
      0,
      `fork source ${source}/${entryId ?? '(tail)'} is not in this database; linked to the entry itself`,
    );
    return entryId ? `${source}/${entryId}` : null;
  }

  resolver(): TurnResolver {
    return (sessionId, entryId) => {
      const s = this.lookup(sessionId);
      const prompt = s?.turnOf(entryId);
      return prompt ? `${sessionId}/${prompt}` : null;
    };
  }
}

function source(file: string, p: Problems): ParsedSource {
  return emptySource('openclaw', file, p.list);
}

function* archives(a: AgentDb): Generator<ParsedSource> {
  if (!a.tables.has('session_transcript_archives')) return;
  // Keys first, then one row at a time: a connection cannot run a query while an iterator is open, and each blob
  // is held only while its archive is read.
  const keys = a.db
    .prepare(
      'SELECT session_id, generation FROM session_transcript_archives ORDER BY created_at, session_id, generation',
    )
    .all() as Row[];
  const one = a.db.prepare(
    'SELECT * FROM session_transcript_archives WHERE session_id = ? AND generation = ?',
  );
  for (const k of keys) {
    const row = one.get(k.session_id, k.generation) as Row | undefined;
    if (!row) continue;
    const sid = String(row.session_id);
    const p: Problems = { file: a.file, prefix: `archive ${sid}/${String(row.generation)}: `, list: [] };
    const src = source(a.file, p);
    const reason = row.reason;
    const blob = row.archive_blob;
    if ((reason !== 'reset' && reason !== 'deleted') || !Buffer.isBuffer(blob)) {
      problem(p, 0, `archive row with reason ${String(reason)} or without a blob; skipped`);
      yield src;
      continue;
    }
    let body: Buffer;
    try {
      if (row.encoding === 'zstd') body = unzstd(blob, MAX_ARCHIVE_BYTES);
      else if (row.encoding === 'identity') body = blob;
      else throw new Error(`unknown encoding ${String(row.encoding)}`);
    } catch (e) {
      problem(p, 0, `${e instanceof Error ? e.message : String(e)}; skipped`);
      yield src;
      continue;
    }
    if (typeof row.archive_sha256 === 'string') {
      const sums = [
        createHash('sha256').update(body).digest('hex'),
        createHash('sha256').update(blob).digest('hex'),
      ];
      if (!sums.includes(row.archive_sha256.toLowerCase()))
        problem(p, 0, 'archive_sha256 does not match the archive');
    }
    const named = typeof row.archive_name === 'string' ? classify(row.archive_name) : null;
    const at =
      (named?.kind === 'archive' ? named.at : null) ??
      isoOf(num(row.created_at)) ??
      new Date(0).toISOString();
    const out = sessionFromJsonl(body, p, {
      tool: 'OpenClaw',
      fallbackSessionId: sid,
      archived: { reason, at },
      growing: false,
    });
    if (out) {
      src.sessions.push(out.session);
      append(src.turns, out.turns);
    }
    yield src;
  }
}

function entries(a: AgentDb): ParsedSource | null {
  if (!a.tables.has('session_nodes')) return null;
  const p: Problems = { file: a.file, prefix: 'session_nodes: ', list: [] };
  const src = source(a.file, p);
  const resolve = a.resolver();
  let n = 0;
  const sql = 'SELECT session_key, current_session_id, entry_json FROM session_nodes ORDER BY session_key';
  // All rows first (one per session key): resolving checkpoint turns queries the same connection.
  for (const row of a.db.prepare(sql).all() as Row[]) {
    const line = ++n;
    const key = String(row.session_key);
    let value: unknown;
    try {
      value = typeof row.entry_json === 'string' ? JSON.parse(row.entry_json) : null;
    } catch {
      value = null;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problem(p, line, `entry_json of ${key} is not a JSON object; only the current session is kept`);
      value = {};
    }
    const v = value as Record<string, unknown>;
    if (typeof row.current_session_id === 'string' && row.current_session_id !== '')
      v.sessionId = row.current_session_id;
    const e: ParsedEntry | null = entryFromValue(key, v, () => line, p, resolve);
    if (e) src.entries.push(e);
  }
  return src;
}

export function* readSqlite(file: string): Generator<ParsedSource> {
  const a = new AgentDb(file);
  try {
    if (!a.tables.has('transcript_events')) {
      const p: Problems = { file, prefix: '', list: [] };
      problem(p, 0, 'no transcript_events table: not an OpenClaw agent database');
      yield source(file, p);
      return;
    }
    for (const sid of a.sessionIds()) {
      const p: Problems = { file, prefix: `session ${sid}: `, list: [] };
      const { out } = a.readSession(sid, p, true);
      const src = source(file, p);
      src.sessions.push(out.session);
      append(src.turns, out.turns);
      yield src;
    }
    yield* archives(a);
    if (a.tables.has('session_transcript_cold_archives')) {
      const cold = Number(
        a.db.prepare('SELECT COUNT(*) FROM session_transcript_cold_archives').pluck().get(),
      );
      if (cold > 0) {
        const p: Problems = { file, prefix: '', list: [] };
        problem(p, 0, `${cold} cold-archived transcript(s) in session_transcript_cold_archives are not read`);
        yield source(file, p);
      }
    }
    const e = entries(a);
    if (e) yield e;
  } finally {
    a.db.close();
  }
}
