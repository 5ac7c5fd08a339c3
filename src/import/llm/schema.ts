/**
 * Which of llm's two generations of tables a logs.db holds (docs/import.md (llm) cites the migrations).
 */
import type Database from 'better-sqlite3';

export interface LlmSchema {
  /** `conversations` + `responses` (llm's m010, 0.5 onwards). */
  legacy: boolean;
  /** `tool_calls` + `tool_results` beside the legacy tables (m017, 0.26 onwards). */
  tools: boolean;
  /** The content-addressed tables: `messages`, `parts`, `threads`, `turns` (m023_message_store, 0.32). */
  modern: boolean;
  /** `parts.payload` exists (it does in every released 0.32). */
  partsPayload: boolean;
  /** Rows in the pre-0.5 `logs` table, which this reader does not import. */
  oldLogRows: number;
  /** A `messages` table of an llm pre-release layout (no `hash` column): not read. */
  preRelease: boolean;
}

function has(cols: Map<string, Set<string>>, table: string, names: string[]): boolean {
  const c = cols.get(table);
  return c !== undefined && names.every((n) => c.has(n));
}

export function detectSchema(db: Database.Database): LlmSchema {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all().map(String);
  const cols = new Map<string, Set<string>>();
  for (const t of tables) {
    const names = db
      .prepare('SELECT name FROM pragma_table_info(?)')
      .pluck()
      .all(t)
      .map((n) => String(n));
    cols.set(t, new Set(names));
  }
  const legacy =
    has(cols, 'responses', ['id', 'prompt', 'system', 'response', 'conversation_id', 'datetime_utc']) &&
    has(cols, 'conversations', ['id', 'name']);
  const tools =
    legacy &&
    has(cols, 'tool_calls', ['id', 'response_id', 'name', 'arguments']) &&
    has(cols, 'tool_results', ['id', 'response_id', 'name', 'output']);
  const modern =
    has(cols, 'messages', ['hash', 'parent_hash', 'role']) &&
    has(cols, 'parts', ['message_hash', 'position', 'type', 'text']) &&
    has(cols, 'turns', ['id', 'thread_id', 'parent_message_hash', 'tip_message_hash', 'datetime_utc']) &&
    has(cols, 'threads', ['id', 'name', 'tip_message_hash', 'datetime_utc']);
  const preRelease = !modern && cols.has('messages') && !has(cols, 'messages', ['hash', 'parent_hash']);
  let oldLogRows = 0;
  if (has(cols, 'logs', ['prompt', 'response']))
    oldLogRows = Number(db.prepare('SELECT count(*) FROM logs').pluck().get());
  return { legacy, tools, modern, partsPayload: has(cols, 'parts', ['payload']), oldLogRows, preRelease };
}
