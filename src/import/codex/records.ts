/**
 * One rollout line into a record, for every generation of the format (docs/import.md, Codex CLI):
 * - 2025-05 to ~2025-09: line 1 a bare header `{id, timestamp, instructions?, …}`, then bare response items
 *   (`{type:"message", role, content}`, `{type:"function_call", …}`) and `{record_type:"state", …}` lines, none
 *   with a time of its own;
 * - since: every line `{timestamp, type, payload}` with type session_meta, response_item, event_msg, turn_context
 *   or compacted (newer versions add types, kept as `other`).
 * Both become the same record shape, so the turn builder does not care which generation a line came from.
 */
import type { JsonLine } from './lines.js';

export type Json = Record<string, unknown>;

export type RecType =
  | 'session_meta'
  | 'response_item'
  | 'event_msg'
  | 'turn_context'
  | 'compacted'
  | 'state'
  | 'other';

export interface Rec {
  line: number;
  raw: string;
  type: RecType;
  /** The payload (the line itself for a bare line). */
  p: Json;
  /** `p.type` when it is a string (`message`, `user_message`, `function_call`…), else ''. */
  kind: string;
  /** The line's own time (the envelope's `timestamp`); bare lines have none. */
  ts?: string;
}

const ENVELOPE_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);

/** ResponseItem variants as serialised (openai/codex codex-rs/protocol/src/models.rs, `ResponseItem`). */
const BARE_ITEM_TYPES = new Set([
  'message',
  'reasoning',
  'local_shell_call',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'web_search_call',
  'ghost_snapshot',
  'compaction',
]);

export function isObj(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A line as a record, or undefined when it is not a line of any rollout generation. */
export function recordOf(l: JsonLine, first: boolean): Rec | undefined {
  const o = l.obj;
  const ts = typeof o.timestamp === 'string' ? o.timestamp : undefined;
  if (typeof o.type === 'string' && isObj(o.payload)) {
    const type = ENVELOPE_TYPES.has(o.type) ? (o.type as RecType) : 'other';
    const p = o.payload;
    return { line: l.line, raw: l.raw, type, p, kind: typeof p.type === 'string' ? p.type : '', ts };
  }
  if (o.record_type === 'state') return { line: l.line, raw: l.raw, type: 'state', p: o, kind: '' };
  // The bare header: `SessionMeta {id, timestamp, instructions?}` (openai/codex codex-rs/core/src/rollout.rs).
  if (first && !('type' in o) && typeof o.id === 'string' && typeof o.timestamp === 'string')
    return { line: l.line, raw: l.raw, type: 'session_meta', p: o, kind: '' };
  if (typeof o.type === 'string' && BARE_ITEM_TYPES.has(o.type) && !('payload' in o))
    return { line: l.line, raw: l.raw, type: 'response_item', p: o, kind: o.type };
  return undefined;
}
