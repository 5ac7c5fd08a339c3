import { describe, expect, it } from 'vitest';
import { ask } from '../../src/ask/index.js';
import { archiveSessions, Shard } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';
import { tempDb } from '../support/tmp.js';

const pending = (s: Shard) => dbOf(s).prepare('SELECT count(*) FROM fts_pending').pluck().get() as number;
const indexed = (s: Shard, word: string) =>
  dbOf(s)
    .prepare('SELECT count(*) FROM nodes_fts WHERE nodes_fts MATCH ?')
    .pluck()
    .get(`"${word}"`) as number;

describe('deferred FTS indexing (interactive processes)', () => {
  it('queues new turns, and every reader of FTS5 indexes them first', () => {
    const s = Shard.open(tempDb());
    s.deferIndexing = true;
    const a = s.addTurn({ question: 'what is a walrus', answer_text: 'a large marine mammal' });
    s.addTurn({ question: 'and a narwhal?', answer_text: 'a whale with a tusk', parent: a.bates });
    expect(pending(s)).toBe(2);
    expect(indexed(s, 'walrus')).toBe(0);
    // search, find: index what waits, then answer.
    expect(s.search('walrus').hits.map((h) => h.bates)).toEqual([a.bates]);
    expect(pending(s)).toBe(0);
    expect(indexed(s, 'walrus')).toBe(1);
    s.addTurn({ question: 'narwhal tusks', answer_text: 'teeth', parent: a.bates });
    expect(s.search('narwhal').hits.length).toBe(2);
    expect(s.verify().ok).toBe(true);
    expect(s.chainCheck().ok).toBe(true);
    s.close();
  });

  it('indexes a batch inline once 256 turns wait, and the rest on close', () => {
    const path = tempDb();
    const s = Shard.open(path);
    s.deferIndexing = true;
    let parent: string | undefined;
    for (let i = 0; i < 300; i++)
      parent = s.addTurn({ question: `turn ${i} zebra`, answer_text: 'x', parent }).bates;
    // The 256th commit indexed everything waiting; 44 wait again.
    expect(pending(s)).toBe(44);
    expect(indexed(s, 'zebra')).toBe(256);
    s.close();
    const again = Shard.open(path);
    expect(pending(again)).toBe(0);
    expect(indexed(again, 'zebra')).toBe(300);
    again.close();
  });

  it('another process indexes what a crashed writer left waiting', () => {
    const path = tempDb();
    const s = Shard.open(path);
    s.deferIndexing = true;
    s.addTurn({ question: 'left waiting', answer_text: 'y' });
    // Simulate a crash: no flush on close.
    dbOf(s).close();
    const other = Shard.open(path);
    expect(pending(other)).toBe(1);
    expect(other.search('waiting').hits.length).toBe(1);
    expect(pending(other)).toBe(0);
    other.close();
  });

  it('archiving a session with turns still waiting leaves the index consistent', () => {
    const s = Shard.open(tempDb());
    s.deferIndexing = true;
    const keep = s.addTurn({ question: 'kept turn about otters', answer_text: 'k' });
    const gone = s.addTurn({ question: 'archived turn about otters', answer_text: 'g' });
    s.addTurn({ question: 'more otters', answer_text: 'g2', parent: gone.bates });
    archiveSessions(s, [gone.sid], 'deleted');
    expect(pending(s)).toBe(0);
    expect(s.search('otters').hits.map((h) => h.bates)).toEqual([keep.bates]);
    dbOf(s).exec("INSERT INTO nodes_fts (nodes_fts) VALUES ('integrity-check')");
    expect(s.verify().ok).toBe(true);
    s.close();
  });

  it('ask retrieves a turn that was still waiting to be indexed', async () => {
    const s = Shard.open(tempDb());
    s.deferIndexing = true;
    const src = s.addTurn({
      question: 'how do I enable WAL mode in sqlite',
      answer_text: 'PRAGMA journal_mode=WAL',
    });
    const r = await ask(s, { question: 'sqlite WAL mode' });
    expect(r.audit).toBe('grounded');
    expect(r.answer_text).toContain(`[${src.bates}]`);
    s.close();
  });
});
