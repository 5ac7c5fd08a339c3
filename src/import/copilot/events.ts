/**
 * The events generation (Copilot CLI 0.0.342 and later): `session-state/<sessionId>/events.jsonl` (early versions:
 * `session-state/<sessionId>.jsonl`), one event a line, `{type, data, id, timestamp, parentId}`, appended in the
 * order they happen (`parentId` is the event before). Each line is read once (../jsonl.ts: capped read,
 * invalid UTF-8, over-long and truncated lines handled as for Claude Code) and told to the turn assembler. Format
 * facts and their sources: docs/import.md (GitHub Copilot CLI).
 */
import { basename, dirname } from 'node:path';
import { readJsonLines } from '../jsonl.js';
import { append, emptySource, type ImportProblem, type ParsedSession, type ParsedSource } from '../model.js';
import { isoOf } from '../times.js';
import { timelineEntry } from './legacy.js';
import { TurnAssembler } from './turns.js';
import { workspaceTitle } from './workspace.js';

type Json = Record<string, unknown>;

function obj(v: unknown): Json | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/** Message sources the CLI's own timeline shows as the user's message (a slash command, a scheduled prompt). */
const SHOWN_SOURCES = ['command-', 'schedule-'];

/**
 * A `user.message` is a prompt when the CLI would show it as one: text in `content`, from the main agent, not
 * injected (a `source` other than a command or a schedule marks a skill body or an agent's message; autopilot's
 * "keep going" message has no `content`, or says `isAutopilotContinuation`).
 */
export function isPrompt(ev: Json, d: Json): boolean {
  const content = str(d.content);
  if (content === null || content === '') return false;
  if (ev.agentId !== undefined || d.parentToolCallId !== undefined) return false;
  if (d.isAutopilotContinuation === true) return false;
  const source = str(d.source);
  return source === null || source === '' || SHOWN_SOURCES.some((p) => source.startsWith(p));
}

/** An event of a sub-agent: its work is summed up by the call that started it, so it stays out of the answer. */
export function fromSubAgent(ev: Json, d: Json): boolean {
  return ev.agentId !== undefined || d.parentToolCallId !== undefined;
}

/** What a tool execution returned: its result's text for the model, else the detailed one; an error's message. */
export function resultText(d: Json): { text: string; isError: boolean } {
  if (d.success === true) {
    const r = obj(d.result);
    return { text: outputText(str(r?.content) || str(r?.detailedContent) || ''), isError: false };
  }
  const e = obj(d.error);
  return { text: str(e?.message) ?? 'failed', isError: true };
}

/**
 * A result that is one OpenAI `output_text` content part written as JSON, `{"type":"output_text","text":{"value":
 * "..."}}` (github-mcp-server's `web_search` in the 1.0.34 log of tests/import/fixtures/copilot): its text, which is
 * what the tool said; the JSON around it would be all a folded call shows. Anything else is kept as it is.
 */
function outputText(text: string): string {
  if (!text.startsWith('{"type":"output_text"')) return text;
  try {
    const v = obj(JSON.parse(text));
    const value = obj(v?.text)?.value;
    return v?.type === 'output_text' && typeof value === 'string' ? value : text;
  } catch {
    return text;
  }
}

/** The session id a file's place gives: `<id>/events.jsonl`, or the flat `<id>.jsonl` of early versions. */
function idFromPath(file: string): string {
  return basename(file) === 'events.jsonl' ? basename(dirname(file)) : basename(file, '.jsonl');
}

/** Reads one events file into one ParsedSource. Throws (one line) only when the file cannot be read at all. */
export function readEventsFile(file: string): ParsedSource {
  const problems: ImportProblem[] = [];
  const asm = new TurnAssembler(idFromPath(file), file, problems, null);
  let sessionFixed = false;
  let start: string | null = null;
  let firstTime: string | null = null;
  let cwd: string | undefined;
  let sessionCwd: string | undefined;
  const setCwd = (v: string | null | undefined) => {
    if (!v) return;
    cwd = v;
    sessionCwd ??= v;
  };
  let events = 0;
  let index = 0;

  const rf = readJsonLines(file, problems, (ev, line) => {
    const ref = index++;
    const d = obj(ev.data);
    const type = str(ev.type);
    if (type === null || d === null) {
      problems.push({ file, line, reason: 'not a Copilot CLI event (no type and data); kept with its turn' });
      asm.raw(ref);
      return;
    }
    events++;
    firstTime ??= isoOf(ev.timestamp);
    if (ev.ephemeral === true) {
      asm.raw(ref); // never written by the CLI; kept as read, not part of the answer
      return;
    }
    switch (type) {
      case 'session.start': {
        const id = str(d.sessionId);
        if (!sessionFixed && asm.prompts === 0 && id) asm.session = id;
        sessionFixed = true;
        start ??= isoOf(d.startTime) ?? isoOf(ev.timestamp);
        asm.fallbackTime ??= start;
        setCwd(str(obj(d.context)?.cwd));
        break;
      }
      case 'session.resume':
        setCwd(str(obj(d.context)?.cwd));
        break;
      case 'session.context_changed':
        setCwd(str(d.cwd));
        break;
      case 'session.import_legacy': {
        // A legacy session resumed by a newer CLI: its whole timeline, carried by this one record.
        asm.raw(ref);
        const legacy = obj(d.legacySession);
        start ??= isoOf(legacy?.startTime);
        asm.fallbackTime ??= start;
        const timeline = Array.isArray(legacy?.timeline) ? legacy.timeline : [];
        for (const e of timeline) {
          const entry = obj(e);
          if (entry) timelineEntry(asm, entry, line);
        }
        return;
      }
      case 'user.message': {
        if (isPrompt(ev, d)) {
          const id = str(ev.id);
          if (id !== null && id !== '') {
            asm.prompt({ id, text: str(d.content) ?? '', time: isoOf(ev.timestamp), line, cwd });
            asm.raw(ref);
            return;
          }
          problems.push({ file, line, reason: 'prompt without an id; kept with the turn before it' });
        }
        asm.ended(false); // an injected message: the agent goes on working
        break;
      }
      case 'assistant.turn_start':
        if (!fromSubAgent(ev, d)) asm.ended(false);
        break;
      case 'assistant.message': {
        if (fromSubAgent(ev, d)) break;
        asm.text(str(d.content) ?? '');
        const requests = Array.isArray(d.toolRequests) ? d.toolRequests : [];
        for (const r of requests) {
          const q = obj(r);
          if (q) asm.toolCall(str(q.toolCallId), str(q.name) ?? '', q.arguments);
        }
        asm.ended(requests.length === 0);
        break;
      }
      case 'tool.execution_start':
        if (fromSubAgent(ev, d)) break;
        asm.toolCall(str(d.toolCallId), str(d.toolName) ?? '', d.arguments);
        asm.ended(false);
        break;
      case 'tool.execution_complete': {
        if (fromSubAgent(ev, d)) break;
        const r = resultText(d);
        asm.toolResult(r.text, r.isError, str(d.toolCallId));
        asm.ended(false);
        break;
      }
      case 'session.error':
        asm.error(str(d.message) ?? str(d.errorType) ?? 'error');
        break;
      case 'abort':
        asm.aborted();
        asm.ended(true);
        break;
      case 'session.shutdown':
        asm.ended(true);
        break;
      default:
        break; // settings, usage, hooks, notices and types yet to come: kept as records, not part of the answer
    }
    asm.raw(ref);
  });

  if (events === 0 && rf.raws.length > 0) {
    // Another format: one problem for the file, not one for each of its lines.
    const n = rf.raws.length;
    const others = problems.filter((p) => p.file !== file);
    problems.length = 0;
    append(problems, others);
    problems.push({
      file,
      line: 0,
      reason: `no Copilot CLI events among ${n} JSON ${n === 1 ? 'line' : 'lines'} (another format?)`,
    });
    return emptySource('copilot', file, problems);
  }

  const turns = asm.finish(rf.raws, true, rf.truncatedEnd);
  const sessions: ParsedSession[] = [];
  if (events > 0) {
    const s: ParsedSession = {
      sourceSession: asm.session,
      createdAt: start ?? firstTime ?? turns[0]?.createdAt ?? new Date(0).toISOString(),
    };
    const title = basename(file) === 'events.jsonl' ? workspaceTitle(dirname(file), problems) : undefined;
    if (title) s.title = title;
    if (sessionCwd) s.cwd = sessionCwd;
    sessions.push(s);
  }
  problems.sort((a, b) => a.line - b.line);
  return { kind: 'copilot', file, sessions, turns, entries: [], problems };
}
