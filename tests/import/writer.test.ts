import { describe, expect, it } from 'vitest';
import type { ParsedSource, ParsedTurn, SourceReader } from '../../src/import/model.js';
import { runImport } from '../../src/import/run.js';
import { writeUnit } from '../../src/import/writer.js';
import { findArchived, getEntry, listArchives, type Shard } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';
import { newShard } from '../store/util.js';

const T0 = Date.parse('2026-05-01T09:00:00.000Z');
const at = (i: number) => new Date(T0 + i * 1000).toISOString();

function turn(
  id: string,
  parent: string | null,
  session = 'S1',
  i = 0,
  extra: Partial<ParsedTurn> = {},
): ParsedTurn {
  return {
    sourceId: id,
    parentSourceId: parent,
    sourceSession: session,
    question: `q ${id}`,
    answer: `a ${id}`,
    createdAt: at(i),
    raw: [`{"uuid":"${id}"}`],
    line: i + 1,
    complete: true,
    ...extra,
  };
}

function unit(turns: ParsedTurn[], extra: Partial<ParsedSource> = {}): ParsedSource {
  const sessions = [...new Set(turns.map((t) => t.sourceSession))].map((s) => ({
    sourceSession: s,
    createdAt: at(0),
    cwd: '/home/u/proj',
  }));
  return { kind: 'claude', file: 'f.jsonl', sessions, turns, entries: [], problems: [], ...extra };
}

/** The shard's tree as "question <- parent question" lines, in Bates order. */
function shape(s: Shard): string[] {
  return dbOf(s)
    .prepare(
      `SELECT n.bates, n.question, p.question AS pq FROM nodes n LEFT JOIN nodes p ON p.id = n.parent_id ORDER BY n.id`,
    )
    .all()
    .map((r) => {
      const row = r as { bates: string; question: string; pq: string | null };
      return `${row.question} <- ${row.pq ?? '-'}`;
    });
}

function clean(s: Shard): void {
  const v = s.verify();
  expect(v.problems ?? [], JSON.stringify(v.problems)).toEqual([]);
  expect(v.ok).toBe(true);
  expect(s.audit.check().ok).toBe(true);
}

describe('the import writer', () => {
  it('places parents before children whatever the order given, with branch points', () => {
    const s = newShard();
    // a rewind: b and c both continue a; d continues c. Listed children first, and times that put children before
    // their parents (a compaction's preserved segment does that): time orders siblings, links order the rest.
    const r = writeUnit(
      s,
      unit([
        turn('d', 'c', 'S1', 6),
        turn('c', 'a', 'S1', 5),
        turn('b', 'a', 'S1', 3),
        turn('a', null, 'S1', 9),
      ]),
    );
    expect(r.turns_added).toBe(4);
    expect(shape(s)).toEqual(['q a <- -', 'q b <- q a', 'q c <- q a', 'q d <- q c']);
    expect(r.problems).toEqual([]);
    clean(s);
  });

  it('is idempotent, and a grown file adds only its new turns under the right parents', () => {
    const s = newShard();
    const first = [turn('a', null), turn('b', 'a', 'S1', 1)];
    writeUnit(s, unit(first));
    const head = s.audit.head().seq;
    const again = writeUnit(s, unit(first));
    expect([again.turns_added, again.turns_skipped]).toEqual([0, 2]);
    expect(s.audit.head().seq).toBe(head); // nothing new: not even an event
    const grown = writeUnit(s, unit([...first, turn('c', 'b', 'S1', 2), turn('d', 'a', 'S1', 3)]));
    expect([grown.turns_added, grown.turns_skipped, grown.sessions]).toEqual([2, 2, 0]);
    expect(shape(s)).toEqual(['q a <- -', 'q b <- q a', 'q c <- q b', 'q d <- q a']);
    expect(s.listSessions().length).toBe(1);
    clean(s);
  });

  it('a resumed session replaying earlier turns keeps the earliest copy and hangs its new turns across sessions', () => {
    const s = newShard();
    writeUnit(s, unit([turn('a', null, 'S1'), turn('b', 'a', 'S1', 1)]));
    // S2 replays a and b (same ids, written with S2's session id), then goes on from b
    const r = writeUnit(s, unit([turn('a', null, 'S2'), turn('b', 'a', 'S2', 1), turn('c', 'b', 'S2', 2)]));
    expect([r.turns_added, r.turns_skipped]).toEqual([1, 2]);
    const c = s.requireNode(r.added[0]);
    const b = s.requireNode(c.parent_bates!);
    expect(b.question).toBe('q b');
    expect(b.sid).not.toBe(c.sid); // a cross-session parent
    expect(s.sourceOfSession(c.sid)).toMatchObject({
      source: 'claude',
      source_session: 'S2',
      info: { cwd: '/home/u/proj' },
    });
    clean(s);
  });

  it('reports a missing parent and a cycle, keeps those turns as top turns, and loses nothing', () => {
    const s = newShard();
    const r = writeUnit(
      s,
      unit([turn('x', 'ghost', 'S1', 1), turn('p', 'q', 'S1', 2), turn('q', 'p', 'S1', 3)]),
    );
    expect(r.turns_added).toBe(3);
    expect(r.problems.map((p) => `${p.line}: ${p.reason}`).sort()).toEqual(
      [
        '4: its parents form a cycle; kept as a top turn',
        '2: its parent ghost was never imported; kept as a top turn',
      ].sort(),
    );
    clean(s);
  });

  it('follow mode: an unfinished turn and what hangs under it wait; the next reading adds them', () => {
    const s = newShard();
    const turns = [turn('a', null), turn('b', 'a', 'S1', 1, { complete: false })];
    const r = writeUnit(s, unit(turns), { waitForIncomplete: true });
    expect([r.turns_added, r.turns_waiting]).toEqual([1, 1]);
    const r2 = writeUnit(s, unit([turns[0], { ...turns[1], complete: true }]), { waitForIncomplete: true });
    expect([r2.turns_added, r2.turns_skipped]).toEqual([1, 1]);
    clean(s);
  });

  it('a session the source archived goes to the archive tier with its reason; reading it again adds nothing', () => {
    const s = newShard();
    const u = unit([turn('a', null, 'OLD'), turn('b', 'a', 'OLD', 1)]);
    u.sessions[0].archived = { reason: 'reset', at: at(50) };
    const r = writeUnit(s, u);
    expect([r.turns_added, r.archived]).toEqual([2, 1]);
    expect(s.listSessions()).toEqual([]);
    expect(listArchives(s).map((a) => a.reason)).toEqual(['reset']);
    expect(
      findArchived(s, 'q')
        .map((h) => h.question)
        .sort(),
    ).toEqual(['q a', 'q b']);
    const again = writeUnit(s, u);
    expect([again.turns_added, again.problems.length]).toEqual([0, 0]);
    clean(s);
  });

  it('entries: the current session, checkpoints by the source id, the usage family; again, no change', () => {
    const s = newShard();
    writeUnit(s, unit([turn('a', null, 'S1'), turn('b', 'a', 'S1', 1)]));
    writeUnit(s, unit([turn('c', null, 'S2', 2)]));
    const entry = {
      key: 'agent:main',
      sourceSession: 'S2',
      compactionCheckpoints: [
        {
          checkpointId: 'cp-1',
          reason: 'compaction',
          createdAt: at(3),
          summary: 'what happened',
          preCompaction: { sourceSession: 'S1', turnSourceId: 'b' },
          postCompaction: { sourceSession: 'S2' },
        },
      ],
      usageFamilySessions: ['S1'],
    };
    const r = writeUnit(s, unit([], { entries: [entry], file: 'sessions.json' }));
    expect(r.entries).toBe(1);
    const e = getEntry(s, 'agent:main')!;
    const s1 = s.sessionForSource('claude', 'S1')!;
    const s2 = s.sessionForSource('claude', 'S2')!;
    expect(e.sessionId).toBe(s2);
    expect(e.compactionCheckpoints).toMatchObject([
      {
        checkpointId: 'cp-1',
        createdAt: at(3),
        preCompaction: { sessionId: s1, leafId: `${s1}-000002` },
        postCompaction: { sessionId: s2 },
      },
    ]);
    expect(e.usageFamilySessionIds).toEqual([s1]);
    const head = s.audit.head().seq;
    expect(writeUnit(s, unit([], { entries: [entry] })).entries).toBe(0);
    expect(s.audit.head().seq).toBe(head);
    clean(s);
  });

  it('runImport: a file the store refuses inside a group is written again alone; the other files are kept', () => {
    const s = newShard();
    const huge = 'x'.repeat(16 * 1024 * 1024 + 1); // past the store's cap on a text: addTurnsBulk refuses it
    const reader: SourceReader = {
      kind: 'claude',
      defaultPaths: () => [],
      discover: () => ['one', 'two', 'three'],
      *read(file) {
        yield unit([turn(`${file}-a`, null, file, 0, file === 'two' ? { answer: huge } : {})], { file });
      },
    };
    const r = runImport(s, reader, ['/']);
    expect([r.files, r.turns_added, r.errors]).toEqual([3, 2, 1]);
    expect(r.problems[0]).toMatchObject({ file: 'two', line: 0 });
    expect(r.problems[0].reason).toMatch(/16 MiB/);
    expect(s.listSessions().length).toBe(2);
    clean(s);
  });

  it('runImport: a reader that throws on one file reports file:0 and imports the others', () => {
    const s = newShard();
    const reader: SourceReader = {
      kind: 'claude',
      defaultPaths: () => [],
      discover: () => ['good', 'bad'],
      *read(file) {
        if (file === 'bad') throw new Error('not a transcript\nsecond line');
        yield unit([turn('a', null)], { file });
      },
    };
    const r = runImport(s, reader, ['/']);
    expect([r.files, r.turns_added, r.errors]).toEqual([2, 1, 1]);
    expect(r.problems).toEqual([{ file: 'bad', line: 0, reason: 'not a transcript' }]);
    expect(() => runImport(s, reader, ['/nope/not/here'])).toThrow(/no such file/);
  });
});
