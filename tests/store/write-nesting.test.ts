import { describe, expect, it } from 'vitest';
import { dbOf } from '../../src/store/testing.js';
import { newShard } from './util.js';

/**
 * A write() inside a write() joins the open transaction (no SAVEPOINT: FTS5 flushes at every savepoint, which made
 * batched adds four times slower). A nested write that fails before changing anything leaves the batch free to go
 * on; one that fails after changing something dooms the whole batch, even if the caller catches the error.
 */
describe('nested writes', () => {
  it('a batch of adds commits together and is found, verified and chained like single adds', () => {
    const s = newShard();
    const root = s.addTurn({ question: 'root question', answer_text: 'root answer' });
    let parent = root.bates;
    s.write(() => {
      for (let i = 0; i < 50; i++)
        parent = s.addTurn({ question: `batched ${i} zebra`, answer_text: 'x', parent }).bates;
    });
    expect(s.search('zebra', { limit: 100 }).hits).toHaveLength(50);
    expect(s.verify().ok).toBe(true);
    expect(s.chainCheck()).toMatchObject({ ok: true, events: 1 + 1 + 1 + 50 }); // init, session, root, 50 adds
  });

  it('a nested failure before any change leaves the batch going', () => {
    const s = newShard();
    const a = s.addTurn({ question: 'root', answer_text: 'a' });
    s.write(() => {
      expect(() => s.addTurn({ question: 'x', answer_text: 'y', parent: 'zzzz-000009' })).toThrow(/no turn/);
      s.addTurn({ question: 'kept', answer_text: 'b', parent: a.bates });
    });
    expect(dbOf(s).prepare('SELECT count(*) FROM nodes').pluck().get()).toBe(2);
  });

  it('a nested failure after a change rolls the whole batch back, caught or not', () => {
    const s = newShard();
    const a = s.addTurn({ question: 'root', answer_text: 'a' });
    const head = s.chainHead();
    expect(() =>
      s.write(() => {
        s.addTurn({ question: 'lost', answer_text: 'c', parent: a.bates });
        try {
          s.write(() => {
            dbOf(s).prepare("UPDATE sessions SET label = 'half-done'").run();
            throw new Error('boom');
          });
        } catch {
          // swallowed on purpose: the batch must still not commit
        }
      }),
    ).toThrow('boom');
    expect(dbOf(s).prepare('SELECT count(*) FROM nodes').pluck().get()).toBe(1);
    expect(dbOf(s).prepare("SELECT count(*) FROM sessions WHERE label = 'half-done'").pluck().get()).toBe(0);
    expect(s.chainHead()).toBe(head);
    expect(s.verify().ok).toBe(true);
  });
});
