import type Database from 'better-sqlite3';
import { cachedStatement } from '../db/statements.js';

/** A turn just inserted into nodes: what node_days needs of it. */
export interface DayRow {
  id: number;
  created_at: string;
}

/**
 * Keeps node_days (db/migrations.ts 12) covering turns the caller has just inserted, inside its transaction.
 * Migration 12 kept it with a trigger on nodes; 13 dropped the trigger, because a trigger on a table makes SQLite
 * open a statement journal for every insert into it, which cost about 70% of writing an imported turn's row
 * (docs/benchmarks.md, "node_days kept by the writers"). The days are worked out here rather than read back with
 * SQL: reading created_at back walks each long row's overflow pages and cost more than the trigger did.
 * One upsert a day, not one a turn.
 */
export function noteDays(db: Database.Database, rows: readonly DayRow[]): void {
  if (rows.length === 0) return;
  const days = new Map<string, [number, number]>();
  for (const r of rows) {
    const day = dayOf(r.created_at);
    const b = days.get(day);
    if (b === undefined) days.set(day, [r.id, r.id]);
    else {
      if (r.id < b[0]) b[0] = r.id;
      if (r.id > b[1]) b[1] = r.id;
    }
  }
  const upsert = cachedStatement(db, UPSERT);
  for (const [day, [lo, hi]] of days) upsert.run(day, lo, hi);
}

const UPSERT = `INSERT INTO node_days (day, min_id, max_id) VALUES (?, ?, ?)
  ON CONFLICT (day) DO UPDATE SET min_id = min(min_id, excluded.min_id), max_id = max(max_id, excluded.max_id)`;

/**
 * SQLite's substr(created_at, 1, 10), which counts characters (code points), where JS counts UTF-16 units: only a
 * surrogate pair needs the slow path (lone surrogates never reach a row: the node hash refuses them).
 */
export function dayOf(createdAt: string): string {
  const head = createdAt.slice(0, 10);
  if (!/[\uD800-\uDBFF]/.test(head)) return head;
  let out = '';
  let n = 0;
  for (const ch of createdAt) {
    if (n++ === 10) break;
    out += ch;
  }
  return out;
}
