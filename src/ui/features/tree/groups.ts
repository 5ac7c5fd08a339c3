/**
 * The sessions pane grouped by project and filtered by agent or project, pure: which sessions show, in what order,
 * under which headings. The origins (agent and project of each session) come from the store (Shard
 * sessionOriginsOf), all of them once a grouping or a filter is asked for; the first screen reads only its rows'.
 */
import type { Arrangement, GroupHeading, SessionLike } from './model.js';

/** Where a session came from: its agent (the import source's kind, 'arborist' when asked here) and project. */
export interface Origin {
  agent: string;
  /** The working directory the source recorded, sanitised; '' when none. */
  project: string;
  /** Asked here in arborist (no import source), not imported. */
  here?: boolean;
  /** Pulled by sync: the host it was made on, and whether that host has it archived (docs/sync.md). */
  host?: string;
  archivedThere?: boolean;
}

/** An agent's name and badge (src/import/agents.ts, handed in by the CLI). */
export interface AgentLabel {
  name: string;
  badge: string;
}

export type Grouping = 'none' | 'project';

/** The filter prompt (`F`, filter.ts) as the state holds it. */
export interface FilterOverlay {
  kind: 'filter';
  text: string;
  /** The last Tab's candidates and which one is in the line: Tab again puts the next one there. */
  tab: { base: string; matches: string[]; i: number } | null;
}

/** The agent of sessions asked in arborist itself (no import source): the badge of arborist exports too. */
export const HERE_AGENT = 'arborist';
export const HERE_BADGE = 'AR';

/** A session's badge: its agent's, or the agent's first letters for one this build does not know. */
export function badgeOf(agent: string, agents: ReadonlyMap<string, AgentLabel>): string {
  if (agent === HERE_AGENT) return agents.get(agent)?.badge ?? HERE_BADGE;
  return agents.get(agent)?.badge ?? agent.slice(0, 2).toUpperCase();
}

/** A parsed filter: every term must match (`agent:X`, `project:X`, or a word matching either). */
export interface FilterTerm {
  field: 'agent' | 'project' | 'any';
  value: string;
}

export function parseFilter(text: string): FilterTerm[] {
  const out: FilterTerm[] = [];
  for (const word of text.trim().split(/\s+/)) {
    if (word === '') continue;
    const m = /^(agent|project):(.*)$/i.exec(word);
    if (m) {
      if (m[2] !== '')
        out.push({ field: m[1].toLowerCase() as 'agent' | 'project', value: m[2].toLowerCase() });
    } else out.push({ field: 'any', value: word.toLowerCase() });
  }
  return out;
}

function agentMatches(agent: string, v: string, agents: ReadonlyMap<string, AgentLabel>): boolean {
  const a = agents.get(agent);
  return (
    agent.toLowerCase() === v ||
    badgeOf(agent, agents).toLowerCase() === v ||
    (a !== undefined && a.name.toLowerCase() === v)
  );
}

/** True when the session's origin matches every term (agent by kind, badge or name; project by a part of it). */
export function matchesFilter(
  o: Origin | undefined,
  terms: readonly FilterTerm[],
  agents: ReadonlyMap<string, AgentLabel>,
): boolean {
  if (terms.length === 0) return true;
  if (!o) return false;
  const project = o.project.toLowerCase();
  for (const t of terms) {
    const ag = t.field !== 'project' && agentMatches(o.agent, t.value, agents);
    const pr = t.field !== 'agent' && project.includes(t.value);
    if (!ag && !pr) return false;
  }
  return true;
}

export interface ArrangeInput {
  sessions: readonly SessionLike[];
  origins: ReadonlyMap<string, Origin>;
  grouping: Grouping;
  filter: string;
  closedGroups: ReadonlySet<string>;
  agents: ReadonlyMap<string, AgentLabel>;
}

let memo: { input: ArrangeInput; out: Arrangement | null } | null = null;

/**
 * The order of the pane's sessions, or null for the plain list (no grouping, no filter). Groups come in the order
 * of their newest session (the list is newest first, so first seen is newest); inside a group, newest first.
 * Remembered for the last input, so that moving and expanding do not walk every session again.
 */
export function arrange(input: ArrangeInput): Arrangement | null {
  if (input.grouping === 'none' && input.filter.trim() === '') return null;
  const m = memo?.input;
  if (
    m &&
    m.sessions === input.sessions &&
    m.origins === input.origins &&
    m.grouping === input.grouping &&
    m.filter === input.filter &&
    m.closedGroups === input.closedGroups &&
    m.agents === input.agents
  )
    return memo!.out;
  const terms = parseFilter(input.filter);
  const { sessions, origins } = input;
  let out: Arrangement;
  if (input.grouping === 'none') {
    const list: number[] = [];
    for (let i = 0; i < sessions.length; i++)
      if (matchesFilter(origins.get(sessions[i].sid), terms, input.agents)) list.push(i);
    out = list;
  } else {
    const groups = new Map<string, number[]>();
    for (let i = 0; i < sessions.length; i++) {
      const o = origins.get(sessions[i].sid);
      if (!matchesFilter(o, terms, input.agents)) continue;
      const p = o?.project ?? '';
      const g = groups.get(p);
      if (g) g.push(i);
      else groups.set(p, [i]);
    }
    const list: (number | GroupHeading)[] = [];
    for (const [project, members] of groups) {
      list.push({ project, n: members.length, newest: sessions[members[0]].created_at });
      if (!input.closedGroups.has(project)) for (const i of members) list.push(i);
    }
    out = list;
  }
  memo = { input, out };
  return out;
}

/** What the pane's title says of the grouping and the filter ('' for neither); `short` for a narrow pane. */
export function arrangementTitle(grouping: Grouping, filter: string, short = false): string {
  const parts: string[] = [];
  if (grouping === 'project') parts.push(short ? 'by proj' : 'by project');
  const f = filter.trim();
  if (f !== '') parts.push(short ? f : `filter ${f}`);
  return parts.join(' · ');
}

/** The completions of a filter's last word: `agent:KIND` for every agent seen, `project:PATH` for every project. */
export function filterCandidates(origins: ReadonlyMap<string, Origin>): string[] {
  const agents = new Set<string>();
  const projects = new Set<string>();
  for (const o of origins.values()) {
    agents.add(o.agent);
    if (o.project !== '') projects.add(o.project);
  }
  return [...[...agents].sort().map((a) => `agent:${a}`), ...[...projects].sort().map((p) => `project:${p}`)];
}

/**
 * Completes the last word of `text` from `candidates`: a candidate it starts (`agent:c`, `project:/ho`), or whose
 * value it starts or whose last folder it starts (`cod` -> `agent:codex`, `arbo` -> `project:/src/arborist`).
 */
export function completeFilter(text: string, candidates: readonly string[]): string[] {
  const at = text.search(/\S*$/);
  const word = text.slice(at).toLowerCase();
  if (word === '') return [...candidates];
  return candidates.filter((c) => {
    const lc = c.toLowerCase();
    if (lc.startsWith(word)) return true;
    const value = lc.slice(lc.indexOf(':') + 1);
    if (value.startsWith(word)) return true;
    const last = value.slice(value.replace(/\/+$/, '').lastIndexOf('/') + 1);
    return last.startsWith(word) || (word.includes(':') ? false : value.includes(`/${word}`));
  });
}
