/** The files generation: one transcript (live, topic or archived copy) read into one ParsedSource (pi's format, ../pi-format). */
import { readRegular } from '../files.js';
import type { ParsedSource } from '../model.js';
import { sessionFromJsonl } from '../pi-format/jsonl.js';
import type { Problems } from '../pi-format/records.js';
import { classify } from './paths.js';

/** Past this size a transcript or sessions.json is refused (a problem, not read): it is parsed whole in memory. */
export const MAX_FILE_BYTES = 1024 * 1024 * 1024;

export function readTranscriptFile(file: string): ParsedSource {
  const k = classify(file);
  const buf = readRegular(file, MAX_FILE_BYTES).buf;
  const p: Problems = { file, prefix: '', list: [] };
  const fallbackSessionId = k.kind === 'transcript' || k.kind === 'archive' ? k.sessionId : file;
  const out = sessionFromJsonl(buf, p, {
    tool: 'OpenClaw',
    fallbackSessionId,
    archived: k.kind === 'archive' ? { reason: k.reason, at: k.at } : undefined,
    growing: k.kind !== 'archive',
  });
  return {
    kind: 'openclaw',
    file,
    sessions: out ? [out.session] : [],
    turns: out ? out.turns : [],
    entries: [],
    problems: p.list.sort((a, b) => a.line - b.line),
  };
}
