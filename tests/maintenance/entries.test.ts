import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  addCheckpoint,
  addUsageFamily,
  artifactFamily,
  deleteEntry,
  getEntry,
  hashes,
  listEntries,
  planDelete,
  planReset,
  resetEntry,
  SCHEMA_VERSION,
  setEntry,
} from '../../src/store/index.js';
import { AuditLog, dbOf, MIGRATIONS } from '../../src/store/testing.js';
import { tempDb } from '../support/tmp.js';
import { archivedSids, errorOf, healthy, kinds, open, session, sessionsOf } from './util.js';

describe('entries', () => {
  it('set, checkpoint, usage family: one audit event per change, none for a no-op', () => {
    const s = open();
    const a = session(s, 2);
    const b = session(s, 1);
    const head = s.audit.head().seq;

    const r1 = setEntry(s, 'main', a.sid);
    expect(r1).toMatchObject({ previous_sid: null, changed: true });
    expect(r1.entry).toMatchObject({
      key: 'main',
      sessionId: a.sid,
      compactionCheckpoints: [],
      family: [a.sid],
    });
    expect(setEntry(s, 'main', a.sid).changed).toBe(false);
    expect(kinds(s, head)).toEqual(['entry.set']);

    // Repointing keeps the previous session in the family, as a usage-family predecessor.
    const r2 = setEntry(s, 'main', b.sid);
    expect(r2.previous_sid).toBe(a.sid);
    expect(r2.entry.usageFamilySessionIds).toEqual([a.sid]);

    const cp = addCheckpoint(s, 'main', { pre: a.bates[1], post: b.sid, summary: 'the gist' });
    expect(cp.checkpoint).toMatchObject({
      reason: 'compaction',
      summary: 'the gist',
      preCompaction: { sessionId: a.sid, leafId: a.bates[1] },
      postCompaction: { sessionId: b.sid },
    });
    expect(cp.checkpoint.checkpointId).toMatch(/^[a-z0-9]{8}$/);
    expect(addUsageFamily(s, 'main', a.sid).changed).toBe(false);
    expect(kinds(s, head)).toEqual(['entry.set', 'entry.set', 'entry.checkpoint']);

    const e = getEntry(s, 'main')!;
    expect(e.family).toEqual([b.sid, a.sid]);
    expect(listEntries(s).map((x) => x.key)).toEqual(['main']);
    // The stored document is canonical JSON of exactly the three fields.
    const json = dbOf(s)
      .prepare("SELECT entry_json FROM session_entries WHERE key = 'main'")
      .pluck()
      .get() as string;
    expect(Object.keys(JSON.parse(json))).toEqual([
      'compactionCheckpoints',
      'sessionId',
      'usageFamilySessionIds',
    ]);
    expect(json).toBe(hashes.canon(JSON.parse(json)));
    healthy(s);
  });

  it('refuses bad keys, unknown keys and unknown sessions', () => {
    const s = open();
    const a = session(s, 1);
    const head = s.audit.head().seq;
    expect(errorOf(() => setEntry(s, 'bad key', a.sid)).kind).toBe('input');
    expect(errorOf(() => setEntry(s, 'main', 'nosuch')).kind).toBe('not_found');
    expect(errorOf(() => addCheckpoint(s, 'main', { pre: a.sid, post: a.sid })).message).toBe(
      "no entry 'main'",
    );
    setEntry(s, 'main', a.sid);
    expect(errorOf(() => addCheckpoint(s, 'main', { pre: 'nosuch', post: a.sid })).kind).toBe('not_found');
    expect(errorOf(() => addCheckpoint(s, 'main', { pre: `${a.sid}-000009`, post: a.sid })).kind).toBe(
      'not_found',
    );
    expect(errorOf(() => addCheckpoint(s, 'main', { pre: a.sid, post: a.sid, reason: 'No Way' })).kind).toBe(
      'input',
    );
    expect(errorOf(() => addUsageFamily(s, 'main', 'nosuch')).kind).toBe('not_found');
    expect(errorOf(() => deleteEntry(s, 'nosuch')).kind).toBe('not_found');
    expect(errorOf(() => resetEntry(s, 'nosuch')).kind).toBe('not_found');
    expect(kinds(s, head)).toEqual(['entry.set']);
  });

  it('migrates a version 1 shard forward with one shard.migrate event', () => {
    // A shard as version 1 wrote it: only the first migration, one empty session.
    const path = tempDb();
    const raw = new Database(path);
    raw.exec(MIGRATIONS[0].sql);
    raw.pragma('user_version = 1');
    // With the events version 1 wrote beside it: verify holds the state to what the chain recorded.
    const log = new AuditLog(raw);
    raw.transaction(() => {
      log.append('shard.init', { from: 0, to: 1 });
      const root = hashes.sessionRoot('old1', []);
      raw
        .prepare('INSERT INTO sessions (sid, label, created_at, session_root) VALUES (?, ?, ?, ?)')
        .run('old1', 'from v1', '2026-01-01T00:00:00.000Z', root);
      log.append('session.create', { label: 'from v1', session_root: root.toString('hex'), sid: 'old1' });
    })();
    raw.close();
    const s = open(path);
    expect(dbOf(s).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const last = s.audit.event(s.audit.head().seq)!;
    expect([last.kind, last.data]).toEqual(['shard.migrate', { from: 1, to: SCHEMA_VERSION }]);
    expect(listEntries(s)).toEqual([]);
    expect(s.getSession('old1')?.label).toBe('from v1');
    // The migrated shard takes turns and stays verifiable.
    s.addTurn({ question: 'after the migration', answer_text: 'ok', session: 'old1' });
    healthy(s);
  });

  it('migration 3 moves every subtree hash to node_subtree unchanged', () => {
    const path = tempDb();
    const s1 = open(path);
    session(s1, 3);
    const before = dbOf(s1)
      .prepare('SELECT n.bates, h.subtree_hash FROM nodes n JOIN node_subtree h ON h.id = n.id ORDER BY n.id')
      .raw(true)
      .all();
    // Put the shard back into its version 2 form: the hash inside the node row.
    dbOf(s1).exec(`ALTER TABLE nodes ADD COLUMN subtree_hash BLOB;
      UPDATE nodes SET subtree_hash = (SELECT subtree_hash FROM node_subtree h WHERE h.id = nodes.id);
      DROP TABLE node_subtree;
      DROP INDEX nodes_walk;
      DROP TABLE fts_pending;
      DROP INDEX nodes_source;
      DROP TABLE session_sources;
      DROP TABLE node_sources;
      DROP TABLE source_chunks;
      DROP TABLE fts_terms;
      DROP TABLE questions_fts;`);
    dbOf(s1).exec(
      'DROP TABLE IF EXISTS schema_migrations; DROP TRIGGER node_days_insert; DROP TABLE node_days',
    ); // 0010, 0012
    dbOf(s1).pragma('user_version = 2');
    s1.close();
    const s = open(path);
    expect(dbOf(s).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const after = dbOf(s)
      .prepare('SELECT n.bates, h.subtree_hash FROM nodes n JOIN node_subtree h ON h.id = n.id ORDER BY n.id')
      .raw(true)
      .all();
    expect(after).toEqual(before);
    const cols = (dbOf(s).prepare('PRAGMA table_info(nodes)').all() as { name: string }[]).map((c) => c.name);
    expect(cols).not.toContain('subtree_hash');
    healthy(s);
  });

  it('the artifact family: current, each pre and post, usage family; empty ids dropped, duplicates removed', () => {
    const cp = (pre: string, post: string) => ({
      checkpointId: 'x',
      reason: 'compaction',
      createdAt: '',
      preCompaction: { sessionId: pre },
      postCompaction: { sessionId: post },
    });
    expect(
      artifactFamily({
        sessionId: 'cur',
        compactionCheckpoints: [cp('p1', 'cur'), cp('', 'q1'), cp('p1', 'p2')],
        usageFamilySessionIds: ['u1', '', 'cur', 'p2', 'u0'],
      }),
    ).toEqual(['cur', 'p1', 'q1', 'p2', 'u1', 'u0']);
  });
});

describe('reset and delete', () => {
  it('deleting an entry with a pre-compaction checkpoint archives the current and the pre-compaction session', () => {
    const s = open();
    const pre = session(s, 3);
    const cur = session(s, 2);
    setEntry(s, 'main', cur.sid);
    addCheckpoint(s, 'main', { pre: pre.sid, post: cur.sid });

    const plan = planDelete(s, 'main');
    expect(plan.family).toEqual([cur.sid, pre.sid]);
    expect(plan.archive.map((a) => [a.sid, a.reason])).toEqual([
      [cur.sid, 'deleted'],
      [pre.sid, 'deleted'],
    ]);
    expect(plan.keep).toEqual([]);

    const head = s.audit.head().seq;
    const r = deleteEntry(s, 'main');
    expect(r.archived.map((a) => a.sid).sort()).toEqual([cur.sid, pre.sid].sort());
    expect(kinds(s, head)).toEqual(['entry.delete', 'session.archive', 'session.archive']);
    expect(getEntry(s, 'main')).toBeUndefined();
    expect(sessionsOf(s)).toEqual([]);
    expect(archivedSids(s)).toEqual([cur.sid, pre.sid].sort());
    expect(dbOf(s).prepare('SELECT count(*) FROM nodes').pluck().get()).toBe(0);
    healthy(s);
  });

  it('of two entries sharing a pre-compaction session, deleting one archives nothing of it until the last is gone', () => {
    const s = open();
    const shared = session(s, 2);
    const c1 = session(s, 1);
    const c2 = session(s, 1);
    setEntry(s, 'one', c1.sid);
    addCheckpoint(s, 'one', { pre: shared.sid, post: c1.sid });
    setEntry(s, 'two', c2.sid);
    addCheckpoint(s, 'two', { pre: shared.bates[1], post: c2.sid });

    const r1 = deleteEntry(s, 'one');
    expect(r1.archived.map((a) => a.sid)).toEqual([c1.sid]);
    expect(r1.keep.map((k) => k.sid)).toEqual([shared.sid]);
    expect(r1.keep[0].reasons).toEqual([
      {
        kind: 'entry',
        key: 'two',
        role: 'pre-compaction',
        checkpoint_id: getEntry(s, 'two')!.compactionCheckpoints[0].checkpointId,
      },
    ]);
    expect(r1.keep[0].why[0]).toContain("entry 'two'");
    expect(sessionsOf(s)).toEqual([shared.sid, c2.sid].sort());
    healthy(s);

    const r2 = deleteEntry(s, 'two');
    expect(r2.archived.map((a) => a.sid).sort()).toEqual([shared.sid, c2.sid].sort());
    expect(sessionsOf(s)).toEqual([]);
    healthy(s);
  });

  it('a usage-family predecessor is archived when nothing else references it, kept while something does', () => {
    const s = open();
    const old = session(s, 2);
    const cur = session(s, 1);
    const other = session(s, 1);
    setEntry(s, 'main', old.sid);
    setEntry(s, 'main', cur.sid); // old becomes a usage-family predecessor
    setEntry(s, 'work', other.sid);
    addUsageFamily(s, 'work', old.sid);

    // While 'work' names it, old stays.
    expect(planReset(s, 'main').archive.map((a) => a.sid)).toEqual([cur.sid]);
    expect(planReset(s, 'main').keep.map((k) => k.sid)).toEqual([old.sid]);

    const r = deleteEntry(s, 'work');
    expect(r.archived.map((a) => a.sid)).toEqual([other.sid]);
    expect(r.keep.map((k) => [k.sid, k.reasons[0]])).toEqual([
      [old.sid, { kind: 'entry', key: 'main', role: 'usage-family' }],
    ]);

    const head = s.audit.head().seq;
    const reset = resetEntry(s, 'main');
    expect(reset.archived.map((a) => [a.sid, a.reason]).sort()).toEqual(
      [
        [cur.sid, 'reset'],
        [old.sid, 'reset'],
      ].sort(),
    );
    // One event for the reset (which also creates the new session), one per archived session.
    expect(kinds(s, head)).toEqual(['entry.reset', 'session.archive', 'session.archive']);
    const e = getEntry(s, 'main')!;
    expect(e).toMatchObject({ sessionId: reset.sid, compactionCheckpoints: [], usageFamilySessionIds: [] });
    const fresh = s.getSession(reset.sid!)!;
    expect(fresh.n_nodes).toBe(0);
    expect(fresh.session_root).toBe(hashes.sessionRoot(fresh.sid, []).toString('hex'));
    expect(sessionsOf(s)).toEqual([reset.sid]);
    const ev = s.audit.event(head + 1)!;
    expect(ev.data).toMatchObject({ key: 'main', previous_sid: cur.sid, sid: reset.sid });
    healthy(s);
  });

  it('a session holding the cross-session parent of a surviving turn is never archived', () => {
    const s = open();
    const parent = session(s, 2);
    const survivor = session(s, 1, { parent: parent.bates[1] }); // live, in no entry
    setEntry(s, 'main', parent.sid);

    const r = deleteEntry(s, 'main');
    expect(r.archived).toEqual([]);
    expect(r.keep).toHaveLength(1);
    expect(r.keep[0].reasons).toEqual([
      {
        kind: 'parent',
        bates: parent.bates[1],
        child: survivor.bates[0],
        child_sid: survivor.sid,
        children: 1,
      },
    ]);
    expect(r.keep[0].why[0]).toContain(`parent of surviving turn ${survivor.bates[0]}`);
    expect(sessionsOf(s)).toEqual([parent.sid, survivor.sid].sort());
    healthy(s);
  });

  it('the cross-session rule holds transitively: a kept session keeps the sessions its turns hang under', () => {
    const s = open();
    const a = session(s, 1);
    const b = session(s, 1, { parent: a.bates[0] });
    const c = session(s, 1, { parent: b.bates[0] }); // live, in no entry
    setEntry(s, 'main', a.sid);
    addUsageFamily(s, 'main', b.sid);
    const plan = planDelete(s, 'main');
    expect(plan.archive).toEqual([]);
    expect(plan.keep.map((k) => [k.sid, k.reasons[0].kind])).toEqual([
      [a.sid, 'parent'],
      [b.sid, 'parent'],
    ]);
    expect(plan.keep[1].reasons[0]).toMatchObject({ child: c.bates[0] });
    expect(plan.keep[0].reasons[0]).toMatchObject({ child: b.bates[0] });
  });

  it('family sessions that hang under each other go together, children first', () => {
    const s = open();
    const a = session(s, 2);
    const b = session(s, 2, { parent: a.bates[0] });
    setEntry(s, 'main', a.sid);
    addUsageFamily(s, 'main', b.sid);
    const r = deleteEntry(s, 'main');
    expect(r.archived.map((x) => x.sid)).toEqual([b.sid, a.sid]);
    expect(sessionsOf(s)).toEqual([]);
    healthy(s);
  });

  it('archived ids stay reserved', () => {
    const s = open();
    const a = session(s, 1);
    setEntry(s, 'main', a.sid);
    deleteEntry(s, 'main');
    expect(errorOf(() => s.createSession({ sid: a.sid })).message).toContain('archived');
    expect(errorOf(() => s.resolveSession(a.sid)).message).toContain('archived');
    expect(errorOf(() => s.addTurn({ session: a.sid, question: 'q', answer_text: 'a' })).kind).toBe(
      'not_found',
    );
    healthy(s);
  });
});
