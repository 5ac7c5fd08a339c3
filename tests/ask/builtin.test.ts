import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ask,
  BUILTIN_POLICY,
  cacheKey,
  citedBates,
  conversationHash,
  retrieve,
  UNGROUNDED_ANSWER,
} from '../../src/ask/index.js';
import { postingsOf, Shard } from '../../src/store/index.js';
import { tempDb } from '../support/tmp.js';
import { type Corpus, counts, seed } from './helpers.js';

let shard: Shard;
let c: Corpus;

beforeEach(() => {
  shard = Shard.open(tempDb());
  c = seed(shard);
});
afterEach(() => shard.close());

function sidOf(bates: string): string {
  return bates.split('-')[0];
}

describe('built-in answerer', () => {
  it('cites the right earlier turns, as pointer lines whose Bates ids resolve', async () => {
    const chunks: string[] = [];
    const r = await ask(shard, {
      question: 'How does SQLite WAL mode handle readers?',
      onChunk: (t) => chunks.push(t),
    });
    expect(r.audit).toBe('grounded');
    expect(r.provider).toBe(BUILTIN_POLICY);
    const cited = citedBates(r.answer_text);
    expect(cited[0]).toBe(c.b1);
    expect(cited).toContain(c.b2);
    for (const id of [c.a1, c.a2, c.c1, c.c2, c.d1, c.e1]) expect(cited).not.toContain(id);
    expect(r.answer_text).toContain(`[${c.b1}] how does sqlite wal mode work?\n  `);
    expect(chunks.join('')).toBe(r.answer_text);

    const node = shard.requireNode(r.bates);
    expect(node.audit).toBe('grounded');
    expect(node.answer_text).toBe(r.answer_text);
    expect(node.n_cited_sources).toBe(cited.length);
    expect(node.cited_titles).toEqual(cited.map((b) => shard.requireNode(b).question));
    expect(node.cache_key).toBe(r.cache_key);
    for (const b of cited) expect(shard.getNode(b)).toBeDefined();
    expect(shard.chainCheck().ok).toBe(true);
    expect(shard.verify().ok).toBe(true);
  });

  it('a snippet of each cited answer follows its pointer line', async () => {
    const r = await ask(shard, { question: 'sqlite checkpoint' });
    const lines = r.answer_text.split('\n');
    const at = lines.findIndex((l) => l.startsWith(`[${c.b2}] `));
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toMatch(/^ {2}A checkpoint moves committed pages/);
  });

  it('cites turns of other sessions, from a turn deep in one session', async () => {
    const r = await ask(shard, { question: 'what does a wal checkpoint do?', parent: c.a2 });
    expect(r.sid).toBe(sidOf(c.a1));
    const cited = citedBates(r.answer_text);
    expect(cited.slice(0, 2).sort()).toEqual([c.b1, c.b2].sort());
    expect(cited.every((b) => sidOf(b) === sidOf(c.b1))).toBe(true);
  });

  it('never cites the conversation it continues', async () => {
    const r = await ask(shard, { question: 'rust borrow checker ownership', parent: c.a2 });
    const cited = citedBates(r.answer_text);
    expect(cited).not.toContain(c.a1);
    expect(cited).not.toContain(c.a2);
  });

  it('stop words do not drive retrieval', async () => {
    // "what is it and how is it done?" is all stop words: it must not be cited for other stop-word questions.
    const r1 = await ask(shard, { question: 'What is it, and how is it done?' });
    expect(r1.audit).toBe('ungrounded');
    expect(r1.answer_text).toBe(UNGROUNDED_ANSWER);
    expect(r1.cited_titles).toEqual([]);
    expect(r1.n_cited_sources).toBe(0);
    const r2 = await ask(shard, { question: 'what is rust?' });
    const cited = citedBates(r2.answer_text);
    expect(cited).toContain(c.a1);
    expect(cited).not.toContain(c.e1);
    expect(cited).not.toContain(c.b1);
  });

  it('says so plainly when nothing is relevant (ungrounded), and stores the turn', async () => {
    const before = counts(shard);
    const r = await ask(shard, { question: 'quantum chromodynamics on a lattice' });
    expect(r.audit).toBe('ungrounded');
    expect(r.answer_text).toMatch(/^Nothing in your history relates to this question/);
    expect(citedBates(r.answer_text)).toEqual([]);
    expect(counts(shard).nodes).toBe(before.nodes + 1);
    expect(shard.requireNode(r.bates).audit).toBe('ungrounded');
  });

  it('on an empty shard every answer is ungrounded', async () => {
    const empty = Shard.open(tempDb());
    try {
      const r = await ask(empty, { question: 'what is rust?' });
      expect(r.audit).toBe('ungrounded');
      expect(r.created_session).toBe(true);
    } finally {
      empty.close();
    }
  });

  it('a cited question with nothing printable still gets a title', async () => {
    const odd = shard.addTurn({ question: '\u0007\u0008', answer_text: 'zebra crossing rules' }).bates;
    const r = await ask(shard, { question: 'zebra crossing' });
    expect(citedBates(r.answer_text)).toEqual([odd]);
    expect(r.cited_titles).toEqual([odd]);
  });

  it('matches across diacritics and case', async () => {
    const x = shard.addTurn({ question: 'how to brew a café crème', answer_text: 'Use a 1:2 ratio.' }).bates;
    const r = await ask(shard, { question: 'CAFE CREME ratio' });
    expect(citedBates(r.answer_text)[0]).toBe(x);
  });

  it('ancestor keywords flow down the branch: a bare pronoun retrieves what the ancestors cited', async () => {
    // A new conversation about rust: the built-in answer cites the rust turns.
    const root = await ask(shard, { question: 'tell me about rust', label: 'learning' });
    const rootCited = citedBates(root.answer_text);
    expect(rootCited).toEqual(expect.arrayContaining([c.a1, c.c1]));
    expect(root.cited_titles).toEqual(expect.arrayContaining(['what is rust?', 'who created rust?']));

    // "who created it?" alone is about whatever was created: python is as good as rust.
    const alone = retrieve(postingsOf(shard), 'who created it?', []);
    expect(alone.keywords).toEqual([]);
    expect(alone.citations.map((x) => x.bates)).toEqual(expect.arrayContaining([c.c1, c.d1]));

    // Under the rust conversation, "it" is rust: the ancestors' cited titles add "rust" to the retrieval.
    const follow = await ask(shard, { question: 'who created it?', parent: root.bates });
    const followCited = citedBates(follow.answer_text);
    expect(followCited[0]).toBe(c.c1);
    expect(followCited).toContain(c.a1);
    expect(followCited.indexOf(c.d1) === -1 || followCited.indexOf(c.d1) > followCited.indexOf(c.a1)).toBe(
      true,
    );
    expect(followCited).not.toContain(c.b1);

    // One more level down: a word found nowhere, a pronoun, and the branch still knows what "it" is.
    // (The same question without the branch has nothing to stand on.)
    expect(retrieve(postingsOf(shard), 'why is it so popular?', []).citations).toEqual([]);
    const deeper = await ask(shard, { question: 'why is it so popular?', parent: follow.bates });
    expect(deeper.audit).toBe('grounded');
    const deeperCited = citedBates(deeper.answer_text);
    expect(deeperCited).toEqual(expect.arrayContaining([c.a1, c.c1]));
    expect(deeperCited).not.toContain(c.b1);
    expect(deeperCited).not.toContain(c.c2);

    // The keywords change retrieval, never the cache key.
    const path = shard.pathTo(follow.bates);
    expect(deeper.cache_key).toBe(cacheKey('why is it so popular?', BUILTIN_POLICY, conversationHash(path)));
  });

  it('a follow-up with its own topic is not pulled to the ancestors topic', async () => {
    const root = await ask(shard, { question: 'tell me about rust' });
    const r = await ask(shard, { question: 'how does sqlite checkpoint the wal?', parent: root.bates });
    const cited = citedBates(r.answer_text);
    expect(cited[0]).toBe(c.b2);
    expect(cited).not.toContain(c.a1);
    const off = await ask(shard, { question: 'how long do I knead bread?', parent: root.bates });
    expect(off.audit).toBe('ungrounded');
  });

  it('finds an old turn that matches several common words, beneath many newer single-word matches', async () => {
    const old = shard.addTurn({
      question: 'sqlite vacuum performance checklist',
      answer_text: 'Measure first.',
    }).bates;
    shard.write(() => {
      for (let i = 0; i < 150; i++) {
        shard.addTurn({ question: `sqlite note ${i}`, answer_text: `about sqlite, item ${i}` });
        shard.addTurn({ question: `performance note ${i}`, answer_text: `about performance, item ${i}` });
        shard.addTurn({ question: `vacuum note ${i}`, answer_text: `about vacuum, item ${i}` });
      }
    });
    const r = retrieve(postingsOf(shard), 'sqlite vacuum performance', []);
    expect(r.citations[0].bates).toBe(old);
  });

  it('cites sources, not earlier built-in answers or cached copies of them', async () => {
    const first = await ask(shard, { question: 'sqlite checkpoint', parent: c.a1 });
    const copy = await ask(shard, { question: 'sqlite checkpoint', parent: c.a1 });
    expect(copy.audit).toBe('cached');
    const again = await ask(shard, { question: 'sqlite checkpoint' });
    expect(again.audit).toBe('grounded');
    const cited = citedBates(again.answer_text);
    expect(cited).toEqual(expect.arrayContaining([c.b1, c.b2]));
    expect(cited).not.toContain(first.bates);
    expect(cited).not.toContain(copy.bates);
  });

  it('many recent built-in answers do not crowd out the sources', async () => {
    shard.write(() => {
      for (let i = 0; i < 150; i++) {
        shard.addTurn({
          question: `note ${i}`,
          answer_text: `[x-000001] sqlite wal ${i}`,
          audit: 'grounded',
        });
      }
    });
    const r = await ask(shard, { question: 'sqlite wal' });
    expect(r.audit).toBe('grounded');
    expect(citedBates(r.answer_text).slice(0, 2).sort()).toEqual([c.b1, c.b2].sort());
  });

  it('cites a question asked twice only once', async () => {
    const twin = shard.addTurn({
      question: 'How does SQLite WAL mode work?',
      answer_text: 'Same question.',
      parent: c.b1,
    });
    const cited = citedBates((await ask(shard, { question: 'sqlite wal mode' })).answer_text);
    expect(cited.filter((b) => b === c.b1 || b === twin.bates)).toHaveLength(1);
  });

  it('skips earlier ungrounded turns: "nothing found" is no source', async () => {
    const first = await ask(shard, { question: 'quantum chromodynamics on a lattice' });
    expect(first.audit).toBe('ungrounded');
    const again = await ask(shard, { question: 'lattice quantum chromodynamics?' });
    expect(again.audit).toBe('ungrounded');
  });
});

describe('sessions, parents and forks', () => {
  it('without parent and session: a new session, labelled when asked', async () => {
    const before = counts(shard);
    const r = await ask(shard, { question: 'what is rust?', label: 'fresh start' });
    expect(r.created_session).toBe(true);
    expect(r.seq).toBe(1);
    expect(r.parent_bates).toBeNull();
    expect(shard.getSession(r.sid)?.label).toBe('fresh start');
    expect(counts(shard).sessions).toBe(before.sessions + 1);
  });

  it('a parent: the turn joins the parent session', async () => {
    const r = await ask(shard, { question: 'and lifetimes?', parent: c.a2 });
    expect(r.sid).toBe(sidOf(c.a2));
    expect(r.parent_bates).toBe(c.a2);
    expect(r.created_session).toBe(false);
  });

  it('a session by label: the turn joins it', async () => {
    const r = await ask(shard, { question: 'what about wal2?', session: 'db' });
    expect(r.sid).toBe(sidOf(c.b1));
    expect(r.parent_bates).toBeNull();
  });

  it('fork: a new session whose first turn hangs under a turn of another session', async () => {
    const r = await ask(shard, { question: 'does rust have a gc?', parent: c.a2, fork: true, label: 'gc' });
    expect(r.created_session).toBe(true);
    expect(r.sid).not.toBe(sidOf(c.a2));
    expect(r.seq).toBe(1);
    expect(r.parent_bates).toBe(c.a2);
    expect(shard.getSession(r.sid)?.label).toBe('gc');
    const node = shard.requireNode(r.bates);
    expect(node.is_top).toBe(true);
    expect(shard.pathTo(r.bates).map((n) => n.bates)).toEqual([c.a1, c.a2, r.bates]);
    expect(shard.chainCheck().ok).toBe(true);
    expect(shard.verify().ok).toBe(true);
  });

  it('fork without a parent: a new session with a root turn', async () => {
    const r = await ask(shard, { question: 'a new topic', fork: true });
    expect(r.created_session).toBe(true);
    expect(r.parent_bates).toBeNull();
  });

  it('bad ids fail before anything is answered or stored', async () => {
    const before = counts(shard);
    let chunks = 0;
    const onChunk = () => chunks++;
    await expect(ask(shard, { question: 'x', parent: 'zzzz-000009', onChunk })).rejects.toThrow(
      /no turn zzzz-000009/,
    );
    await expect(ask(shard, { question: 'x', parent: 'not-an-id', onChunk })).rejects.toThrow(
      /not a Bates id/,
    );
    await expect(ask(shard, { question: 'x', session: 'nosuch', onChunk })).rejects.toThrow(
      /no session 'nosuch'/,
    );
    await expect(ask(shard, { question: 'x', session: 'db', fork: true, onChunk })).rejects.toMatchObject({
      kind: 'usage',
    });
    await expect(ask(shard, { question: '   ', onChunk })).rejects.toThrow(/question is empty/);
    expect(chunks).toBe(0);
    expect(counts(shard)).toEqual(before);
  });

  it('manual answers: stored as given, tagged manual, with their cited titles', async () => {
    const r = await ask(shard, {
      question: 'what did the docs say?',
      provider: { kind: 'manual', answer: 'See chapter 4.' },
      cited_titles: ['The Rust Book, ch. 4'],
      parent: c.a1,
    });
    expect(r.audit).toBe('manual');
    const n = shard.requireNode(r.bates);
    expect(n.answer_text).toBe('See chapter 4.');
    expect(n.cited_titles).toEqual(['The Rust Book, ch. 4']);
    expect(n.n_cited_sources).toBe(1);
    expect(n.audit).toBe('manual');
  });

  it('a read-only shard is refused before answering', async () => {
    const ro = Shard.open(shard.path, { readonly: true });
    try {
      await expect(ask(ro, { question: 'what is rust?' })).rejects.toThrow(/read-only/);
    } finally {
      ro.close();
    }
  });
});
