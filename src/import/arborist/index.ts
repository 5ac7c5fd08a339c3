import { statSync } from 'node:fs';
import { ArboristError } from '../../store/index.js';
import { RefusedFile, readRegular } from '../files.js';
import {
  emptySource,
  type ImportProblem,
  type ParsedSource,
  type ParsedTurn,
  type SourceReader,
} from '../model.js';
import { rootMatches, type SubtreeFault, subtreeFaults } from './attest.js';
import {
  type CheckedTurn,
  checkHead,
  checkOutside,
  checkSessions,
  checkTurn,
  type DocProblem,
  type DocSession,
  type RejectedTurn,
} from './document.js';
import { toParsedSession, toParsedTurn } from './parsed.js';

/**
 * The reader of arborist's own exports (`arborist export --format json`, docs/export.md): one ParsedSource per
 * session of the document, every turn with the fields an exact re-import needs (`exact`: the same Bates ids, and
 * hashes the writer can check). Every turn's node_hash is recomputed here; a turn whose content does not hash to it
 * is reported and skipped. Pure: it reads one file and returns data.
 */

/** Past this size a document is refused: JSON.parse would need several times as much memory. */
const MAX_BYTES = 512 * 1024 * 1024;
/** Problems reported per document; past this they are counted in one last problem. */
const MAX_PROBLEMS = 1000;

function decode(buf: Buffer, problems: DocProblem[]): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    problems.push({
      path: '$',
      reason:
        'not valid UTF-8 (read with U+FFFD in place of bad bytes; the turns they touch fail their hash)',
    });
    return new TextDecoder('utf-8').decode(buf);
  }
}

/** Walks up from `start` through rejected turns to the nearest turn that survives (or one not in the document). */
function nearestSurvivor(
  start: string,
  kept: ReadonlyMap<string, CheckedTurn>,
  rejected: ReadonlyMap<string, RejectedTurn>,
): string | null {
  const seen = new Set<string>();
  let cur: string | null | undefined = start;
  while (typeof cur === 'string' && !kept.has(cur)) {
    const r = rejected.get(cur);
    if (!r) return cur; // not in the document: the writer resolves it (a subtree's parent, an earlier import)
    if (seen.has(cur)) return null; // rejected turns in a cycle: bounded
    seen.add(cur);
    cur = r.parent_bates;
  }
  return typeof cur === 'string' ? cur : null;
}

/**
 * The turns whose parents lead back to themselves (a cycle among the document's turns: each turn's hash covers
 * its parent's Bates id, so a forger can make one with valid hashes). Each turn is walked once: O(turns).
 */
function cycles(kept: ReadonlyMap<string, CheckedTurn>): Set<string> {
  const done = new Set<string>();
  const out = new Set<string>();
  for (const start of kept.keys()) {
    if (done.has(start)) continue;
    const path: string[] = [];
    const onPath = new Map<string, number>();
    let cur: string | null = start;
    while (cur !== null && kept.has(cur) && !done.has(cur)) {
      const at = onPath.get(cur);
      if (at !== undefined) {
        for (const b of path.slice(at)) out.add(b);
        break;
      }
      onPath.set(cur, path.length);
      path.push(cur);
      cur = kept.get(cur)!.turn.parent_bates;
    }
    for (const b of path) done.add(b);
  }
  return out;
}

/** A turn refused after its own checks passed: all of it is known. */
function rejectedFrom(c: CheckedTurn): RejectedTurn {
  const t = c.turn;
  return {
    index: c.index,
    bates: t.bates,
    parent_bates: t.parent_bates,
    sid: t.sid,
    seq: t.seq,
    subtree_hash: t.subtree_hash,
  };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const SUBTREE_REASONS: Record<SubtreeFault, string> = {
  mismatch:
    "subtree_hash does not match its node_hash and its children's subtree hashes (edited after export, or damaged); skipped",
  unattested: 'a child too malformed to check leaves this subtree_hash unattested; skipped',
};

/** A few Bates ids and a count, never a line of thousands. */
function named(ids: readonly string[]): string {
  return ids.length > 5 ? `${ids.slice(0, 5).join(', ')} and ${ids.length - 5} more` : ids.join(', ');
}

/**
 * The hashes above the node hashes: a forger who edits a turn and recomputes its node_hash leaves the subtree hashes
 * and the root the exporting shard attested. Each is checked wherever the document can be (attest.ts), and the
 * turns a mismatch concerns, or that cannot be checked, move from kept to rejected. False when the document gives
 * no way to check the subtree hashes at all (no `outside_children`, and not a subtree export): then no turn of it
 * is attested, and the caller imports them all anew.
 */
function refuseUnattested(
  doc: Record<string, unknown>,
  sessions: readonly DocSession[],
  kept: Map<string, CheckedTurn>,
  rejected: Map<string, RejectedTurn>,
  problems: DocProblem[],
): boolean {
  const refuse = (c: CheckedTurn) => {
    kept.delete(c.turn.bates);
    rejected.set(c.turn.bates, rejectedFrom(c));
  };
  const selection = isObject(doc.selection) ? doc.selection : {};
  const outside = checkOutside(doc, problems);
  // A subtree export holds everything under its top turn: with no list, nothing is outside it.
  if (outside === null && selection.kind !== 'subtree') {
    if (kept.size > 0)
      problems.push({
        path: '$.outside_children',
        reason:
          'missing: subtree hashes not checked (an export from before it was written, or a list removed); turns imported anew, not as exact',
      });
    return false;
  }
  const bad = subtreeFaults(kept, rejected, outside ?? []);
  for (const { turn: c, fault } of bad)
    problems.push({
      path: `$.turns[${c.index}] (${c.turn.bates})`,
      reason: SUBTREE_REASONS[fault],
      sid: c.turn.sid,
    });
  // After the whole pass: each turn is checked against its children's hashes as declared.
  for (const { turn } of bad) refuse(turn);
  // A session export holds its session whole: its root is checked too, and a root that does not match, or that
  // cannot be recomputed, refuses all its turns (nothing above them would attest them otherwise).
  const whole = selection.kind === 'session' ? sessions.find((s) => s.sid === selection.id) : undefined;
  if (!whole) return true;
  const matches = rootMatches(whole, kept, rejected);
  if (matches === true) return true;
  const own = [...kept.values()].filter((c) => c.turn.sid === whole.sid);
  const tops = own
    .filter((c) => c.turn.parent_bates === null || !c.turn.parent_bates.startsWith(`${whole.sid}-`))
    .map((c) => c.turn.bates);
  problems.push({
    path: `$.sessions (${whole.sid})`,
    reason:
      matches === false
        ? `session_root does not match the subtree hashes of its top turns (${named(tops)}) (edited after export, or damaged); its ${own.length} turns skipped`
        : `session_root cannot be recomputed (a turn of the session too malformed to place), so nothing attests its turns; its ${own.length} turns skipped`,
    sid: whole.sid,
  });
  own.forEach(refuse);
  return true;
}

/**
 * Whether each kept turn can be imported exactly, and for one that cannot, the turn at the top of its run (the one
 * whose parent was skipped). Its node hash covers its parent's Bates id: under a parent that was skipped, or that
 * is itself imported anew (under a new id), a turn can only be imported anew, and so can everything below it.
 */
function exactness(
  kept: ReadonlyMap<string, CheckedTurn>,
  rejected: ReadonlyMap<string, RejectedTurn>,
  attested: boolean,
): Map<string, { exact: boolean; top?: string }> {
  const out = new Map<string, { exact: boolean; top?: string }>();
  for (const start of kept.keys()) {
    const chain: string[] = [];
    let cur = start;
    let found: { exact: boolean; top?: string };
    // Upwards through kept parents (no cycle is left among them) to a known answer, a root or a skipped parent.
    for (;;) {
      const known = out.get(cur);
      if (known) {
        found = known;
        break;
      }
      chain.push(cur);
      const p = kept.get(cur)!.turn.parent_bates;
      if (!attested) found = { exact: false };
      else if (p !== null && rejected.has(p)) found = { exact: false, top: cur };
      else if (p !== null && kept.has(p)) {
        cur = p;
        continue;
      } else found = { exact: true };
      break;
    }
    for (const b of chain) out.set(b, found);
  }
  return out;
}

/** Reads a whole document: every session, its turns with their parents resolved, and each problem. */
export function readDocument(
  text: string,
  problems: DocProblem[] = [],
): {
  sessions: DocSession[];
  turns: Map<string, ParsedTurn[]>;
  problems: DocProblem[];
} {
  const turns = new Map<string, ParsedTurn[]>();
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    problems.push({ path: '$', reason: `not JSON (${(err as Error).message.split('\n')[0].slice(0, 120)})` });
    return { sessions: [], turns, problems };
  }
  if (!checkHead(doc, problems)) return { sessions: [], turns, problems };
  const sessions = checkSessions(doc.sessions as unknown[], problems);
  for (const s of sessions) turns.set(s.sid, []);
  const sids = new Set(sessions.map((s) => s.sid));

  const kept = new Map<string, CheckedTurn>();
  const rejected = new Map<string, RejectedTurn>();
  const firstAt = new Map<string, number>();
  (doc.turns as unknown[]).forEach((v, i) => {
    const r = checkTurn(v, i, sids, problems);
    const bates = 'turn' in r ? r.turn.bates : r.bates;
    if (bates !== undefined && firstAt.has(bates)) {
      problems.push({
        path: `$.turns[${i}]`,
        reason: `${bates} appears twice (first at $.turns[${firstAt.get(bates)}]); skipped`,
        sid: 'turn' in r ? r.turn.sid : undefined,
      });
      return;
    }
    if (bates === undefined) return;
    firstAt.set(bates, i);
    if ('turn' in r) kept.set(bates, r);
    else rejected.set(bates, r);
  });

  const inCycle = cycles(kept);
  for (const [b, c] of kept) {
    if (!inCycle.has(b)) continue;
    problems.push({
      path: `$.turns[${c.index}] (${b})`,
      reason: 'its parents lead back to itself (a parent cycle); skipped',
      sid: c.turn.sid,
    });
    kept.delete(b);
    rejected.set(b, rejectedFrom(c));
  }

  const attested = refuseUnattested(doc, sessions, kept, rejected, problems);
  const exact = exactness(kept, rejected, attested);
  const below = new Map<string, number>();
  for (const [b, e] of exact)
    if (e.top !== undefined && e.top !== b) below.set(e.top, (below.get(e.top) ?? 0) + 1);

  for (const c of kept.values()) {
    const p = c.turn.parent_bates;
    let parent = p;
    if (p !== null && rejected.has(p)) {
      parent = nearestSurvivor(p, kept, rejected);
      const n = below.get(c.turn.bates) ?? 0;
      const under = n === 0 ? '' : ` (with the ${n === 1 ? '1 turn' : `${n} turns`} under it)`;
      problems.push({
        path: `$.turns[${c.index}] (${c.turn.bates})`,
        reason: `its parent ${p} was skipped; imported anew ${parent === null ? 'as a root' : `under ${parent}`}${under}`,
        sid: c.turn.sid,
      });
    }
    turns.get(c.turn.sid)!.push(toParsedTurn(c, parent, exact.get(c.turn.bates)!.exact));
  }
  return { sessions, turns, problems };
}

function toImportProblems(file: string, list: readonly DocProblem[]): ImportProblem[] {
  return list.map((p) => ({ file, line: 0, reason: `${p.path}: ${p.reason}` }));
}

function* read(file: string): Iterable<ParsedSource> {
  let buf: Buffer;
  try {
    buf = readRegular(file, MAX_BYTES).buf;
  } catch (err) {
    // Not a regular file (a FIFO would hang, /dev/zero never ends) or over the cap: one problem, nothing read.
    if (err instanceof RefusedFile) {
      yield emptySource('arborist', file, [{ file, line: 0, reason: err.message }]);
      return;
    }
    throw new Error(`cannot read ${file} (${(err as { code?: string }).code ?? String(err)})`);
  }
  const problems: DocProblem[] = [];
  const text = decode(buf, problems);
  const doc = readDocument(text, problems);
  // Problems go with the session they concern; the document's own (and those of unknown sessions) with the first.
  const bySid = new Map<string, DocProblem[]>();
  const general: DocProblem[] = [];
  const all = doc.problems;
  if (all.length > MAX_PROBLEMS) {
    const more = all.length - MAX_PROBLEMS;
    all.length = MAX_PROBLEMS;
    all.push({ path: '$', reason: `${more} more problems not listed` });
  }
  for (const p of all) {
    if (p.sid !== undefined && doc.turns.has(p.sid)) {
      const l = bySid.get(p.sid);
      if (l) l.push(p);
      else bySid.set(p.sid, [p]);
    } else general.push(p);
  }
  if (doc.sessions.length === 0) {
    yield emptySource('arborist', file, toImportProblems(file, general));
    return;
  }
  for (const [i, s] of doc.sessions.entries()) {
    const own = bySid.get(s.sid) ?? [];
    yield {
      kind: 'arborist',
      file,
      sessions: [toParsedSession(s, true)],
      turns: (doc.turns.get(s.sid) ?? []).filter((t) => t.exact),
      entries: [],
      problems: toImportProblems(file, i === 0 ? [...general, ...own] : own),
    };
  }
  // Turns imported anew go into a session of their own (the writer maps it to this source session), never the
  // exporting shard's sid: there a new seq could take a Bates id the exporting shard gave another turn. After
  // every exact unit, so that a parent they hang under is already written.
  for (const s of doc.sessions) {
    const anew = (doc.turns.get(s.sid) ?? []).filter((t) => !t.exact);
    if (anew.length > 0)
      yield {
        kind: 'arborist',
        file,
        sessions: [toParsedSession(s, false)],
        turns: anew,
        entries: [],
        problems: [],
      };
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // not there: the caller says so
  }
}

export const arboristReader: SourceReader = {
  kind: 'arborist',
  // Exports live wherever they were written: there is no default place to look.
  defaultPaths: () => [],
  // An export is one file: a folder would be read as one and reported as a lost record (EISDIR).
  discover: (path) => {
    if (isFolder(path))
      throw new ArboristError(
        'input',
        `${path} is a folder; import arborist takes a file written by arborist export --format json`,
      );
    return [path];
  },
  read,
};
