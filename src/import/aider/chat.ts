/**
 * The turns of an aider chat history (Aider-AI/aider aider/io.py, the writer; facts in docs/import.md, aider). A
 * session starts at `# aider chat started at YYYY-MM-DD HH:MM:SS`; a prompt is a run of lines starting `#### `;
 * a line starting `> ` is aider's own output; the rest is the model's markdown (the same rule aider's own
 * `--restore-chat-history` reads the file with: aider/utils.py `split_chat_history_markdown`). A turn is a prompt
 * and everything up to the next prompt of its session. Every line of a turn goes to its `raw`, so that
 * `export --format source` gives the lines back.
 */
import { createHash } from 'node:crypto';
import { AnswerBuilder, fitText } from '../answer.js';
import type { ImportProblem, ParsedSession, ParsedTurn } from '../model.js';
import { EDIT_CALL, isPrompt, isTool, OUTPUT_CALL, replyParts, unbreak } from './reply.js';

const HEADER = /^# [Aa]ider chat started at (\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})\s*$/;
/** Said among a session's announcements when `--restore-chat-history` loaded the file's earlier chat. */
const RESTORED = 'Restored previous conversation history.';

const isBlank = (t: string | null) => t === '';

export interface ChatInput {
  file: string;
  lines: (string | null)[];
  openEnded: boolean;
  cwd: string;
  problems: ImportProblem[];
}

export interface Chat {
  sessions: ParsedSession[];
  turns: ParsedTurn[];
}

interface TurnSpan {
  /** First line of the turn (0-based; the blank line aider writes before a prompt, or the session's first line). */
  from: number;
  /** The prompt's lines: [promptFrom, promptTo). */
  promptFrom: number;
  promptTo: number;
  /** One past its last line. */
  to: number;
}

interface SessionSpan {
  from: number;
  header: number;
  to: number;
  at: Date;
  turns: TurnSpan[];
}

/** The header's wall-clock time, read in this machine's zone: aider writes `datetime.now()` without one. */
function headerTime(m: RegExpExecArray): Date {
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
  return new Date(y, mo - 1, d, h, mi, s);
}

function sessionsOf(lines: (string | null)[]): SessionSpan[] {
  const out: SessionSpan[] = [];
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i];
    const m = t === null ? null : HEADER.exec(t);
    if (!m) continue;
    const at = headerTime(m);
    if (Number.isNaN(at.getTime())) continue;
    // aider writes "\n# aider chat started at ...\n\n": the blank line before the header is the new session's.
    const from =
      i > 0 && isBlank(lines[i - 1]) && (out.length === 0 || out[out.length - 1].header < i - 1) ? i - 1 : i;
    if (out.length > 0) out[out.length - 1].to = from;
    out.push({ from, header: i, to: lines.length, at, turns: [] });
  }
  for (const s of out) {
    for (let i = s.header + 1; i < s.to; i++) {
      if (!isPrompt(lines[i])) continue;
      let j = i;
      while (j < s.to && isPrompt(lines[j])) j++;
      // Each prompt is written as "\n#### ...": its blank line is the prompt's (it was written with it).
      const from = s.turns.length === 0 ? s.from : isBlank(lines[i - 1]) ? i - 1 : i;
      if (s.turns.length > 0) s.turns[s.turns.length - 1].to = from;
      s.turns.push({ from, promptFrom: i, promptTo: j, to: s.to });
      i = j - 1;
    }
  }
  return out;
}

function questionOf(lines: (string | null)[], t: TurnSpan): string {
  const parts: string[] = [];
  for (let i = t.promptFrom; i < t.promptTo; i++) parts.push(unbreak((lines[i] as string).slice(5)));
  const q = parts.join('\n');
  return q.trim() === '' ? '<blank>' : q;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * A message's lines with a code fence it left open closed at its end. aider shows each message on its own, so an
 * open fence ends with its message; in the answer it would run on and make the calls after it text (the
 * transcript reads a `→` line inside a fence as text, src/ui/features/transcript/calls.ts): a reply whose edit
 * blocks aider refused (`The LLM did not conform to the edit format`) hid the rest of its turn's calls.
 */
function closedFences(lines: string[]): string[] {
  let open: string | null = null;
  for (const l of lines) {
    const f = FENCE.exec(l);
    if (!f) continue;
    if (open === null) open = f[1];
    else if (f[1][0] === open[0] && f[1].length >= open.length) open = null;
  }
  return open === null ? lines : [...lines, open];
}

/**
 * The model's markdown as written (its reasoning left out), each SEARCH/REPLACE edit one `→ edit: FILE` line (its
 * diff is the details'), each run of aider's own output one `→ aider` call with its first lines as the result.
 */
function answerOf(reply: readonly (string | null)[]): string {
  const b = new AnswerBuilder();
  for (const p of replyParts(reply)) {
    if (p.kind === 'text') b.text(closedFences(p.lines).join('\n'));
    else if (p.kind === 'edit') b.toolCall(EDIT_CALL, { path: p.file });
    else if (p.kind === 'output') {
      b.toolCall(OUTPUT_CALL, '');
      b.toolResult(p.lines.join('\n'));
    }
  }
  return b.toString();
}

/** The session's key: its start and a digest of its lines up to its first prompt, which never change after. */
function sessionKey(lines: (string | null)[], s: SessionSpan): string {
  const first = s.turns[0];
  const h = createHash('sha256');
  for (let i = s.header; i < first.promptTo; i++) h.update(`${lines[i] ?? ''}\n`);
  const p = (n: number) => String(n).padStart(2, '0');
  const a = s.at;
  const local = `${a.getFullYear()}-${p(a.getMonth() + 1)}-${p(a.getDate())}T${p(a.getHours())}:${p(a.getMinutes())}:${p(a.getSeconds())}`;
  return `${local}~${h.digest('hex').slice(0, 12)}`;
}

export function readChat(input: ChatInput): Chat {
  const { file, lines, problems } = input;
  const spans = sessionsOf(lines);
  if (spans.length === 0) {
    problems.length = 0;
    problems.push({
      file,
      line: 0,
      reason: 'no aider chat in this file (no "# aider chat started at" line)',
    });
    return { sessions: [], turns: [] };
  }
  for (let i = 0; i < spans[0].from; i++)
    if (isPrompt(lines[i])) {
      problems.push({
        file,
        line: i + 1,
        reason: 'a prompt before the first "# aider chat started at" line: its time is unknown; not imported',
      });
      break;
    }

  const sessions: ParsedSession[] = [];
  const turns: ParsedTurn[] = [];
  // Lines no turn holds (those before the first session, sessions without a prompt) go with the next turn.
  let pending = 0;
  const rawOf = (to: number) => {
    const raw: string[] = [];
    for (let i = pending; i < to; i++) if (lines[i] !== null) raw.push(lines[i] as string);
    pending = to;
    return raw;
  };
  for (const s of spans) {
    if (s.turns.length === 0) continue;
    const sid = sessionKey(lines, s);
    const session: ParsedSession = { sourceSession: sid, createdAt: s.at.toISOString(), cwd: input.cwd };
    sessions.push(session);
    let restored = false;
    for (let i = s.header + 1; i < s.turns[0].promptFrom; i++)
      if (isTool(lines[i]) && unbreak((lines[i] as string).slice(2)).trim() === RESTORED) restored = true;
    s.turns.forEach((t, k) => {
      const before = turns.length > 0 ? turns[turns.length - 1].sourceId : null;
      const turn: ParsedTurn = {
        sourceId: `${sid}/${k + 1}`,
        parentSourceId: k > 0 ? `${sid}/${k}` : restored ? before : null,
        sourceSession: sid,
        question: fitText(questionOf(lines, t), 'a prompt', file, t.promptFrom + 1, problems),
        answer: fitText(
          answerOf(lines.slice(t.promptTo, t.to)),
          'an answer',
          file,
          t.promptFrom + 1,
          problems,
        ),
        // Every turn of a session has the session's time; the turn's index in ms keeps them in order.
        createdAt: new Date(s.at.getTime() + k).toISOString(),
        raw: rawOf(t.to),
        line: t.promptFrom + 1,
        complete: true,
        cwd: input.cwd,
      };
      turns.push(turn);
    });
  }
  const newest = turns[turns.length - 1];
  if (newest) {
    // No line of the file says a reply is over: the newest turn may still grow (`import --follow` waits for it).
    newest.complete = false;
    if (input.openEnded) {
      newest.cut = true;
      problems.push({
        file,
        line: lines.length,
        reason: 'truncated last line (no line end: aider may still be writing it)',
      });
    }
  }
  return { sessions, turns };
}
