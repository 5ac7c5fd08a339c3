/**
 * The first generation (Copilot CLI before 0.0.342): one JSON document a session,
 * `history-session-state/session_<sessionId>_<startMs>.json`, holding `sessionId`, `startTime`, `chatMessages` (the
 * model's context, OpenAI chat messages with injected reminders) and `timeline` (what the user saw, each entry with
 * an `id` and a `timestamp`). Turns come from the timeline: its `user` entries are the prompts as typed. A turn's raw
 * records are its timeline entries, each as JSON text (the document is one record; its entries are what a turn
 * owns). The same timeline travels inside `session.import_legacy` when a newer CLI resumes such a session
 * (events.ts), and is read by the same function, so both give the same turns under the same keys.
 */

import { isUtf8 } from 'node:buffer';
import { basename } from 'node:path';
import { readRegular, wideText } from '../files.js';
import { jsonText, TOO_DEEP } from '../json-text.js';
import { emptySource, type ImportProblem, type ParsedSession, type ParsedSource } from '../model.js';
import { isoOf } from '../times.js';
import { TurnAssembler } from './turns.js';

/** Past this size a legacy document is refused: it is parsed whole, and V8 strings stop at about 512 MiB. */
export const MAX_LEGACY_BYTES = 256 * 1024 * 1024;

type Json = Record<string, unknown>;

function obj(v: unknown): Json | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/** A completed tool entry's result: its `log` (else its `type`), an error unless the type is `success`. */
export function entryResult(e: Json): { text: string; isError: boolean } {
  const r = obj(e.result);
  const kind = str(r?.type) ?? '';
  return { text: str(r?.log) ?? kind, isError: kind !== 'success' };
}

/**
 * One timeline entry into the assembler. `entryLine` is what a problem or a turn cites: the entry's 1-based place
 * in the timeline (a JSON document), or the line of the `session.import_legacy` event that carries it.
 */
export function timelineEntry(asm: TurnAssembler, e: Json, entryLine: number): void {
  const type = str(e.type);
  const text = str(e.text) ?? '';
  if (type === 'user') {
    const id = str(e.id);
    if (id !== null) {
      asm.prompt({ id, text, time: isoOf(e.timestamp), line: entryLine });
      return;
    }
  }
  switch (type) {
    case 'copilot':
      asm.text(text);
      asm.ended(e.isStreaming !== true);
      break;
    case 'error':
      asm.error(text === '' ? 'error' : text);
      break;
    case 'tool_call_requested':
      asm.toolCall(str(e.callId), str(e.name) ?? '', e.arguments);
      asm.ended(false);
      break;
    case 'tool_call_completed': {
      asm.toolCall(str(e.callId), str(e.name) ?? '', e.arguments);
      const r = entryResult(e);
      asm.toolResult(r.text, r.isError, str(e.callId));
      asm.ended(false);
      break;
    }
    default:
      break; // info, warning, and what later versions add: shown to the user, not part of a turn
  }
}

/** The session id a legacy file's name carries (`session_<id>_<ms>.json`), when it carries one. */
function idFromName(file: string): string | null {
  const m = /^session_(.+)_(\d+)\.json$/.exec(basename(file));
  return m ? m[1] : null;
}

/** Reads one legacy document. Throws (one line) only when the file cannot be read at all. */
export function readLegacyFile(file: string): ParsedSource {
  const problems: ImportProblem[] = [];
  const out: ParsedSource = emptySource('copilot', file, problems);
  let buf: Buffer;
  try {
    buf = readRegular(file, MAX_LEGACY_BYTES).buf;
  } catch (e) {
    throw new Error(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const whole = (reason: string) => {
    problems.push({ file, line: 0, reason });
    return out;
  };
  const wide = wideText(buf);
  if (wide !== undefined) return whole(wide);
  if (!isUtf8(buf)) return whole('not UTF-8 text (binary data?); not a Copilot CLI session');
  let doc: unknown;
  try {
    doc = JSON.parse(buf.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (e) {
    const m = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').slice(0, 80);
    return whole(`not valid JSON (${m}); a legacy Copilot CLI session is one JSON document`);
  }
  const d = obj(doc);
  if (!d || !Array.isArray(d.timeline))
    return whole('not a legacy Copilot CLI session (no timeline); file skipped');
  const session = str(d.sessionId) ?? idFromName(file) ?? basename(file, '.json');
  const start = isoOf(d.startTime);
  const asm = new TurnAssembler(session, file, problems, start);
  const raws: string[] = [];
  d.timeline.forEach((raw, i) => {
    const e = obj(raw);
    if (!e) {
      problems.push({ file, line: 0, reason: `timeline entry ${i + 1} is not an object; skipped` });
      return;
    }
    const json = jsonText(e);
    if (json === undefined) {
      problems.push({ file, line: 0, reason: `timeline entry ${i + 1} ${TOO_DEEP}; skipped` });
      return;
    }
    timelineEntry(asm, e, i + 1);
    asm.raw(raws.push(json) - 1);
  });
  // The CLI rewrites the whole document on every change (no append): what is there is whole.
  out.turns = asm.finish(raws, false, false);
  const s: ParsedSession = {
    sourceSession: session,
    createdAt: start ?? out.turns[0]?.createdAt ?? new Date(0).toISOString(),
  };
  out.sessions.push(s);
  return out;
}
