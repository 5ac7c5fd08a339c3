/**
 * What a record says: a user prompt's text (and whether it is a prompt at all or context Codex injected), and the
 * answer pieces of assistant messages, tool calls and tool results, written through the shared AnswerBuilder.
 * Shapes: openai/codex codex-rs/protocol/src/models.rs (`ResponseItem`, `ContentItem`,
 * `FunctionCallOutputPayload`, `LocalShellAction`, `WebSearchAction`) and the real rollouts in
 * tests/import/fixtures/codex (docs/import.md, Codex CLI).
 */
import type { AnswerBuilder } from '../answer.js';
import { jsonText, TOO_DEEP } from '../json-text.js';
import { isObj, type Json, type Rec, str } from './records.js';

/**
 * Context Codex puts into the conversation as user messages: the environment, the user's instructions and
 * AGENTS.md files. Never a question.
 */
const INJECTED_PREFIXES = [
  '<environment_context>',
  '<user_instructions>',
  '# AGENTS.md instructions for ',
  '<INSTRUCTIONS>',
];

export function isInjected(text: string): boolean {
  const t = text.trimStart();
  return INJECTED_PREFIXES.some((p) => t.startsWith(p));
}

/** The IDE extension's wrapper: what follows this line is what the user typed (Codex's `USER_MESSAGE_BEGIN`). */
const USER_MESSAGE_BEGIN = '## My request for Codex:';

/** A message's content items as text: input/output text joined by newlines, images as `[image]`. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const c of content) {
    if (!isObj(c)) continue;
    if (typeof c.text === 'string') parts.push(c.text);
    else if (c.type === 'input_image' || c.type === 'image') parts.push('[image]');
  }
  return parts.join('\n');
}

/** A user message item that is a prompt (not injected context): its text; else undefined. */
export function itemPrompt(r: Rec): string | undefined {
  if (r.type !== 'response_item' || r.kind !== 'message' || r.p.role !== 'user') return undefined;
  const text = contentText(r.p.content);
  return isInjected(text) ? undefined : text;
}

/**
 * A `user_message` event that is a prompt: its text with the IDE wrapper taken off and `[image]` for each image;
 * else undefined. Older versions also sent the injected context as events, marked by `kind`.
 */
export function eventPrompt(r: Rec): string | undefined {
  if (r.type !== 'event_msg' || r.kind !== 'user_message') return undefined;
  const kind = r.p.kind;
  if (kind === 'user_instructions' || kind === 'environment_context') return undefined;
  let text = typeof r.p.message === 'string' ? r.p.message : '';
  if (isInjected(text)) return undefined;
  const at = text.indexOf(USER_MESSAGE_BEGIN);
  if (at >= 0) text = text.slice(at + USER_MESSAGE_BEGIN.length);
  text = text.trim();
  const images =
    (Array.isArray(r.p.images) ? r.p.images.length : 0) +
    (Array.isArray(r.p.local_images) ? r.p.local_images.length : 0);
  const parts = text === '' ? [] : [text];
  for (let i = 0; i < images; i++) parts.push('[image]');
  return parts.join('\n');
}

/** `<cwd>…</cwd>` of an environment context message, the working directory of the oldest rollouts. */
export function environmentCwd(r: Rec): string | undefined {
  if (r.type !== 'response_item' || r.kind !== 'message' || r.p.role !== 'user') return undefined;
  const m = /<environment_context>[\s\S]*?<cwd>([^<\n]+)<\/cwd>/.exec(contentText(r.p.content));
  return m ? m[1].trim() : undefined;
}

function parseJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

/** `["bash", "-lc", "ls"]` as `ls`; any other argv joined by spaces. */
function commandText(cmd: unknown): string | undefined {
  if (typeof cmd === 'string') return cmd;
  if (!Array.isArray(cmd) || !cmd.every((c) => typeof c === 'string')) return undefined;
  const argv = cmd as string[];
  if (argv.length === 3 && /(^|\/)(ba|z|da|)sh$/.test(argv[0]) && /^-l?c$/.test(argv[1])) return argv[2];
  return argv.join(' ');
}

/** The files an apply_patch input touches (`*** Update File: path` lines), or undefined. */
function patchFiles(input: string): string | undefined {
  const files = [...input.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((m) => m[1].trim());
  return files.length > 0 ? files.join(', ') : undefined;
}

/** A call's arguments as the shared summariser reads them: the command as a string, a patch as its files. */
function callInput(name: string, args: unknown): unknown {
  if (isObj(args)) {
    const cmd = commandText(args.command) ?? commandText(args.cmd);
    if (cmd !== undefined) return { command: cmd };
    if (typeof args.input === 'string' && name === 'apply_patch') return patchFiles(args.input) ?? args.input;
  }
  return args;
}

/** A tool result's text and whether it failed, from any of the output shapes Codex has written. */
export function outputText(output: unknown): { text: string; error: boolean } {
  if (Array.isArray(output)) return { text: contentText(output), error: false };
  if (isObj(output)) {
    const text =
      typeof output.content === 'string' ? output.content : (jsonText(output) ?? `[tool output ${TOO_DEEP}]`);
    return { text, error: output.success === false };
  }
  if (typeof output !== 'string') return { text: '', error: false };
  // The shell tool's result: `{"output": "...", "metadata": {"exit_code": N}}` as a JSON string.
  if (output.startsWith('{"output"')) {
    const o = parseJson(output);
    if (isObj(o) && typeof o.output === 'string') {
      const code = isObj(o.metadata) ? o.metadata.exit_code : undefined;
      return { text: o.output, error: typeof code === 'number' && code !== 0 };
    }
  }
  // exec_command's result: a header of `Chunk ID:`, `Wall time:`, `Process exited with code N`… then `Output:`.
  const m = /^Chunk ID: [^\n]*\n(?:[^\n]*\n)*?Output:\n/.exec(output);
  if (m) {
    const code = /\nProcess exited with code (-?\d+)\n/.exec(m[0]);
    const text = output.slice(m[0].length);
    // Still running and nothing written yet: the header's line is the result, naming the session that later
    // write_stdin calls read the output from (else the call showed no result at all).
    const running = /\n(Process running with session ID \d+)\n/.exec(m[0]);
    if (running && text.trim() === '') return { text: running[1], error: false };
    return { text, error: code !== null && code[1] !== '0' };
  }
  return { text: output, error: false };
}

/** True when the record carries something of the answer: assistant text, a call or its result, a turn's end. */
export function isAnswerRecord(r: Rec): boolean {
  if (r.type === 'response_item') {
    if (r.kind === 'message') return r.p.role === 'assistant';
    return r.kind !== 'ghost_snapshot' && r.kind !== 'compaction';
  }
  if (r.type === 'event_msg')
    return (
      r.kind === 'agent_message' ||
      r.kind === 'task_complete' ||
      r.kind === 'turn_aborted' ||
      r.kind === 'error'
    );
  return false;
}

/**
 * Adds a record's part of the answer. `events` says whether the turn's text comes from `agent_message` events
 * (a turn with no assistant message items) rather than from the items, which repeat it.
 */
export function addToAnswer(b: AnswerBuilder, r: Rec, events: boolean): void {
  const p = r.p;
  if (r.type === 'event_msg') {
    if (r.kind === 'agent_message' && events && typeof p.message === 'string') b.text(p.message);
    else if (r.kind === 'error' && typeof p.message === 'string') b.error(p.message);
    else if (r.kind === 'turn_aborted') b.text(`[turn aborted${str(p.reason) ? `: ${p.reason}` : ''}]`);
    return;
  }
  if (r.type !== 'response_item') return;
  switch (r.kind) {
    case 'message':
      if (p.role === 'assistant') b.text(contentText(p.content));
      return;
    case 'function_call': {
      const name = str(p.name) ?? 'function';
      const args = typeof p.arguments === 'string' ? (parseJson(p.arguments) ?? p.arguments) : p.arguments;
      b.toolCall(name, callInput(name, args), str(p.call_id));
      return;
    }
    case 'custom_tool_call': {
      const name = str(p.name) ?? 'tool';
      const input = typeof p.input === 'string' ? p.input : '';
      b.toolCall(name, name === 'apply_patch' ? (patchFiles(input) ?? input) : input, str(p.call_id));
      return;
    }
    case 'local_shell_call': {
      const action = isObj(p.action) ? p.action : {};
      b.toolCall('shell', { command: commandText(action.command) ?? '' });
      return;
    }
    case 'web_search_call': {
      const action: Json = isObj(p.action) ? p.action : {};
      b.toolCall('web_search', str(action.query) ?? str(action.url) ?? str(action.type) ?? '');
      return;
    }
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const { text, error } = outputText(p.output);
      b.toolResult(text, error, str(p.call_id));
      return;
    }
    case 'reasoning':
    case 'ghost_snapshot':
    case 'compaction':
      return; // private reasoning and harness state, never the answer (as for the other sources)
    default:
      // A call of a kind newer than this reader (tool_search_call, image_generation_call…): one line, its type.
      if (r.kind.endsWith('_call')) b.toolCall(r.kind.slice(0, -'_call'.length), '');
  }
}

/** The `turn_id` a record names (task_started, task_complete, turn_aborted, turn_context), when it has one. */
export function turnIdOf(r: Rec): string | undefined {
  if (r.type === 'turn_context') return str(r.p.turn_id);
  if (
    r.type === 'event_msg' &&
    (r.kind === 'task_started' || r.kind === 'task_complete' || r.kind === 'turn_aborted')
  )
    return str(r.p.turn_id);
  return undefined;
}
