/**
 * Turns out of one pi-format session's entries, whichever tool and generation stored them (a pi or OpenClaw JSONL
 * file, an OpenClaw archive blob or `transcript_events` rows). The entries form a tree through `id`/`parentId`; a turn is a user prompt and every entry
 * whose nearest prompt ancestor it is. The walk goes THROUGH non-message entries (thinking_level_change, custom
 * model-snapshot, compaction, branch_summary, labels, ...), so a root that is not a message, or a snapshot between a
 * prompt and its reply, changes nothing. One pass resolves every entry's owner with a map and a stack: O(n), and a
 * cycle is cut where it closes.
 */
import { AnswerBuilder } from '../answer.js';
import type { ParsedSession, ParsedTurn } from '../model.js';
import { isoOf } from '../times.js';
import { type Header, type Json, type Problems, problem, type Rec } from './records.js';

/** Where a forked session came from (SQLite `session_nodes.fork_source_session_id` / `fork_source_entry_id`). */
export interface ForkSource {
  sessionId: string;
  entryId: string | null;
  /** The sourceId of the source session's turn that holds `entryId`, when the caller could resolve it. */
  parentTurn: string | null;
  /**
   * Pi files: the entries this session copied from its parent session's file (by id, with the line as the parent
   * has it, and the sourceId of the turn a copied prompt is stored as). An entry is copied when its id and line
   * are both the parent's; its turn is the parent's, not emitted again. Used instead of the path to `entryId`.
   */
  copies?: ReadonlyMap<string, CopiedEntry>;
}

/** An entry of a parent session, as a forked session may have copied it. */
export interface CopiedEntry {
  raw: string | null;
  /** For a prompt: the sourceId its turn is stored under (the parent's, or an older ancestor's); else null. */
  turn: string | null;
}

export interface SessionInput {
  header: Header | null;
  /** The header's line as read (JSONL files): it travels with the first turn's records. */
  headerRaw?: string | null;
  /** The file ends in the middle of its last line: the newest turn is `cut` (it waits for the rest). */
  truncatedEnd?: boolean;
  /** Used when there is no header (or its id is unusable): the file name's session id or the row's session_id. */
  fallbackSessionId: string;
  records: Rec[];
  p: Problems;
  archived?: { reason: 'reset' | 'deleted'; at: string };
  /** False when the session cannot grow any more (an archive): every turn is then complete. */
  growing: boolean;
  fork?: ForkSource;
  fallbackCreatedAt?: string;
  title?: string;
}

export interface SessionOutput {
  session: ParsedSession;
  turns: ParsedTurn[];
  /** The prompt entry id of the turn that holds an entry (the entry itself when it is a prompt), or null. */
  turnOf(entryId: string): string | null;
}

function obj(v: unknown): Json | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null;
}

function messageOf(r: Rec): Json | null {
  return r.type === 'message' && r.entry ? obj(r.entry.message) : null;
}

function isPrompt(r: Rec): boolean {
  return !r.hole && messageOf(r)?.role === 'user';
}

/** The text of a message's content: a string, or the text blocks of a block list (images shown as [image]). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const b of content) {
    const block = obj(b);
    if (!block) continue;
    if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
    else if (block.type === 'image') parts.push('[image]');
  }
  return parts.join('\n');
}

/** A tool call's arguments: `arguments` when it has any, else `partialJson` (parsed when it parses). */
export function callArgs(block: Json): unknown {
  const args = block.arguments;
  const hasArgs =
    args !== undefined && args !== null && !(obj(args) && Object.keys(args as Json).length === 0);
  if (hasArgs) return args;
  if (typeof block.partialJson === 'string' && block.partialJson !== '') {
    try {
      return JSON.parse(block.partialJson);
    } catch {
      return block.partialJson;
    }
  }
  return args;
}

interface TurnFacts {
  answer: string;
  note?: string;
  ended: boolean;
}

/** The answer of a turn: assistant text, one line per tool call, the first lines of each result, errors shown. */
function answerOf(recs: Rec[], members: number[]): TurnFacts {
  const b = new AnswerBuilder();
  let error = false;
  let aborted = false;
  let ended = false;
  for (const i of members) {
    const m = messageOf(recs[i]);
    if (!m) continue;
    const role = m.role;
    if (role === 'assistant') {
      if (Array.isArray(m.content)) {
        for (const raw of m.content) {
          const block = obj(raw);
          if (!block) continue;
          if (block.type === 'text' && typeof block.text === 'string') b.text(block.text);
          else if (block.type === 'toolCall')
            // Its id places its result under it: calls made together have their results after all of them.
            b.toolCall(
              typeof block.name === 'string' ? block.name : '',
              callArgs(block),
              typeof block.id === 'string' ? block.id : null,
            );
        }
      } else if (typeof m.content === 'string') b.text(m.content);
      const stop = m.stopReason;
      if (stop === 'error') {
        error = true;
        b.error(typeof m.errorMessage === 'string' && m.errorMessage !== '' ? m.errorMessage : 'error');
      } else if (stop === 'aborted') {
        aborted = true;
        if (typeof m.errorMessage === 'string' && m.errorMessage !== '') b.error(m.errorMessage);
      }
      ended = stop === 'stop' || stop === 'length' || stop === 'error' || stop === 'aborted';
    } else if (role === 'toolResult') {
      b.toolResult(
        contentText(m.content),
        m.isError === true,
        typeof m.toolCallId === 'string' ? m.toolCallId : null,
      );
      ended = false;
    } else if (role === 'bashExecution') {
      // A command the user ran from the prompt (`!cmd`): shown as a call and its output.
      b.toolCall('bash', typeof m.command === 'string' ? m.command : '');
      b.toolResult(
        typeof m.output === 'string' ? m.output : '',
        typeof m.exitCode === 'number' && m.exitCode !== 0,
      );
    }
  }
  return { answer: b.toString(), note: error ? 'error' : aborted ? 'aborted' : undefined, ended };
}

/** Builds the session and its turns. Never throws for bad content: problems go to `input.p`. */
export function buildSession(input: SessionInput): SessionOutput {
  const { p } = input;
  const headerId = input.header?.id;
  const sid = headerId ?? input.fallbackSessionId;
  const cwd = input.header?.cwd;

  // 1. Index ids (the first of a duplicated id wins); v1 transcripts (no ids) are chained in file order.
  const v1 = input.header !== null && (input.header.version ?? 1) < 2;
  const recs: Rec[] = [];
  const index = new Map<string, number>();
  let prev: string | null = null;
  for (const r of input.records) {
    if (r.id === null) {
      if (!v1 || r.hole) {
        problem(p, r.line, `${r.type} entry without an id; skipped`);
        continue;
      }
      r.id = `@${r.line}`;
      r.parentId = prev;
    }
    if (index.has(r.id)) {
      problem(p, r.line, `duplicate entry id ${r.id}; skipped`);
      continue;
    }
    index.set(r.id, recs.length);
    recs.push(r);
    prev = r.id;
  }

  // 2. Each entry's parent index: branch_summary falls back to fromId, a leaf pointer walks to its target.
  const n = recs.length;
  const parent = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const r = recs[i];
    let pid = r.parentId;
    if (r.type === 'branch_summary' && pid === null && r.entry && typeof r.entry.fromId === 'string') {
      pid = r.entry.fromId === 'root' ? null : r.entry.fromId;
    }
    if (r.type === 'leaf' && r.entry && 'targetId' in r.entry) {
      pid = typeof r.entry.targetId === 'string' ? r.entry.targetId : null;
    }
    if (pid === null) continue;
    const j = index.get(pid);
    if (j === undefined)
      problem(p, r.line, `parent ${pid} not found; the turn is linked to its nearest surviving ancestor`);
    else if (j === i) problem(p, r.line, `entry ${r.id} is its own parent; treated as a root`);
    else parent[i] = j;
  }

  // 3. Owner (nearest prompt at or above) and parent turn of every prompt, one stack walk per unresolved chain.
  const prompt = new Uint8Array(n);
  for (let i = 0; i < n; i++) prompt[i] = isPrompt(recs[i]) ? 1 : 0;
  const owner = new Int32Array(n).fill(-1);
  const parentTurn = new Int32Array(n).fill(-1);
  const state = new Uint8Array(n); // 0 new, 1 on the stack, 2 done
  const stack: number[] = [];
  for (let i = 0; i < n; i++) {
    if (state[i] === 2) continue;
    stack.length = 0;
    let j = i;
    while (j !== -1 && state[j] === 0) {
      state[j] = 1;
      stack.push(j);
      j = parent[j];
    }
    if (j !== -1 && state[j] === 1) {
      const top = stack[stack.length - 1];
      problem(p, recs[top].line, `cycle of parents through ${recs[top].id}; cut there`);
      parent[top] = -1;
      j = -1;
    }
    let cur = j === -1 ? -1 : owner[j];
    for (let k = stack.length - 1; k >= 0; k--) {
      const e = stack[k];
      if (prompt[e] === 1) {
        parentTurn[e] = cur;
        cur = e;
      }
      owner[e] = cur;
      state[e] = 2;
    }
  }

  // 4. A fork that copied its source's history: the copied path (root .. fork entry) belongs to the source session.
  const copied = new Uint8Array(n);
  const fork = input.fork;
  if (fork?.copies) {
    for (let k = 0; k < n; k++) {
      const c = fork.copies.get(recs[k].id as string);
      if (c !== undefined && c.raw !== null && c.raw === recs[k].raw) copied[k] = 1;
    }
  } else if (fork?.entryId) {
    const at = index.get(fork.entryId);
    for (let k = at ?? -1, steps = 0; k !== -1 && steps <= n; k = parent[k], steps++) copied[k] = 1;
  }

  // 5. Group entries by turn, in storage order.
  const members = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const o = owner[i];
    if (o === -1) continue;
    let list = members.get(o);
    if (!list) {
      list = [];
      members.set(o, list);
    }
    list.push(i);
  }
  // Every record of the file goes back out with `export --format source`: one that no prompt owns (the header,
  // settings before the first prompt, an entry off the path) travels with the turn before it in the file, or with
  // the first turn when it comes before every prompt.
  const rawOf = new Map<number, number[]>();
  let firstOwner = -1;
  for (let i = 0; i < n && firstOwner === -1; i++) if (owner[i] !== -1) firstOwner = owner[i];
  let lastOwner = firstOwner;
  for (let i = 0; i < n; i++) {
    const o = owner[i] === -1 ? lastOwner : owner[i];
    if (owner[i] !== -1) lastOwner = owner[i];
    if (o === -1) continue;
    let list = rawOf.get(o);
    if (!list) {
      list = [];
      rawOf.set(o, list);
    }
    list.push(i);
  }
  let newest = -1;
  for (let i = n - 1; i >= 0; i--) {
    if (!recs[i].hole) {
      newest = owner[i];
      break;
    }
  }

  let title = input.title;
  for (const r of recs)
    if (r.type === 'session_info' && r.entry && typeof r.entry.name === 'string') title = r.entry.name;

  const turns: ParsedTurn[] = [];
  for (let i = 0; i < n; i++) {
    if (prompt[i] !== 1 || copied[i] === 1) continue;
    const r = recs[i];
    const m = messageOf(r)!;
    const pt = parentTurn[i];
    let parentSourceId: string | null = null;
    if (pt !== -1)
      parentSourceId =
        copied[pt] === 1 && fork
          ? (fork.copies?.get(recs[pt].id as string)?.turn ?? `${fork.sessionId}/${recs[pt].id}`)
          : `${sid}/${recs[pt].id}`;
    else if (fork && !(fork.entryId && index.has(fork.entryId))) parentSourceId = fork.parentTurn;
    const list = members.get(i) ?? [i];
    const facts = answerOf(recs, list);
    const createdAt =
      isoOf(m.timestamp) ??
      isoOf(r.entry?.timestamp) ??
      isoOf(input.header?.timestamp) ??
      input.fallbackCreatedAt;
    if (createdAt === undefined) problem(p, r.line, 'prompt without a time; the epoch is used');
    const turn: ParsedTurn = {
      sourceId: `${sid}/${r.id}`,
      parentSourceId,
      sourceSession: sid,
      question: contentText(m.content),
      answer: facts.answer,
      createdAt: createdAt ?? new Date(0).toISOString(),
      raw: (rawOf.get(i) ?? list).map((k) => recs[k].raw).filter((x): x is string => x !== null),
      line: r.line,
      complete: !input.growing || i !== newest || facts.ended,
    };
    if (input.truncatedEnd && i === newest) {
      turn.cut = true;
      turn.complete = false;
    }
    if (cwd) turn.cwd = cwd;
    if (facts.note) turn.note = facts.note;
    turns.push(turn);
  }

  if (input.headerRaw && turns.length > 0) turns[0].raw.unshift(input.headerRaw);

  const session: ParsedSession = {
    sourceSession: sid,
    createdAt:
      isoOf(input.header?.timestamp) ??
      turns[0]?.createdAt ??
      input.fallbackCreatedAt ??
      new Date(0).toISOString(),
  };
  if (title) session.title = title;
  if (cwd) session.cwd = cwd;
  if (input.archived) session.archived = input.archived;

  return {
    session,
    turns,
    turnOf(entryId: string): string | null {
      const k = index.get(entryId);
      if (k === undefined) return null;
      const o = owner[k];
      return o === -1 ? null : (recs[o].id as string);
    },
  };
}
