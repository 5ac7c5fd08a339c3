/**
 * Gemini CLI message content: a `PartListUnion` of the Gemini API (a string, one part, or a list of parts and
 * strings; a part is `{text}`, `{text, thought: true}`, `{functionCall}`, `{functionResponse}`, `{inlineData}`,
 * `{fileData}`...). What a question, an answer's text and a tool result are, read from it, and which `user`
 * messages are real prompts (docs/import.md, "Gemini CLI": the tool records tool results, injected context and
 * its own "Please continue." as `user` messages too).
 */

import { jsonText, TOO_DEEP } from '../json-text.js';

export type Json = Record<string, unknown>;

export function obj(v: unknown): Json | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null;
}

/** The parts of a PartListUnion: a string is one text part, a bare part a list of one. */
export function partsOf(content: unknown): Json[] {
  if (typeof content === 'string') return [{ text: content }];
  const list = Array.isArray(content) ? content : content === undefined || content === null ? [] : [content];
  const out: Json[] = [];
  for (const p of list) {
    if (typeof p === 'string') out.push({ text: p });
    else {
      const o = obj(p);
      if (o) out.push(o);
    }
  }
  return out;
}

/** `[image]`, `[audio]`... for inline data and files: the question keeps that something was attached. */
function mediaOf(p: Json): string | null {
  const inline = obj(p.inlineData) ?? obj(p.fileData);
  if (!inline) return null;
  const mime = typeof inline.mimeType === 'string' ? inline.mimeType : '';
  const kind = mime.split('/')[0];
  return kind === 'image' || kind === 'audio' || kind === 'video' ? `[${kind}]` : '[file]';
}

/** The visible text of content: its text parts (thoughts left out) and a marker per attachment, joined. */
export function textOf(content: unknown): string {
  const out: string[] = [];
  for (const p of partsOf(content)) {
    if (p.thought === true) continue;
    if (typeof p.text === 'string') out.push(p.text);
    else {
      const m = mediaOf(p);
      if (m) out.push(m);
    }
  }
  return out.join('');
}

function hasFunctionResponse(content: unknown): boolean {
  return partsOf(content).some((p) => obj(p.functionResponse) !== null);
}

/** Early versions stored content as `partListUnionToString`, which writes a tool result this way. */
const FUNCTION_RESPONSE_TEXT = /^\[Function Response: [^\]]*\]/;

/** What a `user` message is (the reader's reading; the format has no flag for it). */
export type UserKind = 'prompt' | 'tool-result' | 'context' | 'continuation' | 'compaction' | 'empty';

/** Injected context the CLI itself writes as a user message (gemini-cli `isIgnoredUserContent`, environmentContext). */
const CONTEXT_PREFIXES = ['<session_context>', '<hook_context>'];
const LEGACY_CONTEXT = 'This is the Gemini CLI. We are setting up the context for our chat.';

export function userKind(m: Json): UserKind {
  const content = m.content;
  if (hasFunctionResponse(content)) return 'tool-result';
  const text = textOf(content).trim();
  if (FUNCTION_RESPONSE_TEXT.test(text)) return 'tool-result';
  if (CONTEXT_PREFIXES.some((p) => text.startsWith(p)) || text.startsWith(LEGACY_CONTEXT)) return 'context';
  if (text.startsWith('<state_snapshot>')) return 'compaction';
  // The CLI's own nudges: "System: Please continue." (up to v0.41), and "Please continue." sent with the display
  // text of the prompt it continues (a typed "Please continue." has no displayContent: it equals the content).
  if (text === 'System: Please continue.') return 'continuation';
  if (text === 'Please continue.' && m.displayContent !== undefined) return 'continuation';
  if (text === '') return 'empty';
  return 'prompt';
}

/** A prompt's question: what the user typed (`displayContent`, when it has text) rather than what was sent. */
export function questionOf(m: Json): string {
  if (m.displayContent !== undefined && !hasFunctionResponse(m.displayContent)) {
    const shown = textOf(m.displayContent);
    if (shown.trim() !== '') return shown;
  }
  return textOf(m.content);
}

/** The text of a tool result: each functionResponse's output (or error, or response as JSON), and text parts. */
export function resultText(result: unknown): { text: string; error: boolean } {
  if (typeof result === 'string') return { text: result.replace(FUNCTION_RESPONSE_TEXT, ''), error: false };
  const out: string[] = [];
  let error = false;
  for (const p of partsOf(result)) {
    const fr = obj(p.functionResponse);
    if (fr) {
      const resp = fr.response;
      const r = obj(resp);
      if (typeof resp === 'string') out.push(resp);
      else if (r && typeof r.output === 'string') out.push(r.output);
      else if (r && typeof r.error === 'string') {
        out.push(r.error);
        error = true;
      } else if (resp !== undefined) out.push(jsonText(resp) ?? `[tool response ${TOO_DEEP}]`);
    } else if (typeof p.text === 'string' && p.thought !== true) out.push(p.text);
    else {
      const m = mediaOf(p);
      if (m) out.push(m);
    }
  }
  return { text: out.join('\n'), error };
}

/** The call ids of the functionResponse parts of content. */
export function responseIds(content: unknown): string[] {
  const ids: string[] = [];
  for (const p of partsOf(content)) {
    const fr = obj(p.functionResponse);
    if (fr && typeof fr.id === 'string') ids.push(fr.id);
  }
  return ids;
}
