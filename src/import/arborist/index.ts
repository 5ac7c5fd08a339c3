import { RefusedFile, readRegular } from '../files.js';
import type { ImportProblem, ParsedSession, ParsedSource, ParsedTurn, SourceReader } from '../model.js';
import {
  type CheckedTurn,
  checkHead,
  checkOutside,
  checkSessions,
  checkTurn,
  type DocProblem,
  type DocSession,
  type RejectedTurn,
  rootMatches,
  subtreeMismatches,
} from './document.js';

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

function toParsedTurn(c: CheckedTurn, parent: string | null, exact: boolean): ParsedTurn {
  const t = c.turn;
  const out: ParsedTurn = {
    sourceId: t.bates,
    parentSourceId: parent,
    sourceSession: t.sid,
    question: t.question,
    answer: t.answer_text,
    createdAt: t.created_at,
    // The records the exporting shard kept (an imported turn's original lines). An exact copy of a turn that had
    // none has none here either; a turn that had to change keeps the exported object as its record.
    raw: t.source_records ?? (exact ? [] : [c.raw]),
    line: c.index + 1,
    complete: true,
  };
  if (exact) {
    out.exact = {
      bates: t.bates,
      audit: t.audit,
      cache_key: t.cache_key,
      cited_titles: t.cited_titles,
      n_cited_sources: t.n_cited_sources,
      source: t.source,
      source_id: t.source_id,
      node_hash: t.node_hash,
    };
  }
  return out;
}

function toParsedSession(s: DocSession): ParsedSession {
  const out: ParsedSession = {
    sourceSession: s.sid,
    createdAt: s.created_at,
    exact: { sid: s.sid, label: s.label, session_root: s.session_root },
  };
  if (s.label !== null) out.title = s.label;
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

/**
 * The hashes above the node hashes: a forger who edits a turn and recomputes its node_hash leaves the subtree hashes
 * and the root the exporting shard attested. Each is checked wherever the document can be (document.ts), and the
 * turns a mismatch concerns move from kept to rejected.
 */
function refuseUnattested(
  doc: Record<string, unknown>,
  sessions: readonly DocSession[],
  kept: Map<string, CheckedTurn>,
  rejected: Map<string, RejectedTurn>,
  problems: DocProblem[],
): void {
  const refuse = (c: CheckedTurn) => {
    kept.delete(c.turn.bates);
    rejected.set(c.turn.bates, rejectedFrom(c));
  };
  const selection = isObject(doc.selection) ? doc.selection : {};
  const bad = subtreeMismatches(kept, rejected, checkOutside(doc, problems), selection.kind === 'subtree');
  for (const c of bad) {
    problems.push({
      path: `$.turns[${c.index}] (${c.turn.bates})`,
      reason:
        "subtree_hash does not match its node_hash and its children's subtree hashes (edited after export, or damaged); skipped",
      sid: c.turn.sid,
    });
  }
  bad.forEach(refuse); // after the whole pass: each turn is checked against its children's hashes as declared
  // A session export holds its session whole: its root is checked too, and a mismatch refuses all its turns.
  const whole = selection.kind === 'session' ? sessions.find((s) => s.sid === selection.id) : undefined;
  if (!whole || rootMatches(whole, kept, rejected) !== false) return;
  const own = [...kept.values()].filter((c) => c.turn.sid === whole.sid);
  const tops = own
    .filter((c) => c.turn.parent_bates === null || !c.turn.parent_bates.startsWith(`${whole.sid}-`))
    .map((c) => c.turn.bates);
  // Named, but never a line of thousands: the first few and a count.
  const named =
    tops.length > 5 ? `${tops.slice(0, 5).join(', ')} and ${tops.length - 5} more` : tops.join(', ');
  problems.push({
    path: `$.sessions (${whole.sid})`,
    reason: `session_root does not match the subtree hashes of its top turns (${named}) (edited after export, or damaged); its ${own.length} turns skipped`,
    sid: whole.sid,
  });
  own.forEach(refuse);
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

  refuseUnattested(doc, sessions, kept, rejected, problems);

  for (const c of kept.values()) {
    const p = c.turn.parent_bates;
    let parent = p;
    let exact = true;
    if (p !== null && !kept.has(p) && rejected.has(p)) {
      parent = nearestSurvivor(p, kept, rejected);
      // Its hash covers the parent it had: under another one it can only be imported anew, not exactly.
      exact = false;
      problems.push({
        path: `$.turns[${c.index}] (${c.turn.bates})`,
        reason: `its parent ${p} was skipped; ${parent === null ? 'imported as a root' : `attached to ${parent}`}`,
        sid: c.turn.sid,
      });
    }
    turns.get(c.turn.sid)!.push(toParsedTurn(c, parent, exact));
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
      yield {
        kind: 'arborist',
        file,
        sessions: [],
        turns: [],
        entries: [],
        problems: [{ file, line: 0, reason: err.message }],
      };
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
    yield {
      kind: 'arborist',
      file,
      sessions: [],
      turns: [],
      entries: [],
      problems: toImportProblems(file, general),
    };
    return;
  }
  for (const [i, s] of doc.sessions.entries()) {
    const own = bySid.get(s.sid) ?? [];
    yield {
      kind: 'arborist',
      file,
      sessions: [toParsedSession(s)],
      turns: doc.turns.get(s.sid) ?? [],
      entries: [],
      problems: toImportProblems(file, i === 0 ? [...general, ...own] : own),
    };
  }
}

export const arboristReader: SourceReader = {
  kind: 'arborist',
  // Exports live wherever they were written: there is no default place to look.
  defaultPaths: () => [],
  discover: (path) => [path],
  read,
};
