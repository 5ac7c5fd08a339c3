import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  addUsageFamily,
  archiveSessions,
  deleteEntry,
  findArchived,
  hashes,
  listArchives,
  readArchive,
  restoreArchives,
  type Shard,
  setEntry,
} from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';
import { archivedSids, errorOf, ftsIds, healthy, kinds, open, session, snapshot } from './util.js';

/** A live session L whose turn l2 has two children: l3 in L, and the first turn of F (a family session). */
function forked(s: Shard) {
  const live = session(s, 2, { word: 'oak' });
  s.addTurn({ session: live.sid, parent: live.bates[1], question: 'oak side branch', answer_text: 'leaf' });
  const fam = session(s, 3, { parent: live.bates[1], word: 'zebra' });
  setEntry(s, 'main', fam.sid);
  return { live, fam };
}

describe('archive and restore', () => {
  it('archiving ripples the live parent; restoring gives back every row, hash and Bates id byte for byte', () => {
    const s = open();
    const { live, fam } = forked(s);
    const before = snapshot(s);
    const verifyBefore = s.verify();
    const parentBefore = s.requireNode(live.bates[1]);
    const liveRootBefore = s.getSession(live.sid)!.session_root;
    expect(ftsIds(s, 'zebra')).toHaveLength(3);
    healthy(s);

    const r = deleteEntry(s, 'main');
    expect(r.archived.map((a) => a.sid)).toEqual([fam.sid]);
    const a = r.archived[0];
    // The live parent lost a child: its count, subtree hash and its session's root changed, and are consistent.
    const parentAfter = s.requireNode(live.bates[1]);
    expect(parentAfter.n_children).toBe(parentBefore.n_children - 1);
    expect(parentAfter.subtree_hash).not.toBe(parentBefore.subtree_hash);
    expect(s.getSession(live.sid)!.session_root).not.toBe(liveRootBefore);
    expect(a.session_roots).toEqual({ [live.sid]: s.getSession(live.sid)!.session_root });
    healthy(s);
    // Gone from the live tables and from find; still readable and searchable in the archive.
    expect(s.getSession(fam.sid)).toBeUndefined();
    expect(s.getNode(fam.bates[0])).toBeUndefined();
    expect(ftsIds(s, 'zebra')).toEqual([]);
    expect(s.search('zebra').hits).toEqual([]);
    expect(findArchived(s, 'zebra').map((h) => h.bates)).toEqual([...fam.bates].reverse());
    expect(listArchives(s)).toEqual([
      expect.objectContaining({ sid: fam.sid, reason: 'deleted', n_nodes: 3, sha256: a.sha256 }),
    ]);
    const content = readArchive(s, fam.sid);
    expect(content.intact).toBe(true);
    const rowsBefore = before.nodes.filter((n) => (n as { sid: string }).sid === fam.sid) as {
      bates: string;
      node_hash: Buffer;
      subtree_hash: Buffer;
    }[];
    expect(content.nodes.map((n) => [n.bates, n.node_hash, n.subtree_hash])).toEqual(
      rowsBefore.map((n) => [n.bates, n.node_hash.toString('hex'), n.subtree_hash.toString('hex')]),
    );
    // The record's sha256 is the hash of the stored body, and the body is canonical JSON (gzipped).
    const row = dbOf(s).prepare('SELECT body, sha256, bytes FROM session_archives').get() as {
      body: Buffer;
      sha256: Buffer;
      bytes: number;
    };
    expect(hashes.sha256(row.body).equals(row.sha256)).toBe(true);
    const json = gunzipSync(row.body).toString('utf8');
    expect(json).toBe(hashes.canon(JSON.parse(json)));
    expect(Buffer.byteLength(json)).toBe(row.bytes);
    const ev = s.audit.event(s.audit.head().seq)!;
    expect(ev.kind).toBe('session.archive');
    expect(ev.data).toMatchObject({ sid: fam.sid, reason: 'deleted', sha256: a.sha256, n_nodes: 3 });

    const head = s.audit.head().seq;
    const restored = restoreArchives(s, [fam.sid]);
    expect(restored).toEqual([expect.objectContaining({ sid: fam.sid, identical: true, n_nodes: 3 })]);
    expect(kinds(s, head)).toEqual(['session.restore']);
    expect(snapshot(s)).toEqual(before);
    expect(s.verify()).toEqual(verifyBefore);
    expect(s.requireNode(live.bates[1])).toEqual(parentBefore);
    expect(s.getSession(live.sid)!.session_root).toBe(liveRootBefore);
    expect(ftsIds(s, 'zebra')).toHaveLength(3);
    expect(s.search('zebra').hits.length).toBe(3);
    expect(listArchives(s)).toEqual([]);
    healthy(s);
  });

  it('restores sessions that hang under each other: alone when the parent is live, together otherwise', () => {
    const s = open();
    const a = session(s, 2);
    const b = session(s, 2, { parent: a.bates[0] });
    setEntry(s, 'main', a.sid);
    addUsageFamily(s, 'main', b.sid);
    const before = snapshot(s);
    deleteEntry(s, 'main');
    expect(archivedSids(s)).toEqual([a.sid, b.sid].sort());

    const e = errorOf(() => restoreArchives(s, [b.sid]));
    expect(e.kind).toBe('input');
    expect(e.message).toContain(`restore both (archive restore ${b.sid} ${a.sid})`);
    // a was archived after b, so its record is consistent on its own.
    expect(restoreArchives(s, [a.sid])[0].identical).toBe(true);
    healthy(s);
    expect(restoreArchives(s, [b.sid])[0].identical).toBe(true);
    expect(snapshot(s)).toEqual(before);
    healthy(s);

    // Both at once, in either order.
    setEntry(s, 'main', a.sid);
    addUsageFamily(s, 'main', b.sid);
    deleteEntry(s, 'main');
    // b's record is as archived; a's was taken without b under it, so its hashes are recomputed with b back.
    expect(restoreArchives(s, [b.sid, a.sid]).map((x) => x.identical)).toEqual([true, false]);
    expect(snapshot(s)).toEqual(before);
    healthy(s);
  });

  it('handles sessions that hang under each other both ways (a cycle between sessions)', () => {
    const s = open();
    const a = s.createSession().sid;
    const b = s.createSession().sid;
    const a1 = s.addTurn({ session: a, question: 'a1', answer_text: 'x' }).bates;
    const b1 = s.addTurn({ session: b, parent: a1, question: 'b1', answer_text: 'x' }).bates;
    s.addTurn({ session: a, parent: b1, question: 'a2', answer_text: 'x' });
    setEntry(s, 'main', a);
    addUsageFamily(s, 'main', b);
    const before = snapshot(s);
    const r = deleteEntry(s, 'main');
    expect(r.archived).toHaveLength(2);
    expect(snapshot(s).nodes).toEqual([]);
    healthy(s);
    expect(errorOf(() => restoreArchives(s, [a])).message).toContain('restore both');
    restoreArchives(s, [a, b]);
    expect(snapshot(s)).toEqual(before);
    healthy(s);
  });

  it('verify names an archive whose body no longer matches its sha256, and restore refuses it', () => {
    const s = open();
    const a = session(s, 2);
    setEntry(s, 'main', a.sid);
    deleteEntry(s, 'main');
    healthy(s);
    dbOf(s).prepare('UPDATE session_archives SET sha256 = zeroblob(32)').run();
    const v = s.verify();
    expect(v.ok).toBe(false);
    expect(v.archives).toEqual([a.sid]);
    expect(readArchive(s, a.sid).intact).toBe(false);
    const e = errorOf(() => restoreArchives(s, [a.sid]));
    expect(e.message).toContain('damaged');
    expect(archivedSids(s)).toEqual([a.sid]);
  });

  it('unknown and live sids are refused', () => {
    const s = open();
    const a = session(s, 1);
    expect(errorOf(() => restoreArchives(s, ['nosuch'])).kind).toBe('not_found');
    expect(errorOf(() => restoreArchives(s, [a.sid])).message).toContain('live, not archived');
    expect(errorOf(() => readArchive(s, 'nosuch')).kind).toBe('not_found');
  });

  it('archiving by hand refuses referenced sessions', () => {
    const s = open();
    const a = session(s, 1);
    const b = session(s, 1, { parent: a.bates[0] });
    const c = session(s, 1);
    setEntry(s, 'main', c.sid);
    expect(errorOf(() => archiveSessions(s, [a.sid])).message).toContain(
      `parent of surviving turn ${b.bates[0]}`,
    );
    expect(errorOf(() => archiveSessions(s, [c.sid])).message).toContain("entry 'main'");
    expect(archiveSessions(s, [b.sid, a.sid]).map((x) => x.sid)).toEqual([b.sid, a.sid]);
    healthy(s);
  });

  it('find --archived folds case and diacritics like the index, and ranks question matches first', () => {
    const s = open();
    const sid = s.createSession().sid;
    const t1 = s.addTurn({
      session: sid,
      question: 'Where is the Café?',
      answer_text: 'round the corner',
    }).bates;
    const t2 = s.addTurn({
      session: sid,
      parent: t1,
      question: 'and then',
      answer_text: 'a café crème',
    }).bates;
    setEntry(s, 'main', sid);
    deleteEntry(s, 'main');
    const hits = findArchived(s, 'CAFE');
    expect(hits.map((h) => [h.bates, h.field])).toEqual([
      [t1, 'question'],
      [t2, 'answer'],
    ]);
    expect(hits[1].snippet).toContain('«café»');
    expect(findArchived(s, 'caf')).toEqual([]);
    expect(findArchived(s, 'caf', { prefix: true })).toHaveLength(2);
    expect(findArchived(s, 'cafe corner').map((h) => h.bates)).toEqual([t1]);
  });
});
