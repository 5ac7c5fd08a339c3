import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sqlCanonicalContent } from '../../src/store/canon-sql.js';
import { hashes } from '../../src/store/index.js';
import { newShard } from './util.js';

/**
 * verify builds each node's canonical content in SQLite (json_object) and only falls back to JavaScript canon()
 * for rows it cannot vouch for. These tests pin the assumption that makes that exact: for every value the store
 * writes, SQLite's bytes are canon()'s bytes.
 */
describe('verify: canonical content built by SQLite', () => {
  it('json_quote escapes every BMP character (and pairs) exactly as JSON.stringify does', () => {
    const db = new Database(':memory:');
    const q = db.prepare('SELECT json_quote(?)').pluck();
    for (let cp = 0; cp <= 0xffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const s = `a${String.fromCharCode(cp)}"\\`;
      expect(q.get(s), `U+${cp.toString(16)}`).toBe(JSON.stringify(s));
    }
    for (const s of ['😀𝄞', '\u0000', '', '\u2028\u2029\u007f\u0080\u009b'])
      expect(q.get(s)).toBe(JSON.stringify(s));
    db.close();
  });

  it('is byte-identical to canon() for hostile text, titles, nulls and cross-session parents', () => {
    const s = newShard();
    const nasty = [
      '\u0000\u0001\u001f"\\/',
      'tab\there\nnew\r\n',
      '😀 𝄞 中文 \u202e rtl \ufeff',
      'x\u2028\u2029',
      'é e\u0301',
    ];
    const a = s.createSession({ label: 'a' }).sid;
    const b = s.createSession({ label: 'b' }).sid;
    let parent: string | undefined;
    for (const [i, t] of nasty.entries()) {
      parent = s.addTurn({
        question: `q ${t}`,
        answer_text: `answer ${t} ${i}`,
        cited_titles: i % 2 ? [t, `"${t}"`] : [],
        cache_key: i % 2 ? null : `k${i}`,
        source: i === 3 ? t : null,
        source_id: i === 3 ? 'x' : null,
        session: i === 4 ? b : a,
        parent,
      }).bates;
    }
    const ids = s.db.prepare('SELECT id FROM nodes ORDER BY id').pluck().all() as number[];
    for (const id of ids) {
      const node = s.nodeById(id)!;
      const expected = Buffer.concat([
        Buffer.from([0]),
        Buffer.from(hashes.nodeContentJsonSlow(node), 'utf8'),
      ]);
      expect(sqlCanonicalContent(s.db, id)?.toString('hex'), node.bates).toBe(expected.toString('hex'));
    }
    expect(s.verify().ok).toBe(true);
  });

  it('leaves odd types to the exact path: no crash, and the same verdicts', () => {
    const s = newShard();
    const t1 = s.addTurn({ question: 'one', answer_text: 'a', cited_titles: ['x'] });
    const t2 = s.addTurn({ question: 'two', answer_text: 'b', parent: t1.bates });
    const t3 = s.addTurn({ question: 'three', answer_text: 'c', parent: t2.bates });
    const id = (b: string) => s.db.prepare('SELECT id FROM nodes WHERE bates = ?').pluck().get(b) as number;
    // Same values, other spelling: json() minifies the titles exactly as canon() writes them, so not an edit.
    s.db.prepare(`UPDATE nodes SET cited_titles_json = '[ "x" ]' WHERE bates = ?`).run(t1.bates);
    expect(sqlCanonicalContent(s.db, id(t1.bates))?.subarray(1).toString()).toBe(
      hashes.nodeContentJsonSlow(s.requireNode(t1.bates)),
    );
    expect(s.verify().ok).toBe(true);
    // Types the store never writes (a REAL count, a text field stored as a blob): SQLite leaves them to the
    // exact path, which reports the edits rather than crashing.
    s.db.prepare('UPDATE nodes SET n_cited_sources = 1.5 WHERE bates = ?').run(t1.bates);
    s.db.prepare('UPDATE nodes SET question = CAST(question AS BLOB) WHERE bates = ?').run(t3.bates);
    expect(sqlCanonicalContent(s.db, id(t1.bates))).toBeNull();
    expect(sqlCanonicalContent(s.db, id(t3.bates))).toBeNull();
    const v = s.verify();
    expect(v.edited).toEqual([t1.bates, t3.bates]);
    expect(v.mismatches).toEqual([t1.bates, t2.bates, t3.bates]);
  });
});
