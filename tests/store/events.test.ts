import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  addCheckpoint,
  addUsageFamily,
  archiveSessions,
  deleteEntry,
  recordResume,
  recordSync,
  resetEntry,
  restoreArchives,
  setEntry,
} from '../../src/store/index.js';
import { appendUnchecked, dbOf, EVENTS, eventsMarkdown } from '../../src/store/testing.js';
import { newShard } from './util.js';

const DOC = fileURLToPath(new URL('../../docs/sessions.md', import.meta.url));
const BEGIN = /<!-- events:begin[^\n]*-->\n/;
const END = '<!-- events:end -->';

describe('the registry of event kinds', () => {
  it("docs/sessions.md's table of events is generated from it (and has not drifted)", () => {
    const doc = readFileSync(DOC, 'utf8');
    const begin = BEGIN.exec(doc);
    const end = doc.indexOf(END);
    expect(begin, 'docs/sessions.md has lost its events:begin marker').not.toBeNull();
    const at = begin!.index + begin![0].length;
    const want = `${doc.slice(0, at)}${eventsMarkdown()}\n${doc.slice(end)}`;
    if (process.env.UPDATE_EVENTS_DOC) writeFileSync(DOC, want);
    expect(
      readFileSync(DOC, 'utf8'),
      'docs/sessions.md drifted from src/store/chain/events.ts: run UPDATE_EVENTS_DOC=1 npx vitest run tests/store/events.test.ts',
    ).toBe(want);
  });

  it('holds every kind the store writes, and each is claimed: verify is clean after all of them', () => {
    const s = newShard();
    try {
      const a = s.addTurn({ question: 'first?', answer_text: 'yes', label: 'a' });
      s.addTurn({ question: 'second?', answer_text: 'yes', parent: a.bates });
      s.addTurnsBulk([{ sid: a.sid, parent: null, content: { question: 'bulk?', answer_text: 'b' } }], {
        kind: 'nodes.bulk',
        data: { generator: 'test', seed: 1 },
      });
      const b = s.createSession({ label: 'b', source: { source: 'test', source_session: 'x1' } });
      s.addTurnsBulk(
        [{ sid: b.sid, parent: null, content: { question: 'imported?', answer_text: 'i' }, records: ['{}'] }],
        {
          kind: 'import.file',
          data: { source: 'test', file: 'x1.jsonl', turns_added: 1, turns_skipped: 0, problems: 0 },
        },
      );
      const c = s.addTurn({ question: 'third?', answer_text: 'c', label: 'c' });
      setEntry(s, 'main', a.sid);
      setEntry(s, 'main', c.sid);
      addCheckpoint(s, 'main', { pre: a.sid, post: c.sid });
      addUsageFamily(s, 'main', b.sid);
      resetEntry(s, 'main');
      const d = s.addTurn({ question: 'fourth?', answer_text: 'd', label: 'd' });
      const e = s.addTurn({ question: 'fifth?', answer_text: 'e', label: 'e' });
      setEntry(s, 'other', d.sid);
      deleteEntry(s, 'other');
      archiveSessions(s, [e.sid]);
      restoreArchives(s, [e.sid]);
      recordResume(s, { source_bates: e.bates, new_session_id: 'abc', file: '/tmp/x.jsonl', lines: 1 });
      recordSync(s, {
        remote: 'origin',
        host: 'host1',
        pushed: { commit: 'c'.repeat(40), seq: 3, hash: 'a'.repeat(64) },
        turns_pushed: 1,
        turns_pulled: 0,
        hosts: { host2: { commit: 'd'.repeat(40), seq: 9, hash: 'b'.repeat(64) } },
        marks: { zz: { host: 'host2', archived: true } },
      });

      const written = new Set(
        dbOf(s).prepare('SELECT DISTINCT kind FROM audit_events').pluck().all() as string[],
      );
      // shard.migrate is written only by an upgrade (tests/store/migrations.test.ts makes one).
      expect([...written].sort()).toEqual(
        Object.keys(EVENTS)
          .filter((k) => k !== 'shard.migrate')
          .sort(),
      );
      const r = s.verify();
      expect(r.problems ?? []).toEqual([]);
      expect(r.ok).toBe(true);
    } finally {
      s.close();
    }
  });

  it('makes a kind arborist never writes a problem for verify, not a silent skip', () => {
    const s = newShard();
    try {
      s.addTurn({ question: 'q?', answer_text: 'a' });
      s.write(() => appendUnchecked(s, 'node.remove', { bates: 'x' }));
      const seq = s.audit.head().seq;
      const r = s.verify();
      expect(r.ok).toBe(false);
      expect(r.problems).toContainEqual({
        kind: 'event',
        id: String(seq),
        detail: "its kind 'node.remove' is not one arborist writes",
      });
      // The chain itself is intact: the event was appended through the chain, only its kind is foreign.
      expect(s.chainCheck().ok).toBe(true);
    } finally {
      s.close();
    }
  });
});
