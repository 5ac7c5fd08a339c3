import type Database from 'better-sqlite3';
import { cachedStatement } from '../db/statements.js';
import { canon, eventHash, hex, ZERO_HASH } from '../model/hash.js';
import { type ChainCheck, checkChain } from './check.js';
import type { EventKind, EventPayloads } from './events.js';

export { formatHead } from './check.js';
export type { ChainCheck };

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

export class AuditLog {
  private readonly lastStmt: Database.Statement;
  private readonly insertStmt: Database.Statement;
  private readonly countStmt: Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.lastStmt = cachedStatement(
      db,
      'SELECT seq, event_hash FROM audit_events NOT INDEXED ORDER BY seq DESC LIMIT 1',
      'raw',
    );
    this.insertStmt = cachedStatement(
      db,
      'INSERT INTO audit_events (seq, ts, kind, body, prev_hash, event_hash) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.countStmt = cachedStatement(db, 'SELECT count(*) FROM audit_events', 'pluck');
  }

  head(): ChainHead {
    const row = this.lastStmt.get() as [number, Buffer] | undefined;
    return row ? { seq: row[0], hash: row[1] } : { seq: 0, hash: ZERO_HASH };
  }

  count(): number {
    return this.countStmt.get() as number;
  }

  /**
   * Must run inside a write transaction. Returns the new event's hash. The payload is checked against the kind's
   * type in the registry (events.ts), which also says what verify's claims make of it.
   */
  append<K extends EventKind>(
    kind: K,
    data: EventPayloads[K],
    ts: string = new Date().toISOString(),
  ): ChainHead {
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
    return checkChain(this.db, this.head().seq, () => this.count(), from, onProgress);
  }

  event(seq: number): AuditEvent | undefined {
    const row = cachedStatement(
      this.db,
      'SELECT seq, ts, kind, body, prev_hash, event_hash FROM audit_events NOT INDEXED WHERE seq = ?',
    ).get(seq) as
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
