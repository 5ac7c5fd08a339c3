import { describe, expect, it } from 'vitest';
import {
  archiveSessions,
  restoreArchives,
  SCHEMA_VERSION,
  Shard,
  type Shard as ShardT,
} from '../../src/store/index.js';
import { dbOf, indexTerms, rebuildVocabulary, termCounts } from '../../src/store/testing.js';
import { dropSince0010 } from '../support/older.js';
import { tempDb } from '../support/tmp.js';
import { newShard } from './util.js';

/** The vocabulary as stored, sorted. */
function vocabulary(s: ShardT): [string, number][] {
  return dbOf(s).prepare('SELECT term, n FROM fts_terms ORDER BY term').raw(true).all() as [string, number][];
}

/** What a rebuild from the nodes gives, without keeping it. */
function rebuilt(s: ShardT): [string, number][] {
  let out: [string, number][] = [];
  dbOf(s).exec('SAVEPOINT probe');
  try {
    rebuildVocabulary(dbOf(s));
    out = vocabulary(s);
  } finally {
    dbOf(s).exec('ROLLBACK TO probe; RELEASE probe');
  }
  return out;
}

/** FTS5's own check of both indexes against the nodes they index (external content): throws on any difference. */
function indexesIntact(s: ShardT): boolean {
  dbOf(s).exec("INSERT INTO nodes_fts (nodes_fts, rank) VALUES ('integrity-check', 1)");
  dbOf(s).exec("INSERT INTO questions_fts (questions_fts, rank) VALUES ('integrity-check', 1)");
  return true;
}

/** Every term FTS5's own index holds (fts5vocab reads the index itself), up to the vocabulary's length limit. */
function ftsTerms(s: ShardT): string[] {
  dbOf(s).exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.v USING fts5vocab(main, 'nodes_fts', 'row')");
  return dbOf(s)
    .prepare('SELECT term FROM temp.v WHERE length(term) <= 64 ORDER BY term')
    .pluck()
    .all() as string[];
}

const TEXTS = [
  'How do I fix THE borrow-checker error E0502 in rust_2021?',
  'Café, naïve, façade, Ångström and résumé: accents are folded as the index folds them',
  'Straße ΚΑΛΗΜΕΡΑ καλημέρα Ελλάδα москва йод ёж İstanbul ǅemal',
  'Tiếng Việt có dấu: người, được, phải; Dvořák, Łódź, Ærø, œuvre, ﬂ',
  'हिन्दी देवनागरी, العربية مُشَكَّلة, עִבְרִית, ภาษาไทย',
  '東京の天気は？ 漢字かな混じり文 and 한국어 텍스트',
  'emoji 🚀 rocket, ZWJ 👩‍💻 coder, flags 🇫🇷 and tabs\tand\nnewlines',
  "don't won't it's o'clock — em–dash … ellipsis",
  'ﬁle ligature, ① circled, ２ fullwidth, ½ fraction, x² superscript',
  'e\u0301tude decomposed, \u0130 dotted capital I',
  `a ${'long'.repeat(20)} token and 0x7f3a9b hex 3.14159 numbers`,
];

describe('the vocabulary beside the FTS index', () => {
  it('counts the turns holding each term, folded as the index folds them', () => {
    const s = newShard();
    const row = (id: number, question: string, answer_text = '') => ({
      id,
      question,
      answer_text,
      cited_titles_json: '[]',
    });
    const counts = termCounts(dbOf(s), [
      row(1, 'The the THE café', 'Café cafe'),
      row(2, 'the end', `${'x'.repeat(65)} short`),
    ]);
    expect(Object.fromEntries(counts)).toEqual({ the: 2, cafe: 1, end: 1, short: 1 });
    // the same through the store: a turn counts once however often it says a word
    s.addTurn({ question: 'The the THE café', answer_text: 'Café cafe' });
    s.addTurn({ question: 'the end', answer_text: `${'x'.repeat(65)} short` });
    expect(vocabulary(s)).toEqual([
      ['cafe', 1],
      ['end', 1],
      ['short', 1],
      ['the', 2],
    ]);
  });

  it('a run of millions of letters in non-ASCII text is one term, not a stack overflow', () => {
    // V8's Unicode regex ran out of stack on one match of about 4 million characters: the whole import failed.
    const text = `café ${'x'.repeat(5_000_000)}… end`;
    expect(indexTerms(text).map((t) => (t.length > 10 ? t.length : t))).toEqual(['cafe', 5_000_000, 'end']);
    const s = newShard();
    s.addTurn({ question: text, answer_text: 'ok' });
    expect(vocabulary(s)).toEqual([
      ['cafe', 1],
      ['end', 1],
      ['ok', 1],
    ]);
  });

  it('holds exactly the terms FTS5 indexed, for ASCII and for other scripts', () => {
    const s = newShard();
    for (const t of TEXTS)
      s.addTurn({ question: t, answer_text: `${t} (answer)`, cited_titles: [t.slice(0, 12)] });
    const ours = vocabulary(s).map(([t]) => t);
    expect(ours).toEqual(ftsTerms(s));
  });

  it('counts the rows of a write once it commits, and forgets those of a write that rolled back', () => {
    const s = newShard();
    expect(() =>
      s.write(() => {
        s.addTurn({ question: 'zyzzyva rolled back', answer_text: 'x' });
        throw new Error('the caller gave up');
      }),
    ).toThrow('the caller gave up');
    s.write(() => {
      s.addTurn({ question: 'kept one', answer_text: 'x' });
      s.addTurn({ question: 'kept two', answer_text: 'x' });
    });
    expect(vocabulary(s).some(([t]) => t === 'zyzzyva')).toBe(false);
    expect(vocabulary(s).find(([t]) => t === 'kept')).toEqual(['kept', 2]);
    expect(vocabulary(s)).toEqual(rebuilt(s));
    // Added and archived in one transaction: counted, then subtracted, nothing left over.
    s.write(() => {
      const t = s.addTurn({ question: 'ephemeral words', answer_text: 'x' });
      archiveSessions(s, [t.sid]);
    });
    expect(vocabulary(s).some(([t]) => t === 'ephemeral')).toBe(false);
    expect(vocabulary(s)).toEqual(rebuilt(s));
  });

  it('a write of a large share of the shard reads its vocabulary from the index; it agrees with counting', () => {
    const s = newShard();
    const sid = s.createSession({}).sid;
    const batch = (n: number, word: string) =>
      Array.from({ length: n }, (_, i) => ({
        sid,
        parent: null,
        content: { question: `${word} q${i % 50}`, answer_text: `shared ${word}${i % 7} café` },
      }));
    // 600 turns into an empty shard: read from the index at commit; then 20 more (1/31 of it): counted.
    s.write(() => {
      s.addTurnsBulk(batch(300, 'alpha'), { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } });
      s.addTurnsBulk(batch(300, 'beta'), { kind: 'nodes.bulk', data: { generator: 'test', seed: 1 } });
    });
    expect(vocabulary(s).find(([t]) => t === 'shared')).toEqual(['shared', 600]);
    expect(vocabulary(s)).toEqual(rebuilt(s));
    s.addTurnsBulk(batch(20, 'gamma'), { kind: 'nodes.bulk', data: { generator: 'test', seed: 2 } });
    expect(vocabulary(s).find(([t]) => t === 'shared')).toEqual(['shared', 620]);
    expect(vocabulary(s)).toEqual(rebuilt(s));
    // a large write that rolls back leaves nothing behind
    expect(() =>
      s.write(() => {
        s.addTurnsBulk(batch(700, 'delta'), { kind: 'nodes.bulk', data: { generator: 'test', seed: 3 } });
        throw new Error('the caller gave up');
      }),
    ).toThrow('the caller gave up');
    expect(vocabulary(s).some(([t]) => t === 'delta')).toBe(false);
    expect(vocabulary(s)).toEqual(rebuilt(s));
  });

  it('stays equal to a rebuild through every way text enters or leaves the index', () => {
    const s = newShard();
    const a = s.addTurn({ question: 'rust lifetimes', answer_text: 'the borrow checker checks lifetimes' });
    s.addTurn({ question: 'more lifetimes', answer_text: 'thanks', parent: a.bates });
    s.addTurnsBulk(
      [
        { sid: a.sid, parent: a.bates, content: { question: 'bulk one', answer_text: 'therefore thermal' } },
        { sid: a.sid, parent: a.bates, content: { question: 'bulk two', answer_text: 'the theory' } },
      ],
      { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } },
    );
    s.deferIndexing = true;
    const other = s.addTurn({ question: 'waiting turn', answer_text: 'thermos thimble' });
    expect(vocabulary(s).some(([t]) => t === 'thimble')).toBe(false);
    s.flushIndex();
    expect(vocabulary(s).some(([t]) => t === 'thimble')).toBe(true);
    expect(vocabulary(s)).toEqual(rebuilt(s));
    expect(indexesIntact(s)).toBe(true);
    archiveSessions(s, [other.sid]);
    expect(vocabulary(s).some(([t]) => t === 'thimble')).toBe(false);
    expect(vocabulary(s)).toEqual(rebuilt(s));
    expect(indexesIntact(s)).toBe(true);
    restoreArchives(s, [other.sid]);
    expect(vocabulary(s).find(([t]) => t === 'thimble')).toEqual(['thimble', 1]);
    expect(vocabulary(s)).toEqual(rebuilt(s));
    expect(indexesIntact(s)).toBe(true);
    expect(s.search('thimb').hits.map((h) => h.question)).toEqual(['waiting turn']);
    expect(s.search('waiting').hits[0].field).toBe('question');
  });
});

describe('prefixes through the vocabulary', () => {
  it('finds the newest turns under a common prefix, however many terms share it', () => {
    const s = newShard();
    const sid = s.createSession({}).sid;
    // 40 distinct words under "th", the most frequent first; the newest turns hold the rarest of them.
    const words = Array.from({ length: 40 }, (_, i) => `th${String.fromCharCode(97 + (i % 26))}${i}x`);
    const turns = [];
    for (let i = 0; i < 40; i++)
      for (let k = 0; k <= 40 - i; k++)
        turns.push({
          sid,
          parent: null,
          content: { question: `q ${words[i]}`, answer_text: `a ${words[i]}` },
        });
    s.addTurnsBulk(turns, { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } });
    const newest = s.addTurn({
      session: sid,
      question: `that should work ${words[0]}`,
      answer_text: 'shouting',
    });
    // Ranking puts short questions first; the newest turn must be among the candidates it ranks.
    expect(s.search('th', { limit: 1000 }).hits.map((h) => h.bates)).toContain(newest.bates);
    expect(s.search('that', { limit: 5 }).hits[0].bates).toBe(newest.bates);
    expect(s.search('shou', { limit: 5 }).hits.map((h) => h.bates)).toEqual([newest.bates]);
    // A prefix after whole words, and in the question only (the find box's first query).
    expect(s.search('that sho', { limit: 5 }).hits.map((h) => h.bates)).toEqual([newest.bates]);
    expect(s.search('work th', { limit: 5 }).hits[0].bates).toBe(newest.bates);
    // A rare word among more than 32 under its prefix is found once the prefix narrows to it.
    expect(s.search('th', { limit: 1000 }).hits.some((h) => h.question === `q ${words[39]}`)).toBe(false);
    expect(
      s.search(words[39].slice(0, 4), { limit: 1000 }).hits.some((h) => h.question === `q ${words[39]}`),
    ).toBe(true);
    // Typed with accents, as the index folds them.
    const accented = s.addTurn({ session: sid, question: 'un café crème', answer_text: 'x' });
    expect(s.search('CAFÉ CRÈ').hits.map((h) => h.bates)).toEqual([accented.bates]);
    expect(s.search('crè').hits.map((h) => h.bates)).toEqual([accented.bates]);
    // Shard.find (the CLI) takes prefixes through the vocabulary too.
    expect(s.search('shou', { prefix: true }).hits.map((h) => h.bates)).toEqual([newest.bates]);
  });

  it('a hit found by a rare completion of the prefix still gets a snippet, the prefix marked', () => {
    const s = newShard();
    for (const w of ['should', 'shout', 'shore', 'shoe', 'shock', 'shop'])
      for (let i = 0; i < 3; i++) s.addTurn({ question: `q${i}`, answer_text: `the ${w} is here` });
    const rare = s.addTurn({ question: 'laces', answer_text: 'a new shoelace for the boot' });
    const hit = s.search('sho', { limit: 50 }).hits.find((h) => h.bates === rare.bates);
    expect(hit?.snippet).toContain('«sho»elace');
  });

  it('corrects a typo from the vocabulary, the most frequent variant first', () => {
    const s = newShard();
    s.addTurn({ question: 'lifetime rules', answer_text: 'lifetime' });
    s.addTurn({ question: 'lifeline', answer_text: 'x' });
    const r = s.search('lifetme ');
    expect(r.corrections.lifetme).toEqual(['lifetime']);
    expect(r.hits[0].question).toBe('lifetime rules');
  });

  it('a read-only connection finds turns still waiting to be indexed, by prefix too', () => {
    const path = tempDb();
    const w = newShard(path);
    w.addTurn({ question: 'indexed first', answer_text: 'x' });
    w.deferIndexing = true;
    const waiting = w.addTurn({ question: 'thermodynamics waits', answer_text: 'entropy' });
    // Closed without indexing: as a writer killed before its flush leaves it.
    dbOf(w).close();
    const ro = Shard.open(path, { readonly: true });
    expect(dbOf(ro).prepare('SELECT count(*) FROM fts_pending').pluck().get()).toBe(1);
    expect(ro.search('thermo').hits.map((h) => h.bates)).toEqual([waiting.bates]);
    expect(ro.search('entro').hits.map((h) => h.bates)).toEqual([waiting.bates]);
    ro.close();
  });
});

describe('migration 7', () => {
  it('a version 6 shard with FTS5 prefix indexes and a waiting turn gets the vocabulary and loses nothing', () => {
    const path = tempDb();
    const old = newShard(path);
    old.addTurn({ question: 'should I migrate', answer_text: 'the answer is yes' });
    old.deferIndexing = true;
    const waiting = old.addTurn({ question: 'thermal shouting', answer_text: 'waiting for the index' });
    // Back to the version 6 form: FTS5 with its prefix indexes, the fts5vocab table, no vocabulary.
    dbOf(old).exec(`DROP TABLE fts_terms; DROP TABLE questions_fts; DROP TABLE nodes_fts;
      CREATE VIRTUAL TABLE nodes_fts USING fts5(question, answer_text, cited_titles_json, content = 'nodes',
        content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
      CREATE VIRTUAL TABLE nodes_vocab USING fts5vocab(nodes_fts, 'row');
      INSERT INTO nodes_fts (rowid, question, answer_text, cited_titles_json)
        SELECT id, question, answer_text, cited_titles_json FROM nodes WHERE id NOT IN (SELECT id FROM fts_pending);`);
    dropSince0010(dbOf(old));
    dbOf(old).pragma('user_version = 6');
    dbOf(old).close();
    const s = newShard(path);
    expect(dbOf(s).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(dbOf(s).prepare('SELECT count(*) FROM fts_pending').pluck().get()).toBe(0);
    expect(
      dbOf(s).prepare("SELECT sql FROM sqlite_master WHERE name = 'nodes_fts'").pluck().get(),
    ).not.toMatch(/prefix/);
    expect(vocabulary(s)).toEqual(rebuilt(s));
    expect(s.search('shou').hits.map((h) => h.question)).toEqual(['thermal shouting', 'should I migrate']);
    expect(s.search('waiting for').hits[0].bates).toBe(waiting.bates);
    expect(s.verify().ok).toBe(true);
    expect(s.audit.check().ok).toBe(true);
    const last = s.audit.event(s.audit.head().seq);
    expect(last?.kind).toBe('shard.migrate');
  });

  it('a large shard says, before it starts, that its search index is being rebuilt; a small one says nothing', () => {
    const make = (turns: number) => {
      const path = tempDb();
      const old = newShard(path);
      const sid = old.createSession({}).sid;
      dbOf(old).exec(`DROP TABLE fts_terms; DROP TABLE questions_fts;
        WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ${turns})
        INSERT INTO nodes (bates, sid, seq, is_top, depth, question, answer_text, audit, created_at, node_hash)
          SELECT '${sid}-' || printf('%06d', i), '${sid}', i, 1, 0, 'q ' || i, 'a', 'grounded', '2026-01-01', x'00'
          FROM k;`);
      dropSince0010(dbOf(old));
      dbOf(old).pragma('user_version = 6');
      dbOf(old).close();
      const notes: string[] = [];
      const s = Shard.open(path, { onUpgrade: (n) => notes.push(n) });
      expect(dbOf(s).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(vocabulary(s).find(([t]) => t === 'q')?.[1]).toBe(turns);
      s.close();
      return notes;
    };
    expect(make(10)).toEqual([]);
    const notes = make(50_000);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/from schema 6 to \d+: rebuilding its search index over 50,000 turns, once/);
  });
});
