/**
 * Thread names: Codex appends `{id, thread_name, updated_at}` to `<CODEX_HOME>/session_index.jsonl` when a thread
 * is named, and the newest line for an id wins (openai/codex codex-rs/rollout/src/session_index.rs). Read once per
 * home and kept while the file's size and time stay the same; a missing or unreadable index gives no titles.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { readRegular } from '../files.js';

const INDEX = 'session_index.jsonl';
const MAX_INDEX_BYTES = 64 * 1024 * 1024;

const cache = new Map<string, { stamp: string; names: Map<string, string> }>();

function load(path: string): Map<string, string> {
  const names = new Map<string, string>();
  let text: string;
  try {
    text = readRegular(path, MAX_INDEX_BYTES).buf.toString('utf8');
  } catch {
    return names;
  }
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const o = JSON.parse(line) as { id?: unknown; thread_name?: unknown };
      if (typeof o.id !== 'string' || typeof o.thread_name !== 'string') continue;
      const name = o.thread_name.trim();
      if (name !== '') names.set(o.id, name);
    } catch {
      // a torn line: Codex skips it too
    }
  }
  return names;
}

/** The thread names' index of a Codex home. */
export function indexOf(home: string): string {
  return join(home, INDEX);
}

/** The name Codex shows for a thread, when its home's index has one. */
export function threadName(home: string | undefined, id: string): string | undefined {
  if (home === undefined) return undefined;
  const path = indexOf(home);
  let stamp: string;
  try {
    const st = statSync(path);
    stamp = `${st.size}:${st.mtimeMs}`;
  } catch {
    return undefined;
  }
  let hit = cache.get(path);
  if (hit === undefined || hit.stamp !== stamp) {
    hit = { stamp, names: load(path) };
    cache.set(path, hit);
  }
  return hit.names.get(id);
}
