/**
 * The subagent transcripts that belong to a session file: the newer layout
 * `<dir>/<session>/subagents/agent-<id>.jsonl` with `agent-<id>.meta.json` beside each, and the older one,
 * `<dir>/agent-<id>.jsonl` beside the session, whose lines carry the session's sessionId.
 */
import { closeSync, readdirSync, readSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { openRegular, RefusedFile, readRegular } from '../files.js';
import type { ListingCache } from '../fingerprint.js';
import type { ImportProblem } from '../model.js';
import { isAgentFile } from './discover.js';

export interface AgentFile {
  path: string;
  /** From the file name `agent-<id>.jsonl`. */
  agentId: string;
  /** From `agent-<id>.meta.json`: the Task/Agent tool_use that launched it, when known. */
  toolUseId?: string;
  description?: string;
}

/** A meta file is a few hundred bytes; past this it is not read. */
const MAX_META_BYTES = 1024 * 1024;

function agentIdOf(name: string): string {
  return name.slice('agent-'.length, -'.jsonl'.length);
}

function readMeta(path: string, problems: ImportProblem[]): { toolUseId?: string; description?: string } {
  let text: string;
  try {
    text = readRegular(path, MAX_META_BYTES).buf.toString('utf8');
  } catch (e) {
    if (e instanceof RefusedFile)
      problems.push({ file: path, line: 0, reason: `subagent meta ${e.message}` });
    return {}; // no meta file: linked by agentId or time instead
  }
  try {
    const m = JSON.parse(text) as Record<string, unknown>;
    if (m === null || typeof m !== 'object' || Array.isArray(m)) throw new Error('not an object');
    return {
      toolUseId: typeof m.toolUseId === 'string' ? m.toolUseId : undefined,
      description: typeof m.description === 'string' ? m.description : undefined,
    };
  } catch {
    problems.push({ file: path, line: 0, reason: 'subagent meta is not a JSON object; ignored' });
    return {};
  }
}

/** sessionId of an older-layout agent file, by path, kept while the file's size and time stay the same. */
const headCache = new Map<string, { size: number; mtimeMs: number; sid: string | undefined }>();

const HEAD = 64 * 1024;

function headSessionId(path: string): string | undefined {
  let st: import('node:fs').Stats;
  try {
    st = statSync(path);
  } catch {
    return undefined;
  }
  const hit = headCache.get(path);
  if (hit && hit.size === st.size && hit.mtimeMs === st.mtimeMs) return hit.sid;
  let sid: string | undefined;
  try {
    const fd = openRegular(path).fd;
    try {
      const buf = Buffer.alloc(Math.min(HEAD, st.size));
      const n = readSync(fd, buf, 0, buf.length, 0);
      for (const line of buf.toString('utf8', 0, n).split('\n')) {
        try {
          const o = JSON.parse(line) as Record<string, unknown>;
          if (o && typeof o === 'object' && typeof o.sessionId === 'string') {
            sid = o.sessionId;
            break;
          }
        } catch {
          // a partial or broken line: look at the next
        }
      }
    } finally {
      closeSync(fd);
    }
  } catch {
    sid = undefined;
  }
  headCache.set(path, { size: st.size, mtimeMs: st.mtimeMs, sid });
  return sid;
}

function listAgents(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => isAgentFile(n))
      .sort();
  } catch {
    return [];
  }
}

/** The subagent files of `sessionFile` (whose own session is `sessionId`), in name order. */
export function findAgentFiles(
  sessionFile: string,
  sessionId: string | undefined,
  problems: ImportProblem[],
): AgentFile[] {
  const out: AgentFile[] = [];
  const dir = dirname(sessionFile);
  const stem = basename(sessionFile).replace(/\.jsonl$/, '');
  const subDir = join(dir, stem, 'subagents');
  for (const name of listAgents(subDir)) {
    const id = agentIdOf(name);
    const meta = readMeta(join(subDir, `agent-${id}.meta.json`), problems);
    out.push({ path: join(subDir, name), agentId: id, ...meta });
  }
  if (sessionId !== undefined) {
    for (const name of listAgents(dir)) {
      const p = join(dir, name);
      if (p !== sessionFile && headSessionId(p) === sessionId)
        out.push({ path: p, agentId: agentIdOf(name) });
    }
  }
  return out;
}

/**
 * Every file findAgentFiles could read for `sessionFile`, for its fingerprint: the newer layout's agent files and
 * their meta files, and every older-layout agent file beside it whatever its session (telling which are its own
 * would mean reading them: a change to one beside it reads the sessions of that folder again, which is safe).
 */
export function agentInputs(sessionFile: string, listings: ListingCache): string[] {
  const dir = dirname(sessionFile);
  const subDir = join(dir, basename(sessionFile).replace(/\.jsonl$/, ''), 'subagents');
  const out: string[] = [];
  for (const name of listAgents(subDir))
    out.push(join(subDir, name), join(subDir, `agent-${agentIdOf(name)}.meta.json`));
  for (const name of listings.list(dir, listAgents)) {
    const p = join(dir, name);
    if (p !== sessionFile) out.push(p);
  }
  return out;
}
