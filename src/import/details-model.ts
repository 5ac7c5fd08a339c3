/**
 * A turn's details, read back from its source records (the store keeps them byte for byte): what the stored answer
 * leaves out on purpose (docs/import.md, "Answers"): the thinking blocks, each tool call's whole input and its
 * whole result. The answer (and so the turn's hash) never changes; the details are a view of the records.
 *
 * Calls come in the order the reader's AnswerBuilder wrote them, with the name it gave them, so call i of the
 * answer is call i here (the transcript still checks the names, src/ui/features/transcript/details.ts).
 */

/** A thinking or reasoning block; `before`: how many calls of the turn came before it. */
export interface Thinking {
  text: string;
  /** The source kept no readable text (signed, encrypted or empty): the block is said, not shown. */
  redacted: boolean;
  before: number;
}

/** What an edit call changes, as its tool wrote it: string pairs, a whole new file, or a patch text. */
export type Edit =
  | { kind: 'replace'; file: string; pairs: { old: string; new: string }[] }
  | { kind: 'write'; file: string; content: string }
  | { kind: 'patch'; patch: string };

export interface CallDetail {
  name: string;
  input: unknown;
  edit?: Edit;
  result?: { text: string; error: boolean };
}

export interface TurnDetails {
  thinking: Thinking[];
  calls: CallDetail[];
}

/** Collects a turn's details in record order; results find their call by id; with no id, the first call still without one. */
export class DetailsBuilder {
  private readonly thinkingList: Thinking[] = [];
  private readonly calls: CallDetail[] = [];
  private readonly byId = new Map<string, CallDetail>();

  thinking(text: string, redacted = false): void {
    const t = text.trim();
    this.thinkingList.push({ text: t, redacted: redacted || t === '', before: this.calls.length });
  }

  call(name: string, input: unknown, id?: string, edit?: Edit): void {
    const c: CallDetail = { name, input };
    if (edit) c.edit = edit;
    this.calls.push(c);
    if (id !== undefined && id !== '') this.byId.set(id, c);
  }

  result(id: string | undefined, text: string, error = false): void {
    // An id no call of this turn has (a call of an earlier turn) is not guessed onto another call.
    let c = id !== undefined ? this.byId.get(id) : undefined;
    if (id === undefined)
      for (let i = 0; i < this.calls.length && !c; i++) if (!this.calls[i].result) c = this.calls[i];
    if (c && !c.result) c.result = { text, error };
  }

  done(): TurnDetails {
    return { thinking: this.thinkingList, calls: this.calls };
  }
}

/** The lines of a turn's records (each record is followed by a newline), parsed as JSON objects; others skipped. */
export function jsonRecords(records: Buffer): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of records.toString('utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const v: unknown = JSON.parse(line);
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      // a cut or foreign line: the answer already says what could be read of it
    }
  }
  return out;
}

export const isObj = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

export const strOf = (v: unknown): string => (typeof v === 'string' ? v : '');
