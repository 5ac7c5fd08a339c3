/**
 * OpenCode's records as both generations hold them, in one shape: a session's info, its messages in OpenCode's own
 * order (by id: ids are ascending and time-based) and each message's parts (by id). The storage generation reads
 * them from JSON files (storage.ts), the database generation from rows (db.ts); turns.ts and links.ts work on
 * this shape alone, so a session gives the same turns whichever generation it is read from.
 */
import type { ImportProblem } from '../model.js';

export type Json = Record<string, unknown>;

export interface OcPart {
  id: string;
  /** The part without id / sessionID / messageID (the database drops them; the files repeat them). */
  data: Json;
  /** Its record for `raw`: one line. */
  raw: string;
}

export interface OcMessage {
  id: string;
  data: Json;
  raw: string;
  /** Where problems about it point: a file's path (storage) or the database with the row's rowid. */
  file: string;
  line: number;
  parts: OcPart[];
}

export interface OcSession {
  id: string;
  info: Json;
  /** The session's own record (its file, or its row): travels with the session's first turn. */
  raw: string;
  file: string;
  line: number;
  messages: OcMessage[];
  problems: ImportProblem[];
}

/** A loader of sessions by id in the same store (storage folder or database): for parents and fork originals. */
export interface SessionSource {
  load(id: string): OcSession | undefined;
  /** Sessions an opened fork may have been copied from: the same store, created before `s`. */
  forkCandidates(s: OcSession): OcSession[];
}

export function isJson(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** `obj.a.b...` when every step is an object. */
export function dig(obj: unknown, ...keys: string[]): unknown {
  let v = obj;
  for (const k of keys) {
    if (!isJson(v)) return undefined;
    v = v[k];
  }
  return v;
}

/** OpenCode's times are epoch milliseconds (`Date.now()`); anything else is no time. */
export function msOf(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 && v < 8.64e15 ? v : null;
}

export function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}

export function role(m: OcMessage): string {
  return str(m.data.role);
}

export function createdOf(m: OcMessage): number | null {
  return msOf(dig(m.data, 'time', 'created'));
}

/** Code-unit order (OpenCode ids), the same on every machine. */
export function byId<T extends { id: string }>(a: T, b: T): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** `(fork #N)` ends the title OpenCode gives a fork (Session.fork, getForkedTitle). */
export const FORK_TITLE = /^(.+) \(fork #(\d+)\)$/;
