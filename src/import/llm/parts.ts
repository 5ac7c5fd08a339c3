/**
 * A message's content out of its `parts` rows: text, in the three shapes llm has stored it in, and the JSON
 * payload of tool calls and results.
 */
import type { Row } from './legacy.js';
import { parseJson, str } from './rows.js';

/** A text part's text: the `text` column, else a payload `text` (pre-m027 rows), else a `text_ref` rebuilt. */
export function partText(p: Row): string {
  if (p.text !== null && p.text !== undefined) return str(p.text);
  const payload = parseJson(p.payload) as Record<string, unknown> | undefined;
  if (payload === undefined || payload === null || typeof payload !== 'object') return '';
  if (typeof payload.text === 'string') return payload.text;
  if (Array.isArray(payload.text_ref))
    // Fragment content is not inlined (a fragment can be a whole file): a placeholder marks where it was.
    return payload.text_ref
      .map((piece: Record<string, unknown>) =>
        typeof piece?.literal === 'string'
          ? piece.literal
          : piece?.fragment !== undefined
            ? `[fragment ${str(piece.fragment)}]`
            : '',
      )
      .join('');
  return '';
}

/** A message's text: its text parts joined, other parts left out. */
export function textOf(parts: Row[]): string {
  return parts
    .filter((p) => p.type === 'text')
    .map(partText)
    .join('');
}

/** A part's payload as an object ({} when missing or not an object), so its fields can be read without checks. */
export function payloadOf(p: Row): Record<string, unknown> {
  const v = parseJson(p.payload);
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
