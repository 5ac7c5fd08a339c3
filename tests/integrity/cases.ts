import type Database from 'better-sqlite3';
import { attackerNodeHash, rechain, rewriteArchive } from '../support/attacker.js';
import type { Fixture } from './fixture.js';

/**
 * The tampering matrix's cases (tests/integrity/tamper.test.ts runs them through the CLI, tests/tui/tamper.test.ts
 * through the browser): each an edit an attacker with sqlite3 could make, most of them made consistently.
 */

const idOf = (db: Database.Database, bates: string) =>
  db.prepare('SELECT id FROM nodes WHERE bates = ?').pluck().get(bates) as number;

export interface Case {
  name: string;
  edit: (db: Database.Database, f: Fixture) => void;
  /** Recompute every hash and counter after the edit (default true). */
  rehash?: boolean;
  /** Which single check must catch it on its own: verify (the state), chain (the chain), head (only --expect-head). */
  by: 'verify' | 'chain' | 'head';
  /** Ids the report must name. */
  names: (f: Fixture) => string[];
}

export const CASES: Case[] = [
  {
    name: 'a question edited, hashes recomputed',
    edit: (db, f) => db.prepare("UPDATE nodes SET question = 'forged' WHERE bates = ?").run(f.a[1]),
    by: 'verify',
    names: (f) => [f.a[1]],
  },
  {
    name: 'an answer edited, hashes recomputed',
    edit: (db, f) => db.prepare("UPDATE nodes SET answer_text = 'forged' WHERE bates = ?").run(f.b[1]),
    by: 'verify',
    names: (f) => [f.b[1]],
  },
  {
    name: 'a leaf deleted, ancestors rehashed',
    edit: (db, f) => {
      const id = idOf(db, f.a[3]);
      db.prepare('DELETE FROM node_subtree WHERE id = ?').run(id);
      db.prepare('DELETE FROM nodes WHERE id = ?').run(id);
    },
    by: 'verify',
    names: (f) => [f.a[3]],
  },
  {
    name: 'a forged turn inserted with correct hashes and no event',
    edit: (db, f) => {
      const parent = idOf(db, f.b[1]);
      const bates = `${f.beta}-000003`;
      const row = {
        bates,
        parent_bates: f.b[1],
        question: 'forged turn',
        answer_text: 'never asked',
        cited_titles_json: '[]',
        n_cited_sources: 0,
        audit: 'manual',
        cache_key: null,
        source: null,
        source_id: null,
        created_at: '2026-01-01T00:00:00.000Z',
      };
      const info = db
        .prepare(`INSERT INTO nodes (bates, sid, seq, parent_id, is_top, depth, question, answer_text,
          cited_titles_json, n_cited_sources, audit, cache_key, source, source_id, created_at, node_hash)
          VALUES (?, ?, 3, ?, 0, 0, ?, ?, '[]', 0, 'manual', NULL, NULL, NULL, ?, ?)`)
        .run(bates, f.beta, parent, row.question, row.answer_text, row.created_at, attackerNodeHash(row));
      db.prepare('INSERT INTO node_subtree (id, subtree_hash) VALUES (?, zeroblob(32))').run(
        info.lastInsertRowid,
      );
      db.prepare('UPDATE sessions SET next_seq = 4 WHERE sid = ?').run(f.beta);
    },
    by: 'verify',
    names: (f) => [`${f.beta}-000003`],
  },
  {
    name: 'a turn moved under another parent, hashes recomputed',
    edit: (db, f) =>
      db.prepare('UPDATE nodes SET parent_id = ? WHERE bates = ?').run(idOf(db, f.a[0]), f.a[3]),
    by: 'verify',
    names: (f) => [f.a[3]],
  },
  {
    name: 'an archived body rewritten with a changed answer, node hash and sha256 recomputed',
    edit: (db, f) =>
      rewriteArchive(db, f.gamma, (doc) => {
        const n = doc.nodes.find((x: { bates: string }) => x.bates === f.g[0]);
        n.answer_text = 'the forged answer';
        n.node_hash = attackerNodeHash({ ...n, parent_bates: n.parent_bates }).toString('hex');
      }),
    by: 'verify',
    names: (f) => [f.gamma],
  },
  {
    name: 'an archive record deleted',
    edit: (db, f) => db.prepare('DELETE FROM session_archives WHERE sid = ?').run(f.gamma),
    by: 'verify',
    names: (f) => [f.gamma],
  },
  {
    name: "an archive record's sha256 changed",
    edit: (db, f) =>
      db.prepare('UPDATE session_archives SET sha256 = zeroblob(32) WHERE sid = ?').run(f.gamma),
    by: 'verify',
    names: (f) => [f.gamma],
  },
  {
    name: 'a parent cycle made by editing parent_id',
    edit: (db, f) =>
      db.prepare('UPDATE nodes SET parent_id = ? WHERE bates = ?').run(idOf(db, f.a[2]), f.a[0]),
    rehash: false,
    by: 'verify',
    names: (f) => [f.a[0]],
  },
  {
    name: 'a sessions row deleted (its turns left behind)',
    edit: (db, f) => db.prepare('DELETE FROM sessions WHERE sid = ?').run(f.delta),
    by: 'verify',
    names: (f) => [f.delta],
  },
  {
    name: 'a session created behind the chain',
    edit: (db) =>
      db
        .prepare(
          "INSERT INTO sessions (sid, label, created_at, session_root) VALUES ('forgedsid', NULL, '2026', ?)",
        )
        .run(Buffer.alloc(32)),
    by: 'verify',
    names: () => ['forgedsid'],
  },
  {
    name: 'a branch point told it has one child',
    edit: (db, f) => db.prepare('UPDATE nodes SET n_children = 1 WHERE bates = ?').run(f.a[1]),
    rehash: false,
    by: 'verify',
    names: (f) => [f.a[1]],
  },
  {
    name: "a session's turn count set to 999",
    edit: (db, f) => db.prepare('UPDATE sessions SET n_nodes = 999 WHERE sid = ?').run(f.alpha),
    rehash: false,
    by: 'verify',
    names: (f) => [f.alpha],
  },
  {
    name: "a session's next seq lowered (Bates ids would be reused)",
    edit: (db, f) => db.prepare('UPDATE sessions SET next_seq = 2 WHERE sid = ?').run(f.alpha),
    rehash: false,
    by: 'verify',
    names: (f) => [f.alpha],
  },
  {
    name: "a turn's depth changed",
    edit: (db, f) => db.prepare('UPDATE nodes SET depth = 0 WHERE bates = ?').run(f.b[1]),
    rehash: false,
    by: 'verify',
    names: (f) => [f.b[1]],
  },
  {
    name: "a turn's top flag changed",
    edit: (db, f) => db.prepare('UPDATE nodes SET is_top = 0 WHERE bates = ?').run(f.b[0]),
    rehash: false,
    by: 'verify',
    names: (f) => [f.b[0]],
  },
  {
    name: 'a stored node hash changed',
    edit: (db, f) => db.prepare('UPDATE nodes SET node_hash = zeroblob(32) WHERE bates = ?').run(f.a[2]),
    rehash: false,
    by: 'verify',
    names: (f) => [f.a[2]],
  },
  {
    name: 'a stored subtree hash changed',
    edit: (db, f) =>
      db.prepare('UPDATE node_subtree SET subtree_hash = zeroblob(32) WHERE id = ?').run(idOf(db, f.a[0])),
    rehash: false,
    by: 'verify',
    names: (f) => [f.a[0]],
  },
  {
    name: 'a stored session root changed',
    edit: (db, f) => db.prepare('UPDATE sessions SET session_root = zeroblob(32) WHERE sid = ?').run(f.beta),
    rehash: false,
    by: 'verify',
    names: (f) => [f.beta],
  },
  {
    name: 'a cached answer rewritten',
    edit: (db, f) =>
      db.prepare("UPDATE answer_cache SET answer_text = 'poisoned' WHERE cache_key = ?").run(f.cacheKey),
    rehash: false,
    by: 'verify',
    names: (f) => [f.cacheKey],
  },
  {
    name: "an entry's current session repointed",
    edit: (db, f) =>
      db
        .prepare('UPDATE session_entries SET sid = ?, entry_json = replace(entry_json, ?, ?) WHERE key = ?')
        .run(f.beta, f.delta, f.beta, 'work'),
    rehash: false,
    by: 'verify',
    names: () => ['work'],
  },
  {
    name: 'an entry deleted',
    edit: (db) => db.prepare("DELETE FROM session_entries WHERE key = 'work'").run(),
    rehash: false,
    by: 'verify',
    names: () => ['work'],
  },
  {
    name: 'an event body edited',
    edit: (db) =>
      db
        .prepare(
          "UPDATE audit_events SET body = CAST(replace(CAST(body AS TEXT), 'a', 'b') AS BLOB) WHERE seq = 5",
        )
        .run(),
    rehash: false,
    by: 'chain',
    names: () => ['5'],
  },
  {
    name: 'an event deleted',
    edit: (db) => db.prepare('DELETE FROM audit_events WHERE seq = 5').run(),
    rehash: false,
    by: 'chain',
    names: () => ['5'],
  },
  {
    name: 'two events swapped',
    edit: (db) => {
      db.prepare('UPDATE audit_events SET seq = -1 WHERE seq = 5').run();
      db.prepare('UPDATE audit_events SET seq = 5 WHERE seq = 6').run();
      db.prepare('UPDATE audit_events SET seq = 6 WHERE seq = -1').run();
    },
    rehash: false,
    by: 'chain',
    names: () => ['5'],
  },
  {
    name: 'an event duplicated at the end',
    edit: (db) =>
      db
        .prepare(`INSERT INTO audit_events (seq, ts, kind, body, prev_hash, event_hash)
          SELECT (SELECT max(seq) FROM audit_events) + 1, ts, kind, body, prev_hash, event_hash FROM audit_events WHERE seq = 5`)
        .run(),
    rehash: false,
    by: 'chain',
    names: () => [],
  },
  {
    name: 'every event renumbered to seq <= 0',
    edit: (db) => db.prepare('UPDATE audit_events SET seq = seq - 1000000').run(),
    rehash: false,
    by: 'chain',
    names: () => [],
  },
  {
    name: 'an event body stored as an integer',
    edit: (db) => db.prepare('UPDATE audit_events SET body = 42 WHERE seq = 3').run(),
    rehash: false,
    by: 'chain',
    names: () => ['3'],
  },
  {
    name: 'the chain rewritten end to end after an edit',
    edit: (db, f) => {
      db.prepare("UPDATE nodes SET question = 'rewritten' WHERE bates = ?").run(f.a[0]);
      // The attacker also rewrites the node.add event of a1 to the new hash, and re-chains everything after it.
      const row = db
        .prepare(`SELECT n.bates, p.bates AS parent_bates, n.question, n.answer_text, n.cited_titles_json,
          n.n_cited_sources, n.audit, n.cache_key, n.source, n.source_id, n.created_at
          FROM nodes n LEFT JOIN nodes p ON p.id = n.parent_id WHERE n.bates = ?`)
        .get(f.a[0]) as Parameters<typeof attackerNodeHash>[0];
      const old = db.prepare('SELECT node_hash FROM nodes WHERE bates = ?').pluck().get(f.a[0]) as Buffer;
      const next = attackerNodeHash(row);
      db.prepare('UPDATE audit_events SET body = CAST(replace(CAST(body AS TEXT), ?, ?) AS BLOB)').run(
        old.toString('hex'),
        next.toString('hex'),
      );
      rechain(db);
    },
    by: 'head',
    names: () => [],
  },
  {
    name: 'the whole shard rolled back to an earlier state',
    edit: (db, f) => {
      // Undo the newest change (the checkpoint) and its event: what remains is an older, internally valid shard.
      const last = db.prepare('SELECT max(seq) FROM audit_events').pluck().get() as number;
      db.prepare('DELETE FROM audit_events WHERE seq = ?').run(last);
      const e = db
        .prepare("SELECT entry_json FROM session_entries WHERE key = 'work'")
        .pluck()
        .get() as string;
      const doc = JSON.parse(e);
      doc.compactionCheckpoints = [];
      db.prepare("UPDATE session_entries SET entry_json = ? WHERE key = 'work'").run(JSON.stringify(doc));
      void f;
    },
    rehash: false,
    by: 'head',
    names: () => [],
  },
];
