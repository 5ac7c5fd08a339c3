/**
 * One Claude Code session file (with its subagent files) into one ParsedSource: turns from the tree of lines
 * (parentUuid links, logicalParentUuid across a compaction), checkpoints for compactions, and a problem for every
 * line that could not be used. Every walk is bounded: each line is visited a constant number of times.
 */
import { basename, dirname } from 'node:path';
import { AnswerBuilder } from '../answer.js';
import type {
  ImportProblem,
  ParsedCheckpoint,
  ParsedEntry,
  ParsedSession,
  ParsedSource,
  ParsedTurn,
} from '../model.js';
import {
  addToAnswer,
  classifyUser,
  isConversational,
  Kind,
  promptText,
  summaryText,
  systemError,
} from './content.js';
import { type ReadFile, readJsonLines } from './lines.js';
import { type AgentFile, findAgentFiles } from './subagents.js';

export interface ClaudeOptions {
  /** Import subagent / sidechain turns (default true). */
  sidechains: boolean;
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A line with a uuid: a node of the tree. */
interface Node {
  /** Index of its file in the unit (0 = the session file). */
  f: number;
  line: number;
  uuid: string;
  /** parentUuid as written (null when null or absent). */
  parentUuid: string | null;
  /** The line's `type`. */
  type: string;
  /** message.content of a user or assistant line; the error text of a system line. */
  content: unknown;
  kind: Kind;
  side: boolean;
  /** Time in ms, NaN when missing or bad. */
  ts: number;
  /** The timestamp as written, when it is a string. */
  rawTime: string | undefined;
  sid: string;
  /** The parent node used (index), -1 at a root. */
  parent: number;
  boundary: boolean;
  cwd: string | undefined;
  /** agentId on the line: the subagent it belongs to (sidechain lines) or refers to (main lines). */
  agentId: string | undefined;
  /** toolUseResult.agentId: the subagent a tool result came from. */
  resultAgentId: string | undefined;
  /** message.stop_reason of an assistant line. */
  stop: unknown;
  apiError: boolean;
  /** A compaction boundary's logicalParentUuid and compactMetadata. */
  logicalParent: string | undefined;
  compactMeta: Obj | undefined;
}

/** A file of the unit and, for each of its JSON lines, the node it became (-1 none) or -2 (skipped). */
interface UnitFile {
  rf: ReadFile;
  nodeOf: number[];
  agent?: AgentFile;
  /** Its nodes are nodes[start..end) (a file's nodes are contiguous). */
  start: number;
  end: number;
}

/** Stop reasons that end a reply; any other last reply may still be streaming or using tools. */
const FINAL_STOPS = new Set(['end_turn', 'stop_sequence', 'max_tokens']);

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

const SKIPPED = -2;

/** A value from the input made safe for a one-line reason. */
function show(s: string): string {
  const flat = s.replace(/\s+/g, ' ');
  return flat.length > 60 ? `${flat.slice(0, 59)}…` : flat;
}

/**
 * `YYYY-MM-DDTHH:MM:SS.mmmZ` that toISOString would give back unchanged (a day past 28 or an hour past 23 may
 * roll over, so those are left to Date).
 */
function isCanonicalIso(s: string): boolean {
  if (s.length !== 24 || s.charCodeAt(23) !== 90 /* Z */ || s[10] !== 'T' || s[19] !== '.') return false;
  if (s[4] !== '-' || s[7] !== '-' || s[13] !== ':' || s[16] !== ':') return false;
  for (const i of [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22]) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return s.slice(8, 10) <= '28' && s.slice(11, 13) <= '23' && s.slice(5, 7) <= '12' && s.slice(5, 7) >= '01';
}

function timeOf(v: unknown): number {
  if (typeof v === 'string') return Date.parse(v);
  return typeof v === 'number' ? new Date(v).getTime() : Number.NaN;
}

/** Reads one session file and the subagent files that belong to it. */
export function readClaude(file: string, opts: ClaudeOptions = { sidechains: true }): ParsedSource {
  const problems: ImportProblem[] = [];
  const nodes: Node[] = [];
  const byUuid = new Map<string, number>();
  const files: UnitFile[] = [];
  const titles = { custom: new Map<string, string>(), ai: new Map<string, string>() };
  const summaries: { leaf: string | undefined; text: string }[] = [];

  /** Reads one file of the unit, turning its lines into nodes. Returns how many lines looked like Claude Code's. */
  function addFile(path: string, agent: AgentFile | undefined): number {
    const f = files.length;
    const nodeOf: number[] = [];
    const report = (line: number, reason: string) => problems.push({ file: path, line, reason });
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
      if (side && !opts.sidechains) {
        nodeOf[li] = SKIPPED;
        return;
      }
      if (!hasUuid || typeof uuid !== 'string') {
        if (type === 'user' || type === 'assistant' || type === 'system') {
          report(line, `${type} line without a uuid; skipped`);
          nodeOf[li] = SKIPPED;
          return;
        }
        const sid = typeof o.sessionId === 'string' ? o.sessionId : '';
        if (type === 'summary' && typeof o.summary === 'string')
          summaries.push({ leaf: typeof o.leafUuid === 'string' ? o.leafUuid : undefined, text: o.summary });
        else if (type === 'ai-title' && typeof o.aiTitle === 'string') titles.ai.set(sid, o.aiTitle);
        else if (type === 'custom-title' && typeof o.customTitle === 'string')
          titles.custom.set(sid, o.customTitle);
        return; // kept for raw, by position
      }
      let content: unknown;
      let stop: unknown;
      if (type === 'user' || type === 'assistant') {
        const m = o.message;
        if (!isObj(m)) {
          report(line, 'message is not an object; skipped');
          nodeOf[li] = SKIPPED;
          return;
        }
        content = m.content;
        stop = m.stop_reason;
        if (typeof content !== 'string' && !Array.isArray(content)) {
          report(line, 'message has no content; skipped');
          nodeOf[li] = SKIPPED;
          return;
        }
        if (Array.isArray(content)) {
          let bad = 0;
          for (const b of content) if (!isObj(b)) bad++;
          if (bad > 0) report(line, `${bad} content block(s) not an object; ignored`);
        }
      }
      const first = byUuid.get(uuid);
      if (first !== undefined) {
        const n0 = nodes[first];
        const where = n0.f === f ? `line ${n0.line}` : `${basename(files[n0.f].rf.path)}:${n0.line}`;
        report(line, `duplicate uuid ${show(uuid)} (first at ${where}); skipped`);
        nodeOf[li] = SKIPPED;
        return;
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
      nodeOf[li] = idx;
      // Only what the turns need is kept: the rest of the parsed line (usage, toolUseResult...) can be freed.
      nodes.push({
        f,
        line,
        uuid,
        parentUuid,
        type,
        content,
        kind,
        side,
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
      });
    });
    files.push({ rf, nodeOf, agent, start, end: nodes.length });
    return claudeish;
  }

  const claudeish = addFile(file, undefined);
  const mainLines = files[0].rf.raws.length;
  if (claudeish === 0 && mainLines > 0)
    problems.push({
      file,
      line: 0,
      reason: `no Claude Code lines among ${mainLines} JSON lines (another format?)`,
    });

  const stem = basename(file).replace(/\.jsonl$/, '');
  // The file's own session: the one its name gives, else the newest main-chain line's, else any line's.
  let fileSession = stem;
  if (!nodes.some((n) => n.sid === stem)) {
    const last = (side: boolean) => {
      for (let i = nodes.length - 1; i >= 0; i--)
        if (nodes[i].sid !== '' && nodes[i].side === side) return nodes[i].sid;
      return undefined;
    };
    fileSession = last(false) ?? last(true) ?? stem;
  }

  if (opts.sidechains) {
    for (const agent of findAgentFiles(file, fileSession, problems)) {
      try {
        addFile(agent.path, agent);
      } catch (e) {
        problems.push({ file: agent.path, line: 0, reason: (e as Error).message });
      }
    }
  }

  linkParents(nodes, byUuid, files, problems);
  relinkPreservedSegments(nodes, byUuid);
  breakCycles(nodes, files, problems);
  const source = assemble({ file, opts, nodes, byUuid, files, problems, fileSession, titles, summaries });
  // problems in file order: the session file first, then its subagent files, each by line
  const order = new Map<string, number>();
  for (const uf of files) if (!order.has(uf.rf.path)) order.set(uf.rf.path, order.size);
  const rank = (f: string) => order.get(f) ?? order.size;
  source.problems = problems
    .map((p, i) => ({ p, i }))
    .sort((a, b) => rank(a.p.file) - rank(b.p.file) || a.p.line - b.p.line || a.i - b.i)
    .map((x) => x.p);
  return source;
}

/** The parent node of each node: parentUuid, or logicalParentUuid on a compaction boundary; file order when
 * a file has no links at all (the oldest transcripts). */
function linkParents(
  nodes: Node[],
  byUuid: Map<string, number>,
  files: UnitFile[],
  problems: ImportProblem[],
) {
  // parentUuid resolved once: the node index, -1 when null, -2 when not in the unit
  const written = new Int32Array(nodes.length);
  for (let i = 0; i < nodes.length; i++) {
    const p = nodes[i].parentUuid;
    written[i] = p === null ? -1 : (byUuid.get(p) ?? -2);
  }
  const unlinked = files.map((uf) => {
    if (uf.agent) return false;
    let linked = 0;
    let nulls = 0;
    for (let i = uf.start; i < uf.end; i++) {
      const n = nodes[i];
      if (n.side || (n.type !== 'user' && n.type !== 'assistant')) continue;
      if (written[i] === -1) nulls++;
      else if (written[i] >= 0) linked++;
    }
    return linked === 0 && nulls >= 2;
  });
  const prevByFile = files.map(() => -1);
  // the last user or assistant line so far, per file and per chain (main, sidechain)
  const lastTalk = files.map(() => [-1, -1]);
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    const path = files[n.f].rf.path;
    const talk = lastTalk[n.f];
    const before = talk[n.side ? 1 : 0];
    if (n.type === 'user' || n.type === 'assistant') talk[n.side ? 1 : 0] = i;
    const w = written[i];
    if (unlinked[n.f] && !n.side) {
      n.parent = prevByFile[n.f];
      prevByFile[n.f] = i;
      if (w === -2)
        problems.push({
          file: path,
          line: n.line,
          reason: `parent ${show(n.parentUuid!)} is not in this transcript`,
        });
      continue;
    }
    if (w >= 0) n.parent = w;
    else if (w === -2)
      problems.push({
        file: path,
        line: n.line,
        reason: `parent ${show(n.parentUuid!)} is not in this transcript; a root from here`,
      });
    else if (n.logicalParent !== undefined) {
      const p = byUuid.get(n.logicalParent);
      if (p === undefined)
        problems.push({
          file: path,
          line: n.line,
          reason: `compaction's logical parent ${show(n.logicalParent)} is not in this transcript`,
        });
      else n.parent = p;
    } else if (n.boundary && before >= 0) {
      // an older boundary without logicalParentUuid: the format gives no link, so file order does
      n.parent = before;
    }
  }
}

/**
 * A compaction that keeps recent messages (`compactMetadata.preservedSegment`) may write a kept message under the
 * summary (its anchor) although it continues the conversation before the boundary, whose logicalParentUuid names
 * it: followed as written that is a cycle. Such a message is put back after its predecessor in
 * `preservedMessages.uuids`, or after the last message written before the boundary.
 */
function relinkPreservedSegments(nodes: Node[], byUuid: Map<string, number>) {
  for (let b = 0; b < nodes.length; b++) {
    const B = nodes[b];
    if (!B.boundary) continue;
    const meta = B.compactMeta;
    if (meta === undefined || !isObj(meta.preservedSegment)) continue;
    const seg = meta.preservedSegment;
    const anchor = typeof seg.anchorUuid === 'string' ? seg.anchorUuid : undefined;
    const head = typeof seg.headUuid === 'string' ? seg.headUuid : undefined;
    const listed =
      isObj(meta.preservedMessages) && Array.isArray(meta.preservedMessages.uuids)
        ? meta.preservedMessages.uuids.filter((u): u is string => typeof u === 'string')
        : [];
    const members = new Set<string>(listed);
    if (head) members.add(head);
    if (typeof seg.tailUuid === 'string') members.add(seg.tailUuid);
    for (const m of members) {
      const i = byUuid.get(m);
      if (i === undefined) continue;
      const n = nodes[i];
      if (n.parentUuid === null || (n.parentUuid !== anchor && n.parentUuid !== B.uuid)) continue;
      let pred: number | undefined;
      const k = listed.indexOf(m);
      if (k > 0) pred = byUuid.get(listed[k - 1]);
      if (pred === undefined && m !== head) {
        // the last user or assistant line written before the boundary, in its file
        for (let j = b - 1; j >= 0 && nodes[j].f === B.f; j--) {
          const t = nodes[j].type;
          if (j !== i && nodes[j].side === B.side && (t === 'user' || t === 'assistant')) {
            pred = j;
            break;
          }
        }
      }
      if (pred !== undefined && pred !== i) n.parent = pred;
    }
  }
}

/** Cuts every cycle of parent links once (at a compaction's logical link when the cycle has one). */
function breakCycles(nodes: Node[], files: UnitFile[], problems: ImportProblem[]) {
  const state = new Uint8Array(nodes.length); // 0 new, 1 on the current walk, 2 done
  const path: number[] = [];
  for (let i = 0; i < nodes.length; i++) {
    if (state[i] !== 0) continue;
    let c = i;
    while (c >= 0 && state[c] === 0) {
      state[c] = 1;
      path.push(c);
      c = nodes[c].parent;
    }
    if (c >= 0 && state[c] === 1) {
      const from = path.lastIndexOf(c);
      let cut = c;
      for (let j = from; j < path.length; j++) {
        const n = nodes[path[j]];
        if (n.boundary && n.parentUuid === null) {
          cut = path[j];
          break;
        }
      }
      const n = nodes[cut];
      n.parent = -1;
      problems.push({
        file: files[n.f].rf.path,
        line: n.line,
        reason: `parent links form a cycle (through ${show(n.uuid)}); cut here`,
      });
    }
    for (const p of path) state[p] = 2;
    path.length = 0;
  }
}

interface AssembleInput {
  file: string;
  opts: ClaudeOptions;
  nodes: Node[];
  byUuid: Map<string, number>;
  files: UnitFile[];
  problems: ImportProblem[];
  fileSession: string;
  titles: { custom: Map<string, string>; ai: Map<string, string> };
  summaries: { leaf: string | undefined; text: string }[];
}

interface TurnDraft {
  /** The node the turn starts at: its prompt, or the root of a chain with no prompt. */
  anchor: number;
  parent: number;
  start: number;
  end: number;
  lastAssistant: number;
  agentId: string | undefined;
  cwd: string | undefined;
  note: string | undefined;
}

function assemble(inp: AssembleInput): ParsedSource {
  const { file, nodes, files, problems, fileSession } = inp;
  const n = nodes.length;

  // 1. Each node's anchor: the nearest prompt at or above it, else the root of its chain.
  const anchor = new Int32Array(n).fill(-1);
  const stack: number[] = [];
  for (let i = 0; i < n; i++) {
    if (anchor[i] >= 0) continue;
    let c = i;
    while (anchor[c] < 0 && nodes[c].kind !== Kind.Prompt && nodes[c].parent >= 0) {
      stack.push(c);
      c = nodes[c].parent;
    }
    if (anchor[c] < 0) anchor[c] = c;
    const a = anchor[c];
    for (const s of stack) anchor[s] = a;
    stack.length = 0;
  }

  // 2. Turns: one per prompt, and one per chain that holds conversation but no prompt ("[no text]").
  const conversational = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (isConversational(nodes[i].kind)) conversational[anchor[i]] = 1;
  const turnOfAnchor = new Int32Array(n).fill(-1);
  const drafts: TurnDraft[] = [];
  const newTurn = (a: number) => {
    turnOfAnchor[a] = drafts.length;
    drafts.push({
      anchor: a,
      parent: -1,
      start: Number.POSITIVE_INFINITY,
      end: Number.NEGATIVE_INFINITY,
      lastAssistant: -1,
      agentId: undefined,
      cwd: undefined,
      note: undefined,
    });
  };
  for (let i = 0; i < n; i++) {
    if (nodes[i].kind === Kind.Prompt || (anchor[i] === i && conversational[i])) newTurn(i);
  }
  // A chain of metadata only (hooks, a compaction whose logical parent is gone...) above a prompt: its lines
  // belong to the first prompt below it.
  const isTurnAnchor = (a: number) => nodes[a].kind === Kind.Prompt || conversational[a] === 1;
  for (let i = 0; i < n; i++) {
    if (nodes[i].kind !== Kind.Prompt) continue;
    const p = nodes[i].parent;
    if (p < 0) continue;
    const a = anchor[p];
    if (!isTurnAnchor(a) && turnOfAnchor[a] < 0) turnOfAnchor[a] = turnOfAnchor[i];
  }
  const turnOf = (i: number) => turnOfAnchor[anchor[i]];

  // 3. Each turn's parent turn: the turn holding its prompt's parent line (a chain of metadata only: none).
  for (const d of drafts) {
    const p = nodes[d.anchor].parent;
    if (p >= 0 && isTurnAnchor(anchor[p])) d.parent = turnOfAnchor[anchor[p]];
  }

  // 4. Per turn: time range, last reply, the agent its lines name, its cwd.
  for (let i = 0; i < n; i++) {
    const t = turnOf(i);
    if (t < 0) continue;
    const d = drafts[t];
    const nd = nodes[i];
    if (!Number.isNaN(nd.ts)) {
      if (nd.ts < d.start) d.start = nd.ts;
      if (nd.ts > d.end) d.end = nd.ts;
    }
    if (nd.kind === Kind.Assistant) d.lastAssistant = i;
    if (d.agentId === undefined && nd.side && nd.agentId !== undefined) d.agentId = nd.agentId;
    if (d.cwd === undefined && nd.cwd !== undefined) d.cwd = nd.cwd;
  }

  if (inp.opts.sidechains) linkSidechains(inp, drafts, turnOf);

  // 5. Times: a line without a good time takes the previous line's (the next one's at the start of a file).
  const time = new Float64Array(n);
  for (const uf of files) {
    let last = Number.NaN;
    let firstGood = Number.NaN;
    for (let i = uf.start; i < uf.end && Number.isNaN(firstGood); i++) firstGood = nodes[i].ts;
    if (Number.isNaN(firstGood)) firstGood = uf.rf.mtimeMs;
    for (let i = uf.start; i < uf.end; i++) {
      if (!Number.isNaN(nodes[i].ts)) last = nodes[i].ts;
      time[i] = Number.isNaN(last) ? firstGood : last;
    }
  }
  const iso = (ms: number) => new Date(Number.isFinite(ms) ? ms : 0).toISOString();
  /** A prompt's time as ISO: its own text when that is already canonical (it is, from Claude Code). */
  const isoOf = (i: number) => {
    const raw = nodes[i].rawTime;
    if (raw !== undefined && !Number.isNaN(nodes[i].ts) && isCanonicalIso(raw)) return raw;
    return iso(time[i]);
  };

  // 6. Answers, in file order of the turn's lines.
  const builders = drafts.map(() => new AnswerBuilder());
  for (let i = 0; i < n; i++) {
    const t = turnOf(i);
    if (t < 0) continue;
    const nd = nodes[i];
    addToAnswer(builders[t], nd.kind, nd.content, nd.apiError);
  }

  // 7. Raw lines: every used line of a file, lines without a uuid going with the line before them.
  const raws: string[][] = drafts.map(() => []);
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

  // 8. The newest turn of each file is incomplete when its last reply has no end-of-turn stop.
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
      if (uf.rf.truncatedEnd || typeof stop !== 'string' || !FINAL_STOPS.has(stop)) incomplete[t] = 1;
      break;
    }
  }

  const turns: ParsedTurn[] = drafts.map((d, t) => {
    const a = nodes[d.anchor];
    const turn: ParsedTurn = {
      sourceId: a.uuid,
      parentSourceId: d.parent >= 0 ? nodes[drafts[d.parent].anchor].uuid : null,
      sourceSession: a.sid || fileSession,
      question: a.kind === Kind.Prompt ? promptText(a.content) : '[no text]',
      answer: builders[t].toString(),
      createdAt: isoOf(d.anchor),
      raw: raws[t],
      line: a.line,
      complete: incomplete[t] === 0,
    };
    const cwd = a.cwd ?? d.cwd;
    if (cwd !== undefined) turn.cwd = cwd;
    if (d.note !== undefined) turn.note = d.note;
    return turn;
  });

  return {
    kind: 'claude',
    file,
    sessions: sessionsOf(inp, turns, time, iso),
    turns,
    entries: entriesOf(inp, drafts, turnOf, time, iso),
    problems,
  };
}

/**
 * Puts each subagent's root turns under the turn that launched it: by the Task/Agent tool_use id its meta.json
 * names, else by its agentId on the launching tool result, else by time (the main turn whose time range holds the
 * subagent's first line, else the last main turn begun before it).
 */
function linkSidechains(inp: AssembleInput, drafts: TurnDraft[], turnOf: (i: number) => number) {
  const { nodes, files, problems } = inp;
  if (!drafts.some((d) => nodes[d.anchor].side)) return;
  const toolUse = new Map<string, number>();
  const agentRef = new Map<string, number>();
  for (let i = 0; i < nodes.length; i++) {
    const nd = nodes[i];
    if (nd.kind === Kind.Assistant && Array.isArray(nd.content)) {
      for (const b of nd.content)
        if (isObj(b) && b.type === 'tool_use' && typeof b.id === 'string' && !toolUse.has(b.id))
          toolUse.set(b.id, i);
    }
    const ref = nd.resultAgentId ?? (nd.side ? undefined : nd.agentId);
    if (ref !== undefined && !agentRef.has(ref)) agentRef.set(ref, i);
  }
  const sideOf = (t: number) => nodes[drafts[t].anchor].side;
  for (const d of drafts) {
    if (!nodes[d.anchor].side) continue;
    const agent = files[nodes[d.anchor].f].agent;
    const id = agent?.agentId ?? d.agentId;
    d.note = id ? `subagent ${id}` : agent?.description ? `subagent ${agent.description}` : 'sidechain';
  }
  /** A turn is settled when its chain of parents reaches a main-chain turn. */
  const settled = (t: number): boolean => {
    for (let c = t, steps = 0; c >= 0 && steps <= drafts.length; c = drafts[c].parent, steps++) {
      if (!sideOf(c)) return true;
    }
    return false;
  };
  let pending: number[] = [];
  for (let t = 0; t < drafts.length; t++) if (sideOf(t) && drafts[t].parent < 0) pending.push(t);
  const byLink = (t: number): number => {
    const d = drafts[t];
    const agent = files[nodes[d.anchor].f].agent;
    const candidates: (number | undefined)[] = [];
    if (agent?.toolUseId !== undefined) candidates.push(toolUse.get(agent.toolUseId));
    const id = agent?.agentId ?? d.agentId;
    if (id !== undefined) candidates.push(agentRef.get(id));
    for (const c of candidates) {
      if (c === undefined) continue;
      const l = turnOf(c);
      if (l >= 0 && l !== t && !(sideOf(l) && nodes[drafts[l].anchor].f === nodes[d.anchor].f && agent)) {
        if (settled(l)) return l;
      }
    }
    return -1;
  };
  for (let progress = true; progress && pending.length > 0; ) {
    progress = false;
    const still: number[] = [];
    for (const t of pending) {
      const l = byLink(t);
      if (l >= 0) {
        drafts[t].parent = l;
        progress = true;
      } else still.push(t);
    }
    pending = still;
  }
  if (pending.length === 0) return;
  const mains: number[] = [];
  for (let t = 0; t < drafts.length; t++) if (!sideOf(t) && Number.isFinite(drafts[t].start)) mains.push(t);
  for (const t of pending) {
    const t0 = drafts[t].start;
    let best = -1;
    let before = -1;
    for (const m of mains) {
      const dm = drafts[m];
      if (dm.start <= t0 && t0 <= dm.end && (best < 0 || dm.start >= drafts[best].start)) best = m;
      if (dm.start <= t0 && (before < 0 || dm.start >= drafts[before].start)) before = m;
    }
    const l = best >= 0 ? best : before;
    if (l >= 0) drafts[t].parent = l;
    else {
      const a = nodes[drafts[t].anchor];
      problems.push({
        file: files[a.f].rf.path,
        line: a.line,
        reason: `${drafts[t].note ?? 'sidechain'}: no launching turn found; imported as a root`,
      });
    }
  }
}

function sessionsOf(
  inp: AssembleInput,
  turns: ParsedTurn[],
  time: Float64Array,
  iso: (ms: number) => string,
): ParsedSession[] {
  const { nodes, file, fileSession, byUuid } = inp;
  if (turns.length === 0) return [];
  const wanted = new Set<string>(turns.map((t) => t.sourceSession));
  wanted.add(fileSession);
  const first = new Map<string, number>();
  const cwd = new Map<string, string>();
  for (let i = 0; i < nodes.length; i++) {
    const sid = nodes[i].sid || fileSession;
    const t = time[i];
    const f = first.get(sid);
    if (f === undefined || t < f) first.set(sid, t);
    const c = nodes[i].cwd;
    if (c !== undefined && !cwd.has(sid)) cwd.set(sid, c);
  }
  const summary = new Map<string, string>();
  // a summary names the session of its leaf line; one whose leaf is in another file is left out
  for (const s of inp.summaries) {
    const leaf = s.leaf !== undefined ? byUuid.get(s.leaf) : undefined;
    if (leaf !== undefined) summary.set(nodes[leaf].sid || fileSession, s.text);
  }
  const titleOf = (sid: string) =>
    inp.titles.custom.get(sid) ??
    (sid === fileSession ? inp.titles.custom.get('') : undefined) ??
    inp.titles.ai.get(sid) ??
    (sid === fileSession ? inp.titles.ai.get('') : undefined) ??
    summary.get(sid);
  const project = basename(dirname(file));
  return [...wanted].map((sid) => {
    const s: ParsedSession = { sourceSession: sid, createdAt: iso(first.get(sid) ?? time[0]), project };
    const title = titleOf(sid);
    if (title !== undefined) s.title = title;
    const c = cwd.get(sid);
    if (c !== undefined) s.cwd = c;
    return s;
  });
}

/** One entry `claude:<sessionId>` per session that was compacted, with one checkpoint per compaction. */
function entriesOf(
  inp: AssembleInput,
  drafts: TurnDraft[],
  turnOf: (i: number) => number,
  time: Float64Array,
  iso: (ms: number) => string,
): ParsedEntry[] {
  const { nodes, byUuid, fileSession } = inp;
  const n = nodes.length;
  const summaryOf = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const p = nodes[i].parentUuid;
    if (nodes[i].kind === Kind.CompactSummary && p !== null && !summaryOf.has(p)) summaryOf.set(p, i);
  }
  // the next prompt at or after each node, in its file
  const nextPrompt = new Int32Array(n).fill(-1);
  for (let i = n - 1, next = -1, f = -1; i >= 0; i--) {
    if (nodes[i].f !== f) {
      f = nodes[i].f;
      next = -1;
    }
    if (nodes[i].kind === Kind.Prompt && !nodes[i].side) next = i;
    nextPrompt[i] = next;
  }
  const bySession = new Map<string, ParsedCheckpoint[]>();
  for (let b = 0; b < n; b++) {
    const B = nodes[b];
    if (!B.boundary || B.side) continue;
    const sid = B.sid || fileSession;
    let s = summaryOf.get(B.uuid);
    const meta = B.compactMeta;
    if (s === undefined && meta !== undefined && isObj(meta.preservedSegment)) {
      const a = meta.preservedSegment.anchorUuid;
      const ai = typeof a === 'string' ? byUuid.get(a) : undefined;
      if (ai !== undefined && nodes[ai].kind === Kind.CompactSummary) s = ai;
    }
    for (let j = b + 1; s === undefined && j < n && j <= b + 5 && nodes[j].f === B.f; j++)
      if (nodes[j].kind === Kind.CompactSummary) s = j;
    const preTurn = B.parent >= 0 ? turnOf(B.parent) : -1;
    let postTurn = -1;
    const cand = b + 1 < n ? nextPrompt[b + 1] : -1;
    if (cand >= 0 && nodes[cand].f === B.f) {
      const ct = turnOf(cand);
      if (preTurn < 0) postTurn = ct;
      else
        for (let c = ct, steps = 0; c >= 0 && steps <= drafts.length; c = drafts[c].parent, steps++)
          if (c === preTurn) {
            postTurn = ct;
            break;
          }
    }
    const cp: ParsedCheckpoint = {
      checkpointId: B.uuid,
      reason: 'compaction',
      createdAt: iso(time[b]),
      preCompaction: { sourceSession: sid },
      postCompaction: { sourceSession: postTurn >= 0 ? nodes[drafts[postTurn].anchor].sid || sid : sid },
    };
    if (s !== undefined) cp.summary = summaryText(nodes[s].content);
    if (preTurn >= 0) cp.preCompaction.turnSourceId = nodes[drafts[preTurn].anchor].uuid;
    if (postTurn >= 0) cp.postCompaction.turnSourceId = nodes[drafts[postTurn].anchor].uuid;
    const list = bySession.get(sid) ?? [];
    list.push(cp);
    bySession.set(sid, list);
  }
  return [...bySession].map(([sid, cps]) => ({
    key: `claude:${sid}`,
    sourceSession: sid,
    compactionCheckpoints: cps,
    usageFamilySessions: [],
  }));
}
