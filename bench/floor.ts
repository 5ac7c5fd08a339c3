/**
 * The floor of any write of turns: their texts into bare tables with the shard's own definitions (the nodes table
 * and the FTS5 index exactly as the shard's sqlite_schema holds them, i.e. as src/store/db/schema.ts made them: the
 * same tokenizer and prefix settings), in one transaction, and nothing else: no hashing, no Merkle fold, no audit
 * event, no secondary index. Used by bench/gen.ts and bench/import.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export interface BareText {
  question: string;
  answer_text: string;
  cited_titles_json: string;
}

/** A table's or index's CREATE statement, as the shard holds it. */
export function definitionOf(shard: Database.Database, name: string): string {
  const sql = shard.prepare('SELECT sql FROM sqlite_schema WHERE name = ?').pluck().get(name) as
    | string
    | undefined;
  if (!sql) throw new Error(`the shard has no ${name}`);
  return sql;
}

const NODE_COLUMNS = [
  'bates',
  'sid',
  'seq',
  'parent_id',
  'is_top',
  'depth',
  'question',
  'answer_text',
  'cited_titles_json',
  'audit',
  'created_at',
  'node_hash',
];

/** Bare nodes + nodes_fts tables in a database of their own, in a new folder under `under` (the same disk). */
export class BareIndex {
  private readonly dir: string;
  private readonly db: Database.Database;
  private readonly node: Database.Statement;
  private readonly fts: Database.Statement;
  private nextId = 1;

  constructor(shard: Database.Database, under: string) {
    const nodes = definitionOf(shard, 'nodes');
    const fts = definitionOf(shard, 'nodes_fts');
    this.dir = mkdtempSync(join(under, '.arb-floor-'));
    this.db = new Database(join(this.dir, 'floor.db'));
    // As the shard is written: WAL, synchronous NORMAL. The bare table has no sessions to point at.
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = OFF');
    this.db.exec(nodes);
    this.db.exec(fts);
    this.node = this.db.prepare(
      `INSERT INTO nodes (id, ${NODE_COLUMNS.join(', ')}) VALUES (?, ${NODE_COLUMNS.map(() => '?').join(', ')})`,
    );
    this.fts = this.db.prepare(
      'INSERT INTO nodes_fts (rowid, question, answer_text, cited_titles_json) VALUES (?, ?, ?, ?)',
    );
  }

  /**
   * Seconds to write `texts` in one transaction: a nodes row each (when `rows`) and its FTS5 entry. The shard's
   * definitions are used as they are, so a change of the index (its prefix settings, say) changes the floor too.
   */
  write(texts: readonly BareText[], rows = true): number {
    const hash = randomBytes(32);
    const t0 = performance.now();
    this.db.transaction(() => {
      for (const t of texts) {
        const id = this.nextId++;
        if (rows)
          this.node.run(
            id,
            `floor0000-${String(id).padStart(6, '0')}`,
            'floor0000',
            id,
            null,
            1,
            0,
            t.question,
            t.answer_text,
            t.cited_titles_json,
            'grounded',
            '2026-01-01T00:00:00.000Z',
            hash,
          );
        this.fts.run(id, t.question, t.answer_text, t.cited_titles_json);
      }
    })();
    return (performance.now() - t0) / 1000;
  }

  close(): void {
    this.db.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
