/**
 * A Gemini CLI turn's details from its records (src/import/details-model.ts): a `gemini` message's `thoughts`
 * (`{subject, description}`, chatRecordingTypes.ts `ThoughtSummary`) and its content parts marked `thought`, its
 * `toolCalls` with their whole `args` and `result` (as turns.ts reads them), or the `functionCall` parts of a
 * session rebuilt from history. A message written again (the JSONL file appends each update under the same id)
 * counts once, as last written, where it first appeared. Edits: `replace {file_path, old_string, new_string}` and
 * `write_file {file_path, content}` (the tools' args in tests/import/fixtures/gemini).
 */
import { DetailsBuilder, type Edit, isObj, jsonRecords, strOf, type TurnDetails } from '../details-model.js';
import { partsOf, responseIds, resultText } from './parts.js';
import { resultOf } from './turns.js';

function editOf(name: string, input: unknown): Edit | undefined {
  if (!isObj(input)) return undefined;
  const file = strOf(input.file_path);
  if (name === 'replace' && typeof input.new_string === 'string')
    return { kind: 'replace', file, pairs: [{ old: strOf(input.old_string), new: input.new_string }] };
  if (name === 'write_file' && typeof input.content === 'string')
    return { kind: 'write', file, content: input.content };
  return undefined;
}

export function geminiDetails(records: Buffer): TurnDetails {
  const byId = new Map<string, Record<string, unknown>>();
  const order: Record<string, unknown>[] = [];
  for (const r of jsonRecords(records)) {
    if (typeof r.type !== 'string') continue;
    if (typeof r.id === 'string') {
      if (!byId.has(r.id)) order.push(r);
      byId.set(r.id, r);
    } else order.push(r);
  }
  const b = new DetailsBuilder();
  for (const first of order) {
    const r = typeof first.id === 'string' ? (byId.get(first.id) ?? first) : first;
    if (r.type === 'gemini') {
      if (Array.isArray(r.thoughts))
        for (const t of r.thoughts)
          if (isObj(t)) {
            const subject = strOf(t.subject);
            const text = strOf(t.description);
            b.thinking(subject === '' ? text : `${subject}\n${text}`);
          }
      for (const p of partsOf(r.content)) if (p.thought === true) b.thinking(strOf(p.text));
      const calls = Array.isArray(r.toolCalls) ? r.toolCalls.filter(isObj) : [];
      for (const c of calls) {
        const name = typeof c.name === 'string' ? c.name : '';
        const id = strOf(c.id) || undefined;
        b.call(name, c.args, id, editOf(name, c.args));
        const res = resultOf(c);
        if (res) b.result(id, res.text, res.error || c.status === 'error');
      }
      if (calls.length === 0)
        for (const p of partsOf(r.content)) {
          const fc = isObj(p.functionCall) ? p.functionCall : undefined;
          if (!fc) continue;
          const name = typeof fc.name === 'string' ? fc.name : '';
          b.call(name, fc.args, strOf(fc.id) || undefined, editOf(name, fc.args));
        }
    } else if (r.type === 'user') {
      const ids = responseIds(r.content);
      if (ids.length === 0) continue;
      const res = resultText(r.content);
      b.result(ids[0], res.text, res.error);
    }
  }
  return b.done();
}
