import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { addCheckpoint, deleteEntry, Shard, setEntry } from '../../src/store/index.js';
import { tempDir } from '../support/tmp.js';

/** The ids of the integrity fixture, by role. */
export interface Fixture {
  path: string;
  head: string;
  /** alpha: a1 -> a2 -> {a3, a4}; a2 is a branch point. */
  a: string[];
  alpha: string;
  /** beta: b1 hangs under a3 (a cross-session child), b2 under b1. */
  b: string[];
  beta: string;
  /** gamma: archived (entry `old` deleted); its turns g1 -> g2. */
  gamma: string;
  g: string[];
  /** delta: entry `work`, with a checkpoint whose pre-compaction session is alpha. */
  delta: string;
  d: string[];
  /** A cache key whose answer_cache row the turn a4 carries. */
  cacheKey: string;
}

/**
 * A small shard with every kind of state the chain must bind: a branch point, a cross-session child, an archived
 * session, entries with a checkpoint, a cached answer. Built once into `dir` (the caller removes it); copy() gives
 * each test its own file.
 */
export function buildFixture(dir: string): Fixture {
  const path = join(dir, 'template.db');
  const s = Shard.open(path);
  try {
    const alpha = s.createSession({ label: 'alpha' }).sid;
    const a1 = s.addTurn({ session: alpha, question: 'what is a lifetime', answer_text: 'a scope' }).bates;
    const a2 = s.addTurn({ parent: a1, question: 'and for structs?', answer_text: 'the same' }).bates;
    const a3 = s.addTurn({ parent: a2, question: 'first branch', answer_text: 'one' }).bates;
    const cacheKey = 'c'.repeat(64);
    const a4 = s.write(() => {
      const t = s.addTurn({ parent: a2, question: 'second branch', answer_text: 'two', cache_key: cacheKey });
      s.putCachedAnswer(cacheKey, 'two', []);
      return t.bates;
    });
    const beta = s.createSession({ label: 'beta' }).sid;
    const b1 = s.addTurn({ session: beta, parent: a3, question: 'forked later', answer_text: 'fork' }).bates;
    const b2 = s.addTurn({ parent: b1, question: 'fork follow-up', answer_text: 'more' }).bates;
    const gamma = s.createSession({ label: 'gamma' }).sid;
    const g1 = s.addTurn({
      session: gamma,
      question: 'to be archived',
      answer_text: 'the original answer',
    }).bates;
    const g2 = s.addTurn({
      parent: g1,
      question: 'archived follow-up',
      answer_text: 'kept in the archive',
    }).bates;
    setEntry(s, 'old', gamma);
    deleteEntry(s, 'old');
    const delta = s.createSession({ label: 'delta' }).sid;
    const d1 = s.addTurn({ session: delta, question: 'work question', answer_text: 'work answer' }).bates;
    setEntry(s, 'work', delta);
    addCheckpoint(s, 'work', { pre: alpha, post: delta, summary: 'compacted' });
    return {
      path,
      head: s.chainHead(),
      a: [a1, a2, a3, a4],
      alpha,
      b: [b1, b2],
      beta,
      gamma,
      g: [g1, g2],
      delta,
      d: [d1],
      cacheKey,
    };
  } finally {
    s.close();
  }
}

/** A fresh copy of the fixture's file, for one test to damage. */
export function copy(f: Fixture): string {
  const to = join(tempDir('arb-int-'), 'sessions.db');
  copyFileSync(f.path, to);
  return to;
}
