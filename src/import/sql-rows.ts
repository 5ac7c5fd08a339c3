/**
 * A database row as a reader keeps it: its `raw` line, and an SQLite message on one line. Shared by the readers of
 * SQLite histories (llm's logs.db, OpenCode's opencode.db).
 */

/** Columns the reader adds to its own queries (rowid, sort keys); never part of a row's `raw` form. */
export const OWN_COLUMN = '__arb_';

/**
 * One row as a `raw` line: `{"table":"<name>","row":{...}}`, the row's columns in SELECT order, blobs as base64
 * strings, integers past 2^53 as decimal strings. The table name is kept because one turn draws rows from several
 * tables (responses and tool_calls, or messages, parts and turns).
 */
export function rowLine(table: string, row: Record<string, unknown>): string {
  let plain = true;
  for (const k in row) {
    const v = row[k];
    if (k.startsWith(OWN_COLUMN) || typeof v === 'bigint' || (v !== null && typeof v === 'object')) {
      plain = false;
      break;
    }
  }
  let body: Record<string, unknown> = row;
  if (!plain) {
    body = {};
    for (const [k, v] of Object.entries(row)) {
      if (k.startsWith(OWN_COLUMN)) continue;
      if (Buffer.isBuffer(v) || v instanceof Uint8Array) body[k] = Buffer.from(v).toString('base64');
      else if (typeof v === 'bigint') body[k] = v.toString();
      else body[k] = v;
    }
  }
  return `{"table":${JSON.stringify(table)},"row":${JSON.stringify(body)}}`;
}

/** An SQLite error message on one short line. */
export function oneLine(s: string, max = 200): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
