/**
 * One Claude Code session file (with its subagent files) into one ParsedSource: turns from the tree of lines
 * (parentUuid links, logicalParentUuid across a compaction), checkpoints for compactions, and a problem for every
 * line that could not be used. Every walk is bounded: each line is visited a constant number of times.
 *
 * This file only runs the stages in order; each stage has its own file (nodes, tree, turn-drafts,
 * sidechain-links, turns, sessions, compactions) and they share only the shapes in unit.ts.
 */
import type { ImportProblem, ParsedSource } from '../model.js';
import { entriesOf } from './compactions.js';
import { addFile } from './nodes.js';
import { fileSessionOf, sessionsOf } from './sessions.js';
import { linkSidechains } from './sidechain-links.js';
import { findAgentFiles } from './subagents.js';
import { lineTimes } from './times.js';
import { breakCycles, linkParents, relinkPreservedSegments } from './tree.js';
import { draftTurns } from './turn-drafts.js';
import { buildTurns } from './turns.js';
import type { ClaudeOptions, Unit, UnitLines } from './unit.js';

export type { ClaudeOptions };

/** Reads one session file and the subagent files that belong to it. */
export function readClaude(file: string, opts: ClaudeOptions = { sidechains: true }): ParsedSource {
  const u = readUnit(file, opts);
  const { nodes, byUuid, files, problems } = u;
  linkParents(nodes, byUuid, files, problems);
  relinkPreservedSegments(nodes, byUuid);
  breakCycles(nodes, files, problems);
  const drafts = draftTurns(nodes);
  if (opts.sidechains) linkSidechains(u, drafts);
  const time = lineTimes(nodes, files);
  const turns = buildTurns(u, drafts, time);
  return {
    kind: 'claude',
    file,
    sessions: sessionsOf(u, turns, time),
    turns,
    entries: entriesOf(u, drafts, time),
    problems: inFileOrder(u),
  };
}

/** The session file, then (when sidechains are wanted) the subagent files of its session, into nodes. */
function readUnit(file: string, opts: ClaudeOptions): Unit {
  const lines: UnitLines = {
    opts,
    nodes: [],
    byUuid: new Map(),
    files: [],
    problems: [],
    titles: { custom: new Map(), ai: new Map() },
    summaries: [],
    queued: [],
  };
  const claudeish = addFile(lines, file, undefined);
  const mainLines = lines.files[0].rf.raws.length;
  if (claudeish === 0 && mainLines > 0) {
    // A file of another format is one problem: a line-by-line account of why none of its lines is ours says nothing.
    lines.problems = lines.problems.filter((q) => q.file !== file);
    lines.problems.push({
      file,
      line: 0,
      reason: `no Claude Code lines among ${mainLines} JSON lines (another format?)`,
    });
  }
  // found from the session file's lines alone: it decides which subagent files belong
  const fileSession = fileSessionOf(file, lines.nodes);
  if (opts.sidechains) {
    for (const agent of findAgentFiles(file, fileSession, lines.problems)) {
      try {
        addFile(lines, agent.path, agent);
      } catch (e) {
        lines.problems.push({ file: agent.path, line: 0, reason: (e as Error).message });
      }
    }
  }
  return { ...lines, file, fileSession };
}

/** Problems in file order: the session file first, then its subagent files, each by line (stable otherwise). */
function inFileOrder({ files, problems }: Unit): ImportProblem[] {
  const order = new Map<string, number>();
  for (const uf of files) if (!order.has(uf.rf.path)) order.set(uf.rf.path, order.size);
  const rank = (f: string) => order.get(f) ?? order.size;
  return problems
    .map((p, i) => ({ p, i }))
    .sort((a, b) => rank(a.p.file) - rank(b.p.file) || a.p.line - b.p.line || a.i - b.i)
    .map((x) => x.p);
}
