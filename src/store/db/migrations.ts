import { AUDIT_EVENTS_TABLE } from './events-table.js';

/**
 * Forward-only migrations, each identified by its name and frozen: plain SQL as it was written, never today's code,
 * so that a shard upgraded today is made exactly as one upgraded the day the migration shipped. Derived data a
 * migration invalidates (the vocabulary) is named in `rebuild` and made again by today's code after the SQL has
 * run: it must agree with today's find, not with the find of the day. The names that ran are kept in the shard
 * (schema_migrations, from 0010 on; before, PRAGMA user_version counted them), and a shard holding a name this
 * arborist does not know was written by a newer one and is refused rather than guessed at. user_version still
 * counts the migrations that ran, so an older arborist refuses a newer shard as it always did.
 */
export interface Migration {
  /** `NNNN-what`: unique, never renamed; the order of the list is the order they run in. */
  readonly name: string;
  readonly sql: string;
  /** Derived data to make again with today's code once every pending migration's SQL has run. */
  readonly rebuild?: readonly Rebuild[];
}

export type Rebuild = 'vocabulary';

export const MIGRATIONS: readonly Migration[] = [
  {
    name: '0001-initial',
    sql: `
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
  },
  // 2: session entries and the archive tier (docs/sessions.md, "Entries, archiving and retention").
  {
    name: '0002-entries-and-archives',
    sql: `
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
  },
  // 3: subtree hashes move to a narrow side table. Adding a turn rewrites the subtree hash of every ancestor;
  // inside 1.2 KB node rows that dirtied ~60 pages a commit at depth 100, in 40-byte rows it dirties a handful.
  {
    name: '0003-subtree-side-table',
    sql: `
  CREATE TABLE node_subtree (
    id           INTEGER PRIMARY KEY,   -- nodes.id
    subtree_hash BLOB NOT NULL
  );
  INSERT INTO node_subtree (id, subtree_hash) SELECT id, subtree_hash FROM nodes;
  ALTER TABLE nodes DROP COLUMN subtree_hash;
  `,
  },
  // 4: the ripple's walk to the root reads four small columns per ancestor; a covering index lets it do so without
  // touching the 1.2 KB rows (about 40 us of a depth-100 add).
  {
    name: '0004-walk-index',
    sql: `
  CREATE INDEX nodes_walk ON nodes(id, parent_id, sid, node_hash, n_children);
  `,
  },
  // 5: turns waiting to be indexed by FTS5 (Shard.deferIndexing): indexed in one batch later, so an interactive
  // add does not pay FTS5's per-commit segment write and merges.
  {
    name: '0005-fts-pending',
    sql: `
  CREATE TABLE fts_pending (id INTEGER PRIMARY KEY);
  `,
  },
  // 6: imported histories (docs/import.md). A turn's (source, source_id) is unique, which makes an import
  // idempotent; a source's session maps to one arborist session; the source records of imported turns are kept,
  // compressed a chunk at a time (one deflate call per turn cost more than the rest of an import together), each
  // turn pointing at its bytes. The pointers and chunk digests are recorded in the audit chain (node.add,
  // import.file), so verify can tell when either was changed behind the shard's back.
  {
    name: '0006-imported-sources',
    sql: `
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
  },
  // 7: the FTS index without FTS5's prefix indexes, and the shard's vocabulary beside it (find/vocabulary.ts,
  // docs/find.md "Prefixes"): the prefix indexes tripled the cost of indexing a turn, and prefixes longer than
  // three letters merged whole doclists anyway. And an index of the questions alone: find's first query is "the
  // newest turns whose question matches", which as a column filter on nodes_fts walked every turn holding the
  // words anywhere (a common word is in most answers) to find the few hundred in a question. Both rebuilt from the
  // nodes: every turn, so none waits any more; the vocabulary by today's code once the SQL has run.
  {
    name: '0007-fts-without-prefixes',
    rebuild: ['vocabulary'],
    sql: `
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
    `,
  },
  // 8: sessions newest first, as the browser lists them: its first screen reads only the rows that fit on it
  // (sessions.ts, newestSessions) instead of sorting every session, and the full list needs no sort either.
  {
    name: '0008-sessions-newest',
    sql: `CREATE INDEX IF NOT EXISTS sessions_newest ON sessions(created_at, sid);`,
  },
  // 9: guards (guards.ts): the rows whose values the store never writes, kept by SQLite, so that the chain check
  // and verify need not ask typeof() of every row. Empty on a healthy shard. Frozen as guards.ts made them then,
  // byte for byte: SQLite keeps each statement's text (without IF NOT EXISTS) and the checks compare it
  // (tests/store/migrations.test.ts holds guards.ts to this text).
  {
    name: '0009-guards',
    sql: `
CREATE INDEX IF NOT EXISTS audit_events_not_bytes ON audit_events(seq) WHERE typeof(body) <> 'blob' OR typeof(prev_hash) <> 'blob' OR typeof(event_hash) <> 'blob';
CREATE INDEX IF NOT EXISTS nodes_odd ON nodes(id) WHERE typeof(bates) <> 'text' OR typeof(sid) <> 'text' OR typeof(seq) <> 'integer'
    OR bates <> sid || '-' || printf('%06d', seq) OR typeof(node_hash) <> 'blob'
    OR typeof(question) <> 'text' OR typeof(answer_text) <> 'text' OR typeof(audit) <> 'text'
    OR typeof(created_at) <> 'text' OR typeof(cache_key) NOT IN ('text', 'null')
    OR typeof(source) NOT IN ('text', 'null') OR typeof(source_id) NOT IN ('text', 'null')
    OR typeof(n_cited_sources) <> 'integer' OR n_cited_sources NOT BETWEEN -9007199254740991 AND 9007199254740991
    OR typeof(cited_titles_json) <> 'text'
    OR NOT CASE WHEN json_valid(cited_titles_json) THEN json_type(cited_titles_json) = 'array' ELSE 0 END;
CREATE INDEX IF NOT EXISTS node_subtree_odd ON node_subtree(id) WHERE typeof(subtree_hash) <> 'blob';
`,
  },
  // 10: the names of the migrations that ran, so that a migration is known by its name, not its place in a list.
  {
    name: '0010-migration-names',
    sql: `
  CREATE TABLE schema_migrations (
    name       TEXT PRIMARY KEY,
    applied_at TEXT NOT NULL
  ) WITHOUT ROWID;
  `,
  },
  // 11: the files an import read whole and found nothing more in (docs/import.md, "Files that did not change"), so
  // that importing again reads only the files that changed. A hint, never evidence: a row changed behind arborist's
  // back can make an import read a file again or pass over one, never lose or alter a turn; --full ignores them.
  {
    name: '0011-import-fingerprints',
    sql: `
  CREATE TABLE import_fingerprints (
    reader   TEXT NOT NULL,     -- the reader and the options that change what it reads (claude, claude/no-sidechains)
    file     TEXT NOT NULL,     -- the path the reader was given, as discovered
    digest   BLOB NOT NULL,     -- sha256 of the file's (and the files read with it) identity, size, mtime, head, tail
    turns    INTEGER NOT NULL,  -- the turns it held then: told as already there when it is passed over
    done_at  TEXT NOT NULL,
    PRIMARY KEY (reader, file)
  ) WITHOUT ROWID;
  `,
  },
  // 12: the search indexes keep rowids only (detail=none), and turns' days bound find's date filters (docs/find.md,
  // "The index's shape"). Find asks FTS5 for the newest turns holding quoted single terms and never for positions
  // or columns (the questions have an index of their own), so the positions were written on every import and read
  // on every keystroke for nothing: writing a turn's index costs about half, and a doclist walked newest first is
  // a fraction of the bytes. The vocabulary's n becomes the number of turns holding a term, which is what FTS5
  // keeps without positions. node_days holds, for each day turns were created on, the smallest and largest turn
  // id of that day (a trigger keeps it; deleted turns leave it wider, never wrong): `before:` a date far back
  // starts FTS5's walk at the largest id created before it instead of walking every newer match first.
  {
    name: '0012-fts-rowids-only',
    rebuild: ['vocabulary'],
    sql: `
    DROP TABLE nodes_fts;
    DROP TABLE questions_fts;
    CREATE VIRTUAL TABLE nodes_fts USING fts5(
      question, answer_text, cited_titles_json,
      content = 'nodes', content_rowid = 'id',
      tokenize = 'unicode61 remove_diacritics 2',
      detail = none
    );
    CREATE VIRTUAL TABLE questions_fts USING fts5(
      question,
      content = 'nodes', content_rowid = 'id',
      tokenize = 'unicode61 remove_diacritics 2',
      detail = none
    );
    INSERT INTO nodes_fts (nodes_fts, rank) VALUES ('hashsize', 67108864);
    INSERT INTO questions_fts (questions_fts, rank) VALUES ('hashsize', 67108864);
    INSERT INTO nodes_fts (nodes_fts) VALUES ('rebuild');
    INSERT INTO questions_fts (questions_fts) VALUES ('rebuild');
    INSERT INTO nodes_fts (nodes_fts, rank) VALUES ('hashsize', 1048576);
    INSERT INTO questions_fts (questions_fts, rank) VALUES ('hashsize', 1048576);
    DELETE FROM fts_pending;
    CREATE TABLE node_days (
      day    TEXT PRIMARY KEY,        -- substr(created_at, 1, 10)
      min_id INTEGER NOT NULL,
      max_id INTEGER NOT NULL
    ) WITHOUT ROWID;
    INSERT INTO node_days (day, min_id, max_id)
      SELECT substr(created_at, 1, 10), min(id), max(id) FROM nodes GROUP BY 1;
    CREATE TRIGGER node_days_insert AFTER INSERT ON nodes BEGIN
      INSERT INTO node_days (day, min_id, max_id) VALUES (substr(new.created_at, 1, 10), new.id, new.id)
        ON CONFLICT (day) DO UPDATE SET min_id = min(min_id, excluded.min_id), max_id = max(max_id, excluded.max_id);
    END;
    `,
  },
  // 13: node_days is kept by the writers of nodes (store/write/days.ts), not by a trigger: any trigger on nodes makes
  // SQLite open a statement journal for every insert into it, which cost about 70% of writing an imported turn's row
  // (docs/benchmarks.md, "node_days kept by the writers"). What the trigger wrote stays; nothing else changes.
  {
    name: '0013-node-days-by-writers',
    sql: `
    DROP TRIGGER IF EXISTS node_days_insert;
    `,
  },
  // 14: sync over git (docs/sync.md): per remote and host, the commit last imported from (or pushed to) that host's
  // branch and the head of that host's chain it held; and, for sessions pulled from another host, whether that host
  // has them archived (shown, never acted on here). Both are written only with a `sync` event, which claims them.
  {
    name: '0014-sync',
    sql: `
    CREATE TABLE sync_state (
      remote    TEXT NOT NULL,
      host      TEXT NOT NULL,
      commit_id TEXT NOT NULL,     -- hex object id of the commit imported (another host) or pushed (this host)
      seq       INTEGER NOT NULL,  -- that host's chain head in that commit
      hash      TEXT NOT NULL,     -- hex event hash at seq
      event     INTEGER NOT NULL,  -- the sync event that wrote the row
      PRIMARY KEY (remote, host)
    ) WITHOUT ROWID;
    CREATE TABLE sync_marks (
      sid      TEXT PRIMARY KEY,   -- a session pulled from another host
      host     TEXT NOT NULL,
      archived INTEGER NOT NULL,   -- 1: archived on its host
      event    INTEGER NOT NULL
    ) WITHOUT ROWID;
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;
