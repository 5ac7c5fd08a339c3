/**
 * A pi-format turn's details (pi and OpenClaw, src/import/details-model.ts), from its entries as transcript.ts
 * reads them: `thinking` blocks of assistant messages (`redacted`, or only a signature, says so), `toolCall`
 * blocks with their whole arguments (callArgs, as the answer has them) and `toolResult` messages by
 * `toolCallId`; a `bashExecution` (a `!cmd` the user ran) as the `bash` call the answer shows. An OpenClaw
 * `transcript_events` row carries its entry in `event_json` (or compressed in `event_zstd`, base64 in the row's
 * record). Edits: `edit {path, oldText, newText}` and `write {path, content}` (pi's tools as
 * tests/import/fixtures/pi shows them).
 */
import { DetailsBuilder, type Edit, isObj, jsonRecords, strOf, type TurnDetails } from '../details-model.js';
import { unzstd } from '../zstd.js';
import { callArgs, contentText } from './transcript.js';

/** A compressed event is never inflated past this (OpenClaw's own bound on one event, openclaw/sqlite.ts). */
const MAX_EVENT_BYTES = 4 * 1024 * 1024;

function entryOf(o: Record<string, unknown>): Record<string, unknown> | undefined {
  let text: string | undefined;
  if (typeof o.event_json === 'string') text = o.event_json;
  else if (typeof o.event_zstd === 'string' && typeof o.event_utf8_bytes === 'number') {
    try {
      const size = o.event_utf8_bytes;
      if (size > 0 && size <= MAX_EVENT_BYTES)
        text = unzstd(Buffer.from(o.event_zstd, 'base64'), size).toString();
    } catch {
      return undefined;
    }
  }
  if (text === undefined) return o;
  try {
    const v: unknown = JSON.parse(text);
    return isObj(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function editOf(name: string, input: unknown): Edit | undefined {
  if (!isObj(input)) return undefined;
  const file = strOf(input.path);
  if (name === 'edit' && typeof input.newText === 'string')
    return { kind: 'replace', file, pairs: [{ old: strOf(input.oldText), new: input.newText }] };
  if (name === 'write' && typeof input.content === 'string')
    return { kind: 'write', file, content: input.content };
  return undefined;
}

export function piDetails(records: Buffer): TurnDetails {
  const b = new DetailsBuilder();
  let bash = 0;
  for (const row of jsonRecords(records)) {
    const e = entryOf(row);
    if (e?.type !== 'message' || !isObj(e.message)) continue;
    const m = e.message;
    if (m.role === 'assistant' && Array.isArray(m.content)) {
      for (const block of m.content) {
        if (!isObj(block)) continue;
        if (block.type === 'thinking') b.thinking(strOf(block.thinking), block.redacted === true);
        else if (block.type === 'toolCall') {
          const name = typeof block.name === 'string' ? block.name : '';
          const input = callArgs(block);
          b.call(name, input, strOf(block.id), editOf(name, input));
        }
      }
    } else if (m.role === 'toolResult') {
      b.result(strOf(m.toolCallId) || undefined, contentText(m.content), m.isError === true);
    } else if (m.role === 'bashExecution') {
      const command = strOf(m.command);
      const id = `!bash ${++bash}`;
      b.call('bash', { command }, id);
      b.result(id, strOf(m.output), typeof m.exitCode === 'number' && m.exitCode !== 0);
    }
  }
  return b.done();
}
