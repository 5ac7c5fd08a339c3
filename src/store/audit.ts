import type Database from 'better-sqlite3';
import { canon, eventHash, hex, ZERO_HASH } from './hash.js';

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
    const PAGE = 20000;
    for (;;) {
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
