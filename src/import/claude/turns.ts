/**
 * Turn drafts into ParsedTurns: the answer from the turn's lines, the raw lines it was read from (for export
 * byte for byte), and whether it is complete. Each is one pass over the unit's lines in file order, which is
 * the order the answer and the raw lines must keep.
 */
import { AnswerBuilder, fitText } from '../answer.js';
import type { ParsedTurn } from '../model.js';
import { addToAnswer, Kind, promptText } from './content.js';
import { isoOf } from './times.js';
import { type Node, SKIPPED, type TurnDrafts, type Unit, type UnitFile } from './unit.js';

/** Stop reasons that end a reply; any other last reply may still be streaming or using tools. */
const FINAL_STOPS = new Set(['end_turn', 'stop_sequence', 'max_tokens']);

export function buildTurns(u: Unit, { drafts, turnOf }: TurnDrafts, time: Float64Array): ParsedTurn[] {
  const { nodes, files, fileSession } = u;
  // Answers, in file order of the turn's lines.
  const builders = drafts.map(() => new AnswerBuilder());
  // Text typed while the agent worked goes into the answer where it was typed: the main-chain turn of the line
  // before it in its file, or the file's first turn when it comes before any.
  const steering = steeringText(u, turnOf);
  let q = 0;
  let curF = -1;
  let lastMain = -1;
  let pending: string[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const nd = nodes[i];
    for (; q < steering.length && before(steering[q], nd); q++) {
      if (steering[q].f === curF && lastMain >= 0) builders[lastMain].typedWhileBusy(steering[q].text);
      else pending.push(steering[q].text);
    }
    if (nd.f !== curF) {
      curF = nd.f;
      lastMain = -1;
    }
    const t = turnOf(i);
    if (t < 0) continue;
    if (!nd.side) {
      for (const text of pending) builders[t].typedWhileBusy(text);
      pending = [];
      lastMain = t;
    }
    addToAnswer(builders[t], nd.kind, nd.content, nd.apiError);
  }
  if (lastMain >= 0)
    for (const s of [...pending, ...steering.slice(q).map((x) => x.text)])
      builders[lastMain].typedWhileBusy(s);
  const raws = rawLinesOf(nodes, files, drafts.length, turnOf);
  const incomplete = incompleteTurns(nodes, files, { drafts, turnOf });
  const fitted = (text: string, what: string, a: Node) =>
    fitText(text, what, files[a.f].rf.path, a.line, u.problems);

  return drafts.map((d, t) => {
    const a = nodes[d.anchor];
    const turn: ParsedTurn = {
      sourceId: a.uuid,
      parentSourceId: d.parent >= 0 ? nodes[drafts[d.parent].anchor].uuid : null,
      sourceSession: a.sid || fileSession,
      // A turn's text past what the store takes (several long lines) is cut, not the reason to lose the file.
      question: a.kind === Kind.Prompt ? fitted(promptText(a.content), 'prompt', a) : '[no text]',
      answer: fitted(builders[t].toString(), 'answer', a),
      createdAt: isoOf(nodes, time, d.anchor),
      raw: raws[t],
      line: a.line,
      complete: incomplete[t] === 0,
    };
    if (incomplete[t] === CUT) turn.cut = true;
    const cwd = a.cwd ?? d.cwd;
    if (cwd !== undefined) turn.cwd = cwd;
    if (d.note !== undefined) turn.note = d.note;
    return turn;
  });
}

/** Raw lines: every used line of a file, lines without a uuid going with the line before them. */
function rawLinesOf(
  nodes: Node[],
  files: UnitFile[],
  turnCount: number,
  turnOf: (i: number) => number,
): string[][] {
  const raws: string[][] = Array.from({ length: turnCount }, () => []);
  for (const uf of files) {
    let lastMain = -1;
    let lastAny = -1;
    let leading: string[] = [];
    const lines = uf.rf.raws;
    for (let li = 0; li < lines.length; li++) {
      const ni = uf.nodeOf[li];
      if (ni === SKIPPED) continue;
      let t: number;
      if (ni >= 0) {
        t = turnOf(ni);
        if (t >= 0) {
          if (leading.length > 0) {
            for (const r of leading) raws[t].push(r);
            leading = [];
          }
          lastAny = t;
          if (!nodes[ni].side) lastMain = t;
        }
      } else {
        t = lastMain >= 0 ? lastMain : lastAny;
        if (t < 0) {
          leading.push(lines[li]);
          continue;
        }
      }
      if (t >= 0) raws[t].push(lines[li]);
    }
  }
  return raws;
}

const before = (a: { f: number; line: number }, b: { f: number; line: number }) =>
  a.f < b.f || (a.f === b.f && a.line < b.line);

/**
 * Claude Code 2.1.x records text typed while the agent is working only as a `queue-operation` `enqueue` line: when
 * the agent takes it up between two steps it steers the running turn and is no prompt of its own (docs/import.md,
 * Claude Code). Text that came back as a prompt (dequeued when the turn ended) is that prompt already, and what the
 * tool queued itself (`<task-notification>`, `<bash-notification>`) was not typed: both are left out.
 */
function steeringText(u: Unit, turnOf: (i: number) => number): { f: number; line: number; text: string }[] {
  if (u.queued.length === 0) return [];
  const prompts = new Set<string>();
  for (let i = 0; i < u.nodes.length; i++) {
    const nd = u.nodes[i];
    if (nd.kind === Kind.Prompt && turnOf(i) >= 0) prompts.add(promptText(nd.content).trim());
  }
  const seen = new Set<string>();
  return u.queued
    .sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0))
    .filter((x) => {
      const text = x.text.trim();
      if (seen.has(text) || prompts.has(text) || /^<[a-z][\w-]*>/i.test(text)) return false;
      seen.add(text); // enqueued, then removed when taken up: one text
      return true;
    });
}

/** In incompleteTurns' result: the newest turn of a file that ends in the middle of a line. */
const CUT = 2;

/**
 * The newest turn of each file is incomplete when its last reply has no end-of-turn stop (1 in the result), or
 * when the file ends in the middle of a line (CUT).
 */
function incompleteTurns(nodes: Node[], files: UnitFile[], { drafts, turnOf }: TurnDrafts): Uint8Array {
  const incomplete = new Uint8Array(drafts.length);
  for (const uf of files) {
    // in a session file, the main chain's newest turn (in-file sidechain lines may come after it)
    let mainOnly = uf.agent === undefined;
    if (mainOnly) {
      mainOnly = false;
      for (let i = uf.start; i < uf.end && !mainOnly; i++) mainOnly = !nodes[i].side && turnOf(i) >= 0;
    }
    for (let i = uf.end - 1; i >= uf.start; i--) {
      const t = turnOf(i);
      if (t < 0 || (mainOnly && nodes[i].side)) continue;
      const la = drafts[t].lastAssistant;
      const stop = la >= 0 ? nodes[la].stop : undefined;
      if (uf.rf.truncatedEnd && uf.agent === undefined) incomplete[t] = CUT;
      else if (uf.rf.truncatedEnd || typeof stop !== 'string' || !FINAL_STOPS.has(stop)) incomplete[t] = 1;
      break;
    }
  }
  return incomplete;
}
