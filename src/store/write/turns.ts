import type Database from 'better-sqlite3';
import { badInput } from '../base/errors.js';
import type { AuditLog } from '../chain/log.js';
import { cachedStatement } from '../db/statements.js';
import { TextIndexer } from '../find/vocabulary.js';
import type { TurnBody } from '../model/content.js';
import { nodeHash, subtreeHash } from '../model/hash.js';
import { formatBates } from '../model/ids.js';
import type { Session, TurnNode } from '../model/rows.js';
import type { Merkle } from '../tree/merkle.js';
import { noteDays } from './days.js';

/** What Shard.addTurn takes and gives back, and the checks a new turn passes before anything is written. */

export interface NewTurn
  extends Pick<TurnBody, 'question' | 'answer_text'>,
    Partial<Omit<TurnBody, 'question' | 'answer_text'>> {
  /** The session the turn belongs to (sid or label). Absent: the parent's session, or a new session. */
  session?: string;
  /** Bates id of the parent, in any session. */
  parent?: string;
  /** Label for the new session when one is created. */
  label?: string;
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

/** A NewTurn's content, checked and with its defaults filled in. */
export type CheckedTurn = TurnBody;

const MAX_TEXT = 16 * 1024 * 1024;

/** Text is stored as given, except that it must be well-formed Unicode to have a canonical JSON form. */
export function cleanText(field: string, v: unknown, allowEmpty: boolean): string {
  if (typeof v !== 'string') throw badInput(`${field} must be text`);
  if (!allowEmpty && v.trim() === '') throw badInput(`${field} is empty`);
  if (v.length > MAX_TEXT) throw badInput(`${field} is larger than 16 MiB`);
  return v.toWellFormed();
}

/** A session label: none, or text of at most 200 characters. */
export function cleanLabel(label: string | null | undefined): string | null {
  const out = label == null || label === '' ? null : cleanText('label', label, false);
  if (out !== null && out.length > 200) throw badInput('label is longer than 200 characters');
  return out;
}

/** Checks a new turn's content (one line per problem, the first one found) and fills in its defaults. */
export function checkNewTurn(input: NewTurn): CheckedTurn {
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
  return {
    question,
    answer_text,
    cited_titles,
    n_cited_sources,
    audit,
    cache_key: input.cache_key ?? null,
    source: input.source ?? null,
    source_id: input.source_id ?? null,
    created_at,
  };
}

/** What inserting a turn needs of the shard (an interface, so that this file does not import shard.ts). */
export interface TurnContext {
  readonly audit: AuditLog;
  readonly merkle: Merkle;
  readonly deferIndexing: boolean;
  resolveSession(x: string): Session;
  createSession(opts: { label?: string | null; created_at?: string }): Session;
  requireNode(bates: string): TurnNode;
}

interface Parent {
  id: number;
  sid: string;
  depth: number;
  bates: string;
}

/** The statements of an add, prepared once per connection and held here: addTurn is the write hot path. */
export class TurnWriter {
  private readonly parentInfo: Database.Statement;
  /**
   * Whether a session is a copy of another shard's: pulled by sync (source 'sync'), or imported exact from an arborist
   * export (source 'arborist' under its own sid). Gives that source, or undefined for a session of this shard.
   */
  private readonly copiedFrom: Database.Statement;
  private readonly mintSeq: Database.Statement;
  private readonly insertNode: Database.Statement;
  private readonly insertSubtree: Database.Statement;
  private readonly insertPending: Database.Statement;
  private readonly indexer: TextIndexer;
  private readonly bumpChildren: Database.Statement;
  private readonly db: Database.Database;

  constructor(db: Database.Database) {
    this.db = db;
    this.parentInfo = cachedStatement(db, 'SELECT id, sid, depth FROM nodes WHERE bates = ?');
    this.copiedFrom = cachedStatement(
      db,
      "SELECT source FROM session_sources WHERE sid = ? AND (source = 'sync' OR (source = 'arborist' AND source_session = sid))",
      'pluck',
    );
    // OR FAIL, not the default ABORT: an ABORT statement with RETURNING opens a statement journal, and opening one
    // makes FTS5 flush its pending rows to disk, i.e. one tiny FTS segment per turn in a batch of adds (~60 us a
    // turn, then merges). For this one-row update FAIL and ABORT undo exactly the same (nothing).
    this.mintSeq = cachedStatement(
      db,
      'UPDATE OR FAIL sessions SET next_seq = next_seq + 1, n_nodes = n_nodes + 1 WHERE sid = ? RETURNING next_seq - 1 AS seq',
      'pluck',
    );
    this.insertNode = cachedStatement(
      db,
      `INSERT INTO nodes (bates, sid, seq, parent_id, is_top, depth, question, answer_text,
        cited_titles_json, n_cited_sources, audit, cache_key, source, source_id, created_at, node_hash)
        VALUES (@bates, @sid, @seq, @parent_id, @is_top, @depth, @question, @answer_text, @cited_titles_json,
        @n_cited_sources, @audit, @cache_key, @source, @source_id, @created_at, @node_hash)`,
    );
    this.insertSubtree = cachedStatement(db, 'INSERT INTO node_subtree (id, subtree_hash) VALUES (?, ?)');
    this.insertPending = cachedStatement(db, 'INSERT INTO fts_pending (id) VALUES (?)');
    this.indexer = new TextIndexer(db);
    this.bumpChildren = cachedStatement(db, 'UPDATE nodes SET n_children = n_children + 1 WHERE id = ?');
  }

  /** The parent (when given) and the session of a new turn; creates the session when there is none. */
  private place(ctx: TurnContext, input: NewTurn, created_at: string) {
    let parent: Parent | null = null;
    if (input.parent !== undefined) {
      const p = this.parentInfo.get(input.parent) as Omit<Parent, 'bates'> | undefined;
      if (!p) ctx.requireNode(input.parent); // throws the precise message
      parent = { ...p!, bates: input.parent };
    }
    let sid: string;
    let created_session = false;
    if (input.session !== undefined) {
      sid = ctx.resolveSession(input.session).sid;
      // A shard appends only to sessions it created (docs/sync.md, docs/export.md): a copy's seqs are its maker's to
      // mint, or two shards would give one Bates id to two turns.
      const copy = this.copiedFrom.get(sid) as string | undefined;
      if (copy !== undefined)
        throw badInput(
          `session ${sid} ${copy === 'sync' ? 'was pulled from another host' : 'was imported from an arborist export'}, whose shard alone adds to it; ask under its turn without --session to fork it here`,
        );
    } else if (parent && this.copiedFrom.get(parent.sid) === undefined) sid = parent.sid;
    else if (parent) {
      // Under a copied session's turn: a new local session whose first turn hangs under it, as any cross-session fork.
      sid = ctx.createSession({ label: input.label, created_at }).sid;
      created_session = true;
    } else {
      sid = ctx.createSession({ label: input.label, created_at }).sid;
      created_session = true;
    }
    return { parent, sid, created_session };
  }

  /**
   * Inserts a checked turn inside the caller's write: seq, node, subtree row, FTS row (or its place in
   * fts_pending), the ripple to the root(s) and one `node.add` event.
   */
  insert(ctx: TurnContext, input: NewTurn, turn: CheckedTurn): AddedTurn {
    const { question, answer_text, cited_titles, created_at } = turn;
    const { parent, sid, created_session } = this.place(ctx, input, created_at);
    const seq = this.mintSeq.get(sid) as number;
    const bates = formatBates(sid, seq);
    const content = {
      bates,
      parent_bates: parent?.bates ?? null,
      question,
      answer_text,
      cited_titles,
      n_cited_sources: turn.n_cited_sources,
      audit: turn.audit,
      cache_key: turn.cache_key,
      created_at,
      source: turn.source,
      source_id: turn.source_id,
    };
    const nh = nodeHash(content);
    const sh = subtreeHash(nh, []);
    const cited_titles_json = JSON.stringify(cited_titles);
    const info = this.insertNode.run({
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
    noteDays(this.db, [{ id, created_at }]);
    this.insertSubtree.run(id, sh);
    if (ctx.deferIndexing) this.insertPending.run(id);
    else {
      this.indexer.add({ id, question, answer_text, cited_titles_json });
    }
    const touched = new Set<string>([sid]);
    if (parent) {
      this.bumpChildren.run(parent.id);
      ctx.merkle.rippleUp(parent.id, sh, touched);
    }
    const roots = ctx.merkle.setRoots(touched);
    ctx.audit.append(
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
  }
}
