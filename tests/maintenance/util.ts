import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { Shard } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';

export { errorOf, openShard as open } from '../support/shard.js';

/** A session with a chain of `n` turns; returns the sid and the Bates ids. */
export function session(s: Shard, n: number, opts: { label?: string; parent?: string; word?: string } = {}) {
  const sid = s.createSession({ label: opts.label }).sid;
  const bates: string[] = [];
  let parent = opts.parent;
  for (let i = 0; i < n; i++) {
    const r = s.addTurn({
      session: sid,
      parent,
      question: `${opts.word ?? 'question'} ${i + 1} of ${sid}`,
      answer_text: `answer ${i + 1} of ${sid} about ${opts.word ?? 'nothing'}`,
      cited_titles: [`Title ${i + 1}`],
    });
    bates.push(r.bates);
    parent = r.bates;
  }
  return { sid, bates };
}

/** Every row of the live tables, raw (BLOBs as Buffers): the state a restore must give back byte for byte. */
export function snapshot(s: Shard) {
  return {
    nodes: dbOf(s)
      .prepare(
        'SELECT n.*, h.subtree_hash FROM nodes n LEFT JOIN node_subtree h ON h.id = n.id ORDER BY n.id',
      )
      .all(),
    sessions: dbOf(s).prepare('SELECT * FROM sessions ORDER BY sid').all(),
  };
}

export function sessionsOf(s: Shard): string[] {
  return (dbOf(s).prepare('SELECT sid FROM sessions ORDER BY sid').pluck().all() as string[]).sort();
}

export function archivedSids(s: Shard): string[] {
  return dbOf(s).prepare('SELECT sid FROM session_archives ORDER BY sid').pluck().all() as string[];
}

export function kinds(s: Shard, fromSeq = 0): string[] {
  return dbOf(s)
    .prepare('SELECT kind FROM audit_events WHERE seq > ? ORDER BY seq')
    .pluck()
    .all(fromSeq) as string[];
}

/** verify and chain-check both pass. */
export function healthy(s: Shard): void {
  const v = s.verify();
  expect(v, JSON.stringify(v)).toMatchObject({ ok: true, mismatches: [], sessions: [] });
  expect(v.archives).toBeUndefined();
  expect(s.chainCheck().ok).toBe(true);
}

/** The shard file and its -wal (absent counts as empty). */
export function fileBytes(path: string): { db: Buffer; wal: Buffer } {
  const wal = `${path}-wal`;
  return { db: readFileSync(path), wal: existsSync(wal) ? readFileSync(wal) : Buffer.alloc(0) };
}

/** FTS rowids that match a word. */
export function ftsIds(s: Shard, word: string): number[] {
  return dbOf(s)
    .prepare('SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? ORDER BY rowid')
    .pluck()
    .all(`"${word}"`) as number[];
}
