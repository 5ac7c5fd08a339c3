/**
 * A forked pi session and the session it came from. Pi starts a fork as a new file whose header names the old one
 * (`parentSession`, version 1 `branchedFrom`) and copies the old session's entries into it unchanged: the path up
 * to the fork point (`createBranchedSession`, `/fork`), or every entry (`forkFrom`, `--session` of another
 * project's session); version 1 copied the first lines (`createBranchedSessionFromEntries`). A copied prompt is
 * the parent's turn, not a new one: it is not imported again, and the fork's own first prompt hangs under it. The
 * parent file is read (read-only) to know which entries are copies: same id and same line. When it cannot be found
 * the fork's entries are all its own (nothing is lost; the history is then stored twice if the parent turns up).
 */
import { statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { readRegular } from '../files.js';
import { readJsonlSession } from '../pi-format/jsonl.js';
import type { Header, Problems } from '../pi-format/records.js';
import type { CopiedEntry, ForkSource } from '../pi-format/transcript.js';
import { nameFacts } from './paths.js';

/** Past this size a session file is refused (a problem, not read): it is parsed whole in memory. */
export const MAX_FILE_BYTES = 1024 * 1024 * 1024;
/** How many ancestors are followed (a fork of a fork of ...); further ones are left as they are. */
const MAX_DEPTH = 8;

/**
 * The parent file a header names, where it is now: the path as written (absolute; relative to the fork's folder
 * otherwise), else the same name beside the fork, else in its own project folder beside the fork's (a sessions
 * folder copied from another machine keeps its layout, not its absolute paths).
 */
export function findParent(file: string, named: string): string | null {
  const candidates = [
    isAbsolute(named) ? named : resolve(dirname(file), named),
    join(dirname(file), basename(named)),
    join(dirname(dirname(file)), basename(dirname(named)), basename(named)),
  ];
  for (const c of candidates) {
    try {
      if (statSync(c).isFile()) return c;
    } catch {
      // not there: the next place
    }
  }
  return null;
}

/** The link a header records to the session it was forked from, or undefined. */
export function parentOf(header: Header): string | undefined {
  return header.parentSession ?? header.branchedFrom;
}

/**
 * The fork facts of a session file whose header names a parent: the parent's session id and the entries it holds
 * (with the turn each prompt is stored under), read from the parent file and its own ancestors. Undefined when
 * there is no readable parent.
 */
export function lineageOf(
  file: string,
  header: Header,
  seen: Set<string> = new Set(),
): ForkSource | undefined {
  const named = parentOf(header);
  if (named === undefined) return undefined;
  if (seen.size >= MAX_DEPTH) {
    cycleSeen = true; // cut by depth: as partial as a cycle
    return undefined;
  }
  const parentFile = findParent(file, named);
  if (parentFile === null || seen.has(resolve(parentFile)) || resolve(parentFile) === resolve(file)) {
    if (parentFile !== null) cycleSeen = true;
    return undefined;
  }
  seen.add(resolve(file));
  // Forks of one parent are common (every /fork of a long session): its lineage is read once while it is unchanged.
  const key = parentKey(parentFile);
  const cached = key === undefined ? undefined : lineages.get(key);
  if (cached !== undefined) return cached.source;
  const outer = cycleSeen;
  cycleSeen = false;
  const source = readLineage(parentFile, seen);
  // A lineage cut short by a cycle depends on where the walk began: it is not kept.
  if (key !== undefined && !cycleSeen) remember(key, source);
  cycleSeen ||= outer;
  return source;
}

/** Lineages already read, by parent file and its size and time, the newest last (a few, of parents not too big). */
const lineages = new Map<string, { source: ForkSource | undefined }>();
const KEPT_LINEAGES = 4;
const MAX_KEPT_BYTES = 64 * 1024 * 1024;
/** Set when a walk up the ancestors stopped early: at a file already on its path, or at MAX_DEPTH. */
let cycleSeen = false;

function parentKey(parentFile: string): string | undefined {
  try {
    const st = statSync(parentFile);
    if (st.size > MAX_KEPT_BYTES) return undefined;
    return `${resolve(parentFile)}\0${st.size}\0${st.mtimeMs}\0${st.ino}`;
  } catch {
    return undefined;
  }
}

function remember(key: string, source: ForkSource | undefined): void {
  lineages.delete(key);
  lineages.set(key, { source });
  while (lineages.size > KEPT_LINEAGES) lineages.delete(lineages.keys().next().value as string);
}

/** Reads a parent file and its own ancestors into the fork facts of a session forked from it. */
function readLineage(parentFile: string, seen: Set<string>): ForkSource | undefined {
  let buf: Buffer;
  try {
    buf = readRegular(parentFile, MAX_FILE_BYTES).buf;
  } catch {
    return undefined;
  }
  const quiet: Problems = { file: parentFile, prefix: '', list: [] };
  let upstream: ForkSource | undefined;
  const read = readJsonlSession(buf, quiet, {
    tool: 'Pi',
    fallbackSessionId: fallbackSessionId(parentFile),
    growing: false,
    lineage: (h) => {
      upstream = lineageOf(parentFile, h, seen);
      return upstream;
    },
  });
  if (read === null) return undefined;
  const sid = read.out.session.sourceSession;
  const copies = new Map<string, CopiedEntry>();
  for (const r of read.records) {
    if (r.id === null || r.hole || copies.has(r.id)) continue;
    let turn: string | null = null;
    if (read.out.turnOf(r.id) === r.id) {
      const up = upstream?.copies?.get(r.id);
      turn = up?.turn && up.raw === r.raw ? up.turn : `${sid}/${r.id}`;
    }
    copies.set(r.id, { raw: r.raw, turn });
  }
  return { sessionId: sid, entryId: null, parentTurn: null, copies };
}

/** The session id a file without a header is read under: the id in pi's file name, else the name itself. */
export function fallbackSessionId(file: string): string {
  return nameFacts(file)?.sessionId ?? basename(file).replace(/\.jsonl$/, '');
}
