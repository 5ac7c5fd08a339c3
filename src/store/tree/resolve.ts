import type Database from 'better-sqlite3';
import { type ArboristError, badInput, damaged, notFound } from '../base/errors.js';
import { formatBates, parseBates } from '../model/ids.js';
import type { Session, TurnNode } from '../model/rows.js';
import { nodeBySeq } from './nodes.js';

/** What the ids people type stand for: a turn, a session, a turn's path to the root, where `/cd x` lands. */

export type Resolved = { kind: 'node'; node: TurnNode } | { kind: 'session'; session: Session };

/** Where a move lands (Shard.resolveTurn): a turn, or the top of a session (no turn: a question there is a new root). */
export interface TurnTarget {
  bates: string | null;
  sid: string;
}

/** What resolving needs of the shard (an interface, so that this file does not import shard.ts). */
export interface ResolveContext {
  readonly db: Database.Database;
  requireNode(bates: string): TurnNode;
  getNode(bates: string): TurnNode | undefined;
  resolveSession(x: string): Session;
  latestTurn(sid: string): string | undefined;
}

export function parentCycle(bates: string): ArboristError {
  return damaged(
    `turn ${bates} is its own ancestor: a parent cycle made behind the store's back (see arborist verify)`,
  );
}

/** The nodes from the root of the tree down to `bates`, crossing sessions. */
export function pathTo(ctx: ResolveContext, bates: string): TurnNode[] {
  const out: TurnNode[] = [];
  const seen = new Set<string>();
  let cur: TurnNode | undefined = ctx.requireNode(bates);
  while (cur) {
    // Bounded: a parent cycle (made behind the store's back; the store cannot make one) is damage, not a loop.
    if (seen.has(cur.bates)) throw parentCycle(cur.bates);
    seen.add(cur.bates);
    out.push(cur);
    cur = cur.parent_bates ? ctx.getNode(cur.parent_bates) : undefined;
  }
  return out.reverse();
}

/** A Bates id, a bare seq (in `currentSid`), a sid, or a label. */
export function resolve(ctx: ResolveContext, x: string, currentSid?: string): Resolved {
  const s = x.trim();
  if (s === '') throw badInput('empty id');
  if (parseBates(s)) return { kind: 'node', node: ctx.requireNode(s) };
  if (/^\d+$/.test(s)) {
    if (!currentSid) throw badInput(`a bare turn number (${s}) needs a current session`);
    const node = nodeBySeq(ctx.db, currentSid, Number(s));
    if (!node) throw notFound(`no turn ${formatBates(currentSid, Number(s))}`);
    return { kind: 'node', node };
  }
  return { kind: 'session', session: ctx.resolveSession(s) };
}

/**
 * Where `/cd x` goes from turn `at.bates` in session `at.sid`: what resolve() names, a session standing for its
 * newest turn (its top when it has none), and `..` for the parent of `at.bates` (across sessions; the top of the
 * session from a root turn).
 */
export function resolveTurn(
  ctx: ResolveContext,
  x: string,
  at: { sid?: string | null; bates?: string | null } = {},
): TurnTarget {
  if (x.trim() === '..') {
    if (!at.bates) throw badInput('.. needs a current turn');
    const n = ctx.requireNode(at.bates);
    if (n.parent_bates === null) return { bates: null, sid: n.sid };
    const p = ctx.requireNode(n.parent_bates);
    return { bates: p.bates, sid: p.sid };
  }
  const r = resolve(ctx, x, at.sid ?? undefined);
  if (r.kind === 'node') return { bates: r.node.bates, sid: r.node.sid };
  return { bates: ctx.latestTurn(r.session.sid) ?? null, sid: r.session.sid };
}
