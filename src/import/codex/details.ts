/**
 * A Codex turn's details from its rollout lines (src/import/details-model.ts), read through the same record shape
 * as the answer (records.ts) and named as content.ts names its calls: `reasoning` items (their `summary_text`
 * and `reasoning_text` parts; only `encrypted_content` is redacted), function, custom, local shell and web search
 * calls with their whole input, and their outputs by `call_id`. Edits: apply_patch, whether a custom tool call's
 * `input`, a function call's `input`, or a shell command carrying the patch (`*** Begin Patch` … `*** End Patch`,
 * openai/codex codex-rs/apply-patch/src/parser.rs).
 */
import { DetailsBuilder, type Edit, isObj, strOf, type TurnDetails } from '../details-model.js';
import { outputText } from './content.js';
import { recordOf, str } from './records.js';

/** The patch text inside a string, from `*** Begin Patch` to `*** End Patch` (or its end). */
function patchIn(s: string): Edit | undefined {
  const a = s.indexOf('*** Begin Patch');
  if (a < 0) return undefined;
  const end = s.indexOf('*** End Patch', a);
  return { kind: 'patch', patch: end < 0 ? s.slice(a) : s.slice(a, end + '*** End Patch'.length) };
}

function editOf(name: string, input: unknown): Edit | undefined {
  if (typeof input === 'string') return name === 'apply_patch' ? patchIn(input) : undefined;
  if (!isObj(input)) return undefined;
  if (typeof input.input === 'string' && name === 'apply_patch') return patchIn(input.input);
  const cmd = input.command ?? input.cmd;
  const text = Array.isArray(cmd) ? cmd.filter((c) => typeof c === 'string').join('\n') : strOf(cmd);
  return /(^|\s)apply_patch\b/.test(text) ? patchIn(text) : undefined;
}

function parsed(s: unknown): unknown {
  if (typeof s !== 'string') return s;
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

export function codexDetails(records: Buffer): TurnDetails {
  const b = new DetailsBuilder();
  let n = 0;
  for (const raw of records.toString('utf8').split('\n')) {
    n++;
    if (raw.trim() === '') continue;
    let obj: unknown;
    try {
      obj = JSON.parse(raw);
    } catch {
      continue;
    }
    if (!isObj(obj)) continue;
    const r = recordOf({ line: n, raw, obj }, false);
    if (r?.type !== 'response_item') continue;
    const p = r.p;
    switch (r.kind) {
      case 'reasoning': {
        const parts: string[] = [];
        for (const list of [p.summary, p.content])
          if (Array.isArray(list))
            for (const x of list) if (isObj(x) && typeof x.text === 'string') parts.push(x.text);
        b.thinking(parts.join('\n\n'), parts.length === 0);
        break;
      }
      case 'function_call': {
        const name = str(p.name) ?? 'function';
        const input = parsed(p.arguments);
        b.call(name, input, strOf(p.call_id), editOf(name, input));
        break;
      }
      case 'custom_tool_call': {
        const name = str(p.name) ?? 'tool';
        const input = typeof p.input === 'string' ? p.input : '';
        b.call(name, input, strOf(p.call_id), editOf(name, input));
        break;
      }
      case 'local_shell_call': {
        const action = isObj(p.action) ? p.action : {};
        b.call('shell', action, strOf(p.call_id), editOf('shell', action));
        break;
      }
      case 'web_search_call':
        b.call('web_search', isObj(p.action) ? p.action : {});
        break;
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const { text, error } = outputText(p.output);
        b.result(str(p.call_id), text, error);
        break;
      }
      default:
        if (r.kind.endsWith('_call')) b.call(r.kind.slice(0, -'_call'.length), p);
    }
  }
  return b.done();
}
