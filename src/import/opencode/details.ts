/**
 * An OpenCode turn's details (src/import/details-model.ts) from its records: each message's record followed by its
 * parts' (turns.ts `recordsOf`), whether rows of the database (`{"table", "row"}` with the JSON in `row.data`,
 * sql-rows.ts) or files of the storage folder (`{"file", "text"}`, storage.ts). As the answer (turns.ts
 * `answerOf`): only assistant messages, not a compaction's summary; `reasoning` parts as thinking, `tool` parts as
 * calls with their whole `state.input` and their `output` or `error`. Edits: `edit {filePath, oldString,
 * newString}` and `write {filePath, content}` (anomalyco/opencode packages/opencode/src/tool/edit.ts `Parameters`,
 * the write parts in tests/import/fixtures/opencode), `apply_patch {patchText}` (tool/apply_patch.ts).
 */
import { DetailsBuilder, type Edit, isObj, jsonRecords, strOf, type TurnDetails } from '../details-model.js';
import type { OcMessage } from './records.js';
import { isPrompt } from './turns.js';

type Kind = 'message' | 'part' | 'other';

/** A record's kind and its data, from either generation's record shape. */
function recordOf(o: Record<string, unknown>): { kind: Kind; data: Record<string, unknown> } | undefined {
  let kind: Kind = 'other';
  let text: unknown;
  if (typeof o.table === 'string' && isObj(o.row)) {
    kind = o.table === 'message' ? 'message' : o.table === 'part' ? 'part' : 'other';
    text = o.row.data;
  } else if (typeof o.file === 'string') {
    const f = o.file.replaceAll('\\', '/');
    kind = /(^|\/)message\//.test(f) ? 'message' : /(^|\/)part\//.test(f) ? 'part' : 'other';
    text = o.text;
  }
  if (kind === 'other' || typeof text !== 'string') return undefined;
  try {
    const data: unknown = JSON.parse(text);
    return isObj(data) ? { kind, data } : undefined;
  } catch {
    return undefined;
  }
}

function editOf(name: string, input: unknown): Edit | undefined {
  if (!isObj(input)) return undefined;
  const file = strOf(input.filePath);
  if (name === 'edit' && typeof input.newString === 'string')
    return { kind: 'replace', file, pairs: [{ old: strOf(input.oldString), new: input.newString }] };
  if (name === 'write' && typeof input.content === 'string')
    return { kind: 'write', file, content: input.content };
  if (name === 'apply_patch' && typeof input.patchText === 'string')
    return { kind: 'patch', patch: input.patchText };
  return undefined;
}

/** The records as messages with their parts, in order (a part before any message is dropped). */
function messagesOf(records: Buffer): OcMessage[] {
  const out: OcMessage[] = [];
  for (const o of jsonRecords(records)) {
    const r = recordOf(o);
    if (!r) continue;
    if (r.kind === 'message') out.push({ id: '', data: r.data, raw: '', file: '', line: 0, parts: [] });
    else out[out.length - 1]?.parts.push({ id: '', data: r.data, raw: '' });
  }
  return out;
}

export function opencodeDetails(records: Buffer): TurnDetails {
  const messages = messagesOf(records);
  // A fork's first turn carries the copied turns' records before its own (links.ts): its own start at its prompt,
  // the last one in its records.
  let from = 0;
  for (let i = 0; i < messages.length; i++) if (isPrompt(messages[i])) from = i;
  const b = new DetailsBuilder();
  for (const m of messages.slice(from)) {
    if (m.data.role !== 'assistant' || m.data.summary === true) continue;
    for (const { data: d } of m.parts) {
      if (d.type === 'reasoning') b.thinking(strOf(d.text));
      else if (d.type === 'tool') {
        const name = strOf(d.tool);
        const state = isObj(d.state) ? d.state : {};
        const id = strOf(d.callID) || undefined;
        const input = state.input;
        b.call(name, input, id, editOf(name, input));
        if (state.status === 'completed') b.result(id, strOf(state.output));
        else if (state.status === 'error') b.result(id, strOf(state.error), true);
      }
    }
  }
  return b.done();
}
