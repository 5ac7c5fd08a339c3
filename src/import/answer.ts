/**
 * How every reader writes a turn's answer, so that a Claude Code, OpenClaw or llm turn reads alike in the
 * transcript and in find: the assistant's text as written, each tool call as one line, and the first lines of its
 * result under it. Sanitising for the terminal happens at display time (src/text); here the text is kept as the
 * source had it, only shortened.
 */

/** Lines of a tool result kept in the answer; the rest is counted, not dropped silently. */
export const RESULT_LINES = 3;
/** A tool call's argument summary is cut to this many characters. */
export const ARG_CHARS = 120;

const ARG_KEYS = ['command', 'file_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt', 'name'];

function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The one argument that says most about a call (a command, a path, a pattern...), else its JSON, cut short. */
export function summariseArgs(input: unknown): string {
  if (input === null || input === undefined) return '';
  if (typeof input === 'string') return oneLine(input, ARG_CHARS);
  if (typeof input === 'object' && !Array.isArray(input)) {
    const o = input as Record<string, unknown>;
    for (const k of ARG_KEYS)
      if (typeof o[k] === 'string' && o[k] !== '') return oneLine(o[k] as string, ARG_CHARS);
  }
  let json: string;
  try {
    json = JSON.stringify(input) ?? '';
  } catch {
    json = '';
  }
  return oneLine(json, ARG_CHARS);
}

/** `→ Bash: ls -la` */
export function toolCallLine(name: string, input: unknown): string {
  const args = summariseArgs(input);
  return args === '' ? `→ ${name || 'tool'}` : `→ ${name || 'tool'}: ${args}`;
}

/** The first RESULT_LINES non-empty lines of a result, indented, and a count of the rest. */
export function toolResultLines(text: string, isError = false): string[] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const kept = lines.slice(0, RESULT_LINES).map((l) => `  ${l.length > 200 ? `${l.slice(0, 199)}…` : l}`);
  if (isError && kept.length > 0) kept[0] = `  error: ${kept[0].trimStart()}`;
  const more = lines.length - RESULT_LINES;
  if (more > 0) kept.push(`  … ${more} more ${more === 1 ? 'line' : 'lines'}`);
  return kept;
}

/** Builds an answer piece by piece: text blocks, tool calls, tool results, an error. */
export class AnswerBuilder {
  private readonly parts: string[] = [];
  /**
   * The part index of each call by its source's call id, until its result arrives: calls made together (in
   * parallel) have their results written after all of them, and the transcript reads a result as the call's just
   * above it (src/ui/features/transcript/calls.ts), so a result goes right under its own call.
   */
  private readonly open = new Map<string, number>();

  text(s: string): void {
    const t = s.trim();
    if (t !== '') this.parts.push(t);
  }

  /** `id`: the source's id for the call, when it has one, so that its result can find it. */
  toolCall(name: string, input: unknown, id?: string | null): void {
    if (id) this.open.set(id, this.parts.length);
    this.parts.push(toolCallLine(name, input));
  }

  /** `id`: the call it answers; a result with no id, or one no call of this turn has, goes last, as it came. */
  toolResult(text: string, isError = false, id?: string | null): void {
    const at = id ? this.open.get(id) : undefined;
    if (id) this.open.delete(id);
    const lines = toolResultLines(text, isError);
    if (lines.length === 0) return;
    if (at === undefined || at === this.parts.length - 1) {
      this.parts.push(lines.join('\n'));
      return;
    }
    this.parts.splice(at + 1, 0, lines.join('\n'));
    for (const [k, v] of this.open) if (v > at) this.open.set(k, v + 1);
  }

  /** Text the user typed while the agent was working, which steered the turn without being a prompt of its own. */
  typedWhileBusy(s: string): void {
    const t = s.trim();
    if (t !== '') this.parts.push(`» typed while busy: ${t}`);
  }

  error(message: string): void {
    this.parts.push(`[error] ${oneLine(message, 500)}`);
  }

  toString(): string {
    return this.parts.join('\n\n');
  }
}

/** The store refuses a question or answer longer than 16 MiB (src/store/write/turns.ts): longer text is cut to fit. */
export const MAX_TEXT = 16 * 1024 * 1024 - 64;

/** `text`, cut to MAX_TEXT with a marker (and a problem) when longer. */
export function fitText(
  text: string,
  what: string,
  file: string,
  line: number,
  problems: { file: string; line: number; reason: string }[],
): string {
  if (text.length <= MAX_TEXT) return text;
  const keep = MAX_TEXT - 64;
  problems.push({ file, line, reason: `${what} of ${Math.ceil(text.length / 2 ** 20)} MiB cut to 16 MiB` });
  return `${text.slice(0, keep)}\n… [cut: ${text.length - keep} more characters]`;
}
