/**
 * A rollout's records into turns (docs/import.md, Codex CLI, "How turns are made"). One pass finds the prompts,
 * a second gives each turn its records, answer, time, working directory and parent. Every walk is linear.
 *
 * Identity: a turn is keyed by the `turn_id` Codex gave it (a UUID, on task_started / turn_context / task_complete)
 * when the rollout has one, so a fork that copied its parent's lines names the parent's turns by the same ids and
 * they are not imported twice; older rollouts have no turn ids, and their turns are `<session id>:<n>`.
 */
import { AnswerBuilder, fitText } from '../answer.js';
import type { ImportProblem, ParsedTurn } from '../model.js';
import { isUuid } from '../uuid.js';
import { addToAnswer, environmentCwd, eventPrompt, isAnswerRecord, itemPrompt, turnIdOf } from './content.js';
import { isObj, type Rec, str } from './records.js';

export interface Prompt {
  /** Index of the prompt's record. */
  at: number;
  question: string;
}

/**
 * The prompts, in file order. Codex writes a typed prompt twice: as the user message item the model sees and as
 * a `user_message` event (since the enveloped generation). An item and an event with no answer between them are
 * one prompt, the event's text winning (it is what was typed; the item may carry an IDE wrapper); a rollout with
 * no events (the oldest) has only items.
 */
export function findPrompts(recs: Rec[]): Prompt[] {
  const prompts: Prompt[] = [];
  let openItem = -1;
  let openEvent = -1;
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i];
    if (isAnswerRecord(r)) {
      openItem = -1;
      openEvent = -1;
      continue;
    }
    const ev = eventPrompt(r);
    if (ev !== undefined) {
      if (openItem >= 0) {
        prompts[openItem] = { at: i, question: ev };
        openItem = -1;
      } else {
        prompts.push({ at: i, question: ev });
        openEvent = prompts.length - 1;
      }
      continue;
    }
    const it = itemPrompt(r);
    if (it !== undefined) {
      if (openEvent >= 0) openEvent = -1;
      else {
        prompts.push({ at: i, question: it });
        openItem = prompts.length - 1;
      }
    }
  }
  return prompts;
}

/** Records that open a turn before its prompt: the turn's start, its context, the injected messages. */
function isPreamble(r: Rec): boolean {
  if (r.type === 'turn_context' || r.type === 'state') return true;
  if (r.type === 'event_msg') return r.kind === 'task_started' || r.kind === 'user_message';
  return r.type === 'response_item' && r.kind === 'message' && r.p.role !== 'assistant';
}

/** Where each turn's records start: the first record for the first turn; else its prompt's preamble. */
function turnStarts(recs: Rec[], prompts: Prompt[]): number[] {
  return prompts.map((pr, k) => {
    if (k === 0) return 0;
    const floor = prompts[k - 1].at;
    let s = pr.at;
    while (s - 1 > floor && isPreamble(recs[s - 1])) s--;
    return s;
  });
}

export interface TurnContext {
  file: string;
  fileSession: string;
  /** The session's own time, for a line without one (the bare generation). */
  sessionTime?: string;
  sessionCwd?: string;
  note?: string;
  /** The file ends in a cut line: its newest turn waits. */
  truncatedEnd: boolean;
  mtimeMs: number;
  problems: ImportProblem[];
}

function isoOr(ts: string | undefined): string | undefined {
  if (ts === undefined) return undefined;
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** The turns of one rollout. `prompts` from findPrompts; a rollout with no prompt and some answer is one turn. */
export function buildTurns(recs: Rec[], prompts: Prompt[], c: TurnContext): ParsedTurn[] {
  // No prompt but an answer (a sub-agent fed by its parent, a file whose prompt was lost): one turn, keyed apart
  // from any turn id, so a prompt that arrives later in the file is never taken for it.
  const noPrompt = prompts.length === 0;
  if (noPrompt) {
    if (!recs.some(isAnswerRecord)) return [];
    prompts = [{ at: 0, question: '[no prompt]' }];
  }
  const starts = turnStarts(recs, prompts);
  const hasTaskEvents = recs.some(
    (r) => r.type === 'event_msg' && (r.kind === 'task_started' || r.kind === 'task_complete'),
  );
  const seenTurnIds = new Map<string, number>();
  // The effective history: a rollback drops its last turns, so the next prompt continues an earlier one.
  const chain: string[] = [];
  const turns: ParsedTurn[] = [];

  let openTurnId: string | undefined;
  let cwd = c.sessionCwd;
  let lastTime = isoOr(c.sessionTime);
  let r = 0; // records processed for the running state (open turn id, cwd, time)
  const advance = (to: number) => {
    for (; r <= to && r < recs.length; r++) {
      const rec = recs[r];
      const id = turnIdOf(rec);
      if (rec.type === 'event_msg' && (rec.kind === 'task_complete' || rec.kind === 'turn_aborted')) {
        if (id === undefined || id === openTurnId) openTurnId = undefined;
      } else if (id !== undefined) openTurnId = id;
      if (rec.type === 'turn_context' && typeof rec.p.cwd === 'string' && rec.p.cwd !== '') cwd = rec.p.cwd;
      else if (cwd === undefined) cwd = environmentCwd(rec) ?? cwd;
      lastTime = isoOr(rec.ts) ?? lastTime;
    }
  };

  for (let k = 0; k < prompts.length; k++) {
    const pr = prompts[k];
    const from = starts[k];
    const to = k + 1 < prompts.length ? starts[k + 1] : recs.length;
    const promptRec = recs[pr.at];
    const ownTime = isoOr(promptRec.ts);
    if (ownTime === undefined && promptRec.ts !== undefined)
      c.problems.push({
        file: c.file,
        line: promptRec.line,
        reason: "bad timestamp; the previous line's time is used",
      });
    advance(pr.at);

    // The turn id: the turn open at the prompt, else the first one named later in this turn's records.
    let turnId = openTurnId;
    if (turnId === undefined)
      for (let i = pr.at + 1; i < to && turnId === undefined; i++) {
        const rec = recs[i];
        if (rec.type === 'turn_context' || (rec.type === 'event_msg' && rec.kind === 'task_started'))
          turnId = turnIdOf(rec);
      }
    let sourceId: string;
    if (noPrompt) sourceId = `${c.fileSession}:0`;
    else if (turnId !== undefined && isUuid(turnId)) {
      const n = (seenTurnIds.get(turnId) ?? 0) + 1;
      seenTurnIds.set(turnId, n);
      sourceId = n === 1 ? turnId : `${turnId}#${n}`;
    } else sourceId = `${c.fileSession}:${k + 1}`;

    // Answer, raw, whether it ended, and a rollback said inside it.
    const b = new AnswerBuilder();
    const textFromEvents = !recs
      .slice(pr.at + 1, to)
      .some((x) => x.type === 'response_item' && x.kind === 'message' && x.p.role === 'assistant');
    const raw: string[] = [];
    let ended = false;
    let aborted = false;
    let lastAnswer: Rec | undefined;
    let rollback = 0;
    for (let i = from; i < to; i++) {
      const rec = recs[i];
      raw.push(rec.raw);
      if (i <= pr.at) continue;
      addToAnswer(b, rec, textFromEvents);
      if (rec.type === 'event_msg') {
        if (rec.kind === 'task_complete') ended = true;
        else if (rec.kind === 'turn_aborted') ended = aborted = true;
        else if (rec.kind === 'thread_rolled_back' && typeof rec.p.num_turns === 'number')
          rollback += Math.max(0, Math.floor(rec.p.num_turns));
      }
      if (isAnswerRecord(rec) && !(rec.type === 'event_msg' && rec.kind === 'task_complete'))
        lastAnswer = rec;
    }

    const newest = k === prompts.length - 1;
    let complete = true;
    let cut = false;
    if (newest) {
      if (c.truncatedEnd) {
        complete = false;
        cut = true;
      } else if (hasTaskEvents) complete = ended;
      else
        complete =
          lastAnswer !== undefined &&
          ((lastAnswer.type === 'response_item' && lastAnswer.kind === 'message') ||
            (lastAnswer.type === 'event_msg' && lastAnswer.kind !== 'error'));
    }

    const question = fitText(
      pr.question === '' ? '[no text]' : pr.question,
      'prompt',
      c.file,
      promptRec.line,
      c.problems,
    );
    const turn: ParsedTurn = {
      sourceId,
      parentSourceId: chain.length > 0 ? chain[chain.length - 1] : null,
      sourceSession: c.fileSession,
      question,
      answer: fitText(b.toString(), 'answer', c.file, promptRec.line, c.problems),
      createdAt: ownTime ?? lastTime ?? new Date(c.mtimeMs).toISOString(),
      raw,
      line: recs[pr.at].line,
      complete,
    };
    if (cut) turn.cut = true;
    if (cwd !== undefined) turn.cwd = cwd;
    const note = aborted ? [c.note, 'aborted'].filter(Boolean).join(', ') : c.note;
    if (note) turn.note = note;
    turns.push(turn);
    chain.push(sourceId);
    chain.length = Math.max(0, chain.length - rollback);
  }
  return turns;
}

/** `subagent <name>` for a rollout Codex spawned as a sub-agent (`source: {subagent: …}` in its session_meta). */
export function noteOf(meta: Rec | undefined): string | undefined {
  if (meta === undefined || !isObj(meta.p.source) || !('subagent' in meta.p.source)) return undefined;
  const name = str(meta.p.agent_nickname) ?? str(meta.p.agent_role);
  return name ? `subagent ${name}` : 'subagent';
}
