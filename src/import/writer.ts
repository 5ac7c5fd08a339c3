import { ArboristError, archiveImported, type BulkTurn, parseBates, type Shard } from '../store/index.js';
import { writeEntry } from './entries.js';
import {
  appendListed,
  type ImportProblem,
  type ParsedSession,
  type ParsedSource,
  type ParsedTurn,
  type SourceKind,
} from './model.js';
import { parentsFirst } from './order.js';

/**
 * The one writer of imports (docs/import.md, "How a file is imported"). For each unit a reader yields: drop the
 * turns already in the shard (a turn's source and source id are unique), resolve every parent (in the unit, or
 * imported before from any file), order parents first, map each source session to its arborist session (created
 * on first sight), and write it all in ONE transaction through the bulk path, closed by one `import.file` event
 * with the counts. Then the source's archives go to the archive tier and its entries become session entries.
 */

export interface WriteOptions {
  /** `import --follow`: a turn the reader marks incomplete waits for its next reading. */
  waitForIncomplete?: boolean;
  /** A turn whose file ends in the middle of its record (`cut`) waits for the rest of it. */
  waitForCut?: boolean;
}

export interface UnitSummary {
  file: string;
  sessions: number;
  turns_added: number;
  turns_skipped: number;
  turns_waiting: number;
  /**
   * Turns not written for a reason a problem gives (an exact turn whose parent is in neither the file nor the
   * shard, and the turns under it): never counted as already there.
   */
  turns_refused: number;
  archived: number;
  /** Sessions brought back from the archive tier because an entry's usage family names them. */
  restored: number;
  entries: number;
  problems: ImportProblem[];
  /** Bates ids of the turns added, in order. */
  added: string[];
  /**
   * Nothing of the unit is left to import, whatever the shard comes to hold: every turn is in the shard (live),
   * none waits, none was refused or held back for an archived session, and nothing was reported. Only then may
   * its file be passed over until it changes (run.ts, importFile).
   */
  settled: boolean;
  /** The file was passed over: its fingerprint is the one recorded when it was last read whole and settled. */
  unchanged?: boolean;
}

const AUDIT_TAG = 'imported';

/** The shard itself failing (locked, full, read-only, damaged) stops an import; anything about a file's content does not. */
export function stopsImport(err: unknown): boolean {
  return err instanceof ArboristError && (err.kind === 'shard' || err.kind === 'busy');
}

export function emptyUnitSummary(file: string): UnitSummary {
  return {
    file,
    sessions: 0,
    turns_added: 0,
    turns_skipped: 0,
    turns_waiting: 0,
    turns_refused: 0,
    archived: 0,
    restored: 0,
    entries: 0,
    problems: [],
    added: [],
    settled: false,
  };
}

/** The store's answer must be text; a note the reader gave goes on the first line. */
function answerOf(t: ParsedTurn): string {
  if (!t.note || t.answer.startsWith(`[${t.note}]`)) return t.answer;
  return `[${t.note}]\n\n${t.answer}`;
}

/**
 * The arborist session each source session goes into, decided once per source session: the one it was imported
 * into before, the exporting shard's own sid for an exact re-import, else a new one (null: its turns are skipped,
 * said as a problem). New sessions are counted in `out`; those the source had archived are listed in archivedHere.
 */
function sessionResolver(
  shard: Shard,
  unit: ParsedSource,
  sessionsBy: Map<string, ParsedSession>,
  out: UnitSummary,
  archivedHere: { sid: string; reason: 'reset' | 'deleted' }[],
  problem: (t: ParsedTurn, reason: string) => void,
): (t: ParsedTurn) => string | null {
  const source = unit.kind;
  const sidOf = new Map<string, string | null>();
  return (t: ParsedTurn): string | null => {
    const cached = sidOf.get(t.sourceSession);
    if (cached !== undefined) return cached;
    const exact = sessionsBy.get(t.sourceSession)?.exact;
    if (exact) {
      // The same sid as the exporting shard: created when missing, joined when live, refused when archived.
      let sid: string | null = exact.sid;
      if (!shard.getSession(exact.sid)) {
        if (shard.isArchivedSid(exact.sid)) {
          problem(t, `session ${exact.sid} is archived here; restore it to import its turns`);
          sid = null;
        } else {
          // Its origin, unless that source session already names another session here (an earlier import of
          // the same export that could not be exact): the mapping is one session's. A document from before
          // origins gets one with no details: the record is also what marks the session a copy, which this
          // shard never appends to (docs/export.md, "A copy stays a copy").
          const origin = exact.origin ?? { source: 'arborist', source_session: exact.sid, info: {} };
          const free = shard.sessionForSource(origin.source, origin.source_session) === undefined;
          shard.createSession({
            sid: exact.sid,
            label: exact.label,
            created_at: sessionsBy.get(t.sourceSession)!.createdAt,
            ...(free ? { source: origin } : {}),
          });
          out.sessions++;
        }
      }
      sidOf.set(t.sourceSession, sid);
      return sid;
    }
    let sid = shard.sessionForSource(source, t.sourceSession) ?? null;
    if (sid !== null && !shard.getSession(sid)) {
      // Archived in arborist: its turns are in the archive tier (restore brings them back). Only a session the
      // source still has live is worth a word: turns it gained since are not imported until then.
      if (!sessionsBy.get(t.sourceSession)?.archived)
        problem(
          t,
          `session ${t.sourceSession} is archived in arborist (${sid}); restore it to import its new turns`,
        );
      sid = null;
    } else if (sid === null) {
      const info = sessionsBy.get(t.sourceSession);
      const title =
        info?.title === undefined ? undefined : capped(info.title, MAX_TITLE_CHARS, 'title', unit.file, out);
      const created = shard.createSession({
        created_at: info?.createdAt ?? t.createdAt,
        source: {
          source,
          source_session: t.sourceSession,
          info: {
            ...((info?.cwd ?? t.cwd) ? { cwd: info?.cwd ?? t.cwd } : {}),
            ...(info?.project ? { project: info.project } : {}),
            ...(title ? { title } : {}),
          },
        },
      });
      sid = created.sid;
      out.sessions++;
      if (info?.archived) archivedHere.push({ sid, reason: info.archived.reason });
    }
    sidOf.set(t.sourceSession, sid);
    return sid;
  };
}

/** A turn as the bulk path takes it: an exact re-import keeps every hashed field and its Bates id, else a new one. */
function bulkTurn(t: ParsedTurn, sid: string, parent: string | number | null, source: SourceKind): BulkTurn {
  const x = t.exact;
  const seq = x ? parseBates(x.bates)?.seq : undefined;
  if (x && seq !== undefined && x.bates.startsWith(`${sid}-`)) {
    // Every hashed field as exported, the same Bates id; the bulk path refuses the file if the hash differs.
    return {
      sid,
      parent,
      seq,
      content: {
        question: t.question,
        answer_text: t.answer,
        created_at: t.createdAt,
        source: x.source,
        source_id: x.source_id,
        audit: x.audit,
        cache_key: x.cache_key,
        cited_titles: x.cited_titles,
        n_cited_sources: x.n_cited_sources,
      },
      ...(t.raw.length > 0 ? { records: t.raw } : {}),
      expectNodeHash: x.node_hash,
    };
  }
  return {
    sid,
    parent,
    content: {
      question: t.question.trim() === '' ? '[no text]' : t.question,
      answer_text: answerOf(t),
      created_at: t.createdAt,
      source,
      source_id: t.sourceId,
      audit: AUDIT_TAG,
    },
    records: t.raw,
  };
}

/**
 * A session's title is another tool's text shown in every list: a 30 MB thread name was stored and printed whole.
 * Longer ones are cut here, with a problem.
 */
const MAX_TITLE_CHARS = 1024;

function capped(s: string, max: number, what: string, file: string, out: UnitSummary): string {
  if (s.length <= max) return s;
  out.problems.push({ file, line: 0, reason: `${what} of ${s.length} characters cut to ${max}` });
  // a surrogate pair is not split
  const end = /[\uD800-\uDBFF]/.test(s[max - 2]) ? max - 2 : max - 1;
  return `${s.slice(0, end)}…`;
}

/** Writes one unit. Throws only when the shard itself fails (locked, full, damaged): bad content is a problem. */
export function writeUnit(shard: Shard, unit: ParsedSource, opts: WriteOptions = {}): UnitSummary {
  const out = emptyUnitSummary(unit.file);
  appendListed(out.problems, unit.file, unit.problems);
  const problem = (t: ParsedTurn, reason: string) =>
    out.problems.push({ file: unit.file, line: t.line, reason });
  const source = unit.kind;

  // 1. One turn per source id (a unit that repeats one keeps the first), and what the shard already holds.
  const inUnit = new Map<string, ParsedTurn>();
  for (const t of unit.turns) {
    if (inUnit.has(t.sourceId)) problem(t, `repeats turn ${t.sourceId}; the first copy is kept`);
    else inUnit.set(t.sourceId, t);
  }
  const lookups = new Set<string>(inUnit.keys());
  for (const t of inUnit.values()) if (t.parentSourceId !== null) lookups.add(t.parentSourceId);
  const known = shard.turnsBySourceId(source, [...lookups]);
  // An exact re-import (an arborist export) names turns by their Bates ids: one already here is known by that id.
  for (const id of lookups)
    if (source === 'arborist' && !known.has(id) && shard.getNode(id)) known.set(id, id);
  const exactClash = exactConflicts(shard, [...inUnit.values()], known);
  for (const [id, why] of exactClash) {
    problem(inUnit.get(id)!, why);
    inUnit.delete(id);
  }

  // 2. What waits (follow mode: an incomplete turn; any import: a cut one; and anything under it), what is new.
  const waiting = new Set<string>();
  if (opts.waitForIncomplete || opts.waitForCut) {
    for (const t of inUnit.values()) {
      const waits = opts.waitForIncomplete ? !t.complete : t.cut === true;
      if (waits && !known.has(t.sourceId)) waiting.add(t.sourceId);
    }
  }
  const fresh = [...inUnit.values()].filter((t) => !known.has(t.sourceId));
  out.turns_skipped = inUnit.size - fresh.length;
  const { order, cut } = parentsFirst(fresh, new Map(fresh.map((t) => [t.sourceId, t])), problem);
  // A turn under a waiting one waits too (order is parents first, so one pass suffices).
  for (const t of order)
    if (t.parentSourceId !== null && waiting.has(t.parentSourceId) && !cut.has(t.sourceId))
      waiting.add(t.sourceId);
  const toWrite = order.filter((t) => !waiting.has(t.sourceId));
  out.turns_waiting = order.length - toWrite.length;

  const sessionsBy = new Map<string, ParsedSession>(unit.sessions.map((s) => [s.sourceSession, s]));
  const archivedHere: { sid: string; reason: 'reset' | 'deleted' }[] = [];
  // Turns not written because their session is archived here: a restore makes them importable.
  let heldBack = 0;

  shard.write(() => {
    // 3. Sessions: the one each source session was imported into before, else a new one.
    const sessionFor = sessionResolver(shard, unit, sessionsBy, out, archivedHere, problem);

    // 4. The batch: parents in the batch by index, imported ones by Bates id, unknown ones reported.
    const index = new Map<string, number>();
    const batch: BulkTurn[] = [];
    const skippedHere = new Set<string>();
    // Refused turns, each with the refused turn at the top of its subtree (itself for that one).
    const refusedTop = new Map<string, string>();
    for (const t of toWrite) {
      // An exact turn's hash covers its parent: cut out of a cycle it would hash as another turn and the bulk path
      // would throw the whole batch (a forged sync branch or export file), so it is refused, said by parentsFirst.
      if (t.exact && cut.has(t.sourceId)) {
        refusedTop.set(t.sourceId, t.sourceId);
        continue;
      }
      const p = t.parentSourceId !== null && !cut.has(t.sourceId) ? t.parentSourceId : null;
      // Decided before the session is looked at, so that a session whose every turn is refused is never created.
      if (p !== null && !index.has(p) && !known.has(p)) {
        const top = refusedTop.get(p);
        if (top !== undefined) {
          refusedTop.set(t.sourceId, top);
          continue;
        }
        // An exact turn's Bates id and node hash cover that parent: as a root here it would be another turn, so
        // it waits for its parent (importing that first, then this file again, gives the same ids and hashes).
        if (t.exact && !skippedHere.has(p)) {
          refusedTop.set(t.sourceId, t.sourceId);
          continue;
        }
      }
      const sid = sessionFor(t);
      if (sid === null) {
        skippedHere.add(t.sourceId);
        continue;
      }
      let parent: string | number | null = null;
      if (p !== null) {
        const i = index.get(p);
        if (i !== undefined) parent = i;
        else if (known.has(p)) parent = known.get(p)!;
        else if (skippedHere.has(p)) {
          skippedHere.add(t.sourceId);
          continue;
        } else problem(t, `its parent ${p} was never imported; kept as a top turn`);
      }
      index.set(t.sourceId, batch.length);
      batch.push(bulkTurn(t, sid, parent, source));
    }
    if (batch.length > 0 || out.sessions > 0) {
      const r = shard.addTurnsBulk(batch, {
        kind: 'import.file',
        data: {
          file: unit.file,
          problems: out.problems.length,
          source,
          turns_added: batch.length,
          turns_skipped: out.turns_skipped,
        },
      });
      out.added = r.added.map((a) => a.bates);
      out.turns_added = batch.length;
    }
    out.turns_skipped += skippedHere.size;
    heldBack = skippedHere.size;
    out.turns_refused = refusedTop.size;
    const under = new Map<string, number>();
    for (const top of refusedTop.values()) under.set(top, (under.get(top) ?? 0) + 1);
    for (const [top, n] of under) {
      const t = inUnit.get(top)!;
      const rest = n - 1 === 1 ? 'the 1 turn' : `the ${n - 1} turns`;
      problem(
        t,
        `its parent ${t.parentSourceId} is in neither the file nor this shard, and its node hash covers that parent: skipped with ${rest} under it; import ${t.parentSourceId} first`,
      );
    }
  });

  // 5. Archives the source made, then entries (after the sessions they name exist).
  if (archivedHere.length > 0) {
    const r = archiveImported(shard, archivedHere, `archived by ${source} before the import`);
    out.archived = r.archived.length;
    for (const k of r.kept)
      out.problems.push({
        file: unit.file,
        line: 0,
        reason: `session ${k.sid} stays live: it is ${k.reason}`,
      });
  }
  let entryTrouble = false;
  for (const e of unit.entries) {
    try {
      const r = writeEntry(shard, source, e);
      out.restored += r.restored;
      if (r.changed) out.entries++;
    } catch (err) {
      if (!(err instanceof ArboristError) || stopsImport(err)) throw err;
      out.problems.push({ file: unit.file, line: 0, reason: `entry ${e.key}: ${err.message}` });
      entryTrouble = true;
    }
  }
  out.settled =
    out.problems.length === 0 &&
    !entryTrouble &&
    out.turns_waiting === 0 &&
    out.turns_refused === 0 &&
    heldBack === 0;
  return out;
}

/**
 * Records that `file` was read whole and settled, with the fingerprint it had (fingerprint.ts) and the turns it
 * held; or (null) forgets that, so the next import reads it again.
 */
export function recordFileRead(
  shard: Shard,
  reader: string,
  file: string,
  fp: { digest: Buffer; turns: number } | null,
): void {
  shard.setImportFingerprint(reader, file, fp);
}

/**
 * Exact turns that cannot keep their identity here: their (source, source_id) already belongs to another turn of
 * this shard (the same Claude Code line imported here directly), or their Bates id is taken by different content.
 */
function exactConflicts(shard: Shard, turns: ParsedTurn[], known: Map<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  const bySource = new Map<string, ParsedTurn[]>();
  for (const t of turns) {
    const x = t.exact;
    if (!x) continue;
    if (known.has(t.sourceId)) {
      const here = shard.getNode(x.bates);
      if (here && here.node_hash !== x.node_hash)
        out.set(t.sourceId, `${x.bates} is here with other content; skipped`);
      continue;
    }
    if (x.source !== null && x.source_id !== null) {
      const list = bySource.get(x.source) ?? [];
      list.push(t);
      bySource.set(x.source, list);
    }
  }
  for (const [src, list] of bySource) {
    const found = shard.turnsBySourceId(
      src,
      list.map((t) => t.exact!.source_id!),
    );
    for (const t of list) {
      const other = found.get(t.exact!.source_id!);
      if (other !== undefined && other !== t.exact!.bates)
        out.set(t.sourceId, `its ${src} source ${t.exact!.source_id} is already here as ${other}; skipped`);
    }
  }
  return out;
}
