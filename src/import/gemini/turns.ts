/**
 * Turns out of one replayed chat file (history.ts). A turn is a real prompt (parts.ts, `userKind`) and every
 * message whose nearest prompt ancestor it is; its parent turn is the one holding the prompt's parent message. So a
 * rewound-and-retyped prompt is a second child of the turn before the rewind, as the conversation really went.
 */
import { AnswerBuilder, fitText } from '../answer.js';
import type { ImportProblem, ParsedTurn } from '../model.js';
import { isoOf } from '../times.js';
import type { History, Message } from './history.js';
import { type Json, obj, partsOf, questionOf, responseIds, resultText, textOf, userKind } from './parts.js';

export interface TurnOptions {
  /** The session the turns belong to (`sessionId`; a subagent's turns go to their parent's session). */
  sourceSession: string;
  /** The id that makes a message's sourceId: `<idSpace>/<message id>` (the file's own sessionId). */
  idSpace: string;
  /** Whether the file may still grow (its newest turn may be unfinished). */
  growing: boolean;
  cwd?: string;
  /** A note on every turn (a subagent's). */
  note?: string;
  /** The parent of the file's first turn when it has none in the file (a subagent's launching turn). */
  rootParent?: string | null;
}

export interface FileTurns {
  turns: ParsedTurn[];
  /** The sourceId of the turn holding each message (null before the first prompt). */
  turnOf: Map<string, string | null>;
}

interface Built {
  answer: string;
  error: boolean;
}

/** The answer of a turn from its messages in order: text, one line per tool call, each result's first lines. */
function answerOf(msgs: Message[]): Built {
  const b = new AnswerBuilder();
  const seen = new Set<string>(); // call ids whose result is already written
  let error = false;
  let compacting = false;
  for (const m of msgs) {
    const r = m.rec;
    if (r.type === 'gemini') {
      // The CLI's acknowledgment of a compaction summary is not the model's answer to anything.
      if (compacting) {
        compacting = false;
        continue;
      }
      b.text(textOf(r.content));
      const calls = Array.isArray(r.toolCalls) ? r.toolCalls : [];
      for (const c of calls) {
        const call = obj(c);
        if (!call) continue;
        b.toolCall(typeof call.name === 'string' ? call.name : '', call.args);
        const res = resultOf(call);
        if (res) b.toolResult(res.text, res.error || call.status === 'error');
        if (typeof call.id === 'string') seen.add(call.id);
      }
      // Calls written only in the content (a session rebuilt from history): shown once, as calls.
      if (calls.length === 0)
        for (const p of partsOf(r.content)) {
          const fc = obj(p.functionCall);
          if (!fc) continue;
          b.toolCall(typeof fc.name === 'string' ? fc.name : '', fc.args);
        }
    } else if (r.type === 'user') {
      const kind = userKind(r);
      if (kind === 'compaction') compacting = true;
      if (kind !== 'tool-result') continue;
      // A tool result the CLI wrote as a user message: kept unless its call already showed it.
      const ids = responseIds(r.content);
      if (ids.length > 0 && ids.every((id) => seen.has(id))) continue;
      const res = resultText(r.content);
      b.toolResult(res.text, res.error);
    } else if (r.type === 'error') {
      error = true;
      b.error(textOf(r.content) || 'error');
    } else if (r.type === 'info' || r.type === 'warning') {
      const t = textOf(r.content).trim();
      if (t !== '') b.text(`[${r.type}] ${t}`);
    }
  }
  return { answer: b.toString(), error };
}

/** A tool call's result: its `result` parts, else its `resultDisplay` when that is text. */
export function resultOf(call: Json): { text: string; error: boolean } | null {
  if (call.result !== undefined && call.result !== null) {
    const r = resultText(call.result);
    if (r.text.trim() !== '') return r;
  }
  if (typeof call.resultDisplay === 'string' && call.resultDisplay.trim() !== '')
    return { text: call.resultDisplay, error: false };
  return null;
}

/** The turn's last message said its last word: a reply with no tool call left to answer, or a notice. */
function ended(last: Json | undefined): boolean {
  if (!last) return false;
  if (last.type === 'info' || last.type === 'error' || last.type === 'warning') return true;
  if (last.type !== 'gemini') return false;
  const calls = Array.isArray(last.toolCalls) ? last.toolCalls : [];
  if (calls.length === 0) return textOf(last.content).trim() !== '';
  // Calls that all ended and the model still to answer them: only a cancel ends the turn there.
  return calls.every((c) => obj(c)?.status === 'cancelled');
}

export function buildTurns(h: History, o: TurnOptions, problems: ImportProblem[]): FileTurns {
  const { messages } = h;
  // 1. Owner of each message: itself when a prompt, else its parent's owner (parents come first).
  const prompt = new Set<string>();
  const owner = new Map<string, string | null>();
  for (const m of messages) {
    const isPrompt = m.rec.type === 'user' && userKind(m.rec) === 'prompt';
    if (isPrompt) prompt.add(m.id);
    owner.set(m.id, isPrompt ? m.id : m.parent === null ? null : (owner.get(m.parent) ?? null));
  }
  const sid = (id: string) => `${o.idSpace}/${id}`;
  const members = new Map<string, Message[]>();
  for (const m of messages) {
    const w = owner.get(m.id);
    if (w == null) continue;
    const list = members.get(w);
    if (list) list.push(m);
    else members.set(w, [m]);
  }

  // 2. Each record goes with the turn of the message it carries, or with the turn of the record before it (the
  // first turn for records before any), so the file's records come back in order with `export --format source`.
  const rawOf = new Map<string, number[]>();
  const recOwner: (string | null)[] = [];
  let before: string | null = null;
  let first: string | null = null;
  for (let i = 0; i < h.raws.length; i++) {
    const c = h.carries[i];
    const w = c === null ? null : (owner.get(c) ?? null);
    const t: string | null = w ?? before;
    recOwner.push(t);
    if (t !== null) before = t;
    if (first === null && t !== null) first = t;
  }
  for (let i = 0; i < h.raws.length; i++) {
    const t = recOwner[i] ?? first;
    if (t === null) continue;
    const list = rawOf.get(t);
    if (list) list.push(i);
    else rawOf.set(t, [i]);
  }

  // 3. The newest turn (holding the file's last record) may be unfinished.
  let newest: string | null = null;
  for (let i = h.raws.length - 1; i >= 0 && newest === null; i--) newest = recOwner[i] ?? null;

  const turns: ParsedTurn[] = [];
  const turnOf = new Map<string, string | null>();
  for (const m of messages) {
    const w = owner.get(m.id);
    turnOf.set(m.id, w == null ? null : sid(w));
  }
  let lastTime = isoOf(h.meta.startTime);
  for (const m of messages) {
    const t = isoOf(m.rec.timestamp);
    if (t) lastTime = t;
    if (!prompt.has(m.id)) continue;
    const list = members.get(m.id) ?? [m];
    const built = answerOf(list.slice(1));
    let createdAt = t ?? lastTime;
    if (!t)
      problems.push({
        file: h.file,
        line: m.line,
        reason: createdAt
          ? "missing or bad timestamp; the previous message's time is used"
          : 'missing or bad timestamp; the epoch is used',
      });
    createdAt ??= new Date(0).toISOString();
    const parentTurn = m.parent === null ? null : (owner.get(m.parent) ?? null);
    const lastMsg = list.reduce((a, b) => (b.last > a.last ? b : a), list[0]);
    const turn: ParsedTurn = {
      sourceId: sid(m.id),
      parentSourceId: parentTurn !== null ? sid(parentTurn) : (o.rootParent ?? null),
      sourceSession: o.sourceSession,
      question: fitText(questionOf(m.rec), 'prompt', h.file, m.line, problems),
      answer: fitText(built.answer, 'answer', h.file, m.line, problems),
      createdAt,
      raw: (rawOf.get(m.id) ?? []).map((i) => h.raws[i]),
      line: m.line,
      complete: !o.growing || m.id !== newest || ended(lastMsg.rec),
    };
    if (h.truncatedEnd && m.id === newest) {
      turn.cut = true;
      turn.complete = false;
    }
    if (o.cwd) turn.cwd = o.cwd;
    const note = [o.note, built.error ? 'error' : undefined].filter((x) => x !== undefined).join(', ');
    if (note !== '') turn.note = note;
    turns.push(turn);
  }
  return { turns, turnOf };
}
