/**
 * One file of the unit into nodes: each JSON line checked, reported when it cannot be used, and cut down to what
 * the turns need (the rest of the parsed line can be freed). The uuid-less metadata lines that matter later
 * (titles, summaries) are gathered here, since they are seen only once.
 */
import { basename } from 'node:path';
import { readJsonLines } from '../jsonl.js';
import { classifyUser, Kind, systemError } from './content.js';
import type { AgentFile } from './subagents.js';
import { isObj, type Node, type Obj, SKIPPED, show, type UnitLines } from './unit.js';

/** Types of lines without a uuid that Claude Code writes (they are metadata, not errors). */
const UUIDLESS_TYPES = new Set([
  'summary',
  'queue-operation',
  'file-history-snapshot',
  'ai-title',
  'custom-title',
  'agent-name',
  'last-prompt',
  'tag',
  'pr-link',
]);

type Report = (line: number, reason: string) => void;

/** A line that makes no node but stays in the raw records of the turn it sits in (as a uuid-less line does). */
const KEPT_FOR_RAW = -1;

function timeOf(v: unknown): number {
  if (typeof v === 'string') return Date.parse(v);
  return typeof v === 'number' ? new Date(v).getTime() : Number.NaN;
}

/** Reads one file of the unit, turning its lines into nodes. Returns how many lines looked like Claude Code's. */
export function addFile(u: UnitLines, path: string, agent: AgentFile | undefined): number {
  const { nodes, files, problems } = u;
  const f = files.length;
  const nodeOf: number[] = [];
  const report: Report = (line, reason) => problems.push({ file: path, line, reason });
  let claudeish = 0;
  const start = nodes.length;
  const rf = readJsonLines(path, problems, (o, line) => {
    const li = nodeOf.length;
    nodeOf.push(-1);
    const type = o.type;
    if (typeof type !== 'string') {
      report(line, 'no "type" field; skipped');
      nodeOf[li] = SKIPPED;
      return;
    }
    const uuid = o.uuid;
    const hasUuid = typeof uuid === 'string' && uuid !== '';
    if (hasUuid || UUIDLESS_TYPES.has(type) || typeof o.sessionId === 'string') claudeish++;
    const side = agent !== undefined || o.isSidechain === true;
    if (side && !u.opts.sidechains) {
      nodeOf[li] = SKIPPED;
      return;
    }
    if (!hasUuid || typeof uuid !== 'string') {
      // Typed while the agent worked: 2.1.x writes the text on `enqueue`; claude-code-log's test data has it on
      // `remove` alone. Both are gathered; turns.ts keeps each text once.
      if (
        type === 'queue-operation' &&
        (o.operation === 'enqueue' || o.operation === 'remove') &&
        typeof o.content === 'string'
      )
        u.queued.push({ f, line, text: o.content });
      if (!keepUuidless(u, o, type)) {
        report(line, `${type} line without a uuid; skipped`);
        nodeOf[li] = SKIPPED;
      }
      return; // kept for raw, by position
    }
    nodeOf[li] = addNode(u, o, { f, line, uuid, type, side }, report);
  });
  files.push({ rf, nodeOf, agent, start, end: nodes.length });
  return claudeish;
}

/**
 * A line without a uuid: false for a message line (it cannot be placed in the tree); metadata is kept, and a
 * title or summary noted for its session.
 */
function keepUuidless(u: UnitLines, o: Obj, type: string): boolean {
  if (type === 'user' || type === 'assistant' || type === 'system') return false;
  const sid = typeof o.sessionId === 'string' ? o.sessionId : '';
  if (type === 'summary' && typeof o.summary === 'string')
    u.summaries.push({ leaf: typeof o.leafUuid === 'string' ? o.leafUuid : undefined, text: o.summary });
  else if (type === 'ai-title' && typeof o.aiTitle === 'string') u.titles.ai.set(sid, o.aiTitle);
  else if (type === 'custom-title' && typeof o.customTitle === 'string')
    u.titles.custom.set(sid, o.customTitle);
  return true;
}

/** The message of a user or assistant line, or undefined (reported) when it has none to use. */
function messageOf(o: Obj, line: number, report: Report): { content: unknown; stop: unknown } | undefined {
  const m = o.message;
  if (!isObj(m)) {
    report(line, 'message is not an object; skipped');
    return undefined;
  }
  const content = m.content;
  if (typeof content !== 'string' && !Array.isArray(content)) {
    report(line, 'message has no content; skipped');
    return undefined;
  }
  if (Array.isArray(content)) {
    let bad = 0;
    for (const b of content) if (!isObj(b)) bad++;
    if (bad > 0) report(line, `${bad} content block(s) not an object; ignored`);
  }
  return { content, stop: m.stop_reason };
}

/** A line with a uuid into a node: its index, or SKIPPED (reported). */
function addNode(
  u: UnitLines,
  o: Obj,
  at: { f: number; line: number; uuid: string; type: string; side: boolean },
  report: Report,
): number {
  const { nodes, byUuid, files } = u;
  const { f, line, uuid, type } = at;
  let content: unknown;
  let stop: unknown;
  if (type === 'user' || type === 'assistant') {
    const m = messageOf(o, line, report);
    if (m === undefined) return SKIPPED;
    ({ content, stop } = m);
  }
  const first = byUuid.get(uuid);
  if (first !== undefined) {
    const n0 = nodes[first];
    // Claude Code 1.0.x's --continue writes the line it switched at again, under the new session's id: the same
    // message, so no second node and no problem, but a line of the file all the same, kept with its turn's records.
    if (typeof o.sessionId === 'string' && o.sessionId !== n0.sid && n0.f === f) return KEPT_FOR_RAW;
    const where = n0.f === f ? `line ${n0.line}` : `${basename(files[n0.f].rf.path)}:${n0.line}`;
    report(line, `duplicate uuid ${show(uuid)} (first at ${where}); skipped`);
    return SKIPPED;
  }
  const ts = timeOf(o.timestamp);
  if (Number.isNaN(ts)) report(line, "missing or bad timestamp; the previous line's time is used");
  let parentUuid: string | null = null;
  if (typeof o.parentUuid === 'string') parentUuid = o.parentUuid;
  else if (o.parentUuid !== null && o.parentUuid !== undefined)
    report(line, 'parentUuid is not a string; treated as null');
  let kind: Kind;
  if (type === 'user') kind = classifyUser(o, content);
  else if (type === 'assistant') kind = Kind.Assistant;
  else if (type === 'system') {
    kind = Kind.System;
    content = systemError(o);
  } else kind = Kind.Structural;
  const boundary = type === 'system' && o.subtype === 'compact_boundary';
  const tur = o.toolUseResult;
  const idx = nodes.length;
  byUuid.set(uuid, idx);
  const node: Node = {
    f,
    line,
    uuid,
    parentUuid,
    type,
    content,
    kind,
    side: at.side,
    ts,
    rawTime: typeof o.timestamp === 'string' ? o.timestamp : undefined,
    sid: typeof o.sessionId === 'string' ? o.sessionId : '',
    parent: -1,
    boundary,
    cwd: typeof o.cwd === 'string' && o.cwd !== '' ? o.cwd : undefined,
    agentId: typeof o.agentId === 'string' ? o.agentId : undefined,
    resultAgentId: isObj(tur) && typeof tur.agentId === 'string' ? tur.agentId : undefined,
    stop,
    apiError: o.isApiErrorMessage === true,
    logicalParent: boundary && typeof o.logicalParentUuid === 'string' ? o.logicalParentUuid : undefined,
    compactMeta: boundary && isObj(o.compactMetadata) ? o.compactMetadata : undefined,
  };
  nodes.push(node);
  return idx;
}
