import { existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/**
 * The FTS indexes of a fresh bulk build (../build.ts) written on a thread of their own (fts-build-worker.ts), into
 * a side file, while this thread writes the turns: FTS5 was a third of a build (1M turns: 52 s of 'rebuild' for
 * nodes_fts, 6 s for questions_fts, 5 s for the vocabulary, all on one core after the turns were written). After
 * each commit the turns it committed are read back (`feed`: committed rows only, so a batch that rolled back is
 * never indexed) and sent over; at the end (`finish`) the side file's FTS tables and vocabulary are copied into the
 * shard, whole: FTS5 keeps an index in ordinary tables (its shadow tables), and both files made them from the same
 * definitions. Anything failing on that thread makes `finish` say so, and the build indexes in its own thread.
 */

export interface IndexJob {
  path: string;
  /** CREATE statements of nodes_fts, questions_fts and fts_terms, as the shard holds them. */
  definitions: string[];
  /** [0]: 0 running, 1 done, 2 failed; [1]: batches indexed; [2]: 1 once the thread has loaded. */
  shared: SharedArrayBuffer;
}

export type IndexRow = [number, string, string, string];
export interface IndexMessage {
  rows?: IndexRow[];
  done?: true;
}

/** Batches sent and not yet indexed past which `feed` waits: the texts waiting stay bounded in memory. */
const MAX_QUEUED = 3;
/** A thread that has indexed nothing for this long is given up on (it died): ms. */
const STALL_MS = 120_000;
/**
 * A thread that has not loaded after this long is given up on: ms. (Seen: a worker started from a script given
 * with `node -e` never ran while its parent waited in Atomics.wait.)
 */
const START_MS = 10_000;
const ROWS_PER_MESSAGE = 10_000;

export class IndexThread {
  private readonly state: Int32Array;
  private sent = 0;
  private after = 0;

  private constructor(
    private readonly worker: Worker,
    readonly path: string,
    job: IndexJob,
  ) {
    this.state = new Int32Array(job.shared);
  }

  /** Starts the thread, or null when there is none to start (run from TypeScript sources, no worker). */
  static start(db: Database.Database, path: string): IndexThread | null {
    const url = new URL('./fts-build-worker.js', import.meta.url);
    if (url.protocol !== 'file:' || !existsSync(fileURLToPath(url))) return null;
    const definitions = ['nodes_fts', 'questions_fts', 'fts_terms'].map(
      (name) =>
        db
          .prepare("SELECT sql FROM sqlite_schema WHERE name = ? AND type = 'table'")
          .pluck()
          .get(name) as string,
    );
    if (definitions.some((d) => !d)) return null;
    const job: IndexJob = { path, definitions, shared: new SharedArrayBuffer(12) };
    try {
      const w = new Worker(url, {
        workerData: job,
        stdout: true,
        stderr: !process.env.ARBORIST_DEBUG_FTS_BUILD,
      });
      w.unref();
      w.on('error', () => {}); // its state says it failed
      return new IndexThread(w, path, job);
    } catch {
      return null;
    }
  }

  private get failed(): boolean {
    return Atomics.load(this.state, 0) === 2;
  }

  /** Sends the turns committed since the last call. Outside a write. */
  feed(db: Database.Database): void {
    if (this.failed) return;
    const page = db.prepare(
      `SELECT id, CAST(question AS TEXT), CAST(answer_text AS TEXT), CAST(cited_titles_json AS TEXT) FROM nodes
       WHERE id > ? ORDER BY id LIMIT ${ROWS_PER_MESSAGE}`,
    );
    for (;;) {
      const rows = page.raw(true).all(this.after) as IndexRow[];
      if (rows.length === 0) return;
      this.waitBelow(MAX_QUEUED);
      if (this.failed) return;
      this.worker.postMessage({ rows } satisfies IndexMessage);
      this.sent++;
      this.after = rows[rows.length - 1][0];
    }
  }

  /** Waits until fewer than `n` batches sent are not yet indexed (or the thread failed or stalled). */
  private waitBelow(n: number): void {
    let last = Atomics.load(this.state, 1);
    let since = performance.now();
    while (!this.failed && this.sent - Atomics.load(this.state, 1) >= n) {
      Atomics.wait(this.state, 1, last, 1000);
      const now = Atomics.load(this.state, 1);
      if (now !== last) {
        last = now;
        since = performance.now();
      } else if (performance.now() - since > (Atomics.load(this.state, 2) === 1 ? STALL_MS : START_MS)) {
        Atomics.store(this.state, 0, 2);
      }
    }
  }

  /**
   * Sends the rest, waits for the thread and copies its tables into the shard in one transaction of its own (outside
   * any write: ATTACH cannot run inside a transaction). False when the thread failed: nothing was copied, and the
   * caller indexes itself. Afterwards this connection must not touch the FTS tables again before it is closed
   * (FTS5 may hold their old structure in memory); a build only closes it.
   */
  finish(db: Database.Database): boolean {
    try {
      this.feed(db);
      this.waitBelow(1);
      if (this.failed) return false;
      this.worker.postMessage({ done: true } satisfies IndexMessage);
      let since = performance.now();
      const limit = Atomics.load(this.state, 2) === 1 ? STALL_MS : START_MS;
      while (Atomics.load(this.state, 0) === 0 && performance.now() - since < limit)
        if (Atomics.wait(this.state, 0, 0, 1000) !== 'timed-out') since = performance.now();
      if (Atomics.load(this.state, 0) !== 1) return false;
      db.prepare('ATTACH DATABASE ? AS fts_side').run(this.path);
      try {
        const tables = db
          .prepare(
            `SELECT name FROM fts_side.sqlite_schema WHERE type = 'table'
             AND (name LIKE 'nodes\\_fts\\_%' ESCAPE '\\' OR name LIKE 'questions\\_fts\\_%' ESCAPE '\\'
                  OR name = 'fts_terms')`,
          )
          .pluck()
          .all() as string[];
        // Shadow tables are written only by FTS5 itself unless SQLite's defensive flag is off (better-sqlite3's
        // unsafe mode): off for this copy alone, of tables FTS5 wrote from the same definitions.
        db.unsafeMode(true);
        try {
          db.transaction(() => {
            for (const t of tables) {
              db.exec(`DELETE FROM main."${t}"`);
              db.exec(`INSERT INTO main."${t}" SELECT * FROM fts_side."${t}"`);
            }
            db.exec('DELETE FROM main.fts_pending');
          }).immediate();
        } finally {
          db.unsafeMode(false);
        }
      } finally {
        db.exec('DETACH DATABASE fts_side');
      }
      return true;
    } finally {
      this.abort();
    }
  }

  /** Stops the thread and removes its file. */
  abort(): void {
    void this.worker.terminate();
    for (const f of [this.path, `${this.path}-journal`]) rmSync(f, { force: true });
  }
}
