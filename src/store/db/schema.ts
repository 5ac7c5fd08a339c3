import type Database from 'better-sqlite3';
import { rebuildVocabulary } from '../find/vocabulary.js';
import { AUDIT_EVENTS_TABLE } from './events-table.js';
import { GUARDS, guardSql } from './guards.js';

/**
 * Forward-only migrations. PRAGMA user_version holds how many have run. A shard whose version is higher than
 * MIGRATIONS.length was written by a newer arborist and is refused rather than guessed at.
 */
/** A step is SQL, or a function for a step SQL alone cannot take (it runs inside the migration's transaction). */
export type Migration = string | ((db: Database.Database) => void);

export const MIGRATIONS: Migration[] = [
  `
  CREATE TABLE sessions (
    sid          TEXT PRIMARY KEY,
    label        TEXT,
    created_at   TEXT NOT NULL,
    next_seq     INTEGER NOT NULL DEFAULT 1,   -- seqs are minted here and never reused
    n_nodes      INTEGER NOT NULL DEFAULT 0,
    session_root BLOB NOT NULL
  );
  CREATE INDEX sessions_label ON sessions(label) WHERE label IS NOT NULL;

  CREATE TABLE nodes (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,  -- internal; also the FTS rowid. Never reused.
    bates            TEXT NOT NULL UNIQUE,
    sid              TEXT NOT NULL REFERENCES sessions(sid),
    seq              INTEGER NOT NULL,
    parent_id        INTEGER REFERENCES nodes(id),       -- may be a node of another session
    is_top           INTEGER NOT NULL,                   -- 1 when the parent is null or in another session
    depth            INTEGER NOT NULL,                   -- distance to the tree's root, across sessions
    n_children       INTEGER NOT NULL DEFAULT 0,
    question         TEXT NOT NULL,
    answer_text      TEXT NOT NULL,
    cited_titles_json TEXT NOT NULL DEFAULT '[]',
    n_cited_sources  INTEGER NOT NULL DEFAULT 0,
    audit            TEXT NOT NULL,
    cache_key        TEXT,
    source           TEXT,
    source_id        TEXT,
    created_at       TEXT NOT NULL,
    node_hash        BLOB NOT NULL,
    subtree_hash     BLOB NOT NULL,
    UNIQUE (sid, seq)
  );
  CREATE INDEX nodes_children ON nodes(parent_id, sid, seq);
  CREATE INDEX nodes_tops ON nodes(sid, seq) WHERE is_top = 1;
  CREATE INDEX nodes_cache_key ON nodes(cache_key) WHERE cache_key IS NOT NULL;

  CREATE VIRTUAL TABLE nodes_fts USING fts5(
    question, answer_text, cited_titles_json,
    content = 'nodes', content_rowid = 'id',   -- external content: the text is stored once, in nodes
    tokenize = 'unicode61 remove_diacritics 2',
    prefix = '2 3'
  );
  CREATE VIRTUAL TABLE nodes_vocab USING fts5vocab(nodes_fts, 'row');

  ${AUDIT_EVENTS_TABLE};

  CREATE TABLE answer_cache (
    cache_key         TEXT PRIMARY KEY,
    answer_text       TEXT NOT NULL,
    cited_titles_json TEXT NOT NULL DEFAULT '[]',
    created_at        TEXT NOT NULL
  );
  `,
  // 2: session entries and the archive tier (docs/sessions.md, "Entries, archiving and retention").
  `
  CREATE TABLE session_entries (
    key        TEXT PRIMARY KEY,
    sid        TEXT NOT NULL,      -- the entry's current session (entry_json's sessionId)
    entry_json TEXT NOT NULL,      -- canon({compactionCheckpoints, sessionId, usageFamilySessionIds})
    updated_at TEXT NOT NULL
  );
  CREATE INDEX session_entries_sid ON session_entries(sid);

  CREATE TABLE session_archives (
    sid         TEXT PRIMARY KEY,  -- an archived sid stays reserved: it is never minted again
    reason      TEXT NOT NULL,     -- reset | deleted | retention
    archived_at TEXT NOT NULL,
    label       TEXT,
    n_nodes     INTEGER NOT NULL,
    bytes       INTEGER NOT NULL,  -- length of the canonical JSON document before compression
    body        BLOB NOT NULL,     -- gzip(canon(archive document)): the session row and all its node rows
    sha256      BLOB NOT NULL      -- H(body), checked by verify
  );
  `,
  // 3: subtree hashes move to a narrow side table. Adding a turn rewrites the subtree hash of every ancestor;
  // inside 1.2 KB node rows that dirtied ~60 pages a commit at depth 100, in 40-byte rows it dirties a handful.
  `
  CREATE TABLE node_subtree (
    id           INTEGER PRIMARY KEY,   -- nodes.id
    subtree_hash BLOB NOT NULL
  );
  INSERT INTO node_subtree (id, subtree_hash) SELECT id, subtree_hash FROM nodes;
  ALTER TABLE nodes DROP COLUMN subtree_hash;
  `,
  // 4: the ripple's walk to the root reads four small columns per ancestor; a covering index lets it do so without
  // touching the 1.2 KB rows (about 40 us of a depth-100 add).
  `
  CREATE INDEX nodes_walk ON nodes(id, parent_id, sid, node_hash, n_children);
  `,
  // 5: turns waiting to be indexed by FTS5 (Shard.deferIndexing): indexed in one batch later, so an interactive
  // add does not pay FTS5's per-commit segment write and merges.
  `
  CREATE TABLE fts_pending (id INTEGER PRIMARY KEY);
  `,
  // 6: imported histories (docs/import.md). A turn's (source, source_id) is unique, which makes an import
  // idempotent; a source's session maps to one arborist session; the source records of imported turns are kept,
  // compressed a chunk at a time (one deflate call per turn cost more than the rest of an import together), each
  // turn pointing at its bytes. The pointers and chunk digests are recorded in the audit chain (node.add,
  // import.file), so verify can tell when either was changed behind the shard's back.
  `
  CREATE UNIQUE INDEX nodes_source ON nodes(source, source_id) WHERE source_id IS NOT NULL;
  CREATE TABLE session_sources (
    source         TEXT NOT NULL,
    source_session TEXT NOT NULL,
    sid            TEXT NOT NULL,   -- never reused, so the mapping outlives archiving
    info_json      TEXT NOT NULL,   -- canon({cwd, project, title}) as the source gave them
    PRIMARY KEY (source, source_session)
  ) WITHOUT ROWID;
  CREATE INDEX session_sources_sid ON session_sources(sid);
  CREATE TABLE source_chunks (
    id     INTEGER PRIMARY KEY,
    bytes  INTEGER NOT NULL,         -- length before compression
    sha256 BLOB NOT NULL,            -- H(the records, uncompressed)
    body   BLOB NOT NULL             -- brotli (quality 0) of the records, each followed by a newline
  );
  CREATE TABLE node_sources (
    bates    TEXT PRIMARY KEY,       -- by Bates id, not node id: archiving a session keeps its records here
    chunk_id INTEGER NOT NULL REFERENCES source_chunks(id),
    start    INTEGER NOT NULL,
    length   INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  // 7: the FTS index without FTS5's prefix indexes, and the shard's vocabulary beside it (find/vocabulary.ts,
  // docs/find.md "Prefixes"): the prefix indexes tripled the cost of indexing a turn, and prefixes longer than
  // three letters merged whole doclists anyway. And an index of the questions alone: find's first query is "the
  // newest turns whose question matches", which as a column filter on nodes_fts walked every turn holding the
  // words anywhere (a common word is in most answers) to find the few hundred in a question. Both rebuilt from the
  // nodes: every turn, so none waits any more.
  (db) => {
    db.exec(`
    DROP TABLE IF EXISTS nodes_vocab;
    DROP TABLE nodes_fts;
    CREATE VIRTUAL TABLE nodes_fts USING fts5(
      question, answer_text, cited_titles_json,
      content = 'nodes', content_rowid = 'id',
      tokenize = 'unicode61 remove_diacritics 2'
    );
    CREATE VIRTUAL TABLE questions_fts USING fts5(
      question,
      content = 'nodes', content_rowid = 'id',
      tokenize = 'unicode61 remove_diacritics 2'
    );
    CREATE TABLE fts_terms (
      term TEXT PRIMARY KEY,     -- as the index folds it (lower case, no accents); at most 64 characters
      n    INTEGER NOT NULL      -- how often it occurs in the indexed text
    ) WITHOUT ROWID;
    INSERT INTO nodes_fts (nodes_fts) VALUES ('rebuild');
    INSERT INTO questions_fts (questions_fts) VALUES ('rebuild');
    DELETE FROM fts_pending;
    `);
    rebuildVocabulary(db);
  },
  // 8: sessions newest first, as the browser lists them: its first screen reads only the rows that fit on it
  // (sessions.ts, newestSessions) instead of sorting every session, and the full list needs no sort either.
  `CREATE INDEX IF NOT EXISTS sessions_newest ON sessions(created_at, sid);`,
  // 9: guards (guards.ts): the rows whose values the store never writes, kept by SQLite, so that the chain check
  // and verify need not ask typeof() of every row. Empty on a healthy shard. (SQLite keeps each statement without
  // IF NOT EXISTS, as the checks compare it.)
  GUARDS.map((g) => `${guardSql(g).replace('CREATE INDEX', 'CREATE INDEX IF NOT EXISTS')};`).join('\n'),
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export function currentVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

export function migrate(db: Database.Database): { from: number; to: number } {
  const from = currentVersion(db);
  for (let v = from; v < MIGRATIONS.length; v++) {
    const step = MIGRATIONS[v];
    if (typeof step === 'string') db.exec(step);
    else step(db);
    db.pragma(`user_version = ${v + 1}`);
  }
  return { from, to: MIGRATIONS.length };
}
