import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { oneEditVariants, Shard, termHighlights } from '../../src/store/index.js';
import { tempDb } from '../support/tmp.js';

let shard: Shard;
beforeEach(() => {
  shard = Shard.open(tempDb());
});
afterEach(() => shard.close());

function turn(
  question: string,
  answer = 'an answer',
  opts: { label?: string; parent?: string; session?: string } = {},
) {
  return shard.addTurn({ question, answer_text: answer, ...opts });
}
const bates = (q: string, opts = {}) => shard.search(q, opts).hits.map((h) => h.bates);

describe('search (find engine)', () => {
  it('ranks the whole phrase above the same words scattered, and a question match above an answer match', () => {
    const scattered = turn('async code with many lifetimes to interact', 'x');
    const answerOnly = turn('unrelated question', 'how do lifetimes interact with async code');
    const phrase = turn('how do lifetimes interact with async code', 'y');
    expect(bates('lifetimes interact')).toEqual([phrase.bates, scattered.bates, answerOnly.bates]);
    const hits = shard.search('lifetimes interact').hits;
    expect(hits.map((h) => h.field)).toEqual(['question', 'question', 'answer']);
  });

  it('answer-only matches come after question matches, and are not read once question matches fill the ranking', () => {
    const sid = shard.createSession({}).sid;
    const few = Array.from({ length: 10 }, (_, i) => turn(`zeta question ${i}`, 'x', { session: sid }));
    const answerOnly = turn('other', 'zeta in the answer', { session: sid });
    let hits = shard.search('zeta', { limit: 50 }).hits;
    expect(hits.map((h) => h.bates).sort()).toEqual([...few.map((t) => t.bates), answerOnly.bates].sort());
    expect(hits.at(-1)?.bates).toBe(answerOnly.bates);
    // 100 question matches (twice the limit): an answer-only match could never be among the 50 shown.
    for (let i = 10; i < 100; i++) turn(`zeta question ${i}`, 'x', { session: sid });
    const newest = turn('other again', 'zeta zeta', { session: sid });
    hits = shard.search('zeta', { limit: 50 }).hits;
    expect(hits).toHaveLength(50);
    expect(hits.every((h) => h.field === 'question')).toBe(true);
    expect(hits.map((h) => h.bates)).not.toContain(newest.bates);
    // With a larger limit the ranking has room for it, so it is read and shown last.
    hits = shard.search('zeta', { limit: 200 }).hits;
    expect(hits.at(-1)?.field).toBe('answer');
  });

  it('requires the rarest words, not the ones nearly every turn holds; turns with every word still come first', () => {
    for (let i = 0; i < 6; i++) turn(`the the question ${i}`, 'the the the answer');
    const without = turn('zebra crossing', 'x');
    const withAll = turn('the zebra', 'x');
    expect(bates('the zebra ')).toEqual([withAll.bates, without.bates]);
    // Two rare words are both required: a turn with only one of them is not a candidate.
    const both = turn('zebra okapi', 'x');
    expect(bates('zebra okapi ')).toEqual([both.bates]);
  });

  it('forgives a one-letter typo, in a whole word and while typing', () => {
    const life = turn('what is a lifetime in rust');
    const wal = turn('sqlite WAL mode and checkpoints');
    turn('something else entirely');
    expect(bates('lifetme', { prefix: false })).toEqual([life.bates]);
    expect(bates('sqlte')).toEqual([wal.bates]);
    expect(bates('lifetmie')).toEqual([life.bates]);
    const r = shard.search('lifetme', { prefix: false });
    expect(r.corrections).toEqual({ lifetme: ['lifetime'] });
    // The correction is highlighted in the question.
    expect(r.hits[0].highlights).toEqual([[10, 17]]);
  });

  it('finds a turn by its Bates id or a prefix of it, and a session by its label', () => {
    const a = turn('first question', 'a', { label: 'rust lifetimes' });
    const b = turn('second question', 'b', { parent: a.bates });
    const c = turn('in another session', 'c', { label: 'sqlite wal' });
    expect(bates(b.bates)[0]).toBe(b.bates);
    expect(shard.search(b.bates).hits[0].field).toBe('bates');
    // A prefix finds every turn under it; the newer one first (recency breaks ties).
    expect(bates(`${a.sid}-00000`).slice(0, 2)).toEqual([b.bates, a.bates]);
    expect(bates(a.sid).slice(0, 2)).toEqual([b.bates, a.bates]);
    const byLabel = shard.search('sqlite wal').hits;
    expect(byLabel[0].bates).toBe(c.bates);
    expect(byLabel[0].field).toBe('label');
    expect(byLabel[0].label).toBe('sqlite wal');
    // A word inside a label matches too.
    expect(bates('lifetimes')[0]).toBe(a.bates);
  });

  it('treats hostile FTS5 syntax as text', () => {
    const t = turn('NEAR(a b) AND (c) col:value "quoted" x*');
    for (const q of [
      '"',
      'AND (',
      'NEAR(',
      'col:',
      'question:foo',
      '*',
      ')',
      'a OR b',
      '-x',
      '^x',
      '{question}:x',
      '\0',
    ]) {
      expect(() => shard.search(q), q).not.toThrow();
    }
    expect(bates('NEAR(a')).toContain(t.bates);
    expect(bates('col:value')).toEqual([t.bates]);
  });

  it('handles CJK and emoji text, an empty query and no hits', () => {
    const ja = turn('日本語のテキスト について', 'こんにちは');
    const emoji = turn('deploy 🚀 rocket launch', 'ok');
    expect(bates('日本語のテキスト')).toEqual([ja.bates]);
    expect(bates('rocket')).toEqual([emoji.bates]);
    expect(() => shard.search('🚀')).not.toThrow();
    expect(shard.search('').hits).toEqual([]);
    expect(shard.search('   ').hits).toEqual([]);
    expect(shard.search('zzzqqqxxx').hits).toEqual([]);
    expect(shard.search('zzzqqqxxx').searched).toBe(2);
  });

  it('scopes to one session and counts what it searched', () => {
    const a = turn('tmux copy mode', 'a', { label: 'tmux' });
    turn('tmux panes', 'b', { parent: a.bates });
    const other = turn('tmux in another session', 'c');
    expect(shard.search('tmux').hits).toHaveLength(3);
    const scoped = shard.search('tmux', { scope: a.sid });
    expect(scoped.hits.map((h) => h.sid)).toEqual([a.sid, a.sid]);
    expect(scoped.searched).toBe(2);
    expect(shard.search('tmux', { scope: other.sid }).hits.map((h) => h.bates)).toEqual([other.bates]);
    expect(shard.search('tmux').searched).toBe(3);
  });

  it('breaks ties by recency and honours the limit', () => {
    const ids = [];
    for (let i = 0; i < 10; i++) ids.push(turn(`same question about vim`).bates);
    expect(bates('vim', { limit: 3 })).toEqual(ids.slice(-3).reverse());
  });

  it('finds a cross-session fork and its hit carries the session label', () => {
    const a = turn('how do lifetimes work', 'a', { label: 'rust' });
    const s2 = shard.createSession({ label: 'later' });
    const f = turn('follow up on borrowing', 'b', { session: s2.sid, parent: a.bates });
    const hit = shard.search('borrowing').hits[0];
    expect(hit.bates).toBe(f.bates);
    expect(hit.label).toBe('later');
  });
});

describe('search helpers', () => {
  it('oneEditVariants covers deletion, insertion, substitution and transposition', () => {
    const v = new Set(oneEditVariants('lifetme'));
    expect(v.has('lifetime')).toBe(true); // insertion
    expect(v.has('lifeme')).toBe(true); // deletion
    expect(v.has('lifetne')).toBe(true); // substitution
    expect(v.has('liftema')).toBe(false); // two edits
    expect(new Set(oneEditVariants('sqltie')).has('sqlite')).toBe(true); // transposition
    expect(v.has('lifetme')).toBe(false);
  });

  it('termHighlights marks word starts only, merged', () => {
    expect(termHighlights('Lifetimes and lifetime', ['lifetime'])).toEqual([
      [0, 7],
      [14, 21],
    ]);
    expect(termHighlights('prelifetime', ['lifetime'])).toEqual([]);
  });
});
