import { crashPoint } from '../base/crash.js';
import { badInput, notFound } from '../base/errors.js';
import type { EventPayloads } from '../chain/events.js';
import type { AuditLog } from '../chain/log.js';
import { cachedStatement } from '../db/statements.js';
import { TextIndexer } from '../find/vocabulary.js';
import { canon, eventHash, nodeHash, subtreeHash } from '../model/hash.js';
import { formatBates } from '../model/ids.js';
import type { Merkle } from '../tree/merkle.js';
import { digestOf, dropWaitingChunks, nextChunkId, queueChunk, type Waiting } from './chunks.js';
import { noteDays } from './days.js';
import { type CheckedTurn, checkNewTurn, type NewTurn } from './turns.js';

/**
 * Many turns in one write (docs/import.md, "The bulk path"): importers and `npm run gen`. addTurn ripples every
 * new leaf up to the root, O(depth) a turn; here a batch is hashed in memory, bottom-up (a new turn's children are
 * all in the batch), and the turns it hangs under are folded once. Each turn still gets its own node.add event
 * (its node hash and, for imported turns, where its source records are), so verify's claims are the same as for
 * turns added one by one; the roots after the batch, and the digests of the source chunks it wrote, are recorded by
 * one closing event.
 */

export interface BulkTurn {
  content: Omit<NewTurn, 'session' | 'parent' | 'label'>;
  /** The session (a sid that exists and is live). */
  sid: string;
  /** An existing turn's Bates id, the index of an earlier turn of this batch, or null for a top turn. */
  parent: string | number | null;
  /** An exact seq (re-importing an arborist export): at or above the session's next seq, increasing. */
  seq?: number;
  /** The turn's source records as read, without line ends; kept compressed (export --format source). */
  records?: string[];
  /** The node hash the turn must get (an exact re-import): a mismatch refuses the whole batch. */
  expectNodeHash?: string;
}

export interface BulkAdded {
  bates: string;
  sid: string;
  seq: number;
  node_hash: string;
}

export interface BulkResult {
  added: BulkAdded[];
  session_roots: Record<string, string>;
  chunks: number;
}

/** The closing event: `import.file` (an importer, with its counts) or `nodes.bulk` (a generator). */
/** The events that close a bulk write, and what the caller gives of them (the write adds chunks, roots, turns). */
type Closing = 'import.file' | 'nodes.bulk';
export type BulkEvent = {
  [K in Closing]: { kind: K; data: Omit<EventPayloads[K], 'chunks' | 'session_roots' | 'turns'> };
}[Closing];

export interface BulkContext {
  readonly db: import('better-sqlite3').Database;
  readonly audit: AuditLog;
  readonly merkle: Merkle;
  readonly deferIndexing: boolean;
  /** A fresh build (build.ts): no FTS row now; the build indexes every turn once at its end. */
  readonly indexAtEnd: boolean;
}

/** Records are compressed a chunk at a time: one compression call per turn cost ~85 us, more than the rest of an add. */
export const CHUNK_BYTES = 4 * 1024 * 1024;

interface Placed {
  turn: CheckedTurn;
  sid: string;
  seq: number;
  bates: string;
  parentBates: string | null;
  parentId: number | null;
  parentSid: string | null;
  /** Index of the parent in the batch, or -1. */
  parentIndex: number;
  depth: number;
  nodeHash: Buffer;
  children: number[];
  id: number;
}

class ChunkWriter {
  /** The chunk being filled: its records written straight into it (not joined, encoded and concatenated). */
  private buf: Buffer | undefined;
  private bytes = 0;
  private id = 0;
  /** The first chunk id this write took: a write that fails forgets its chunks from there (chunks.ts). */
  first = 0;
  private pending: [string, number, number][] = [];
  private readonly queued: Waiting[] = [];

  constructor(private readonly ctx: BulkContext) {}

  /** Appends a turn's records, each followed by a newline; returns [chunk id, start, length] for its node.add event. */
  add(bates: string, records: string[]): [number, number, number] {
    let len = 0;
    for (const r of records) len += Buffer.byteLength(r, 'utf8') + 1;
    if (this.bytes > 0 && this.bytes + len > CHUNK_BYTES) this.flush();
    if (this.id === 0) {
      this.id = nextChunkId(this.ctx.db);
      if (this.first === 0) this.first = this.id;
    }
    const buf = this.room(len);
    const start = this.bytes;
    for (const r of records) {
      this.bytes += buf.write(r, this.bytes, 'utf8');
      buf[this.bytes++] = 10;
    }
    const ref: [number, number, number] = [this.id, start, this.bytes - start];
    this.pending.push([bates, start, ref[2]]);
    return ref;
  }

  /** The chunk's buffer with room for `len` more bytes: grown by doubling from 64 KiB (most files are small). */
  private room(len: number): Buffer {
    const need = this.bytes + len;
    if (this.buf !== undefined && this.buf.length >= need) return this.buf;
    const size = Math.max(need, Math.min(CHUNK_BYTES, Math.max(64 * 1024, (this.buf?.length ?? 0) * 2)));
    const next = Buffer.allocUnsafeSlow(size);
    this.buf?.copy(next, 0, 0, this.bytes);
    this.buf = next;
    return next;
  }

  /** Hands the chunk to chunks.ts: hashed and compressed meanwhile, its rows written when it is. */
  flush(): void {
    if (this.pending.length === 0) return;
    this.queued.push(queueChunk(this.ctx.db, this.id, this.buf!.subarray(0, this.bytes), this.pending));
    this.id = 0;
    this.buf = undefined;
    this.bytes = 0;
    this.pending = [];
  }

  /** [id, sha256, bytes] of each chunk, for the closing event: waits for the digests not back yet. */
  written(): [number, string, number][] {
    return this.queued.map((w) => [w.id, digestOf(w).toString('hex'), w.bytes]);
  }
}

/** node.add as the bulk path writes it: no roots (its closing event records them). */
export type NodeAddData = Omit<EventPayloads['node.add'], 'session_roots'>;

function jsonString(s: string): string | undefined {
  return s.isWellFormed() ? JSON.stringify(s) : undefined;
}

/**
 * The stored body of a node.add event, canon({ data, kind, seq, ts }), built by hand for its fixed shape: the
 * general canonicaliser (key sorts, a scan of every string for lone surrogates, recursion) was a tenth of a bulk
 * write. RFC 8785 writes a well-formed string as JSON.stringify does and a safe integer in plain digits; anything
 * else takes canon() itself. tests/store/build.test.ts checks the two agree.
 */
export function nodeAddBody(seq: number, ts: string, data: NodeAddData): string {
  const bates = jsonString(data.bates);
  const hash = jsonString(data.node_hash);
  const parent = data.parent_bates === null ? 'null' : jsonString(data.parent_bates);
  const time = jsonString(ts);
  const r = data.records;
  const recordsOk = r === undefined || (r.length === 3 && r.every((x) => Number.isSafeInteger(x)));
  if (
    bates === undefined ||
    hash === undefined ||
    parent === undefined ||
    time === undefined ||
    !recordsOk ||
    !Number.isSafeInteger(seq)
  )
    return canon({ data, kind: 'node.add', seq, ts });
  const records = r === undefined ? '' : `,"records":[${r[0]},${r[1]},${r[2]}]`;
  return `{"data":{"bates":${bates},"node_hash":${hash},"parent_bates":${parent}${records}},"kind":"node.add","seq":${seq},"ts":${time}}`;
}

/** Must run inside the caller's write (Shard.addTurnsBulk). All or nothing: any bad turn refuses the batch. */
export function insertBulk(ctx: BulkContext, turns: readonly BulkTurn[], event: BulkEvent): BulkResult {
  const chunks = new ChunkWriter(ctx);
  try {
    return writeBulk(ctx, turns, event, chunks);
  } catch (err) {
    // Its chunks wait for the commit (chunks.ts): a caller that goes on without this batch must not write them.
    if (chunks.first > 0) dropWaitingChunks(ctx.db, chunks.first);
    throw err;
  }
}

function writeBulk(
  ctx: BulkContext,
  turns: readonly BulkTurn[],
  event: BulkEvent,
  chunks: ChunkWriter,
): BulkResult {
  const db = ctx.db;
  const sessionInfo = cachedStatement(db, 'SELECT next_seq FROM sessions WHERE sid = ?', 'pluck');
  const parentInfo = cachedStatement(db, 'SELECT id, sid, depth FROM nodes WHERE bates = ?');
  const nextSeq = new Map<string, number>();
  const placed: Placed[] = [];
  const existingParents = new Set<number>();

  // 1. Place every turn: its session, seq, Bates id, parent and depth; check its content.
  for (let i = 0; i < turns.length; i++) {
    const t = turns[i];
    let next = nextSeq.get(t.sid);
    if (next === undefined) {
      const n = sessionInfo.get(t.sid) as number | undefined;
      if (n === undefined) throw notFound(`no session '${t.sid}'`);
      next = n;
    }
    const seq = t.seq ?? next;
    if (!Number.isSafeInteger(seq) || seq < next)
      throw badInput(`turn ${i + 1}: seq ${seq} is already taken`);
    nextSeq.set(t.sid, seq + 1);
    const turn = checkNewTurn(t.content);
    let parentBates: string | null = null;
    let parentId: number | null = null;
    let parentSid: string | null = null;
    let parentIndex = -1;
    let depth = 0;
    if (typeof t.parent === 'number') {
      const p = placed[t.parent];
      if (!p || t.parent >= i) throw badInput(`turn ${i + 1}: its parent must come before it in the batch`);
      parentIndex = t.parent;
      parentBates = p.bates;
      parentSid = p.sid;
      depth = p.depth + 1;
      p.children.push(i);
    } else if (typeof t.parent === 'string') {
      const p = parentInfo.get(t.parent) as { id: number; sid: string; depth: number } | undefined;
      if (!p) throw notFound(`no turn '${t.parent}'`);
      parentBates = t.parent;
      parentId = p.id;
      parentSid = p.sid;
      depth = p.depth + 1;
      existingParents.add(p.id);
    }
    const bates = formatBates(t.sid, seq);
    const nh = nodeHash({
      bates,
      parent_bates: parentBates,
      question: turn.question,
      answer_text: turn.answer_text,
      cited_titles: turn.cited_titles,
      n_cited_sources: turn.n_cited_sources,
      audit: turn.audit,
      cache_key: turn.cache_key,
      created_at: turn.created_at,
      source: turn.source,
      source_id: turn.source_id,
    });
    if (t.expectNodeHash !== undefined && nh.toString('hex') !== t.expectNodeHash)
      throw badInput(`turn ${bates}: its content does not hash to the node hash it came with`);
    placed.push({
      turn,
      sid: t.sid,
      seq,
      bates,
      parentBates,
      parentId,
      parentSid,
      parentIndex,
      depth,
      nodeHash: nh,
      children: [],
      id: 0,
    });
  }

  // 2. Subtree hashes, bottom-up in memory: a turn comes after its parent, so walking backwards every child is final
  // before its parent reads it. Children in (sid, seq) order, as merkle.ts orders them.
  const subtree: Buffer[] = new Array(placed.length);
  for (let i = placed.length - 1; i >= 0; i--) {
    const kids = placed[i].children;
    if (kids.length > 1)
      kids.sort((a, b) =>
        placed[a].sid === placed[b].sid
          ? placed[a].seq - placed[b].seq
          : placed[a].sid < placed[b].sid
            ? -1
            : 1,
      );
    subtree[i] = subtreeHash(
      placed[i].nodeHash,
      kids.map((k) => subtree[k]),
    );
  }

  // 3. Rows, FTS and one node.add event per turn, parents first (a parent always has the smaller id). Each table's
  // rows go in a loop of their own: SQLite takes a new page from the end of the file when a table's last page is
  // full, so rows written turn by turn (node, subtree, event) interleaved the three tables' pages one by one, and
  // a read of one table in order, as verify and chain-check do, jumped across the file. Table by table, a batch's
  // pages of each lie in runs (docs/benchmarks-chain.md, "Where the pages lie").
  const insertNode = cachedStatement(
    db,
    `INSERT INTO nodes (bates, sid, seq, parent_id, is_top, depth, n_children, question, answer_text,
      cited_titles_json, n_cited_sources, audit, cache_key, source, source_id, created_at, node_hash)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // The node.add events are appended here, the chain's head kept in memory (AuditLog.append reads it back from the
  // table each time), with the same statement, bytes and hashes as AuditLog.append.
  const insertEvent = cachedStatement(
    db,
    'INSERT INTO audit_events (seq, ts, kind, body, prev_hash, event_hash) VALUES (?, ?, ?, ?, ?, ?)',
  );
  let head = ctx.audit.head();
  const insertSubtree = cachedStatement(db, 'INSERT INTO node_subtree (id, subtree_hash) VALUES (?, ?)');
  const insertPending = cachedStatement(db, 'INSERT INTO fts_pending (id) VALUES (?)');
  const indexer = new TextIndexer(db);
  const ts = new Date().toISOString();
  const added: BulkAdded[] = [];
  const sids = new Set<string>();
  const titles: string[] = new Array(placed.length);
  // The records first: their chunks are hashed and compressed on their own thread (chunks.ts) while the rows below
  // are written; the closing event waits for their digests.
  const refs: ([number, number, number] | undefined)[] = new Array(placed.length);
  for (let i = 0; i < placed.length; i++) {
    const records = turns[i].records;
    if (records !== undefined) refs[i] = chunks.add(placed[i].bates, records);
  }
  chunks.flush();
  for (let i = 0; i < placed.length; i++) {
    const p = placed[i];
    const parentId = p.parentIndex >= 0 ? placed[p.parentIndex].id : p.parentId;
    titles[i] = JSON.stringify(p.turn.cited_titles);
    const info = insertNode.run(
      p.bates,
      p.sid,
      p.seq,
      parentId,
      p.parentSid === null || p.parentSid !== p.sid ? 1 : 0,
      p.depth,
      p.children.length,
      p.turn.question,
      p.turn.answer_text,
      titles[i],
      p.turn.n_cited_sources,
      p.turn.audit,
      p.turn.cache_key,
      p.turn.source,
      p.turn.source_id,
      p.turn.created_at,
      p.nodeHash,
    );
    p.id = Number(info.lastInsertRowid);
  }
  // One statement for the batch's days, not one a row (write/days.ts).
  noteDays(
    db,
    placed.map((p) => ({ id: p.id, created_at: p.turn.created_at })),
  );
  for (let i = 0; i < placed.length; i++) insertSubtree.run(placed[i].id, subtree[i]);
  for (let i = 0; i < placed.length; i++) {
    const p = placed[i];
    if (ctx.indexAtEnd) {
      // indexed by ShardBuild.finish
    } else if (ctx.deferIndexing) insertPending.run(p.id);
    else
      indexer.add({
        id: p.id,
        question: p.turn.question,
        answer_text: p.turn.answer_text,
        cited_titles_json: titles[i],
      });
  }
  for (let i = 0; i < placed.length; i++) {
    const p = placed[i];
    const ref = refs[i];
    const data: NodeAddData = {
      bates: p.bates,
      node_hash: p.nodeHash.toString('hex'),
      parent_bates: p.parentBates,
    };
    if (ref !== undefined) data.records = ref;
    const seq = head.seq + 1;
    const body = Buffer.from(nodeAddBody(seq, ts, data), 'utf8');
    const h = eventHash(head.hash, body);
    insertEvent.run(seq, ts, 'node.add', body, head.hash, h);
    head = { seq, hash: h };
    added.push({ bates: p.bates, sid: p.sid, seq: p.seq, node_hash: data.node_hash });
    sids.add(p.sid);
  }
  crashPoint('bulk-rows');

  // 4. Sessions' counters, the turns the batch hangs under (folded once, with their ancestors), every root touched.
  const bump = cachedStatement(
    db,
    'UPDATE OR FAIL sessions SET next_seq = max(next_seq, ?), n_nodes = n_nodes + ? WHERE sid = ?',
  );
  const perSession = new Map<string, number>();
  for (const p of placed) perSession.set(p.sid, (perSession.get(p.sid) ?? 0) + 1);
  for (const [sid, n] of perSession) bump.run(nextSeq.get(sid)!, n, sid);
  const roots = ctx.merkle.fold([...existingParents]);
  const rest = [...sids].filter((s) => roots[s] === undefined).sort();
  Object.assign(roots, ctx.merkle.setRoots(rest));
  const session_roots = Object.fromEntries(Object.entries(roots).sort(([a], [b]) => (a < b ? -1 : 1)));
  const written = chunks.written();
  const closing = { chunks: written, session_roots, turns: placed.length };
  if (event.kind === 'import.file') ctx.audit.append(event.kind, { ...event.data, ...closing }, ts);
  else ctx.audit.append(event.kind, { ...event.data, ...closing }, ts);
  return { added, session_roots, chunks: written.length };
}
