import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { AuditLog, type ChainCheck, formatHead } from './audit/log.js';
import { describeSqliteError, type OpenOptions, openDatabase } from './db/open.js';
import { migrate, SCHEMA_VERSION } from './db/schema.js';
import { cachedStatement, type RowMode } from './db/statements.js';
import { ArboristError, badInput, notFound } from './errors.js';
import { type FindHit, type FindOptions, findTurns } from './find/find.js';
import { type SearchOptions, type SearchResult, search } from './find/search.js';
import { hex, nodeHash, sessionRoot, subtreeHash } from './hash.js';
import { Merkle } from './merkle.js';
import { type OutlineNode, sessionOutline, sessionTree, type TreeNode } from './outline.js';
import {
  NODE_COLUMNS,
  NODE_FROM,
  type NodeRow,
  SESSION_COLUMNS,
  type Session,
  type SessionRow,
  type TurnNode,
  toSession,
  toTurnNode,
} from './rows.js';
import { type VerifyReport, verifyShard } from './verify.js';

export interface NewTurn {
  question: string;
  answer_text: string;
  cited_titles?: string[];
  n_cited_sources?: number;
  audit?: string;
  cache_key?: string | null;
  /** The session the turn belongs to (sid or label). Absent: the parent's session, or a new session. */
  session?: string;
  /** Bates id of the parent, in any session. */
  parent?: string;
  /** Label for the new session when one is created. */
  label?: string;
  source?: string | null;
  source_id?: string | null;
  created_at?: string;
}

export interface AddedTurn {
  bates: string;
  sid: string;
  seq: number;
  parent_bates: string | null;
  node_hash: string;
  subtree_hash: string;
  session_root: string;
  created_session: boolean;
}

export type Resolved = { kind: 'node'; node: TurnNode } | { kind: 'session'; session: Session };

/** WAL size past which a commit checkpoints inline (a long batch that never idles). */
const WAL_INLINE_BYTES = 64 * 1024 * 1024;
/** WAL size past which idle() checkpoints. */
const WAL_IDLE_BYTES = 16 * 1024 * 1024;
/** Turns waiting for FTS5 past which a commit indexes them at once (see Shard.deferIndexing). */
const FTS_BATCH = 256;

function walBytes(path: string): number {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}

/** Shared with the maintenance code through the statement cache. */
export const ARCHIVED_SID = 'SELECT 1 FROM session_archives WHERE sid = ?';

const BATES_RE = /^([a-z0-9]+)-(\d{6,})$/;
const SID_RE = /^[a-z0-9]{1,32}$/;
const MAX_TEXT = 16 * 1024 * 1024;

export function formatBates(sid: string, seq: number): string {
  return `${sid}-${String(seq).padStart(6, '0')}`;
}

export function parseBates(x: string): { sid: string; seq: number } | null {
  const m = BATES_RE.exec(x);
  return m ? { sid: m[1], seq: Number(m[2]) } : null;
}

/** Text is stored as given, except that it must be well-formed Unicode to have a canonical JSON form. */
function cleanText(field: string, v: unknown, allowEmpty: boolean): string {
  if (typeof v !== 'string') throw badInput(`${field} must be text`);
  if (!allowEmpty && v.trim() === '') throw badInput(`${field} is empty`);
  if (v.length > MAX_TEXT) throw badInput(`${field} is larger than 16 MiB`);
  return v.toWellFormed();
}

/** The shard: every session, turn and audit event, in one SQLite file. Synchronous, like better-sqlite3. */
export class Shard {
  readonly audit: AuditLog;
  private readonly st: Record<string, Database.Statement>;
  /** The error of a nested write that failed after changing something: the outer write must roll back. */
  private doomed: unknown = undefined;
  /** Subtree hashes and session roots: the one ripple (merkle.ts). */
  readonly merkle: Merkle;

  private constructor(
    readonly db: Database.Database,
    readonly path: string,
    readonly readonly: boolean,
  ) {
    this.audit = new AuditLog(db);
    this.merkle = new Merkle(db);
    const q = (sql: string, mode?: RowMode) => cachedStatement(db, sql, mode);
    this.st = {
      totalChanges: q('SELECT total_changes()', 'pluck'),
      sessionBySid: q(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE sid = ?`),
      sessionsByLabel: q(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE label = ?`),
      sessions: q(`SELECT ${SESSION_COLUMNS} FROM sessions ORDER BY created_at, sid`),
      insertSession: q('INSERT INTO sessions (sid, label, created_at, session_root) VALUES (?, ?, ?, ?)'),
      // OR FAIL, not the default ABORT: an ABORT statement with RETURNING opens a statement journal, and opening one
      // makes FTS5 flush its pending rows to disk, i.e. one tiny FTS segment per turn in a batch of adds (~60 us a
      // turn, then merges). For this one-row update FAIL and ABORT undo exactly the same (nothing).
      mintSeq: q(
        'UPDATE OR FAIL sessions SET next_seq = next_seq + 1, n_nodes = n_nodes + 1 WHERE sid = ? RETURNING next_seq - 1 AS seq',
        'pluck',
      ),
      nodeByBates: q(`SELECT ${NODE_COLUMNS} FROM ${NODE_FROM} WHERE n.bates = ?`),
      nodeById: q(`SELECT ${NODE_COLUMNS} FROM ${NODE_FROM} WHERE n.id = ?`),
      nodeBySeq: q(`SELECT ${NODE_COLUMNS} FROM ${NODE_FROM} WHERE n.sid = ? AND n.seq = ?`),
      parentInfo: q('SELECT id, sid, depth FROM nodes WHERE bates = ?'),
      insertNode: q(`INSERT INTO nodes (bates, sid, seq, parent_id, is_top, depth, question, answer_text,
        cited_titles_json, n_cited_sources, audit, cache_key, source, source_id, created_at, node_hash)
        VALUES (@bates, @sid, @seq, @parent_id, @is_top, @depth, @question, @answer_text, @cited_titles_json,
        @n_cited_sources, @audit, @cache_key, @source, @source_id, @created_at, @node_hash)`),
      insertSubtree: q('INSERT INTO node_subtree (id, subtree_hash) VALUES (?, ?)'),
      insertPending: q('INSERT INTO fts_pending (id) VALUES (?)'),
      pendingCount: q('SELECT count(*) FROM fts_pending', 'pluck'),
      flushPending: q(`INSERT INTO nodes_fts (rowid, question, answer_text, cited_titles_json)
        SELECT n.id, n.question, n.answer_text, n.cited_titles_json FROM fts_pending p JOIN nodes n ON n.id = p.id
        ORDER BY p.id`),
      clearPending: q('DELETE FROM fts_pending'),
      insertFts: q(
        'INSERT INTO nodes_fts (rowid, question, answer_text, cited_titles_json) VALUES (?, ?, ?, ?)',
      ),
      bumpChildren: q('UPDATE nodes SET n_children = n_children + 1 WHERE id = ?'),
      children: q(`SELECT ${NODE_COLUMNS} FROM ${NODE_FROM} WHERE n.parent_id = ? ORDER BY n.sid, n.seq`),
      sessionNodes: q(`SELECT ${NODE_COLUMNS} FROM ${NODE_FROM} WHERE n.sid = ? ORDER BY n.seq`),
      branchPointsAll: q('SELECT bates, n_children FROM nodes WHERE n_children >= 2 ORDER BY sid, seq'),
      branchPointsOf: q('SELECT bates, n_children FROM nodes WHERE sid = ? AND n_children >= 2 ORDER BY seq'),
      byCacheKey: q(`SELECT ${NODE_COLUMNS} FROM ${NODE_FROM} WHERE n.cache_key = ? ORDER BY n.id`),
    };
  }

  /** Opens (creating when missing) and migrates a shard. Every failure is one ArboristError line. */
  static open(path: string, opts: OpenOptions = {}): Shard {
    const db = openDatabase(path, opts);
    try {
      if (!opts.readonly) {
        const version = db.pragma('user_version', { simple: true }) as number;
        if (version < SCHEMA_VERSION) {
          db.transaction(() => {
            const { from, to } = migrate(db);
            if (from !== to) {
              const log = new AuditLog(db);
              log.append(from === 0 ? 'shard.init' : 'shard.migrate', { from, to });
            }
          }).immediate();
        }
      }
      return new Shard(db, path, opts.readonly ?? false);
    } catch (err) {
      db.close();
      if (err instanceof ArboristError) throw err;
      throw describeSqliteError(path, err);
    }
  }

  close(): void {
    if (!this.db.open) return;
    try {
      if (!this.db.inTransaction) this.flushIndex();
    } catch {
      // A locked shard: the turns stay in fts_pending and the next writer indexes them.
    }
    this.db.close();
  }

  /**
   * Runs fn in a BEGIN IMMEDIATE transaction. A nested write joins the transaction already open instead of opening
   * a SAVEPOINT: FTS5 flushes its pending index data to disk at every savepoint, which made a batch of addTurn calls
   * inside one write() about four times slower (one tiny FTS segment per turn, then merges). The price: a nested
   * write that fails after it changed something cannot be undone on its own, so it dooms the outer transaction,
   * which then rolls back as a whole even if the caller catches the error. (A nested write that fails before
   * changing anything, e.g. on an unknown parent, leaves the outer transaction free to go on.)
   */
  write<T>(fn: () => T): T {
    if (this.readonly) throw new ArboristError('shard', `${this.path} is open read-only`);
    if (this.db.inTransaction) {
      const before = this.st.totalChanges.get() as number;
      try {
        return fn();
      } catch (err) {
        if ((this.st.totalChanges.get() as number) !== before) this.doomed ??= err;
        throw err;
      }
    }
    this.doomed = undefined;
    try {
      const out = this.db
        .transaction(() => {
          const out = fn();
          if (this.doomed !== undefined) throw this.doomed;
          return out;
        })
        .immediate();
      this.afterCommit();
      return out;
    } catch (err) {
      if (err instanceof ArboristError) throw err;
      if ((err as { code?: string }).code?.startsWith('SQLITE_')) throw describeSqliteError(this.path, err);
      throw err;
    }
  }

  private commits = 0;

  /**
   * Interactive processes (the TUI) set this: a new turn's FTS row waits in fts_pending and is indexed with others
   * in one batch (idle, FTS_BATCH waiting, before a search, an ask or an archive, on close). FTS5 writes a segment
   * per commit and merges segments inside commits; an add then paid ~0.05 ms for the first and, one in ~40,
   * 10-12 ms for the second. Off (the default), every add indexes its own row at once.
   */
  deferIndexing = false;

  /** Indexes every turn waiting in fts_pending, from any process. Cheap when none waits. */
  flushIndex(): number {
    if (this.readonly || (this.st.pendingCount.get() as number) === 0) return 0;
    return this.write(() => {
      const n = this.st.flushPending.run().changes;
      this.st.clearPending.run();
      return n;
    });
  }

  /**
   * SQLite's automatic checkpoint runs inside the commit that crosses 1000 WAL pages: an fsync'd 4 MB copy that
   * made one add in ~20 take 10-20 ms. Our connections turn it off (db.ts) and checkpoint here instead: when the
   * process is idle (`idle()`, called by the TUI), on close (SQLite's own last-connection checkpoint), and,
   * so the WAL cannot grow without bound in a long batch, inline once it passes WAL_INLINE_BYTES.
   */
  private afterCommit(): void {
    if (this.deferIndexing && (this.st.pendingCount.get() as number) >= FTS_BATCH) this.flushIndex();
    if (++this.commits % 64 !== 0) return;
    if (walBytes(this.path) > WAL_INLINE_BYTES) this.db.pragma('wal_checkpoint(PASSIVE)');
  }

  /**
   * Housekeeping for quiet moments: checkpoint the WAL (PASSIVE: never waits for readers) once it holds 16 MiB,
   * so the copy does not land inside the commit of a later add. Cheap when there is nothing to do. (An FTS5
   * 'merge' step here was tried and dropped: a merge once begun is continued by the next inserts' commits.)
   */
  idle(): void {
    if (this.readonly || this.db.inTransaction) return;
    this.flushIndex();
    if (walBytes(this.path) > WAL_IDLE_BYTES) this.db.pragma('wal_checkpoint(PASSIVE)');
  }

  /** Changes whenever another connection commits: cheap to poll. */
  dataVersion(): number {
    return this.db.pragma('data_version', { simple: true }) as number;
  }

  // ---- sessions --------------------------------------------------------------------------------------------

  /** True when `sid` names an archived session: its id stays reserved (see src/store/maintenance.ts). */
  isArchivedSid(sid: string): boolean {
    return cachedStatement(this.db, ARCHIVED_SID).get(sid) !== undefined;
  }

  /** A fresh random sid, neither live nor archived: archived sids are never minted again. */
  newSid(): string {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
    for (;;) {
      const bytes = randomBytes(8);
      let sid = '';
      for (const b of bytes) sid += alphabet[b % 36];
      if (!this.st.sessionBySid.get(sid) && !this.isArchivedSid(sid)) return sid;
    }
  }

  createSession(opts: { label?: string | null; created_at?: string; sid?: string } = {}): Session {
    const label = opts.label == null || opts.label === '' ? null : cleanText('label', opts.label, false);
    if (label !== null && label.length > 200) throw badInput('label is longer than 200 characters');
    return this.write(() => {
      const sid = opts.sid ?? this.newSid();
      if (!SID_RE.test(sid)) throw badInput(`session id '${sid}' must be 1-32 lowercase letters or digits`);
      if (this.st.sessionBySid.get(sid)) throw badInput(`session ${sid} already exists`);
      if (this.isArchivedSid(sid)) throw badInput(`session ${sid} is archived; its id stays reserved`);
      const created_at = opts.created_at ?? new Date().toISOString();
      const root = sessionRoot(sid, []);
      this.st.insertSession.run(sid, label, created_at, root);
      this.audit.append('session.create', { label, session_root: root.toString('hex'), sid });
      return { sid, label, created_at, n_nodes: 0, session_root: root.toString('hex') };
    });
  }

  getSession(sid: string): Session | undefined {
    const r = this.st.sessionBySid.get(sid) as SessionRow | undefined;
    return r ? toSession(r) : undefined;
  }

  listSessions(): Session[] {
    return (this.st.sessions.all() as SessionRow[]).map(toSession);
  }

  /** A session by sid, else by label (an ambiguous label is an error, not a guess). */
  resolveSession(x: string): Session {
    const bySid = this.getSession(x);
    if (bySid) return bySid;
    const byLabel = this.st.sessionsByLabel.all(x) as SessionRow[];
    if (byLabel.length === 1) return toSession(byLabel[0]);
    if (byLabel.length > 1) {
      throw badInput(
        `label '${x}' names ${byLabel.length} sessions (${byLabel.map((s) => s.sid).join(', ')}); use a sid`,
      );
    }
    if (this.isArchivedSid(x)) throw notFound(`session '${x}' is archived (arborist archive restore ${x})`);
    throw notFound(`no session '${x}'`);
  }

  // ---- nodes -----------------------------------------------------------------------------------------------

  getNode(bates: string): TurnNode | undefined {
    const r = this.st.nodeByBates.get(bates) as NodeRow | undefined;
    return r ? toTurnNode(r) : undefined;
  }

  nodeById(id: number): TurnNode | undefined {
    const r = this.st.nodeById.get(id) as NodeRow | undefined;
    return r ? toTurnNode(r) : undefined;
  }

  requireNode(bates: string): TurnNode {
    const n = this.getNode(bates);
    if (!n)
      throw notFound(
        parseBates(bates) ? `no turn ${bates}` : `'${bates}' is not a Bates id (<sid>-<6 digits>)`,
      );
    return n;
  }

  /**
   * Adds one turn and ripples its hash up the path to the root(s): O(depth) updates, siblings untouched.
   * Everything (seq minting, node, FTS row, hashes, audit event) commits together or not at all.
   */
  addTurn(input: NewTurn): AddedTurn {
    const question = cleanText('question', input.question, false);
    const answer_text = cleanText('answer', input.answer_text, true);
    const cited = input.cited_titles ?? [];
    if (!Array.isArray(cited)) throw badInput('cited titles must be a list of text');
    const cited_titles = cited.map((t) => cleanText('cited title', t, false));
    const n_cited_sources = input.n_cited_sources ?? cited_titles.length;
    if (!Number.isInteger(n_cited_sources) || n_cited_sources < 0)
      throw badInput('n_cited_sources must be >= 0');
    const audit = input.audit ?? 'manual';
    if (!/^[a-z][a-z0-9_-]{0,31}$/.test(audit))
      throw badInput(`audit tag '${audit}' is not a short lowercase word`);
    const created_at = input.created_at ?? new Date().toISOString();
    // Untyped callers (importers over JSON.parse output) must not smuggle a number into a text field: it would be
    // hashed as a number but stored as text, and verify would then report an edit that never happened.
    for (const [field, v] of [
      ['cache_key', input.cache_key],
      ['source', input.source],
      ['source_id', input.source_id],
      ['created_at', created_at],
    ] as const) {
      if (v != null && typeof v !== 'string') throw badInput(`${field} must be text`);
    }

    return this.write(() => {
      let parent: { id: number; sid: string; depth: number; bates: string } | null = null;
      if (input.parent !== undefined) {
        const p = this.st.parentInfo.get(input.parent) as
          | { id: number; sid: string; depth: number }
          | undefined;
        if (!p) this.requireNode(input.parent); // throws the precise message
        parent = { ...p!, bates: input.parent };
      }
      let sid: string;
      let created_session = false;
      if (input.session !== undefined) sid = this.resolveSession(input.session).sid;
      else if (parent) sid = parent.sid;
      else {
        sid = this.createSession({ label: input.label, created_at }).sid;
        created_session = true;
      }
      const seq = this.st.mintSeq.get(sid) as number;
      const bates = formatBates(sid, seq);
      const content = {
        bates,
        parent_bates: parent?.bates ?? null,
        question,
        answer_text,
        cited_titles,
        n_cited_sources,
        audit,
        cache_key: input.cache_key ?? null,
        created_at,
        source: input.source ?? null,
        source_id: input.source_id ?? null,
      };
      const nh = nodeHash(content);
      const sh = subtreeHash(nh, []);
      const cited_titles_json = JSON.stringify(cited_titles);
      const info = this.st.insertNode.run({
        ...content,
        sid,
        seq,
        parent_id: parent?.id ?? null,
        is_top: parent === null || parent.sid !== sid ? 1 : 0,
        depth: parent ? parent.depth + 1 : 0,
        cited_titles_json,
        node_hash: nh,
      });
      const id = Number(info.lastInsertRowid);
      this.st.insertSubtree.run(id, sh);
      if (this.deferIndexing) this.st.insertPending.run(id);
      else this.st.insertFts.run(id, question, answer_text, cited_titles_json);
      const touched = new Set<string>([sid]);
      if (parent) {
        this.st.bumpChildren.run(parent.id);
        this.merkle.rippleUp(parent.id, sh, touched);
      }
      const roots = this.merkle.setRoots(touched);
      this.audit.append(
        'node.add',
        { bates, node_hash: nh.toString('hex'), parent_bates: content.parent_bates, session_roots: roots },
        created_at,
      );
      return {
        bates,
        sid,
        seq,
        parent_bates: content.parent_bates,
        node_hash: nh.toString('hex'),
        subtree_hash: sh.toString('hex'),
        session_root: roots[sid],
        created_session,
      };
    });
  }

  // ---- tree queries ----------------------------------------------------------------------------------------

  children(bates: string): TurnNode[] {
    const n = this.requireNode(bates);
    return (this.st.children.all(n.id) as NodeRow[]).map(toTurnNode);
  }

  childrenById(id: number): TurnNode[] {
    return (this.st.children.all(id) as NodeRow[]).map(toTurnNode);
  }

  /** The nodes from the root of the tree down to `bates`, crossing sessions. */
  pathTo(bates: string): TurnNode[] {
    const out: TurnNode[] = [];
    let cur: TurnNode | undefined = this.requireNode(bates);
    while (cur) {
      out.push(cur);
      cur = cur.parent_bates ? this.getNode(cur.parent_bates) : undefined;
    }
    return out.reverse();
  }

  branchPoints(sid?: string): { bates: string; n_children: number }[] {
    if (sid === undefined) return this.st.branchPointsAll.all() as { bates: string; n_children: number }[];
    const s = this.resolveSession(sid);
    return this.st.branchPointsOf.all(s.sid) as { bates: string; n_children: number }[];
  }

  /** A session's own turns in depth-first order (children by sid, seq), each with its depth in that session. */
  sessionTree(x: string): TreeNode[] {
    const s = this.resolveSession(x);
    return sessionTree((this.st.sessionNodes.all(s.sid) as NodeRow[]).map(toTurnNode));
  }

  /** A Bates id, a bare seq (in `currentSid`), a sid, or a label. */
  resolve(x: string, currentSid?: string): Resolved {
    const s = x.trim();
    if (s === '') throw badInput('empty id');
    if (parseBates(s)) return { kind: 'node', node: this.requireNode(s) };
    if (/^\d+$/.test(s)) {
      if (!currentSid) throw badInput(`a bare turn number (${s}) needs a current session`);
      const r = this.st.nodeBySeq.get(currentSid, Number(s)) as NodeRow | undefined;
      if (!r) throw notFound(`no turn ${formatBates(currentSid, Number(s))}`);
      return { kind: 'node', node: toTurnNode(r) };
    }
    return { kind: 'session', session: this.resolveSession(s) };
  }

  // ---- find, chain, verify ---------------------------------------------------------------------------------

  find(query: string, opts: FindOptions = {}): FindHit[] {
    this.flushIndex();
    return findTurns(this.db, query, opts);
  }

  /** The Bates id of a session's newest turn, if it has any. */
  latestTurn(sid: string): string | undefined {
    return cachedStatement(
      this.db,
      'SELECT bates FROM nodes WHERE sid = ? ORDER BY seq DESC LIMIT 1',
      'pluck',
    ).get(sid) as string | undefined;
  }

  /** The find engine of the TUI and `arborist find`: FTS5 candidates, typo tolerance, Bates ids, labels, fuse.js. */
  search(query: string, opts: SearchOptions = {}): SearchResult {
    this.flushIndex();
    return search(this.db, query, opts);
  }

  findByCacheKey(key: string): TurnNode[] {
    return (this.st.byCacheKey.all(key) as NodeRow[]).map(toTurnNode);
  }

  chainCheck(
    opts: { from?: { seq: number; hash: string }; onProgress?: (n: number) => void } = {},
  ): ChainCheck {
    const from = opts.from ? { seq: opts.from.seq, hash: Buffer.from(opts.from.hash, 'hex') } : undefined;
    return this.audit.check(from, opts.onProgress);
  }

  chainHead(): string {
    const h = this.audit.head();
    return formatHead(h.seq, h.hash);
  }

  verify(): VerifyReport {
    return verifyShard(this.db);
  }

  // ---- answer cache (used by src/ask) ----------------------------------------------------------------------

  /** The cached answer for a cache key, if any. The cache is derived data: its rows are not hashed. */
  getCachedAnswer(
    key: string,
  ): { answer_text: string; cited_titles: string[]; created_at: string } | undefined {
    const r = cachedStatement(
      this.db,
      'SELECT answer_text, cited_titles_json, created_at FROM answer_cache WHERE cache_key = ?',
    ).get(key) as { answer_text: string; cited_titles_json: string; created_at: string } | undefined;
    return r
      ? {
          answer_text: r.answer_text,
          cited_titles: JSON.parse(r.cited_titles_json) as string[],
          created_at: r.created_at,
        }
      : undefined;
  }

  /**
   * Stores (or replaces) the answer for a cache key. Call it inside the same write() as the addTurn that records the
   * answer, so the cache never holds an answer that no turn carries.
   */
  putCachedAnswer(key: string, answer_text: string, cited_titles: string[], created_at?: string): void {
    this.write(() => {
      cachedStatement(
        this.db,
        'INSERT OR REPLACE INTO answer_cache (cache_key, answer_text, cited_titles_json, created_at) VALUES (?, ?, ?, ?)',
      ).run(key, answer_text, JSON.stringify(cited_titles), created_at ?? new Date().toISOString());
    });
  }
  // ---- outline (used by src/ui) ----------------------------------------------------------------------------

  /**
   * A session's outline for tree views, light enough for big sessions: its own turns in depth-first order
   * (children by sid, then seq), each with its depth inside the session (`local_depth`, a top turn is 0), and,
   * right under a turn, its children that live in OTHER sessions (`cross: true`, with their own sid and Bates id,
   * shown without their descendants). Questions are cut to `qChars` characters; answers are not read.
   */
  sessionOutline(sid: string, qChars = 160): OutlineNode[] {
    return sessionOutline(this.db, sid, qChars);
  }

  /** Every session, newest first, without its root hash: the light list a session browser shows. */
  sessionSummaries(): { sid: string; label: string | null; created_at: string; n_nodes: number }[] {
    return cachedStatement(
      this.db,
      'SELECT sid, label, created_at, n_nodes FROM sessions ORDER BY created_at DESC, sid DESC',
    ).all() as {
      sid: string;
      label: string | null;
      created_at: string;
      n_nodes: number;
    }[];
  }
}

export type { OutlineNode, Session, TreeNode, TurnNode };
export { hex };
