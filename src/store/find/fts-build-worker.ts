/**
 * The index thread of a fresh bulk build (fts-build.ts): writes both FTS indexes and the vocabulary into a side
 * file of its own while the building thread writes the turns, one transaction for the whole build. Rows come as
 * messages; each batch done is counted in shared memory (the building thread may be waiting on it with
 * Atomics.wait, so it cannot take messages), and so is the end: state[0] 1 when the side file is complete and
 * closed, 2 when anything failed (the build then indexes in its own thread, as without this one).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { IndexJob, IndexMessage } from './fts-build.js';

const job = workerData as IndexJob;
const state = new Int32Array(job.shared);

function fail(): void {
  Atomics.store(state, 0, 2);
  Atomics.notify(state, 0);
  Atomics.notify(state, 1);
  parentPort?.close();
}

try {
  const { default: Database } = await import('better-sqlite3');
  const { buildHashSize, vocabularyFromIndex } = await import('./vocabulary.js');
  const db = new Database(job.path);
  Atomics.store(state, 2, 1);
  // A file nobody else sees, thrown away on any failure: no journal, no fsync.
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -65536');
  for (const sql of job.definitions) db.exec(sql);
  buildHashSize(db, true);
  db.exec('BEGIN');
  const all = db.prepare(
    'INSERT INTO nodes_fts (rowid, question, answer_text, cited_titles_json) VALUES (?, ?, ?, ?)',
  );
  const question = db.prepare('INSERT INTO questions_fts (rowid, question) VALUES (?, ?)');
  parentPort?.on('message', (m: IndexMessage) => {
    try {
      if (m.rows) {
        for (const [id, q, a, c] of m.rows) {
          all.run(id, q, a, c);
          question.run(id, q);
        }
        Atomics.add(state, 1, 1);
        Atomics.notify(state, 1);
        return;
      }
      buildHashSize(db, false);
      db.exec('COMMIT'); // FTS5 writes what it still holds in memory
      db.transaction(() => vocabularyFromIndex(db))();
      db.close();
      Atomics.store(state, 0, 1);
      Atomics.notify(state, 0);
      parentPort?.close();
    } catch (err) {
      if (process.env.ARBORIST_DEBUG_FTS_BUILD) console.error(err);
      fail();
    }
  });
} catch (err) {
  if (process.env.ARBORIST_DEBUG_FTS_BUILD) console.error(err);
  fail();
}
