/**
 * A session's turns: a turn is a user message that is a real prompt and every message after it up to the next
 * one. Synthetic and ignored text parts (a read file's contents, "Called the Read tool with...") are context
 * OpenCode added, never the prompt; a user message holding only a compaction marker is no prompt. The answer is
 * every assistant message's text, each tool part as one line with the first lines of its output, through
 * AnswerBuilder; reasoning is left out, as the other readers leave it out. docs/import.md (OpenCode).
 */
import { AnswerBuilder, fitText } from '../answer.js';
import { append, type ImportProblem, type ParsedTurn } from '../model.js';
import { createdOf, dig, isJson, isoOf, msOf, type OcMessage, type OcSession, role, str } from './records.js';

/** The epoch, for a prompt with no readable time (reported). */
const NO_TIME = '1970-01-01T00:00:00.000Z';
/** What a question says when the prompt had only attachments. */
const NO_PROMPT = '[no prompt]';

/** A turn before it is placed: its prompt message and the messages after it. */
export interface DraftTurn {
  user: OcMessage;
  /** The prompt and every message after it up to the next prompt, in order. */
  messages: OcMessage[];
  /** The session's own record and messages before the first prompt ride on the first turn. */
  lead: string[];
}

function partsOfType(m: OcMessage, type: string) {
  return m.parts.filter((p) => p.data.type === type);
}

/** The text the user typed: text parts OpenCode did not add itself. */
function typedText(m: OcMessage): string {
  return partsOfType(m, 'text')
    .filter((p) => p.data.synthetic !== true && p.data.ignored !== true)
    .map((p) => str(p.data.text))
    .filter((t) => t.trim() !== '')
    .join('\n\n');
}

/** The question of a prompt message: its typed text, else its subtask prompts, else its attachments' names. */
export function questionOf(m: OcMessage): string {
  const typed = typedText(m);
  if (typed !== '') return typed;
  const subtasks = partsOfType(m, 'subtask')
    .map((p) => str(p.data.prompt))
    .filter((t) => t.trim() !== '');
  if (subtasks.length > 0) return subtasks.join('\n\n');
  return partsOfType(m, 'file')
    .map((p) => `[file ${str(p.data.filename) || str(p.data.url)}]`)
    .join('\n');
}

/** A user message the person sent: it has typed text, a subtask or an attachment (not only a compaction). */
export function isPrompt(m: OcMessage): boolean {
  if (role(m) !== 'user') return false;
  return typedText(m) !== '' || m.parts.some((p) => p.data.type === 'subtask' || p.data.type === 'file');
}

/** The session's messages cut into draft turns; messages before the first prompt ride on it. */
export function draftTurns(s: OcSession): DraftTurn[] {
  const turns: DraftTurn[] = [];
  const lead: string[] = [s.raw];
  for (const m of s.messages) {
    if (isPrompt(m)) {
      turns.push({ user: m, messages: [m], lead: turns.length === 0 ? lead : [] });
    } else if (turns.length > 0) {
      turns[turns.length - 1].messages.push(m);
    } else {
      append(lead, recordsOf(m));
    }
  }
  return turns;
}

function recordsOf(m: OcMessage): string[] {
  return [m.raw, ...m.parts.map((p) => p.raw)];
}

/** One tool part: its call, then its output or its error. */
function toolInto(b: AnswerBuilder, data: Record<string, unknown>): void {
  const state = isJson(data.state) ? data.state : {};
  // OpenCode's file tools name their path `filePath` (read, write, edit): the argument that says most.
  const input = state.input;
  b.toolCall(str(data.tool), isJson(input) && typeof input.filePath === 'string' ? input.filePath : input);
  if (state.status === 'completed') b.toolResult(str(state.output));
  else if (state.status === 'error') b.toolResult(str(state.error), true);
}

/** The answer: each assistant message's text and tool lines; its error, when it ended in one. */
export function answerOf(messages: OcMessage[]): string {
  const b = new AnswerBuilder();
  for (const m of messages) {
    if (role(m) !== 'assistant') continue;
    // A compaction's summary message stands for the history before it: not this turn's answer.
    if (m.data.summary === true) continue;
    for (const p of m.parts) {
      const d = p.data;
      if (d.type === 'text' && d.synthetic !== true && d.ignored !== true) b.text(str(d.text));
      else if (d.type === 'tool') toolInto(b, d);
    }
    const err = m.data.error;
    if (isJson(err)) {
      const message = str(dig(err, 'data', 'message')) || str(err.name) || 'error';
      b.error(str(err.name) !== '' && str(err.name) !== message ? `${str(err.name)}: ${message}` : message);
    }
  }
  return b.toString();
}

/** Still running: no assistant reply yet, a reply without its end time, or a tool not done. */
function stillRunning(messages: OcMessage[]): boolean {
  const last = messages[messages.length - 1];
  if (last === undefined || role(last) !== 'assistant') return true;
  if (msOf(dig(last.data, 'time', 'completed')) === null && !isJson(last.data.error)) return true;
  return messages.some((m) =>
    m.parts.some(
      (p) => p.data.type === 'tool' && ['pending', 'running'].includes(str(dig(p.data, 'state', 'status'))),
    ),
  );
}

function cwdOf(s: OcSession, messages: OcMessage[]): string | undefined {
  for (const m of messages) {
    const cwd = str(dig(m.data, 'path', 'cwd'));
    if (cwd !== '') return cwd;
  }
  const dir = str(s.info.directory);
  return dir !== '' ? dir : undefined;
}

/** Draft turns as the writer takes them. `newest` is the session's last draft: only it may still be running. */
export function finishTurn(
  s: OcSession,
  d: DraftTurn,
  parent: string | null,
  newest: boolean,
  note: string | undefined,
  problems: ImportProblem[],
): ParsedTurn {
  const created = createdOf(d.user) ?? msOf(dig(s.info, 'time', 'created'));
  if (createdOf(d.user) === null)
    problems.push({
      file: d.user.file,
      line: d.user.line,
      reason: `message ${d.user.id}: no readable time.created`,
    });
  const question = questionOf(d.user);
  const turn: ParsedTurn = {
    sourceId: d.user.id,
    parentSourceId: parent,
    sourceSession: s.id,
    question:
      question.trim() === '' ? NO_PROMPT : fitText(question, 'prompt', d.user.file, d.user.line, problems),
    answer: fitText(answerOf(d.messages), 'answer', d.user.file, d.user.line, problems),
    createdAt: created === null ? NO_TIME : isoOf(created),
    raw: [...d.lead, ...d.messages.flatMap(recordsOf)],
    line: d.user.line,
    complete: !(newest && stillRunning(d.messages)),
  };
  const cwd = cwdOf(s, d.messages);
  if (cwd !== undefined) turn.cwd = cwd;
  if (note !== undefined) turn.note = note;
  return turn;
}
