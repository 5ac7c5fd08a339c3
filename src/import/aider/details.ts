/**
 * An aider turn's details (src/import/details-model.ts) from its lines (chat.ts keeps every line of the turn as its
 * records): the reply after the turn's prompt read by the same walk as its answer (reply.ts), so that the calls
 * line up: each SEARCH/REPLACE block an `edit` with its search and replace text as the pair the diff is made of,
 * each run of aider's own output an `aider` call whose result is the whole run, and the model's reasoning (which
 * the answer leaves out, as aider does) as thinking.
 */
import { DetailsBuilder, type TurnDetails } from '../details-model.js';
import { EDIT_CALL, isPrompt, OUTPUT_CALL, replyParts } from './reply.js';

export function aiderDetails(records: Buffer): TurnDetails {
  const lines = records.toString('utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  // The reply is what follows the turn's prompt, its last run of `#### ` lines: a first turn's records also
  // carry the lines before it (the header, announcements, earlier sessions without a prompt).
  let from = lines.length;
  while (from > 0 && !isPrompt(lines[from - 1])) from--;
  const b = new DetailsBuilder();
  let n = 0;
  for (const p of replyParts(from === 0 ? [] : lines.slice(from))) {
    if (p.kind === 'reasoning') b.thinking(p.text);
    else if (p.kind === 'edit')
      b.call(EDIT_CALL, { path: p.file }, undefined, {
        kind: 'replace',
        file: p.file,
        pairs: [{ old: p.search, new: p.replace }],
      });
    else if (p.kind === 'output') {
      // By an id of its own: with none, the result would go to the first call without one, an edit above it.
      const id = `output ${++n}`;
      b.call(OUTPUT_CALL, '', id);
      b.result(id, p.lines.join('\n'));
    }
  }
  return b.done();
}
