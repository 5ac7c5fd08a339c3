import { type BulkTurn, Shard } from '../../src/store/index.js';
import { tempDb } from './tmp.js';

/** A fresh shard of one session holding a chain of `n` turns, each the child of the one before (the bulk path). */
export function linearShard(n: number, sid = 'pppp'): string {
  const db = tempDb();
  const s = Shard.open(db);
  const made = s.createSession({ sid }).sid;
  const turns: BulkTurn[] = [];
  for (let i = 0; i < n; i++)
    turns.push({
      sid: made,
      parent: i === 0 ? null : i - 1,
      content: { question: `q${i}`, answer_text: 'a' },
    });
  s.addTurnsBulk(turns, { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } });
  s.close();
  return db;
}
