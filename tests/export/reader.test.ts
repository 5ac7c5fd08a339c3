import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportText } from '../../src/export/index.js';
import { arboristReader } from '../../src/import/arborist/index.js';
import type { ParsedSource, ParsedTurn } from '../../src/import/model.js';
import { hashes, type Shard } from '../../src/store/index.js';
import { openShard } from '../support/shard.js';
import { tempDir } from '../support/tmp.js';
import { buildFixture, HOSTILE_A, HOSTILE_Q } from './fixture.js';

// biome-ignore lint/suspicious/noExplicitAny: the export document, edited by the tests
type Doc = any;

function exported(id: string, subtree = false): { shard: Shard; doc: Doc } {
  const fx = buildFixture();
  const shard = openShard(fx.db, { readonly: true });
  return { shard, doc: JSON.parse(exportText(shard, { id, format: 'json', subtree })) };
}

function readDoc(doc: Doc | string): ParsedSource[] {
  const file = join(tempDir(), 'export.json');
  writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc, null, 2));
  expect(arboristReader.discover(file)).toEqual([file]);
  return [...arboristReader.read(file)];
}

const turnsOf = (sources: ParsedSource[]) => sources.flatMap((s) => s.turns);
const problemsOf = (sources: ParsedSource[]) => sources.flatMap((s) => s.problems);
const byId = (sources: ParsedSource[]) => new Map(turnsOf(sources).map((t) => [t.sourceId, t]));

/** node_hash of a parsed turn, from the parsed fields alone (what an importing shard will compute). */
function hashOf(t: ParsedTurn): string {
  const x = t.exact!;
  return hashes
    .nodeHash({
      bates: x.bates,
      parent_bates: t.parentSourceId,
      question: t.question,
      answer_text: t.answer,
      cited_titles: x.cited_titles,
      n_cited_sources: x.n_cited_sources,
      audit: x.audit,
      cache_key: x.cache_key,
      created_at: t.createdAt,
      source: x.source,
      source_id: x.source_id,
    })
    .toString('hex');
}

/** Re-hashes an edited turn as a forger would, so only the structure checks can catch it. */
function forge(t: Doc): void {
  t.node_hash = hashes.nodeHash({ ...t }).toString('hex');
}

describe('the arborist reader', () => {
  it('reads back one source per session, the same tree, text and hashes the shard stored', () => {
    const { shard, doc } = exported('aaaa-000001', true);
    const sources = readDoc(doc);
    expect(problemsOf(sources)).toEqual([]);
    expect(sources.map((s) => s.sessions.map((x) => x.sourceSession))).toEqual([['aaaa'], ['bbbb']]);
    expect(sources.every((s) => s.kind === 'arborist' && s.entries.length === 0)).toBe(true);
    expect(sources[1].sessions[0]).toEqual({
      sourceSession: 'bbbb',
      createdAt: '2026-01-02T00:00:00.000Z',
      title: shard.getSession('bbbb')!.label,
      exact: {
        sid: 'bbbb',
        label: shard.getSession('bbbb')!.label,
        session_root: shard.getSession('bbbb')!.session_root,
      },
    });
    expect(sources[0].turns.map((t) => [t.sourceId, t.parentSourceId])).toEqual([
      ['aaaa-000001', null],
      ['aaaa-000002', 'aaaa-000001'],
      ['aaaa-000004', 'aaaa-000002'],
      ['aaaa-000003', 'aaaa-000001'],
    ]);
    expect(sources[1].turns.map((t) => [t.sourceId, t.parentSourceId, t.sourceSession])).toEqual([
      ['bbbb-000001', 'aaaa-000002', 'bbbb'],
      ['bbbb-000002', 'bbbb-000001', 'bbbb'],
    ]);
    const turns = byId(sources);
    expect(turns.get('bbbb-000001')!.question).toBe(HOSTILE_Q);
    expect(turns.get('bbbb-000001')!.answer).toBe(HOSTILE_A);
    for (const [i, t] of turnsOf(sources).entries()) {
      const stored = shard.getNode(t.sourceId)!;
      expect(t.exact).toEqual({
        bates: stored.bates,
        audit: stored.audit,
        cache_key: stored.cache_key,
        cited_titles: stored.cited_titles,
        n_cited_sources: stored.n_cited_sources,
        source: stored.source,
        source_id: stored.source_id,
        node_hash: stored.node_hash,
      });
      // Recomputed from what the reader hands the writer: the hash the shard stored.
      expect(hashOf(t)).toBe(stored.node_hash);
      expect(t.createdAt).toBe(stored.created_at);
      expect(t.complete).toBe(true);
      // An exact copy keeps the records the exporting shard had for the turn: none for a turn typed there.
      expect(t.raw).toEqual(doc.turns.find((x: Doc) => x.bates === t.sourceId).source_records ?? []);
      expect(t.line).toBe(doc.turns.findIndex((x: Doc) => x.bates === t.sourceId) + 1);
      expect(i).toBeGreaterThanOrEqual(0);
    }
    expect(turns.get('bbbb-000002')!.exact!.source_id).toBe('uuid-0001');
  });

  it('a subtree or a session export keeps the parent outside the document, for the writer to resolve', () => {
    const sub = readDoc(exported('bbbb-000001', true).doc);
    expect(problemsOf(sub)).toEqual([]);
    expect(byId(sub).get('bbbb-000001')!.parentSourceId).toBe('aaaa-000002');
    expect(byId(sub).get('bbbb-000001')!.exact).toBeDefined();
    // A session export: context turns of aaaa come as their own (partial) session source, first.
    const ses = readDoc(exported('bbbb').doc);
    expect(ses.map((s) => [s.sessions[0].sourceSession, s.turns.map((t) => t.sourceId)])).toEqual([
      ['aaaa', ['aaaa-000001', 'aaaa-000002']],
      ['bbbb', ['bbbb-000001', 'bbbb-000002']],
    ]);
  });

  it('rejects a tampered turn (its hash no longer matches) and re-attaches its children', () => {
    const { doc } = exported('aaaa-000001', true);
    const i = doc.turns.findIndex((t: Doc) => t.bates === 'bbbb-000001');
    doc.turns[i].answer_text = 'a better answer, added later';
    const sources = readDoc(doc);
    const turns = byId(sources);
    expect(turns.has('bbbb-000001')).toBe(false);
    expect(turns.size).toBe(5);
    // b2 hangs under the nearest surviving ancestor; its hash covered b1, so it is no longer an exact copy.
    expect(turns.get('bbbb-000002')!.parentSourceId).toBe('aaaa-000002');
    expect(turns.get('bbbb-000002')!.exact).toBeUndefined();
    expect(turns.get('aaaa-000004')!.exact).toBeDefined();
    expect(problemsOf(sources)).toEqual([
      {
        file: sources[0].file,
        line: 0,
        reason: `$.turns[${i}] (bbbb-000001): node_hash does not match the content (edited after export, or damaged); skipped`,
      },
      {
        file: sources[0].file,
        line: 0,
        reason: `$.turns[${i + 1}] (bbbb-000002): its parent bbbb-000001 was skipped; imported anew under aaaa-000002`,
      },
    ]);
    // The problems travel with the session they concern.
    expect(sources[1].problems).toHaveLength(2);
  });

  it('checks every subtree hash: a path export names the children it leaves out; a subtree export needs none', () => {
    const mismatch = (i: number, b: string) =>
      `$.turns[${i}] (${b}): subtree_hash does not match its node_hash and its children's subtree hashes (edited after export, or damaged); skipped`;
    // A path: a1's other child a3 and a2's child b1 (another session) are outside, named with their hashes.
    const path = exported('aaaa-000004').doc;
    expect(path.outside_children.map((o: Doc) => [o.parent_bates, o.bates])).toEqual([
      ['aaaa-000001', 'aaaa-000003'],
      ['aaaa-000002', 'bbbb-000001'],
    ]);
    expect(problemsOf(readDoc(path))).toEqual([]);
    forge(Object.assign(path.turns[1], { answer_text: 'forged' }));
    const forged = readDoc(path);
    expect(problemsOf(forged).map((p) => p.reason)).toEqual([
      mismatch(1, 'aaaa-000002'),
      '$.turns[2] (aaaa-000004): its parent aaaa-000002 was skipped; imported anew under aaaa-000001',
    ]);
    // A subtree export holds everything under its top: checked even without the list (an export made before it).
    const { doc } = exported('aaaa-000001', true);
    expect(doc.outside_children).toEqual([]);
    delete doc.outside_children;
    const i = doc.turns.findIndex((t: Doc) => t.bates === 'bbbb-000002');
    forge(Object.assign(doc.turns[i], { answer_text: 'forged' }));
    expect(problemsOf(readDoc(doc)).map((p) => p.reason)).toEqual([mismatch(i, 'bbbb-000002')]);
    // A malformed entry is reported, and its parent can no longer be checked: refused.
    const bad = exported('aaaa-000002').doc;
    bad.outside_children[0].subtree_hash = 'nope';
    expect(problemsOf(readDoc(bad)).map((p) => p.reason)).toEqual([
      '$.outside_children[0].subtree_hash: "nope" is not 64 lowercase hex digits',
      mismatch(0, 'aaaa-000001'),
      '$.turns[1] (aaaa-000002): its parent aaaa-000001 was skipped; imported anew as a root',
    ]);
  });

  it('names every malformed field by its JSON path and skips only that turn', () => {
    const { doc } = exported('aaaa');
    doc.turns[1].seq = '2';
    doc.turns[2].bates = 'aaaa-000009';
    forge(doc.turns[2]);
    doc.turns[3].node_hash = 'ABC';
    doc.turns[0].cited_titles = ['ok', 7];
    const sources = readDoc(doc);
    expect(problemsOf(sources).map((p) => [p.line, p.reason])).toEqual([
      [0, '$.turns[0].cited_titles[1]: must be text, not number'],
      [0, '$.turns[1].seq: must be a whole number >= 1, not "2"'],
      [0, '$.turns[2].bates: aaaa-000009 is not the Bates id of sid aaaa and seq 4'],
      [0, '$.turns[3].node_hash: "ABC" is not 64 lowercase hex digits'],
    ]);
    expect(turnsOf(sources)).toEqual([]);
  });

  it('a turn of no listed session, a duplicate, a bad session, a bad head: each reported', () => {
    const { doc } = exported('bbbb-000002');
    doc.chain_head = 'latest';
    doc.sessions[1].session_root = null;
    doc.turns.push({ ...doc.turns[0] });
    const sources = readDoc(doc);
    expect(problemsOf(sources).map((p) => p.reason)).toEqual([
      '$.chain_head: "latest" is not SEQ:HASH (a number, a colon, 64 lowercase hex digits)',
      '$.sessions[1].session_root: must be text, not null',
      "$.turns[2].sid: session bbbb is not one of the document's sessions",
      "$.turns[3].sid: session bbbb is not one of the document's sessions",
      '$.turns[4]: aaaa-000001 appears twice (first at $.turns[0]); skipped',
    ]);
    expect(sources.map((s) => s.sessions[0].sourceSession)).toEqual(['aaaa']);
    expect(turnsOf(sources).map((t) => t.sourceId)).toEqual(['aaaa-000001', 'aaaa-000002']);
  });

  it('a parent cycle, even with valid hashes, is reported and cannot hang the reader', () => {
    const { doc } = exported('aaaa-000004');
    // a1 -> a2 -> a4 becomes a1 <- a2 <- a4 <- a1: every hash recomputed, as a forger would.
    doc.turns[0].parent_bates = 'aaaa-000004';
    forge(doc.turns[0]);
    const sources = readDoc(doc);
    expect(turnsOf(sources)).toEqual([]);
    expect(problemsOf(sources).map((p) => p.reason)).toEqual([
      '$.turns[0] (aaaa-000001): its parents lead back to itself (a parent cycle); skipped',
      '$.turns[1] (aaaa-000002): its parents lead back to itself (a parent cycle); skipped',
      '$.turns[2] (aaaa-000004): its parents lead back to itself (a parent cycle); skipped',
    ]);
  });

  it('a file that is not an export is one problem, and read() does not throw', () => {
    const cases: [string | Buffer, RegExp][] = [
      ['', /^\$: not JSON/],
      ['{"format": "arborist-export", "version": 1, "sessions": [', /^\$: not JSON/],
      ['{"type":"user","uuid":"x"}\n{"type":"assistant"}\n', /^\$: not JSON/],
      ['[1, 2]', /^\$: not an arborist export \(the document is a list/],
      ['{"format": "arborist-archive/1"}', /^\$\.format: not an arborist export/],
      ['{"format": "arborist-export", "version": 2}', /^\$\.version: version 2 is not supported \(1 is\)/],
      [
        '{"format": "arborist-export", "version": 1, "exported_at": "x", "chain_head": "0:' +
          '0'.repeat(64) +
          '", "sessions": {}, "turns": []}',
        /^\$\.sessions: must be a list/,
      ],
    ];
    for (const [text, reason] of cases) {
      const sources = readDoc(text as string);
      expect(sources).toHaveLength(1);
      expect(sources[0].sessions).toEqual([]);
      expect(sources[0].problems).toHaveLength(1);
      expect(sources[0].problems[0].line).toBe(0);
      expect(sources[0].problems[0].reason).toMatch(reason);
    }
    expect(() => [...arboristReader.read(join(tempDir(), 'missing.json'))]).toThrow(/cannot read .*ENOENT/);
  });

  it('invalid UTF-8 is reported; the turns it touched fail their hash, the rest are read', () => {
    const { doc } = exported('aaaa-000002');
    doc.turns[1].answer_text = 'BROKEN';
    forge(doc.turns[1]);
    const text = JSON.stringify(doc);
    const buf = Buffer.from(text, 'utf8');
    const at = buf.indexOf('BROKEN');
    buf[at] = 0xff;
    const file = join(tempDir(), 'bad.json');
    writeFileSync(file, buf);
    const sources = [...arboristReader.read(file)];
    expect(problemsOf(sources).map((p) => p.reason)).toEqual([
      '$: not valid UTF-8 (read with U+FFFD in place of bad bytes; the turns they touch fail their hash)',
      '$.turns[1] (aaaa-000002): node_hash does not match the content (edited after export, or damaged); skipped',
    ]);
    expect(turnsOf(sources).map((t) => t.sourceId)).toEqual(['aaaa-000001']);
  });

  it('an empty session is still one source', () => {
    const path = join(tempDir(), 's.db');
    const s = openShard(path);
    s.createSession({ sid: 'empty1', label: 'nothing yet' });
    const doc = JSON.parse(exportText(s, { id: 'empty1', format: 'json' }));
    expect(doc.turns).toEqual([]);
    const sources = readDoc(doc);
    expect(sources.map((x) => [x.sessions[0].sourceSession, x.sessions[0].title, x.turns.length])).toEqual([
      ['empty1', 'nothing yet', 0],
    ]);
  });
});
