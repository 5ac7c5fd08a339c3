import { describe, expect, it } from 'vitest';
import { Shard } from '../../src/store/index.js';
import { tempDb } from '../support/tmp.js';
import { errorOf, newShard } from './util.js';

describe('text edge cases', () => {
  it('stores and finds a 1 MB question', () => {
    const s = newShard();
    const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
    let q = '';
    for (let i = 0; q.length < 1024 * 1024; i++) q += `${words[i % words.length]} `;
    q += 'zebracorn';
    const t = s.addTurn({ question: q, answer_text: 'big' });
    const back = s.requireNode(t.bates);
    expect(back.question.length).toBe(q.length);
    expect(back.question === q).toBe(true);
    const hits = s.search('zebracorn').hits;
    expect(hits.map((h) => h.bates)).toEqual([t.bates]);
    expect(hits[0].snippet).toContain('«zebracorn»');
    expect(hits[0].snippet.length).toBeLessThan(1000);
    expect(s.verify().ok).toBe(true);
  });

  it('refuses a question over 16 MiB', () => {
    const s = newShard();
    expect(
      errorOf(() => s.addTurn({ question: 'x'.repeat(16 * 1024 * 1024 + 1), answer_text: '' })).kind,
    ).toBe('input');
  });

  it('stores binary-ish text (NUL, controls, escapes, DEL, C1) verbatim', () => {
    const path = tempDb();
    const s = Shard.open(path);
    const q =
      'nul\u0000byte \u0001\u0002\u0007\b\t\n\v\f\r \u001b[31mred\u001b[0m \u007f \u009b31m \u0085 end';
    const a = 'a\u0000b\u0000\u0000c\u001b]52;c;aGVsbG8=\u0007';
    const cite = 'title\u0000with nul';
    const t = s.addTurn({ question: q, answer_text: a, cited_titles: [cite] });
    const back = s.requireNode(t.bates);
    expect(back.question).toBe(q);
    expect(back.answer_text).toBe(a);
    expect(back.cited_titles).toEqual([cite]);
    s.close();
    // and across a reopen, with its hashes intact
    const s2 = newShard(path);
    expect(s2.requireNode(t.bates).question).toBe(q);
    expect(s2.requireNode(t.bates).answer_text).toBe(a);
    expect(s2.verify().ok).toBe(true);
    expect(s2.search('end').hits.map((h) => h.bates)).toEqual([t.bates]);
  });

  it('stores a lone surrogate as well-formed text, without throwing', () => {
    const s = newShard();
    const t = s.addTurn({
      question: 'lone \ud800 high and \udfff low',
      answer_text: 'tail \ud83d',
      cited_titles: ['\udc00 title'],
      label: 'bad \ud800 label',
    });
    const back = s.requireNode(t.bates);
    expect(back.question).toBe('lone \ufffd high and \ufffd low');
    expect(back.answer_text).toBe('tail \ufffd');
    expect(back.cited_titles).toEqual(['\ufffd title']);
    expect(back.question.isWellFormed()).toBe(true);
    expect(s.getSession(t.sid)!.label).toBe('bad \ufffd label');
    // a well-formed pair is kept as it is
    const emoji = s.addTurn({ question: 'pair \ud83d\ude00 ok', answer_text: '' });
    expect(s.requireNode(emoji.bates).question).toBe('pair 😀 ok');
    expect(s.verify().ok).toBe(true);
    expect(s.search('high').hits.map((h) => h.bates)).toEqual([t.bates]);
  });

  it('keeps combining sequences, bidi controls and zero-width characters exactly (no normalisation)', () => {
    const s = newShard();
    const q = 'cafe\u0301 \u202eevil\u202c zero\u200bwidth \ufeffbom 👩‍👩‍👧‍👦';
    const t = s.addTurn({ question: q, answer_text: '' });
    expect(s.requireNode(t.bates).question).toBe(q);
    expect(s.verify().ok).toBe(true);
  });

  it('rejects an empty or blank question with kind input', () => {
    const s = newShard();
    for (const q of ['', ' ', '\n\t\r ', '\u00a0', '\u3000']) {
      const e = errorOf(() => s.addTurn({ question: q, answer_text: 'a' }));
      expect(e.kind, JSON.stringify(q)).toBe('input');
      expect(e.message).toMatch(/question/);
    }
    expect(s.listSessions()).toEqual([]);
  });
});

describe('addTurn rejects non-text metadata from untyped callers', () => {
  it('refuses a number where text belongs, and writes nothing', () => {
    const s = Shard.open(tempDb());
    const before = s.chainHead();
    for (const field of ['source', 'source_id', 'cache_key', 'created_at']) {
      expect(() => s.addTurn({ question: 'q', answer_text: 'a', [field]: 42 } as never), field).toThrow(
        /must be text/,
      );
    }
    expect(s.chainHead()).toBe(before);
    expect(s.listSessions()).toEqual([]);
    s.close();
  });
});
