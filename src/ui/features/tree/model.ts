/**
 * The left pane's model, pure: a session's outline (from Shard.sessionOutline) prepared for display, and the
 * visible rows derived from the sessions list, which sessions are expanded and which turns are collapsed.
 *
 * Only branch points indent: a conversation is mostly a chain, and indenting every turn would push a 40-turn chain
 * off the pane. A turn whose parent has one child stays in its parent's column; the children of a branch point get
 * `├`/`└` connectors and one more column.
 */
import type { OutlineNode } from '../../../store/index.js';
import { oneLine } from '../../../text/sanitize.js';

export type { OutlineNode };

/** A row of an expanded session: the store's outline node, its question sanitised, and its place in the tree. */
export interface OutlineRow extends Omit<OutlineNode, 'question' | 'local_depth'> {
  /** Sanitised one-line question start. */
  q: string;
  depth: number;
  /** Tree guide drawn before the row (connectors of the branch points above it). */
  guide: string;
  /** Index just past this row's subtree in the outline. */
  end: number;
  /** Index of the parent row in this outline, -1 for a top turn. */
  parent: number;
}

export interface Outline {
  sid: string;
  rows: OutlineRow[];
  /** row key -> index */
  index: Map<string, number>;
}

export function rowKeyOf(r: { bates: string; cross: boolean }): string {
  return r.cross ? `l:${r.bates}` : r.bates;
}

export function sessionKey(sid: string): string {
  return `s:${sid}`;
}

/** A group heading's row key (the project, '' for sessions without one). */
export function groupKey(project: string): string {
  return `g:${project}`;
}

export function prepareOutline(sid: string, nodes: readonly OutlineNode[]): Outline {
  const n = nodes.length;
  const rows: OutlineRow[] = new Array(n);
  const index = new Map<string, number>();
  // Parent indices from depths (DFS order): the parent is the nearest earlier row one level up.
  const stack: number[] = [];
  const kidsCount = new Int32Array(n);
  let tops = 0;
  for (let i = 0; i < n; i++) {
    const nd = nodes[i];
    while (stack.length > 0 && nodes[stack[stack.length - 1]].local_depth >= nd.local_depth) stack.pop();
    const parent = stack.length > 0 ? stack[stack.length - 1] : -1;
    if (parent >= 0) kidsCount[parent]++;
    else tops++;
    stack.push(i);
    rows[i] = {
      id: nd.id,
      bates: nd.bates,
      sid: nd.sid,
      seq: nd.seq,
      parent_bates: nd.parent_bates,
      is_top: nd.is_top,
      n_children: nd.n_children,
      q: oneLine(nd.question),
      audit: nd.audit,
      created_at: nd.created_at,
      cross: nd.cross,
      depth: nd.local_depth,
      guide: '',
      end: n,
      parent,
    };
  }
  // Subtree ends.
  const open: number[] = [];
  for (let i = 0; i < n; i++) {
    while (open.length > 0 && rows[open[open.length - 1]].depth >= rows[i].depth) rows[open.pop()!].end = i;
    open.push(i);
  }
  // Guides: `cont` is what a row's descendants inherit; branch children add a column.
  const cont: string[] = new Array(n);
  const seen = new Int32Array(n);
  let topsSeen = 0;
  for (let i = 0; i < n; i++) {
    const r = rows[i];
    const p = r.parent;
    const siblings = p >= 0 ? kidsCount[p] : tops;
    const ordinal = p >= 0 ? ++seen[p] : ++topsSeen;
    const base = p >= 0 ? cont[p] : '';
    if (siblings >= 2) {
      const last = ordinal === siblings;
      r.guide = base + (last ? '└ ' : '├ ');
      cont[i] = base + (last ? '  ' : '│ ');
    } else {
      r.guide = base;
      cont[i] = base;
    }
    index.set(rowKeyOf(r), i);
  }
  return { sid, rows, index };
}

/** Carried by a session of the tree that is archived (SessionLike.archived). */
export interface ArchivedTag {
  reason: string;
  archived_at: string;
}

export interface SessionLike {
  sid: string;
  label: string | null;
  created_at: string;
  n_nodes: number;
  /** Set on an archived session (shown read-only when archived sessions are shown). */
  archived?: ArchivedTag;
}

/** A visible row: a session (node = -1) or one of its outline rows. Never changed once made (see buildRows). */
export interface Row {
  /** Index into the sessions list; -1 for a group's heading. */
  readonly session: number;
  /** Index into the session's outline rows; -1 for the session's own row (and a heading). */
  readonly node: number;
  /** Set on a group's heading (the sessions grouped by project), and only there. */
  readonly heading?: GroupHeading;
}

/** A project's heading when the sessions are grouped: the project (its working directory, '' for none). */
export interface GroupHeading {
  readonly project: string;
  /** How many sessions it holds (after the filter). */
  readonly n: number;
  /** Its newest session's creation time. */
  readonly newest: string;
}

/**
 * The order the sessions are listed in when they are grouped or filtered: session indices, with a heading before
 * each group (whose sessions are left out when it is closed). null: every session, newest first.
 */
export type Arrangement = readonly (number | GroupHeading)[];

/**
 * What buildRows keeps of a sessions list: its sessions' own rows, where each sid sits, and each expanded session's
 * outline rows for the outline they were made from. Rows are never changed, so every rebuild of the same list
 * shares them, and a rebuild visits only the expanded sessions: expanding or collapsing on a 13,747-session shard
 * walked and made 13,747 rows (0.4-4 ms, and most of the key's garbage) where copying the references costs a tenth.
 */
interface RowCache {
  heads: Row[];
  /** Where each sid sits: a list, so that a sid listed twice (nothing makes one today) is expanded at both. */
  at: Map<string, number[]>;
  outlines: Map<number, { outline: Outline; rows: Row[] }>;
}
const rowCaches = new WeakMap<readonly SessionLike[], RowCache>();

function cacheOf(sessions: readonly SessionLike[]): RowCache {
  let c = rowCaches.get(sessions);
  // (The list is readonly, so never grown in place; the length check keeps a cache of another length from use.)
  if (!c || c.heads.length !== sessions.length) {
    const heads: Row[] = new Array(sessions.length);
    const at = new Map<string, number[]>();
    for (let i = 0; i < sessions.length; i++) {
      heads[i] = { session: i, node: -1 };
      const known = at.get(sessions[i].sid);
      if (known) known.push(i);
      else at.set(sessions[i].sid, [i]);
    }
    c = { heads, at, outlines: new Map() };
    rowCaches.set(sessions, c);
  }
  return c;
}

function outlineRows(c: RowCache, session: number, outline: Outline): Row[] {
  const known = c.outlines.get(session);
  if (known?.outline === outline) return known.rows;
  const rows: Row[] = new Array(outline.rows.length);
  for (let i = 0; i < rows.length; i++) rows[i] = { session, node: i };
  c.outlines.set(session, { outline, rows });
  return rows;
}

/** The rows of an expanded session's outline that are visible: all but the descendants of collapsed rows. */
function visibleRows(c: RowCache, session: number, ol: Outline, collapsed: ReadonlySet<string>): Row[] {
  const made = outlineRows(c, session, ol);
  const rows = ol.rows;
  const out: Row[] = [];
  for (let i = 0; i < rows.length; ) {
    out.push(made[i]);
    const r = rows[i];
    if (r.end > i + 1 && collapsed.has(rowKeyOf(r))) i = r.end;
    else i++;
  }
  return out;
}

export function buildRows(
  sessions: readonly SessionLike[],
  expanded: ReadonlySet<string>,
  outlines: ReadonlyMap<string, Outline>,
  collapsed: ReadonlySet<string>,
  arranged: Arrangement | null = null,
): Row[] {
  const c = cacheOf(sessions);
  if (arranged) {
    const out: Row[] = [];
    for (const item of arranged) {
      if (typeof item !== 'number') {
        out.push({ session: -1, node: -1, heading: item });
        continue;
      }
      out.push(c.heads[item]);
      const sid = sessions[item].sid;
      const ol = outlines.get(sid);
      if (ol && expanded.has(sid)) for (const r of visibleRows(c, item, ol, collapsed)) out.push(r);
    }
    return out;
  }
  const open: number[] = [];
  for (const sid of expanded) if (outlines.has(sid)) for (const i of c.at.get(sid) ?? []) open.push(i);
  open.sort((a, b) => a - b);
  const parts: Row[][] = [];
  let from = 0;
  for (const session of open) {
    parts.push(c.heads.slice(from, session + 1));
    parts.push(visibleRows(c, session, outlines.get(sessions[session].sid)!, collapsed));
    from = session + 1;
  }
  parts.push(c.heads.slice(from));
  return parts.length === 1 ? parts[0] : ([] as Row[]).concat(...parts);
}

export function keyOfRow(
  row: Row | undefined,
  sessions: readonly SessionLike[],
  outlines: ReadonlyMap<string, Outline>,
): string | null {
  if (!row) return null;
  if (row.heading) return groupKey(row.heading.project);
  const s = sessions[row.session];
  if (!s) return null;
  if (row.node < 0) return sessionKey(s.sid);
  const r = outlines.get(s.sid)?.rows[row.node];
  return r ? rowKeyOf(r) : null;
}

export function outlineRowOf(
  row: Row | undefined,
  sessions: readonly SessionLike[],
  outlines: ReadonlyMap<string, Outline>,
): OutlineRow | undefined {
  if (!row || row.node < 0) return undefined;
  const s = sessions[row.session];
  return s ? outlines.get(s.sid)?.rows[row.node] : undefined;
}

/** Keys of a row's ancestors inside its outline (to uncollapse them when revealing it). */
export function ancestorKeys(ol: Outline, i: number): string[] {
  const out: string[] = [];
  for (let p = ol.rows[i]?.parent ?? -1; p >= 0; p = ol.rows[p].parent) out.push(rowKeyOf(ol.rows[p]));
  return out;
}
