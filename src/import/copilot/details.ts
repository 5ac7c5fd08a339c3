/**
 * A GitHub Copilot CLI turn's details (src/import/details-model.ts) from its records, either generation, read as the
 * answer reads them (events.ts, legacy.ts, turns.ts) so that call i here is call i of the answer:
 *
 * - event log lines: `assistant.message` `reasoningText` (or, with only `reasoningOpaque`/`encryptedContent`, a
 *   redacted block) and `assistant.reasoning` `content` as thinking; each `toolRequests` entry and each
 *   `tool.execution_start` as a call, once per `toolCallId`, with its whole `arguments`; `tool.execution_complete`
 *   by `toolCallId`. Ephemeral and sub-agent events stay out, as in the answer.
 * - legacy timeline entries (a `history-session-state` document's turn, or the timeline a `session.import_legacy`
 *   line carries): `tool_call_requested`/`tool_call_completed` by `callId`, the result's `log`. No thinking: the
 *   timeline keeps none.
 *
 * A turn's records hold one prompt, except the turn that carries a `session.import_legacy` line, whose timeline holds
 * the prompts of the turns after it: reading stops at the second prompt. Edits (PKG 1.0.63 `app.js`, the tools' input
 * schemas: docs/import.md, GitHub Copilot CLI): `edit {path, old_str, new_str?}`, `create {path, file_text}`,
 * `str_replace_editor` with `command` `str_replace`/`edit` or `create` (the same fields), `apply_patch` (the patch as
 * a string, or in `input` or `patch`).
 */
import { DetailsBuilder, type Edit, isObj, jsonRecords, strOf, type TurnDetails } from '../details-model.js';
import { fromSubAgent, isPrompt, resultText } from './events.js';
import { entryResult } from './legacy.js';

type Json = Record<string, unknown>;

function editOf(name: string, input: unknown): Edit | undefined {
  if (name === 'apply_patch') {
    const patch = typeof input === 'string' ? input : isObj(input) ? (input.input ?? input.patch) : undefined;
    return typeof patch === 'string' ? { kind: 'patch', patch } : undefined;
  }
  if (!isObj(input)) return undefined;
  const file = strOf(input.path);
  const command = name === 'str_replace_editor' ? strOf(input.command) : name;
  if ((command === 'edit' || command === 'str_replace') && typeof input.old_str === 'string')
    return { kind: 'replace', file, pairs: [{ old: input.old_str, new: strOf(input.new_str) }] };
  if (command === 'create' && typeof input.file_text === 'string')
    return { kind: 'write', file, content: input.file_text };
  return undefined; // view, insert (a line number, not a replacement) and every other tool: the input says it
}

class Reader {
  readonly b = new DetailsBuilder();
  private prompts = 0;
  private readonly ids = new Set<string>();
  /** Thinking texts read so far, by where they came from, each waiting for its copy from the other place. */
  private readonly unpaired = { message: new Map<string, number>(), event: new Map<string, number>() };

  /** False once a second prompt is met: what follows belongs to the next turn. */
  get open(): boolean {
    return this.prompts < 2;
  }

  prompt(): void {
    this.prompts++;
  }

  /** A call once per id (the assistant's request and the runtime's start name the same call), as the answer. */
  call(id: unknown, name: unknown, input: unknown): void {
    const key = typeof id === 'string' ? id : undefined;
    if (key !== undefined) {
      if (this.ids.has(key)) return;
      this.ids.add(key);
    }
    const n = strOf(name);
    this.b.call(n, input, key, editOf(n, input));
  }

  /**
   * A readable thinking block, from a message's `reasoningText` or an `assistant.reasoning` event: a log that holds
   * both (an older CLI's) holds each block twice, so a text the other place already gave is its copy, shown once.
   */
  thinking(text: string, from: 'message' | 'event'): void {
    const other = this.unpaired[from === 'message' ? 'event' : 'message'];
    const n = other.get(text) ?? 0;
    if (n > 0) {
      other.set(text, n - 1);
      return;
    }
    const own = this.unpaired[from];
    own.set(text, (own.get(text) ?? 0) + 1);
    this.b.thinking(text);
  }

  event(ev: Json, type: string, d: Json): void {
    if (ev.ephemeral === true) return;
    switch (type) {
      case 'session.import_legacy': {
        const legacy = isObj(d.legacySession) ? d.legacySession : undefined;
        const timeline = Array.isArray(legacy?.timeline) ? legacy.timeline : [];
        for (const e of timeline) if (this.open && isObj(e)) this.entry(e);
        break;
      }
      case 'user.message':
        if (isPrompt(ev, d) && strOf(ev.id) !== '') this.prompt();
        break;
      case 'assistant.message': {
        if (fromSubAgent(ev, d)) break;
        const text = strOf(d.reasoningText);
        if (text.trim() !== '') this.thinking(text, 'message');
        else if (strOf(d.reasoningOpaque) !== '' || strOf(d.encryptedContent) !== '')
          this.b.thinking('', true);
        if (Array.isArray(d.toolRequests))
          for (const q of d.toolRequests) if (isObj(q)) this.call(q.toolCallId, q.name, q.arguments);
        break;
      }
      case 'assistant.reasoning':
        if (!fromSubAgent(ev, d) && strOf(d.content).trim() !== '') this.thinking(strOf(d.content), 'event');
        break;
      case 'tool.execution_start':
        if (!fromSubAgent(ev, d)) this.call(d.toolCallId, d.toolName, d.arguments);
        break;
      case 'tool.execution_complete':
        if (!fromSubAgent(ev, d)) {
          const r = resultText(d);
          this.b.result(typeof d.toolCallId === 'string' ? d.toolCallId : undefined, r.text, r.isError);
        }
        break;
      default:
        break;
    }
  }

  /** A legacy timeline entry. */
  entry(e: Json): void {
    switch (e.type) {
      case 'user':
        if (typeof e.id === 'string') this.prompt();
        break;
      case 'tool_call_requested':
        this.call(e.callId, e.name, e.arguments);
        break;
      case 'tool_call_completed': {
        this.call(e.callId, e.name, e.arguments);
        const r = entryResult(e);
        this.b.result(typeof e.callId === 'string' ? e.callId : undefined, r.text, r.isError);
        break;
      }
      default:
        break;
    }
  }
}

const eventOf = (o: Json): Json | undefined =>
  typeof o.type === 'string' && isObj(o.data) ? o.data : undefined;

export function copilotDetails(records: Buffer): TurnDetails {
  const lines = jsonRecords(records);
  // An event log's turn holds events (a line that is not one is kept, not read); a legacy turn holds entries only.
  const events = lines.some((o) => eventOf(o) !== undefined);
  const r = new Reader();
  for (const o of lines) {
    if (!r.open) break;
    const d = eventOf(o);
    if (d) r.event(o, o.type as string, d);
    else if (!events) r.entry(o);
  }
  return r.b.done();
}
