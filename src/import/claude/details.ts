/**
 * A Claude Code turn's details from its lines (src/import/details-model.ts): `thinking` and `redacted_thinking`
 * blocks of assistant lines (the answer leaves them out, content.ts), every `tool_use`/`server_tool_use` block with
 * its whole input, named as content.ts names it, and the `tool_result` blocks of user lines matched by
 * `tool_use_id`. Edits: Edit `{file_path, old_string, new_string}`, MultiEdit `{file_path, edits[]}`, Write
 * `{file_path, content}` (the tools' inputs as the corpus under tests/import/fixtures/corpus shows them).
 */
import { DetailsBuilder, type Edit, isObj, jsonRecords, strOf, type TurnDetails } from '../details-model.js';
import { resultText } from './content.js';

function editOf(name: string, input: unknown): Edit | undefined {
  if (!isObj(input)) return undefined;
  const file = strOf(input.file_path);
  if (name === 'Edit' && typeof input.new_string === 'string')
    return { kind: 'replace', file, pairs: [{ old: strOf(input.old_string), new: input.new_string }] };
  if (name === 'MultiEdit' && Array.isArray(input.edits)) {
    const pairs = input.edits
      .filter(isObj)
      .map((e) => ({ old: strOf(e.old_string), new: strOf(e.new_string) }));
    return { kind: 'replace', file, pairs };
  }
  if (name === 'Write' && typeof input.content === 'string')
    return { kind: 'write', file, content: input.content };
  return undefined;
}

export function claudeDetails(records: Buffer): TurnDetails {
  const b = new DetailsBuilder();
  for (const o of jsonRecords(records)) {
    const msg = isObj(o.message) ? o.message : undefined;
    if (!msg || !Array.isArray(msg.content)) continue;
    if (o.type === 'assistant') {
      for (const block of msg.content) {
        if (!isObj(block)) continue;
        if (block.type === 'thinking') b.thinking(strOf(block.thinking));
        else if (block.type === 'redacted_thinking') b.thinking('', true);
        else if (block.type === 'tool_use' || block.type === 'server_tool_use') {
          const name = typeof block.name === 'string' ? block.name : 'tool';
          b.call(name, block.input, strOf(block.id), editOf(name, block.input));
        }
      }
    } else if (o.type === 'user') {
      for (const block of msg.content)
        if (isObj(block) && block.type === 'tool_result' && typeof block.tool_use_id === 'string')
          b.result(block.tool_use_id, resultText(block.content), block.is_error === true);
    }
  }
  return b.done();
}
