import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { ArboristError, notFound } from './base/errors.js';
import { AuditLog, type ChainCheck, formatHead } from './chain/log.js';
import { describeSqliteError, type OpenOptions } from './db/open.js';
import { cachedStatement, type RowMode } from './db/statements.js';
import { openUpgraded } from './db/upgrade.js';
import { overlayPending } from './find/candidates.js';
import { type SearchOptions, type SearchResult, search } from './find/search.js';
import { applyWaitingVocabulary, dropWaitingVocabulary, indexRows, pendingTexts } from './find/vocabulary.js';
import { hex } from './model/hash.js';
import { formatBates, parseBates } from './model/ids.js';
import type { Session, TurnNode } from './model/rows.js';
import { Merkle } from './tree/merkle.js';
import {
  type BranchPoint,
  branchPoints,
  childrenOf,
  latestTurn,
  nodeByBates,
  nodeById,
  nodesByCacheKey,
  sessionNodes,
} from './tree/nodes.js';
import { type OutlineNode, sessionOutline, sessionTree, type TreeNode } from './tree/outline.js';
import {
  pathTo,
  type ResolveContext,
  type Resolved,
  resolve,
  resolveTurn,
  type TurnTarget,
} from './tree/resolve.js';
import {
  firstQuestions,
  getSession,
  insertSession,
  isArchivedSid,
  listSessions,
  type NewSession,
  newestSessions,
  newSid,
  resolveSession,
  type SessionListing,
  sessionCount,
  sessionSummaries,
} from './tree/sessions.js';
import { type VerifyOptions, type VerifyReport, verifyShard } from './verify/verify.js';
import { type CachedAnswer, getCachedAnswer, putCachedAnswer } from './write/answer-cache.js';
import { type BulkEvent, type BulkResult, type BulkTurn, insertBulk } from './write/bulk.js';
import { dropWaitingChunks, writeWaitingChunks } from './write/chunks.js';
import {
  dropImportFingerprint,
  type ImportFingerprint,
  importFingerprint,
  setImportFingerprint,
} from './write/fingerprints.js';
import {
  type SessionSource,
  sessionForSource,
  sessionOrigins,
  sessionOriginsOf,
  sourceOfSession,
  sourceRecords,
  sourceRecordsOf,
  turnsBySourceId,
} from './write/sources.js';
import { type AddedTurn, checkNewTurn, type NewTurn, TurnWriter } from './write/turns.js';

/** A file's device and inode ('' when there is none at `path`). */
function fileIdOf(path: string): string {
  try {
    const st = statSync(path, { bigint: true });
    return `${st.dev}:${st.ino}`;
  } catch {
    return '';
  }
}

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

/**
 * The shard: every session, turn and audit event, in one SQLite file. Synchronous, like better-sqlite3.
 *
 * Why this file is long (~540 lines): the class is the store's one public surface, and most of its methods are
 * one-line delegations to the part that does the work (tree/, write/, find/, verify/, lifecycle/). Splitting it would
 * scatter that surface over several classes or mixins without moving any logic; what grows here should stay a
 * delegation, and logic goes to its part.
 */
export class Shard {
  readonly audit: AuditLog;
  private readonly st: Record<string, Database.Statement>;
  /** The error of a nested write that failed after changing something: the outer write must roll back. */
  private doomed: unknown = undefined;
  /** Subtree hashes and session roots: the one ripple (merkle.ts). */
  readonly merkle: Merkle;
  private readonly turnWriter: TurnWriter;
  /** What resolve.ts needs of the shard (an interface, so that it does not import this file). */
  private readonly resolveContext: ResolveContext;
  /** The file opened (device, inode), for detached(). */
  private readonly fileId: string;

  private constructor(
    /** Private: every layer above the store goes through the Shard's operations (dbOf is the store's own way in). */
    private readonly db: Database.Database,
    readonly path: string,
    readonly readonly: boolean,
  ) {
    this.fileId = fileIdOf(path);
    this.audit = new AuditLog(db);
    this.merkle = new Merkle(db);
    this.turnWriter = new TurnWriter(db);
    this.resolveContext = {
      db,
      requireNode: (b) => this.requireNode(b),
      getNode: (b) => this.getNode(b),
      resolveSession: (x) => this.resolveSession(x),
      latestTurn: (sid) => this.latestTurn(sid),
    };
    const q = (sql: string, mode?: RowMode) => cachedStatement(db, sql, mode);
    this.st = {
      totalChanges: q('SELECT total_changes()', 'pluck'),
      insertSession: q('INSERT INTO sessions (sid, label, created_at, session_root) VALUES (?, ?, ?, ?)'),
      pendingCount: q('SELECT count(*) FROM fts_pending', 'pluck'),
      clearPending: q('DELETE FROM fts_pending'),
    };
  }

  /** Opens (creating when missing) and migrates a shard (db/upgrade.ts). Every failure is one ArboristError line. */
  static open(path: string, opts: OpenOptions = {}): Shard {
    return new Shard(openUpgraded(path, opts), path, (opts.readonly || opts.inspect) ?? false);
  }

  /**
   * Whether the file at `path` is no longer the one opened (deleted, or another put in its place): SQLite goes on
   * writing the open one, where nobody can read what it is given. The long-running writers ask (the keeper, the
   * browser) and stop.
   */
  detached(): boolean {
    return fileIdOf(this.path) !== this.fileId;
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
          // The vocabulary counts of every row this write indexed, in one upsert (find/vocabulary.ts).
          applyWaitingVocabulary(this.db);
          // The record chunks of this write's bulk writes, compressed meanwhile on their thread (write/chunks.ts).
          writeWaitingChunks(this.db);
          return out;
        })
        .immediate();
      this.afterCommit();
      this.onCommit?.();
      return out;
    } catch (err) {
      dropWaitingVocabulary(this.db);
      dropWaitingChunks(this.db);
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

  /** Set by a fresh build (build.ts): bulk turns get no FTS row until the build indexes them all at its end. */
  indexAtEnd = false;
  /** Called after every commit of an outermost write (a fresh build sends the committed turns to be indexed). */
  onCommit: (() => void) | undefined;

  /** Indexes every turn waiting in fts_pending, from any process. Cheap when none waits. */
  flushIndex(): number {
    if (this.readonly || (this.st.pendingCount.get() as number) === 0) return 0;
    return this.write(() => {
      const n = indexRows(this.db, pendingTexts(this.db));
      this.st.clearPending.run();
      return n;
    });
  }

  /**
   * SQLite's automatic checkpoint runs inside the commit that crosses 1000 WAL pages: an fsync'd 4 MB copy that
   * made one add in ~20 take 10-20 ms. Our connections turn it off (db/open.ts) and checkpoint here instead: when the
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

  /** True when `sid` names an archived session: its id stays reserved (archive.ts). */
  isArchivedSid(sid: string): boolean {
    return isArchivedSid(this.db, sid);
  }

  /** A fresh random sid, neither live nor archived: archived sids are never minted again. */
  newSid(): string {
    return newSid(this.db);
  }

  /** Creates a session (one `session.create` event; sessions.ts). */
  createSession(opts: NewSession = {}): Session {
    return this.write(() => insertSession(this.db, this.audit, opts));
  }

  getSession(sid: string): Session | undefined {
    return getSession(this.db, sid);
  }

  listSessions(): Session[] {
    return listSessions(this.db);
  }

  /** No session, live or archived: a first start. One look, whatever the shard's size. */
  isEmpty(): boolean {
    return (
      cachedStatement(
        this.db,
        'SELECT NOT EXISTS (SELECT 1 FROM sessions) AND NOT EXISTS (SELECT 1 FROM session_archives)',
        'pluck',
      ).get() === 1
    );
  }

  /** A session by sid, else by label (an ambiguous label is an error, not a guess). */
  resolveSession(x: string): Session {
    return resolveSession(this.db, x);
  }

  // ---- nodes -----------------------------------------------------------------------------------------------

  getNode(bates: string): TurnNode | undefined {
    return nodeByBates(this.db, bates);
  }

  nodeById(id: number): TurnNode | undefined {
    return nodeById(this.db, id);
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
    const turn = checkNewTurn(input);
    return this.write(() => this.turnWriter.insert(this, input, turn));
  }

  /**
   * Adds many turns in one write, hashed in memory and folded once (bulk.ts): the path of importers and of
   * `npm run gen`. All or nothing; `event` closes the batch in the chain with the roots after it.
   */
  addTurnsBulk(turns: readonly BulkTurn[], event: BulkEvent): BulkResult {
    return this.write(() =>
      insertBulk(
        {
          db: this.db,
          audit: this.audit,
          merkle: this.merkle,
          deferIndexing: this.deferIndexing,
          indexAtEnd: this.indexAtEnd,
        },
        turns,
        event,
      ),
    );
  }

  /** The session a source session was imported into. */
  sessionForSource(source: string, sourceSession: string): string | undefined {
    return sessionForSource(this.db, source, sourceSession);
  }

  /** Where an imported session came from. */
  sourceOfSession(sid: string): SessionSource | undefined {
    return sourceOfSession(this.db, sid);
  }

  /** Where every live imported session came from, by sid (sessions asked here have none). */
  sessionOrigins(): Map<string, SessionSource> {
    return sessionOrigins(this.db);
  }

  /** Where the given sessions came from, by sid (a browser's visible rows); sessions asked here are absent. */
  sessionOriginsOf(sids: readonly string[]): Map<string, SessionSource> {
    return sessionOriginsOf(this.db, sids);
  }

  /** Bates ids of turns already imported from `source`, by their source ids. */
  turnsBySourceId(source: string, sourceIds: readonly string[]): Map<string, string> {
    return turnsBySourceId(this.db, source, sourceIds);
  }

  /** The digest an import recorded for a file it read whole with nothing left to import (write/fingerprints.ts). */
  importFingerprint(reader: string, file: string): ImportFingerprint | undefined {
    return importFingerprint(this.db, reader, file);
  }

  /** Records a file's digest, or (null) forgets it: the next import reads that file again. */
  setImportFingerprint(reader: string, file: string, fp: ImportFingerprint | null): void {
    this.write(() =>
      fp === null
        ? dropImportFingerprint(this.db, reader, file)
        : setImportFingerprint(this.db, reader, file, fp),
    );
  }

  /** An imported turn's source records, byte for byte (each followed by a newline). */
  sourceRecords(bates: string): Buffer | undefined {
    return sourceRecords(this.db, bates);
  }

  /** Many turns' source records (each chunk read once), by Bates id; turns without any are absent. */
  sourceRecordsOf(bates: readonly string[]): Map<string, Buffer> {
    return sourceRecordsOf(this.db, bates);
  }

  // ---- tree queries ----------------------------------------------------------------------------------------

  children(bates: string): TurnNode[] {
    const n = this.requireNode(bates);
    return childrenOf(this.db, n.id);
  }

  childrenById(id: number): TurnNode[] {
    return childrenOf(this.db, id);
  }

  /** The nodes from the root of the tree down to `bates`, crossing sessions (resolve.ts). */
  pathTo(bates: string): TurnNode[] {
    return pathTo(this.resolveContext, bates);
  }

  branchPoints(sid?: string): BranchPoint[] {
    return branchPoints(this.db, sid === undefined ? undefined : this.resolveSession(sid).sid);
  }

  /** A session's own turns in depth-first order (children by sid, seq), each with its depth in that session. */
  sessionTree(x: string): TreeNode[] {
    const s = this.resolveSession(x);
    return sessionTree(sessionNodes(this.db, s.sid));
  }

  /** A Bates id, a bare seq (in `currentSid`), a sid, or a label (resolve.ts). */
  resolve(x: string, currentSid?: string): Resolved {
    return resolve(this.resolveContext, x, currentSid);
  }

  /** Where `/cd x` goes from a turn (resolve.ts). */
  resolveTurn(x: string, at: { sid?: string | null; bates?: string | null } = {}): TurnTarget {
    return resolveTurn(this.resolveContext, x, at);
  }

  // ---- find, chain, verify ---------------------------------------------------------------------------------

  /** Before an FTS read: index what waits, or, read-only, overlay it (find/candidates.ts, overlayPending). */
  private indexForReading(): void {
    if (this.readonly) overlayPending(this.db);
    else this.flushIndex();
  }

  /** The Bates id of a session's newest turn, if it has any. */
  latestTurn(sid: string): string | undefined {
    return latestTurn(this.db, sid);
  }

  /** The find engine of the TUI and `arborist find`: FTS5 candidates, typo tolerance, Bates ids, labels, fuse.js. */
  search(query: string, opts: SearchOptions = {}): SearchResult {
    this.indexForReading();
    return search(this.db, query, opts);
  }

  findByCacheKey(key: string): TurnNode[] {
    return nodesByCacheKey(this.db, key);
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

  /** `onProgress`: how far the read has gone (VerifyOptions), for a progress line. */
  verify(opts: Pick<VerifyOptions, 'onProgress'> = {}): VerifyReport {
    return verifyShard(this.db, opts);
  }

  // ---- answer cache (used by src/ask) ----------------------------------------------------------------------

  /** The cached answer for a cache key, if any. The cache is derived data: its rows are not hashed. */
  getCachedAnswer(key: string): CachedAnswer | undefined {
    return getCachedAnswer(this.db, key);
  }

  /**
   * Stores (or replaces) the answer for a cache key. Call it inside the same write() as the addTurn that records the
   * answer, so the cache never holds an answer that no turn carries.
   */
  putCachedAnswer(key: string, answer_text: string, cited_titles: string[], created_at?: string): void {
    this.write(() => {
      putCachedAnswer(this.db, key, answer_text, cited_titles, created_at ?? new Date().toISOString());
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
  sessionSummaries(): SessionListing[] {
    return sessionSummaries(this.db);
  }

  /** The `limit` newest sessions (after `before` in that order): rows of sessionSummaries, without the others. */
  newestSessions(limit: number, before?: { created_at: string; sid: string }): SessionListing[] {
    return newestSessions(this.db, limit, before);
  }

  /** How many live sessions there are. */
  sessionCount(): number {
    return sessionCount(this.db);
  }

  /** The first question of each session, cut to `chars` characters ('' when it has no first turn). */
  firstQuestions(sids: readonly string[], chars = 200): [string, string][] {
    return firstQuestions(this.db, sids, chars);
  }
}

export type { AddedTurn, NewTurn, OutlineNode, Session, TreeNode, TurnNode };
export { formatBates, hex, parseBates };

/** The error every walk to the root raises on a parent cycle. */

export { parentCycle, type Resolved, type TurnTarget } from './tree/resolve.js';

/**
 * The shard's connection, for the store's own parts (lifecycle/, find/, write/): not exported by index.ts, and the
 * import rules forbid anything outside src/store to import this file, so no layer above reaches SQLite.
 */
export function dbOf(shard: Shard): Database.Database {
  return shard['db'];
}
