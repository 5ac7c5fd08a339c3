/**
 * OpenClaw's session entries (a `sessions.json` value, or `session_nodes.entry_json` in the SQLite generation) as
 * ParsedEntry: the key, the current session, the compaction checkpoints and the usage family. `sessionFile` is
 * ignored (an absolute path, often another machine's): transcripts are found by session id.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readRegular } from '../files.js';
import {
  emptySource,
  type ParsedCheckpoint,
  type ParsedCheckpointRef,
  type ParsedEntry,
  type ParsedSource,
} from '../model.js';
import { sessionFromJsonl } from '../pi-format/jsonl.js';
import { type Json, type Problems, problem } from '../pi-format/records.js';
import { isoOf } from '../times.js';
import { MAX_FILE_BYTES } from './files.js';
import { classify } from './paths.js';

/** The session keys arborist accepts as entry keys. */
export const KEY_RE = /^[A-Za-z0-9][A-Za-z0-9._:@/+-]{0,127}$/;

/** Maps an entry id of a session to the sourceId of the turn that holds it, when that can be known. */
export type TurnResolver = (sessionId: string, entryId: string) => string | null;

function obj(v: unknown): Json | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

function ref(v: unknown, fallbackSession: string, resolve: TurnResolver): ParsedCheckpointRef | null {
  const o = obj(v);
  const sessionId = str(o?.sessionId) ?? fallbackSession;
  if (!sessionId) return null;
  const out: ParsedCheckpointRef = { sourceSession: sessionId };
  const at = str(o?.leafId) ?? str(o?.entryId);
  if (at) {
    const turn = resolve(sessionId, at);
    if (turn) out.turnSourceId = turn;
  }
  return out;
}

/** One session entry value into a ParsedEntry, or null (reported) when it cannot be one. */
export function entryFromValue(
  key: string,
  value: unknown,
  lineOf: () => number,
  p: Problems,
  resolve: TurnResolver,
): ParsedEntry | null {
  if (!KEY_RE.test(key)) {
    problem(p, lineOf(), `session key ${JSON.stringify(key.slice(0, 80))} is not an accepted key; skipped`);
    return null;
  }
  const e = obj(value);
  const sessionId = str(e?.sessionId);
  if (!e || !sessionId) {
    problem(p, lineOf(), `session key ${key} has no sessionId; skipped`);
    return null;
  }
  const checkpoints: ParsedCheckpoint[] = [];
  const raw = e.compactionCheckpoints;
  if (Array.isArray(raw)) {
    for (const c of raw) {
      const cp = obj(c);
      const id = str(cp?.checkpointId);
      if (!cp || !id) {
        problem(p, lineOf(), `session key ${key}: a compaction checkpoint without a checkpointId; skipped`);
        continue;
      }
      const own = str(cp.sessionId) ?? sessionId;
      const pre = ref(cp.preCompaction, own, resolve);
      const post = ref(cp.postCompaction, own, resolve);
      if (!pre || !post) continue;
      const out: ParsedCheckpoint = {
        checkpointId: id,
        reason: str(cp.reason) ?? 'unknown',
        createdAt: isoOf(cp.createdAt) ?? new Date(0).toISOString(),
        preCompaction: pre,
        postCompaction: post,
      };
      if (typeof cp.summary === 'string' && cp.summary !== '') out.summary = cp.summary;
      checkpoints.push(out);
    }
  } else if (raw !== undefined)
    problem(p, lineOf(), `session key ${key}: compactionCheckpoints is not a list; ignored`);
  const family = Array.isArray(e.usageFamilySessionIds)
    ? e.usageFamilySessionIds.filter((x): x is string => typeof x === 'string' && x !== '')
    : [];
  return { key, sourceSession: sessionId, compactionCheckpoints: checkpoints, usageFamilySessions: family };
}

/** The 1-based line where a key of a JSON object is written (only asked for keys that are reported). */
function lineOfKey(text: string, key: string): number {
  const at = text.indexOf(JSON.stringify(key));
  if (at < 0) return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** A resolver over the transcripts beside sessions.json, each parsed at most once per read. */
function folderResolver(dir: string): TurnResolver {
  let byId: Map<string, string[]> | null = null;
  const cache = new Map<string, ((entryId: string) => string | null)[]>();
  return (sessionId, entryId) => {
    if (!byId) {
      byId = new Map();
      let names: string[] = [];
      try {
        names = readdirSync(dir).sort();
      } catch {
        names = [];
      }
      for (const name of names) {
        const k = classify(join(dir, name));
        if (k.kind !== 'transcript' && k.kind !== 'archive') continue;
        const l = byId.get(k.sessionId) ?? [];
        l.push(join(dir, name));
        byId.set(k.sessionId, l);
      }
    }
    let lookups = cache.get(sessionId);
    if (!lookups) {
      lookups = [];
      for (const f of byId.get(sessionId) ?? []) {
        try {
          const quiet: Problems = { file: f, prefix: '', list: [] };
          const out = sessionFromJsonl(readRegular(f, MAX_FILE_BYTES).buf, quiet, {
            tool: 'OpenClaw',
            fallbackSessionId: sessionId,
            growing: false,
          });
          if (out && out.session.sourceSession === sessionId) lookups.push(out.turnOf);
        } catch {
          // An unreadable transcript resolves nothing; its own unit reports it.
        }
      }
      cache.set(sessionId, lookups);
    }
    for (const turnOf of lookups) {
      const prompt = turnOf(entryId);
      if (prompt) return `${sessionId}/${prompt}`;
    }
    return null;
  };
}

export function readStoreFile(file: string): ParsedSource {
  const p: Problems = { file, prefix: '', list: [] };
  const src: ParsedSource = emptySource('openclaw', file, p.list);
  const text = readRegular(file, MAX_FILE_BYTES).buf.toString('utf8');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    const msg = e instanceof Error ? e.message.split('\n')[0] : 'bad JSON';
    const pos = /position (\d+)/.exec(msg);
    const line = pos ? text.slice(0, Number(pos[1])).split('\n').length : 0;
    problem(p, line, `sessions.json is not JSON (${msg})`);
    return src;
  }
  const root = obj(doc);
  if (!root) {
    problem(p, 1, 'sessions.json is not a JSON object of session keys');
    return src;
  }
  const resolve = folderResolver(dirname(file));
  for (const [key, value] of Object.entries(root)) {
    const entry = entryFromValue(key, value, () => lineOfKey(text, key), p, resolve);
    if (entry) src.entries.push(entry);
  }
  return src;
}
