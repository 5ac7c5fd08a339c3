import { addCheckpoint, addUsageFamily, type Shard, setEntry } from '../../src/store/index.js';

function chain(s: Shard, label: string, n: number, parent?: string) {
  const sid = s.createSession({ label }).sid;
  const bates: string[] = [];
  let p = parent;
  for (let i = 0; i < n; i++) {
    const r = s.addTurn({
      session: sid,
      parent: p,
      question: `${label} question ${i + 1}`,
      answer_text: `${label} answer ${i + 1}`,
      cited_titles: [`${label} source ${i + 1}`],
    });
    bates.push(r.bates);
    p = r.bates;
  }
  return { sid, bates };
}

/**
 * Entry `main`: current session `main chat`, a compaction checkpoint whose pre-compaction session is `before
 * compaction`, and `kept parent` in its usage family. `live fork` (in no family) hangs its first turn under the
 * second turn of `kept parent`. Deleting `main` archives `main chat` and `before compaction`, and keeps `kept
 * parent` (it holds the parent of a surviving turn). `unrelated` is in no family.
 */
export function entryShard(s: Shard) {
  const other = chain(s, 'unrelated', 1);
  const pre = chain(s, 'before compaction', 2);
  const cur = chain(s, 'main chat', 2);
  const kept = chain(s, 'kept parent', 2);
  const forkSid = s.createSession({ label: 'live fork' }).sid;
  const fork = s.addTurn({
    session: forkSid,
    parent: kept.bates[1],
    question: 'live fork question 1',
    answer_text: 'live fork answer 1',
  });
  setEntry(s, 'main', cur.sid);
  addCheckpoint(s, 'main', { pre: pre.bates[1], post: cur.sid, summary: 'compacted' });
  addUsageFamily(s, 'main', kept.sid);
  return { other, pre, cur, kept, fork: { sid: forkSid, bates: [fork.bates] } };
}
