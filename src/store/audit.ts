import type Database from 'better-sqlite3';
import { canon, eventHash, hex, sha256, ZERO_HASH } from './hash.js';

/**
 * One audit chain for the whole shard. Each state change appends exactly one event, inside the caller's
 * IMMEDIATE transaction, so two writers can never fork the chain.
 */
export interface AuditEvent {
  seq: number;
  ts: string;
  kind: string;
  data: unknown;
  prev_hash: string;
  event_hash: string;
}

export interface ChainHead {
  seq: number;
  hash: Buffer;
}

export interface ChainCheck {
  ok: boolean;
  events: number;
  head: string;
  first_broken_seq: number | null;
  reason: string | null;
  /** The last event that verified, so a later check can resume from it. */
  verified: { seq: number; hash: string };
}

export function formatHead(seq: number, hash: Buffer | string): string {
  return `${seq}:${typeof hash === 'string' ? hash : hash.toString('hex')}`;
}

export class AuditLog {
  private readonly lastStmt: Database.Statement;
  private readonly insertStmt: Database.Statement;
  private readonly countStmt: Database.Statement;
  private readonly pageStmt: Database.Statement;
  private readonly fastPageStmt: Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.lastStmt = db
      .prepare('SELECT seq, event_hash FROM audit_events ORDER BY seq DESC LIMIT 1')
      .raw(true);
    this.insertStmt = db.prepare(
      'INSERT INTO audit_events (seq, ts, kind, body, prev_hash, event_hash) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.countStmt = db.prepare('SELECT count(*) FROM audit_events').pluck();
    this.pageStmt = db
      .prepare('SELECT seq, body, prev_hash, event_hash FROM audit_events WHERE seq > ? ORDER BY seq LIMIT ?')
      .raw(true);
    // A page of events (seq in (from, to]) as ONE value: prev_hash || body || event_hash of each event back to
    // back (|| on blobs concatenates their bytes; CAST keeps them), with the body lengths to cut it apart. Making
    // three Buffers per event cost more than hashing it. A rowid range is read in rowid order, so the
    // concatenation is in seq order. `odd` counts rows the fast path does not take (a column that is not a blob, a
    // hash that is not 32 bytes).
    this.fastPageStmt = db
      .prepare(
        `SELECT count(*), max(seq),
           sum(typeof(body) <> 'blob' OR typeof(prev_hash) <> 'blob' OR typeof(event_hash) <> 'blob'
               OR length(prev_hash) <> 32 OR length(event_hash) <> 32),
           group_concat(length(body), ','),
           CAST(group_concat(prev_hash || body || event_hash, '') AS BLOB)
         FROM audit_events WHERE seq > ? AND seq <= ?`,
      )
      .raw(true);
  }

  head(): ChainHead {
    const row = this.lastStmt.get() as [number, Buffer] | undefined;
    return row ? { seq: row[0], hash: row[1] } : { seq: 0, hash: ZERO_HASH };
  }

  count(): number {
    return this.countStmt.get() as number;
  }

  /** Must run inside a write transaction. Returns the new event's hash. */
  append(kind: string, data: unknown, ts: string = new Date().toISOString()): ChainHead {
    const last = this.head();
    const seq = last.seq + 1;
    const body = Buffer.from(canon({ data, kind, seq, ts }), 'utf8');
    const h = eventHash(last.hash, body);
    this.insertStmt.run(seq, ts, kind, body, last.hash, h);
    return { seq, hash: h };
  }

  /**
   * One streaming pass: event_hash must equal H(prev || stored body) with prev the previous event's hash, seqs
   * must be consecutive, and the stored prev_hash must name the previous event. Works on stored bytes only, never
   * re-serialising JSON. `from` resumes after an event already verified.
   */
  check(from?: { seq: number; hash: Buffer }, onProgress?: (checked: number) => void): ChainCheck {
    let prevSeq = from?.seq ?? 0;
    let prev = from?.hash ?? ZERO_HASH;
    let checked = 0;
    const PAGE = 2000;
    for (;;) {
      // Fast path: the next PAGE seqs in one value, checked on views into it. It only ever says "intact"; a gap, an
      // odd row or any mismatch sends the page to the row-by-row check below, which names the exact break.
      const [n, hi, odd, lengths, blob] = this.fastPageStmt.get(prevSeq, prevSeq + PAGE) as [
        number,
        number | null,
        number | null,
        string | null,
        Buffer | null,
      ];
      if (n > 0 && odd === 0 && hi === prevSeq + n && lengths !== null && blob !== null) {
        const last = pageIntact(prev, lengths, blob, n);
        if (last !== null) {
          prev = last;
          prevSeq = hi;
          checked += n;
          onProgress?.(checked);
          continue;
        }
      }
      const rows = this.pageStmt.all(prevSeq, PAGE) as [number, Buffer, Buffer, Buffer][];
      for (const [seq, body, prevStored, stored] of rows) {
        let reason: string | null = null;
        if (seq !== prevSeq + 1) reason = `event ${prevSeq + 1} is missing`;
        else if (!prevStored.equals(prev)) reason = `event ${seq} does not link to event ${prevSeq}`;
        else if (!eventHash(prev, body).equals(stored)) reason = `event ${seq} does not match its hash`;
        if (reason) {
          return {
            ok: false,
            events: this.count(),
            head: formatHead(prevSeq, prev),
            first_broken_seq: seq !== prevSeq + 1 ? prevSeq + 1 : seq,
            reason,
            verified: { seq: prevSeq, hash: prev.toString('hex') },
          };
        }
        prev = stored;
        prevSeq = seq;
        checked++;
      }
      onProgress?.(checked);
      if (rows.length < PAGE) break;
    }
    return {
      ok: true,
      events: prevSeq,
      head: formatHead(prevSeq, prev),
      first_broken_seq: null,
      reason: null,
      verified: { seq: prevSeq, hash: prev.toString('hex') },
    };
  }

  event(seq: number): AuditEvent | undefined {
    const row = this.db
      .prepare('SELECT seq, ts, kind, body, prev_hash, event_hash FROM audit_events WHERE seq = ?')
      .get(seq) as
      | { seq: number; ts: string; kind: string; body: Buffer; prev_hash: Buffer; event_hash: Buffer }
      | undefined;
    if (!row) return undefined;
    return {
      seq: row.seq,
      ts: row.ts,
      kind: row.kind,
      data: (JSON.parse(row.body.toString('utf8')) as { data: unknown }).data,
      prev_hash: hex(row.prev_hash)!,
      event_hash: hex(row.event_hash)!,
    };
  }
}

/**
 * Checks a page of n events laid out as prev_hash || body || event_hash each (body lengths in `lengths`): every
 * prev_hash must equal the hash before it (the first one `prev`) and every event_hash H(prev_hash || body).
 * Returns the last event hash (a copy) when all hold, else null.
 */
function pageIntact(prev: Buffer, lengths: string, blob: Buffer, n: number): Buffer | null {
  const lens = lengths.split(',');
  if (lens.length !== n) return null;
  let before = prev;
  let beforeAt = 0;
  let at = 0;
  for (let k = 0; k < n; k++) {
    if (blob.compare(before, beforeAt, beforeAt + 32, at, at + 32) !== 0) return null;
    const end = at + 32 + Number(lens[k]);
    if (end + 32 > blob.length) return null;
    if (sha256(blob.subarray(at, end)).compare(blob, end, end + 32) !== 0) return null;
    before = blob;
    beforeAt = end;
    at = end + 32;
  }
  return at === blob.length ? Buffer.from(blob.subarray(beforeAt, beforeAt + 32)) : null;
}
