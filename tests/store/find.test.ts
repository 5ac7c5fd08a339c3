import { describe, expect, it } from 'vitest';
import { matchExpression, queryTerms, type Shard } from '../../src/store/index.js';
import { newShard } from './util.js';

function corpus(s: Shard) {
  s.createSession({ sid: 'aaaa', label: 'rust' });
  s.createSession({ sid: 'bbbb', label: 'sqlite' });
  const t = {
    life: s.addTurn({
      question: 'How do lifetimes interact with async?',
      answer_text: 'Borrowed data must outlive the future.',
      cited_titles: ['The Rust Book 10.3'],
      audit: 'fresh',
      session: 'aaaa',
    }),
    wal: s.addTurn({
      question: 'What does WAL mode change?',
      answer_text: 'Readers do not block the writer; lifetimes are not involved.',
      audit: 'cached',
      cache_key: 'ck-wal',
      session: 'bbbb',
    }),
    cite: s.addTurn({
      question: 'Where is checkpointing documented?',
      answer_text: 'See the manual.',
      cited_titles: ['Write-Ahead Logging (zebrafish edition)'],
      session: 'bbbb',
    }),
    qcol: s.addTurn({ question: 'foo bar baz', answer_text: 'plain', session: 'aaaa' }),
    qtext: s.addTurn({ question: 'a question about foo', answer_text: 'plain', session: 'aaaa' }),
    colour: s.addTurn({
      question: 'colour schemes',
      answer_text: 'android nearby order xylophone',
      session: 'aaaa',
    }),
    x: s.addTurn({ question: 'the x axis', answer_text: '', session: 'aaaa' }),
  };
  return t;
}

describe('find', () => {
  it('returns hits with bates, audit, question and a snippet', () => {
    const s = newShard();
    const t = corpus(s);
    const hits = s.search('lifetimes async').hits;
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({
      bates: t.life.bates,
      sid: 'aaaa',
      seq: 1,
      audit: 'fresh',
      question: 'How do lifetimes interact with async?',
      field: 'question',
    });
    expect(hits[0].snippet).toContain('«lifetimes»');
  });

  it('finds words in the answer and in cited titles, question hits first', () => {
    const s = newShard();
    const t = corpus(s);
    const hits = s.search('lifetimes').hits;
    expect(hits.map((h) => h.bates)).toEqual([t.life.bates, t.wal.bates]);
    expect(hits.map((h) => h.field)).toEqual(['question', 'answer']);
    expect(hits[1].audit).toBe('cached');
    expect(s.search('zebrafish').hits.map((h) => h.bates)).toEqual([t.cite.bates]);
  });

  it('folds case and diacritics', () => {
    const s = newShard();
    const t = s.addTurn({ question: 'Crème brûlée à la Ünïcode', answer_text: 'decomposed cafe\u0301 text' });
    for (const q of ['creme', 'BRULEE', 'unicode', 'Crème brûlée', 'café', 'cafe\u0301', 'cafe']) {
      expect(
        s.search(q).hits.map((h) => h.bates),
        q,
      ).toEqual([t.bates]);
    }
  });

  it('matches the last term as a prefix, from two characters, unless the query ends in a space', () => {
    const s = newShard();
    const t = corpus(s);
    expect(s.search('lifet').hits.map((h) => h.bates)).toEqual([t.life.bates, t.wal.bates]);
    expect(s.search('interact asy').hits.map((h) => h.bates)).toEqual([t.life.bates]);
    // Only the LAST term is a prefix.
    expect(s.search('lifet async').hits).toEqual([]);
    // A trailing space means the word is finished.
    expect(s.search('lifet ').hits).toEqual([]);
    expect(s.search('lifet', { prefix: false }).hits).toEqual([]);
    // One letter is not a prefix (it would merge thousands of terms): it must match a whole word.
    expect(s.search('l').hits).toEqual([]);
    expect(s.search('x').hits.map((h) => h.bates)).toEqual([t.x.bates]);
  });

  it('says which words the hits matched: whole words (folded, typo corrections too) and the prefix being typed', () => {
    const s = newShard();
    corpus(s);
    expect(s.search('Interact ASY').match).toEqual({ words: ['interact'], prefix: 'asy' });
    expect(s.search('interact asy ').match).toEqual({ words: ['interact', 'asy'], prefix: null });
    // one letter is matched as a whole word, not as a prefix
    expect(s.search('x').match).toEqual({ words: ['x'], prefix: null });
    expect(s.search('Écrit').match).toEqual({ words: [], prefix: 'ecrit' });
    expect(s.search('xylophnoe ').match).toEqual({ words: ['xylophnoe', 'xylophone'], prefix: null });
    // filters are not words; nothing to match when nothing was searched
    expect(s.search('after:2020-01-01 interact ').match.words).toEqual(['interact']);
    expect(s.search('').match).toEqual({ words: [], prefix: null });
  });

  it('honours limit and scope', () => {
    const s = newShard();
    const t = corpus(s);
    expect(s.search('lifetimes', { limit: 1 }).hits).toHaveLength(1);
    expect(s.search('lifetimes', { scope: 'bbbb' }).hits.map((h) => h.bates)).toEqual([t.wal.bates]);
    expect(s.search('lifetimes', { scope: 'aaaa' }).hits.map((h) => h.bates)).toEqual([t.life.bates]);
    expect(s.search('lifetimes', { scope: 'nosuch' }).hits).toEqual([]);
  });

  it('returns [] for an empty query or one with no words', () => {
    const s = newShard();
    corpus(s);
    for (const q of ['', '   ', '"', '*', '^', '""', '()', '-', ':', '😀🎉', '\u0000', '\u200b']) {
      expect(s.search(q).hits, JSON.stringify(q)).toEqual([]);
    }
  });

  it('treats hostile FTS5 syntax as plain text, never as operators', () => {
    const s = newShard();
    const t = corpus(s);
    const hostile = [
      '"',
      '"lifetimes',
      'lifetimes"',
      'AND (',
      'lifetimes AND (',
      'NEAR(',
      'NEAR(lifetimes async, 2)',
      'col:',
      'question:foo',
      '{question}: foo',
      'answer_text : foo',
      '*',
      'lifet*',
      '^',
      '^lifetimes',
      '-x',
      'OR',
      'NOT',
      'lifetimes OR wal',
      'lifetimes NOT async',
      '((lifetimes',
      'lifetimes))',
      ')(',
      "'; DROP TABLE nodes; --",
      'a + b',
      '\\',
      '%_',
    ];
    for (const q of hostile) {
      expect(() => s.search(q).hits, q).not.toThrow();
    }
    const bates = (q: string) => s.search(q).hits.map((h) => h.bates);
    // `question:foo` is the two words "question" and "foo", not a column filter: the turn whose question is
    // "foo bar baz" (with no word "question" anywhere) must not match.
    expect(bates('question:foo')).toEqual([t.qtext.bates]);
    // `col:` is the prefix "col", which matches "colour".
    expect(bates('col:')).toEqual([t.colour.bates]);
    // Operators are words: `AND (` is the prefix "and" (android), `NEAR(` the prefix "near" (nearby),
    // `OR` the prefix "or" (order), `NOT` the prefix "not" (the WAL answer).
    expect(bates('AND (')).toEqual([t.colour.bates]);
    expect(bates('NEAR(')).toEqual([t.colour.bates]);
    expect(bates('OR')).toEqual([t.colour.bates]);
    expect(bates('NOT')).toEqual([t.wal.bates]);
    // `lifetimes OR wal` would match two turns as an OR query; as text all three words must occur.
    expect(bates('lifetimes OR wal')).toEqual([]);
    expect(bates('lifetimes NOT async')).toEqual([]);
    // `-x` is the word x, not an exclusion.
    expect(bates('-x')).toEqual([t.x.bates]);
    expect(bates('((lifetimes')).toEqual([t.life.bates, t.wal.bates]);
    expect(bates('"lifetimes')).toEqual([t.life.bates, t.wal.bates]);
    // The shard is untouched.
    expect(s.verify().ok).toBe(true);
    expect(s.chainCheck().ok).toBe(true);
  });

  it('quotes every term in the match expression', () => {
    expect(queryTerms('NEAR(a b) AND "c" question:Déjà')).toEqual([
      'near',
      'a',
      'b',
      'and',
      'c',
      'question',
      'déjà',
    ]);
    const under = (p: string) => ['order', 'or', 'orbit'].filter((t) => t.startsWith(p));
    expect(matchExpression(['near', 'and', 'or'], true, under)).toBe(
      '"near" AND "and" AND ("order" OR "or" OR "orbit")',
    );
    expect(matchExpression(['near', 'orb'], true, under)).toBe('"near" AND "orbit"');
    expect(matchExpression(['near', 'zz'], true, under)).toBe('"near" AND "zz"');
    expect(matchExpression(['x'], true, under)).toBe('"x"');
    expect(matchExpression(['ab', 'or'], false, under)).toBe('"ab" AND "or"');
    const long = 'a'.repeat(65);
    expect(matchExpression([long], true, under)).toBe(`"${long}"*`);
    expect(queryTerms('')).toEqual([]);
    expect(queryTerms('" * ^ ( ) : -')).toEqual([]);
  });

  it('handles CJK, emoji and other scripts without throwing', () => {
    const s = newShard();
    const ja = s.addTurn({ question: '日本語のテキスト 😀 emoji', answer_text: '中文 答案' });
    const hi = s.addTurn({ question: 'हिन्दी भाषा', answer_text: 'Ελληνικά και русский' });
    const ar = s.addTurn({ question: 'مرحبا بالعالم', answer_text: '👩‍👩‍👧‍👦 family' });
    expect(s.search('日本語のテキスト').hits.map((h) => h.bates)).toEqual([ja.bates]);
    expect(s.search('中文').hits.map((h) => h.bates)).toEqual([ja.bates]);
    expect(s.search('русский').hits.map((h) => h.bates)).toEqual([hi.bates]);
    expect(s.search('ΕΛΛΗΝΙΚΆ').hits.map((h) => h.bates)).toEqual([hi.bates]);
    expect(s.search('हिन्दी').hits.map((h) => h.bates)).toEqual([hi.bates]);
    expect(s.search('مرحبا').hits.map((h) => h.bates)).toEqual([ar.bates]);
    expect(s.search('emoji 😀').hits.map((h) => h.bates)).toEqual([ja.bates]);
    for (const q of ['😀', '👩‍👩‍👧‍👦', '日', '\ud800', 'a\udfffb', '\u202eevil', '\u0301']) {
      expect(() => s.search(q).hits, JSON.stringify(q)).not.toThrow();
    }
  });

  it('finds by cache key, oldest first', () => {
    const s = newShard();
    const a = s.addTurn({ question: 'q1', answer_text: 'a', cache_key: 'k1' });
    s.addTurn({ question: 'q2', answer_text: 'a', cache_key: 'k2' });
    const c = s.addTurn({
      question: 'q1 again',
      answer_text: 'a',
      cache_key: 'k1',
      parent: a.bates,
      audit: 'cached',
    });
    expect(s.findByCacheKey('k1').map((n) => [n.bates, n.audit])).toEqual([
      [a.bates, 'manual'],
      [c.bates, 'cached'],
    ]);
    expect(s.findByCacheKey('nope')).toEqual([]);
  });
});
