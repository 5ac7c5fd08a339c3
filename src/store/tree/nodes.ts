import type Database from 'better-sqlite3';
import { cachedStatement } from '../db/statements.js';
import { NODE_COLUMNS, NODE_FROM, type NodeRow, type TurnNode, toTurnNode } from '../model/rows.js';

/** Reading turns: one by id, Bates id or seq; a node's children; a session's turns; branch points. */

const SELECT = `SELECT ${NODE_COLUMNS} FROM ${NODE_FROM}`;
const BY_BATES = `${SELECT} WHERE n.bates = ?`;
const BY_ID = `${SELECT} WHERE n.id = ?`;
const BY_SEQ = `${SELECT} WHERE n.sid = ? AND n.seq = ?`;
const CHILDREN = `${SELECT} WHERE n.parent_id = ? ORDER BY n.sid, n.seq`;
const OF_SESSION = `${SELECT} WHERE n.sid = ? ORDER BY n.seq`;
const BY_CACHE_KEY = `${SELECT} WHERE n.cache_key = ? ORDER BY n.id`;
const BRANCH_POINTS = 'SELECT bates, n_children FROM nodes WHERE n_children >= 2 ORDER BY sid, seq';
const BRANCH_POINTS_OF = 'SELECT bates, n_children FROM nodes WHERE sid = ? AND n_children >= 2 ORDER BY seq';
const LATEST = 'SELECT bates FROM nodes WHERE sid = ? ORDER BY seq DESC LIMIT 1';

function one(db: Database.Database, sql: string, ...args: unknown[]): TurnNode | undefined {
  const r = cachedStatement(db, sql).get(...args) as NodeRow | undefined;
  return r ? toTurnNode(r) : undefined;
}

function all(db: Database.Database, sql: string, ...args: unknown[]): TurnNode[] {
  return (cachedStatement(db, sql).all(...args) as NodeRow[]).map(toTurnNode);
}

export function nodeByBates(db: Database.Database, bates: string): TurnNode | undefined {
  return one(db, BY_BATES, bates);
}

export function nodeById(db: Database.Database, id: number): TurnNode | undefined {
  return one(db, BY_ID, id);
}

export function nodeBySeq(db: Database.Database, sid: string, seq: number): TurnNode | undefined {
  return one(db, BY_SEQ, sid, seq);
}

/** A node's children, in any session, by (sid, seq). */
export function childrenOf(db: Database.Database, id: number): TurnNode[] {
  return all(db, CHILDREN, id);
}

/** A session's own turns by seq. */
export function sessionNodes(db: Database.Database, sid: string): TurnNode[] {
  return all(db, OF_SESSION, sid);
}

export function nodesByCacheKey(db: Database.Database, key: string): TurnNode[] {
  return all(db, BY_CACHE_KEY, key);
}

export interface BranchPoint {
  bates: string;
  n_children: number;
}

/** Turns with two or more children: of one session (sid), or of the whole shard. */
export function branchPoints(db: Database.Database, sid?: string): BranchPoint[] {
  if (sid === undefined) return cachedStatement(db, BRANCH_POINTS).all() as BranchPoint[];
  return cachedStatement(db, BRANCH_POINTS_OF).all(sid) as BranchPoint[];
}

/** The Bates id of a session's newest turn, if it has any. */
export function latestTurn(db: Database.Database, sid: string): string | undefined {
  return cachedStatement(db, LATEST, 'pluck').get(sid) as string | undefined;
}
