import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Shard } from '../../src/store/index.js';
import {
  applyEvent,
  ChainClaims,
  claimEvent,
  dbOf,
  nodeAddBody,
  nodeAddForm,
} from '../../src/store/testing.js';
import { claimsSummary, newShard } from './util.js';

/**
 * verify reads node.add events in the store's own form straight from their bytes (claims-read.ts, nodeAddForm) and
 * every other body with JSON.parse (applyEvent). The form must never disagree with JSON.parse: on any bytes it
 * either applies exactly the claim the general path applies, with no problem, or applies nothing.
 */

const TS = '2026-12-01T18:06:19.779Z';
const HASH = 'caa4de3cc5fd3444ea7e02c618613f936cc692f2f59b2ab185166a17af981d83';

/** Claims whose chain created sessions aaaa and bb12 (and added aaaa-000002 at event 9). */
function base(): ChainClaims {
  const c = new ChainClaims();
  claimEvent(c, 2, 'session.create', TS, { sid: 'aaaa', label: null, session_root: HASH });
  claimEvent(c, 3, 'session.create', TS, { sid: 'bb12', label: null, session_root: HASH });
  claimEvent(c, 9, 'node.add', TS, { bates: 'aaaa-000002', node_hash: HASH, parent_bates: null });
  return c;
}

/** Both readings of one body at seq 20 with the given columns: what the form did, and whether it agrees. */
function both(body: Buffer, ts = TS, kind = 'node.add') {
  const viaForm = base();
  const before = claimsSummary(viaForm);
  // The body sits inside a larger buffer, as it does in a page: the form must not read past its end.
  const page = Buffer.concat([Buffer.from('{"x"'), body, Buffer.from('"}{"data"')]);
  const took = kind === 'node.add' && nodeAddForm(viaForm, 20, ts, page, 4, 4 + body.length);
  const general = base();
  applyEvent(general, 20, kind, ts, body.toString('utf8'));
  return { took, form: claimsSummary(viaForm), general: claimsSummary(general), before };
}

function agrees(body: Buffer, ts = TS) {
  const r = both(body, ts);
  if (r.took) {
    expect(r.form).toEqual(r.general);
    expect(r.general.problems).toEqual([]);
  } else expect(r.form).toEqual(r.before);
  return r.took;
}

const canonical = (
  over: Partial<{
    seq: number;
    ts: string;
    bates: string;
    parent: string | null;
    records: [number, number, number];
  }> = {},
) =>
  Buffer.from(
    nodeAddBody(over.seq ?? 20, over.ts ?? TS, {
      bates: over.bates ?? 'bb12-000007',
      node_hash: HASH,
      parent_bates: over.parent === undefined ? 'aaaa-000002' : over.parent,
      ...(over.records ? { records: over.records } : {}),
    }),
  );

describe("verify's reading of node.add in the store's form", () => {
  it('takes the forms the store writes, with the claims JSON.parse gives', () => {
    expect(agrees(canonical())).toBe(true);
    expect(agrees(canonical({ parent: null }))).toBe(true);
    expect(agrees(canonical({ records: [0, 1234, 99] }))).toBe(true);
    expect(agrees(canonical({ bates: 'bb12-0001234' }))).toBe(true);
    const r = both(canonical({ records: [3, 40, 500] }));
    expect(r.form.refs).toEqual([['bb12-000007', { chunk: 3, start: 40, length: 500, event: 20 }]]);
  });

  const edits: [string, string | Buffer, string?][] = [
    ['an upper-case hash', canonical().toString().replace(HASH, HASH.toUpperCase())],
    ['a hash a digit short', canonical().toString().replace(HASH, HASH.slice(1))],
    ['a hash a digit long', canonical().toString().replace(HASH, `${HASH}0`)],
    ['an escaped Bates id', canonical().toString().replace('"bates":"bb12', '"bates":"\\u0062b12')],
    [
      'a second node_hash',
      canonical()
        .toString()
        .replace(`"node_hash":"${HASH}"`, `"node_hash":"${HASH}","node_hash":"${HASH.replace('c', 'd')}"`),
    ],
    ['a space after a colon', canonical().toString().replace('"bates":"', '"bates": "')],
    ['another seq', canonical({ seq: 21 }).toString()],
    ['a seq with a leading zero', canonical().toString().replace('"seq":20', '"seq":020')],
    ['another ts', canonical({ ts: '2026-12-01T18:06:19.780Z' }).toString()],
    ['a ts with an escape', canonical({ ts: 'a\\"b' }).toString(), 'a\\"b'],
    [
      'a ts outside ASCII',
      canonical({ ts: '2026-12-01T18:06:19.779Zé' }).toString(),
      '2026-12-01T18:06:19.779Zé',
    ],
    [
      'a record number with a leading zero',
      canonical({ records: [1, 2, 3] })
        .toString()
        .replace('[1,', '[01,'),
    ],
    [
      'a record number of 16 digits',
      canonical({ records: [1, 2, 3] })
        .toString()
        .replace('[1,', '[1234567890123456,'),
    ],
    [
      'a negative record number',
      canonical({ records: [1, 2, 3] })
        .toString()
        .replace('[1,', '[-1,'),
    ],
    ['five digits of turn', canonical({ bates: 'bb12-00007' }).toString()],
    ['ten digits of turn', canonical({ bates: 'bb12-0000000007' }).toString()],
    ['a session the chain never created', canonical({ bates: 'cccc-000001' }).toString()],
    ['a turn added a second time', canonical({ bates: 'aaaa-000002' }).toString()],
    ['an upper-case session id', canonical({ bates: 'BB12-000007' }).toString()],
    ['bytes after the body', `${canonical().toString()} `],
    ['the body cut short', canonical().toString().slice(0, -1)],
    [
      'session_roots after the turn',
      canonical().toString().replace('},"kind"', ',"session_roots":{"bb12":"ab"}},"kind"'),
    ],
    [
      'the keys in another order',
      canonical()
        .toString()
        .replace(
          `"bates":"bb12-000007","node_hash":"${HASH}"`,
          `"node_hash":"${HASH}","bates":"bb12-000007"`,
        ),
    ],
  ];
  for (const [name, body, ts] of edits) {
    it(`leaves ${name} to JSON.parse`, () => {
      expect(agrees(Buffer.from(body), ts)).toBe(false);
    });
  }

  it('never disagrees with JSON.parse on any edit of the bytes', () => {
    const bodies = [canonical(), canonical({ parent: null }), canonical({ records: [5, 0, 77] })];
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: bodies.length - 1 }),
        fc.array(
          fc.record({
            at: fc.nat(),
            op: fc.constantFrom('set', 'insert', 'delete'),
            byte: fc.constantFrom(
              0x22,
              0x5c,
              0x2c,
              0x30,
              0x39,
              0x61,
              0x66,
              0x67,
              0x7d,
              0x5d,
              0x20,
              0x2d,
              0xc3,
              0x00,
            ),
          }),
          { minLength: 1, maxLength: 3 },
        ),
        (which, ops) => {
          let b = Buffer.from(bodies[which]);
          for (const o of ops) {
            const at = o.at % (b.length + 1);
            if (o.op === 'set' && at < b.length) b[at] = o.byte;
            else if (o.op === 'insert')
              b = Buffer.concat([b.subarray(0, at), Buffer.from([o.byte]), b.subarray(at)]);
            else if (o.op === 'delete' && at < b.length)
              b = Buffer.concat([b.subarray(0, at), b.subarray(at + 1)]);
          }
          // A Bates id edited into a large turn number sizes the claims' arrays by it (on both paths alike): kept
          // small here, and larger numbers are in the cases above.
          const turn = /"bates":"[^"]*-(\d+)"/.exec(b.toString('latin1'))?.[1];
          fc.pre(turn === undefined || Number(turn) < 2_000_000);
          agrees(b);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('takes each sid as written, whichever sids came before (more sessions than its table of sids holds)', () => {
    // The form keeps the sids it read in a table by a hash of their bytes; 5,000 sids of one length share its
    // 4,096 slots, and their turns come interleaved, as a chain of many growing sessions has them.
    const sids = Array.from({ length: 5000 }, (_, i) => `s${i.toString(36).padStart(3, '0')}`);
    const viaForm = new ChainClaims();
    const general = new ChainClaims();
    for (const c of [viaForm, general])
      sids.forEach((sid, i) => {
        claimEvent(c, i + 1, 'session.create', TS, { sid, label: null, session_root: HASH });
      });
    let seq = sids.length;
    for (let turn = 1; turn <= 2; turn++)
      for (let k = 0; k < sids.length; k++) {
        const sid = sids[(k * 7919) % sids.length];
        const body = Buffer.from(
          nodeAddBody(++seq, TS, {
            bates: `${sid}-${String(turn).padStart(6, '0')}`,
            node_hash: HASH,
            parent_bates: null,
          }),
        );
        expect(nodeAddForm(viaForm, seq, TS, body, 0, body.length)).toBe(true);
        applyEvent(general, seq, 'node.add', TS, body.toString('utf8'));
      }
    expect(claimsSummary(viaForm)).toEqual(claimsSummary(general));
    expect(viaForm.sessions.get('s000')?.maxSeq).toBe(2);
  });

  it("keeps every session's claimed hashes apart while many grow at once", () => {
    // The claims cut each session's hashes and events from shared blocks (claims.ts, Slab), and move them to more
    // room as the session grows: 300 sessions growing in turn, and one past a block's share, each turn with a hash
    // of its own, must each read back what was claimed for it, and nothing where nothing was.
    const c = new ChainClaims();
    const sids = Array.from({ length: 301 }, (_, i) => `g${String(i).padStart(3, '0')}`);
    sids.forEach((sid, i) => {
      claimEvent(c, i + 1, 'session.create', TS, { sid, label: null, session_root: HASH });
    });
    const hashOf = (k: number, turn: number) => createHash('sha256').update(`${k}/${turn}`).digest('hex');
    let seq = sids.length;
    const add = (k: number, turn: number) => {
      const body = Buffer.from(
        nodeAddBody(++seq, TS, {
          bates: `${sids[k]}-${String(turn).padStart(6, '0')}`,
          node_hash: hashOf(k, turn),
          parent_bates: null,
        }),
      );
      expect(nodeAddForm(c, seq, TS, body, 0, body.length)).toBe(true);
    };
    for (let turn = 1; turn <= 70; turn++) for (let k = 0; k < 300; k++) add(k, turn);
    for (let turn = 1; turn <= 5000; turn++) add(300, turn);
    for (let k = 0; k <= 300; k++) {
      const last = k === 300 ? 5000 : 70;
      for (let turn = 1; turn <= last; turn++)
        expect(c.node(sids[k], turn)?.hash.toString('hex')).toBe(hashOf(k, turn));
      const s = c.sessions.get(sids[k]);
      expect(s?.addedBy.length).toBeGreaterThan(last + 1);
      expect(s?.addedBy.subarray(last + 1).every((v) => v === 0)).toBe(true);
      expect(s?.hashes.subarray(32 * (last + 1)).every((v) => v === 0)).toBe(true);
    }
  });

  it('is what verify reads a bulk-written chain with, and it finds the same claims as row by row', () => {
    const s: Shard = newShard();
    s.createSession({ sid: 'aaaa' });
    s.addTurnsBulk(
      Array.from({ length: 30 }, (_, i) => ({
        sid: 'aaaa',
        parent: i === 0 ? null : i - 1,
        content: { question: `q${i}`, answer_text: 'a', audit: 'imported', source: 'x', source_id: `u${i}` },
        records: [`{"n":${i}}`],
      })),
      { kind: 'nodes.bulk', data: { generator: 'test', seed: 0 } },
    );
    const bodies = dbOf(s)
      .prepare("SELECT seq, ts, body FROM audit_events WHERE kind = 'node.add' ORDER BY seq")
      .raw()
      .all() as [number, string, Buffer][];
    expect(bodies).toHaveLength(30);
    for (const [seq, ts, body] of bodies) {
      const c = new ChainClaims();
      claimEvent(c, 2, 'session.create', TS, { sid: 'aaaa', label: null, session_root: HASH });
      expect(nodeAddForm(c, seq, ts, body, 0, body.length)).toBe(true);
    }
    expect(s.verify().ok).toBe(true);
    // an edit of one claimed hash, made consistently in the body: the claim read is the edited one
    dbOf(s)
      .prepare(
        'UPDATE audit_events SET body = CAST(replace(CAST(body AS TEXT), \'"node_hash":"\', \'"node_hash":"0\') AS BLOB) WHERE seq = ?',
      )
      .run(bodies[4][0]);
    const r = s.verify();
    expect(r.ok).toBe(false);
  });
});
