/**
 * Turns out of a GitHub Copilot CLI session, whichever generation stored it: both readers (events.ts for
 * `events.jsonl`, legacy.ts for the `history-session-state` JSON documents) walk their records in order and tell
 * this assembler what each one is (a prompt, assistant text, a tool call or result, an error, the end of a reply).
 * A turn is one prompt and every record up to the next prompt; the records before the first prompt (the session's
 * start, its settings) travel with the first turn, so that `export --format source` gives the whole file back.
 * Records are named by their index in the reader's list of raw texts, and resolved only at the end: the JSONL
 * reader hands over each parsed line before the list of raw lines is complete.
 */
import { AnswerBuilder, fitText } from '../answer.js';
import type { ImportProblem, ParsedTurn } from '../model.js';
import { isUuid } from '../uuid.js';

/**
 * A prompt's idempotence key. Copilot CLI gives every event and every legacy timeline entry a random UUID, and a
 * fork (`/fork`) or the import of a legacy session copies them with their ids (docs/import.md, GitHub Copilot CLI):
 * keyed by the bare UUID, a copied prompt is the turn already imported and the turns after it hang under it. An id
 * that is not a UUID (a file not written by the CLI) is not known to be unique, so it is qualified by its session.
 */
export function promptKey(session: string, id: string): string {
  return isUuid(id) ? id.toLowerCase() : `${session}/${id}`;
}

export interface PromptInfo {
  /** The record's id in the source (event id, timeline entry id). */
  id: string;
  text: string;
  /** ISO 8601 UTC, or null when the record has no usable time. */
  time: string | null;
  line: number;
  cwd?: string;
}

interface Draft {
  prompt: PromptInfo;
  parent: string | null;
  raw: number[];
  answer: AnswerBuilder;
  /** Tool calls already written (a call is requested by the assistant and started by the runtime: shown once). */
  calls: Set<string>;
  error: boolean;
  aborted: boolean;
  ended: boolean;
}

export class TurnAssembler {
  private readonly drafts: Draft[] = [];
  private readonly lead: number[] = [];
  private cur: Draft | null = null;
  private last: string | null = null;

  constructor(
    /** The source's session id: may still be set (from the session's start record) until the first prompt. */
    public session: string,
    private readonly file: string,
    private readonly problems: ImportProblem[],
    /** Used for a prompt without a time of its own (the session's start), else the epoch. */
    public fallbackTime: string | null,
  ) {}

  get prompts(): number {
    return this.drafts.length + (this.cur ? 1 : 0);
  }

  /** Starts a new turn at a prompt; its parent is the prompt before it in the same session. */
  prompt(p: PromptInfo): void {
    this.close();
    const key = promptKey(this.session, p.id);
    this.cur = {
      prompt: p,
      parent: this.last,
      raw: [],
      answer: new AnswerBuilder(),
      calls: new Set(),
      error: false,
      aborted: false,
      ended: false,
    };
    this.last = key;
  }

  /** A record (its index): it goes with the current turn, or (before the first prompt) with the first turn. */
  raw(ref: number): void {
    (this.cur ? this.cur.raw : this.lead).push(ref);
  }

  get inTurn(): boolean {
    return this.cur !== null;
  }

  text(s: string): void {
    this.cur?.answer.text(s);
  }

  /** A tool call, once per call id (the assistant's request and the runtime's start name the same call). */
  toolCall(callId: string | null, name: string, args: unknown): void {
    const c = this.cur;
    if (!c) return;
    if (callId !== null) {
      if (c.calls.has(callId)) return;
      c.calls.add(callId);
    }
    c.answer.toolCall(name, args, callId);
  }

  /** `callId`: the call it answers (parallel calls' results come after all of them have started). */
  toolResult(text: string, isError: boolean, callId: string | null = null): void {
    this.cur?.answer.toolResult(text, isError, callId);
  }

  error(message: string): void {
    if (!this.cur) return;
    this.cur.answer.error(message);
    this.cur.error = true;
  }

  aborted(): void {
    if (this.cur) this.cur.aborted = true;
  }

  /** Whether the turn's reply has come to an end so far (false while tool calls or a reply are under way). */
  ended(v: boolean): void {
    if (this.cur) this.cur.ended = v;
  }

  /**
   * The turns, in file order, their records taken from `raws` by index. `growing`: the file may still be appended
   * to, so the newest turn is complete only when its reply has ended; `cut`: the file ends inside a record, so the
   * newest turn waits for the rest.
   */
  finish(raws: readonly string[], growing: boolean, cut: boolean): ParsedTurn[] {
    this.close();
    const turns = this.drafts.map((d) => this.turnOf(d, raws));
    // A turn followed by another prompt is over, whatever its last record was.
    for (let i = 0; i < turns.length - 1; i++) turns[i].complete = true;
    const newest = turns[turns.length - 1];
    if (newest) {
      if (cut) {
        newest.cut = true;
        newest.complete = false;
      } else if (!growing) newest.complete = true;
      turns[0].raw.unshift(...this.lead.map((k) => raws[k]));
    }
    return turns;
  }

  private close(): void {
    if (this.cur) this.drafts.push(this.cur);
    this.cur = null;
  }

  private turnOf(c: Draft, raws: readonly string[]): ParsedTurn {
    const p = c.prompt;
    let createdAt = p.time ?? this.fallbackTime;
    if (createdAt === null) {
      this.problems.push({
        file: this.file,
        line: p.line,
        reason: 'prompt without a time; the epoch is used',
      });
      createdAt = new Date(0).toISOString();
    }
    const turn: ParsedTurn = {
      sourceId: promptKey(this.session, p.id),
      parentSourceId: c.parent,
      sourceSession: this.session,
      question: fitText(p.text, 'prompt', this.file, p.line, this.problems),
      answer: fitText(c.answer.toString(), 'answer', this.file, p.line, this.problems),
      createdAt,
      raw: c.raw.map((k) => raws[k]),
      line: p.line,
      complete: c.ended || c.error || c.aborted,
    };
    if (p.cwd) turn.cwd = p.cwd;
    if (c.error) turn.note = 'error';
    else if (c.aborted) turn.note = 'aborted';
    return turn;
  }
}
