import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hashes, type NewTurn, type Shard } from '../../src/store/index.js';
import { dbOf } from '../../src/store/testing.js';
import { newShard, rootBytes, subtreeBytes } from './util.js';

/**
 * Hash test vectors. The tree and the expected values live in vectors.json (so docs/sessions.md can cite them and
 * readers can re-check them in another language). This test recomputes every value independently of src/store:
 * node:crypto sha256 over canonical JSON written out literally below.
 */
interface Vectors {
  sessions: { sid: string; label: string | null; created_at: string }[];
  turns: { input: NewTurn; bates: string; canonical: string; node_hash: string; subtree_hash: string }[];
  session_roots: Record<string, string>;
  event: { prev_hash: string; body: string; event_hash: string };
}
const V = JSON.parse(readFileSync(new URL('./vectors.json', import.meta.url), 'utf8')) as Vectors;

const H = (...parts: (Buffer | string | number[])[]) =>
  createHash('sha256')
    .update(
      Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p)))),
    )
    .digest();

// RFC 8785 canonical JSON of each node's content, written by hand: sorted keys, no spaces, non-ASCII as UTF-8.
const CANON: Record<string, string> = {
  'aaaa-000001': `{"answer_text":"A tree in which every node carries the hash of its children.","audit":"fresh","bates":"aaaa-000001","cache_key":null,"cited_titles":["RFC 6962"],"created_at":"2026-01-01T00:00:01.000Z","n_cited_sources":1,"parent_bates":null,"question":"What is a Merkle tree?","source":null,"source_id":null}`,
  'aaaa-000002': String.raw`{"answer_text":"So a leaf hash can never pass for an inner node.\nSee section 2.1.","audit":"cached","bates":"aaaa-000002","cache_key":"c0ffee","cited_titles":["RFC 6962","Certificate Transparency"],"created_at":"2026-01-01T00:00:02.000Z","n_cited_sources":3,"parent_bates":"aaaa-000001","question":"Why prefix leaves with 0x00?","source":null,"source_id":null}`,
  'aaaa-000003': String.raw`{"answer_text":"Yes: canonical JSON keeps non-ASCII text as UTF-8 bytes and escapes only \"quotes\", backslashes \\ and controls\t.","audit":"manual","bates":"aaaa-000003","cache_key":null,"cited_titles":[],"created_at":"2026-01-01T00:00:03.000Z","n_cited_sources":0,"parent_bates":"aaaa-000001","question":"Café, naïve, 日本語: is UTF-8 hashed as is?","source":"import","source_id":"uuid-3"}`,
  'bbbb-000001': `{"answer_text":"Its top nodes' subtree hashes, by seq.","audit":"manual","bates":"bbbb-000001","cache_key":null,"cited_titles":[],"created_at":"2026-01-02T00:00:01.000Z","n_cited_sources":0,"parent_bates":"aaaa-000002","question":"Fork: and a session root?","source":null,"source_id":null}`,
  'bbbb-000002': `{"answer_text":"","audit":"manual","bates":"bbbb-000002","cache_key":null,"cited_titles":[],"created_at":"2026-01-02T00:00:02.000Z","n_cited_sources":0,"parent_bates":"bbbb-000001","question":"And an empty answer?","source":null,"source_id":null}`,
  'bbbb-000003': `{"answer_text":"ok","audit":"manual","bates":"bbbb-000003","cache_key":null,"cited_titles":[],"created_at":"2026-01-02T00:00:03.000Z","n_cited_sources":0,"parent_bates":null,"question":"A second top node in the same session","source":null,"source_id":null}`,
  'dddd-000001': `{"answer_text":"By sid, then seq: this dddd-000001 comes after aaaa-000003.","audit":"manual","bates":"dddd-000001","cache_key":null,"cited_titles":[],"created_at":"2026-01-04T00:00:01.000Z","n_cited_sources":0,"parent_bates":"aaaa-000001","question":"Children from several sessions: which order?","source":null,"source_id":null}`,
};

/** The expected values, computed here from the conventions alone. */
function independent() {
  const nh = Object.fromEntries(Object.entries(CANON).map(([b, c]) => [b, H([0x00], c)]));
  // The tree:  aaaa-000001 ─┬ aaaa-000002 ── bbbb-000001 ── bbbb-000002
  //                         ├ aaaa-000003
  //                         └ dddd-000001   (by (sid, seq) it comes last, though its seq is the smallest)
  //            bbbb-000003 (a second top of bbbb);  cccc has no turns.
  const sub: Record<string, Buffer> = {};
  sub['bbbb-000002'] = H([0x01], nh['bbbb-000002']);
  sub['bbbb-000001'] = H([0x01], nh['bbbb-000001'], sub['bbbb-000002']);
  sub['aaaa-000003'] = H([0x01], nh['aaaa-000003']);
  sub['aaaa-000002'] = H([0x01], nh['aaaa-000002'], sub['bbbb-000001']);
  sub['dddd-000001'] = H([0x01], nh['dddd-000001']);
  sub['aaaa-000001'] = H(
    [0x01],
    nh['aaaa-000001'],
    sub['aaaa-000002'],
    sub['aaaa-000003'],
    sub['dddd-000001'],
  );
  sub['bbbb-000003'] = H([0x01], nh['bbbb-000003']);
  const roots = {
    aaaa: H([0x02], 'aaaa', [0x00], sub['aaaa-000001']),
    bbbb: H([0x02], 'bbbb', [0x00], sub['bbbb-000001'], sub['bbbb-000003']),
    cccc: H([0x02], 'cccc', [0x00]),
    dddd: H([0x02], 'dddd', [0x00], sub['dddd-000001']),
  };
  // The node.add event of aaaa-000001 is the 6th (shard.init and four session.create come first). Its body is
  // deterministic because the turn's created_at is its ts.
  const rootAfterFirst = H([0x02], 'aaaa', [0x00], H([0x01], nh['aaaa-000001'])).toString('hex');
  const body =
    `{"data":{"bates":"aaaa-000001","node_hash":"${nh['aaaa-000001'].toString('hex')}","parent_bates":null,` +
    `"session_roots":{"aaaa":"${rootAfterFirst}"}},"kind":"node.add","seq":6,"ts":"2026-01-01T00:00:01.000Z"}`;
  return { nh, sub, roots, body, eventFromGenesis: H(Buffer.alloc(32), body) };
}

function build(): Shard {
  const s = newShard();
  for (const x of V.sessions) s.createSession(x);
  for (const t of V.turns) expect(s.addTurn(t.input).bates).toBe(t.bates);
  return s;
}

describe('hash test vectors', () => {
  it('vectors.json holds the canonical JSON written out in this test', () => {
    expect(V.turns.map((t) => t.bates)).toEqual(Object.keys(CANON));
    for (const t of V.turns) expect(t.canonical, t.bates).toBe(CANON[t.bates]);
  });

  it('vectors.json holds the values computed independently from the conventions', () => {
    const x = independent();
    for (const t of V.turns) {
      expect(t.node_hash, t.bates).toBe(x.nh[t.bates].toString('hex'));
      expect(t.subtree_hash, t.bates).toBe(x.sub[t.bates].toString('hex'));
    }
    expect(V.session_roots).toEqual({
      aaaa: x.roots.aaaa.toString('hex'),
      bbbb: x.roots.bbbb.toString('hex'),
      cccc: x.roots.cccc.toString('hex'),
      dddd: x.roots.dddd.toString('hex'),
    });
    expect(V.event).toEqual({
      prev_hash: '00'.repeat(32),
      body: x.body,
      event_hash: x.eventFromGenesis.toString('hex'),
    });
  });

  it('the store produces exactly the vector hashes', () => {
    const s = build();
    const storedNode = new Map(
      dbOf(s).prepare('SELECT bates, node_hash FROM nodes').raw(true).all() as [string, Buffer][],
    );
    const storedSub = subtreeBytes(s);
    for (const t of V.turns) {
      expect(storedNode.get(t.bates)!.toString('hex'), t.bates).toBe(t.node_hash);
      expect(storedSub.get(t.bates)!.toString('hex'), t.bates).toBe(t.subtree_hash);
      expect(s.requireNode(t.bates).node_hash).toBe(t.node_hash);
      expect(hashes.nodeContentBytes({ ...s.requireNode(t.bates) }).toString('utf8'), t.bates).toBe(
        t.canonical,
      );
    }
    const roots = rootBytes(s);
    for (const [sid, h] of Object.entries(V.session_roots)) {
      expect(roots.get(sid)!.toString('hex'), sid).toBe(h);
      expect(s.getSession(sid)!.session_root).toBe(h);
    }
    expect(s.verify().ok).toBe(true);
  });

  it('the store writes the vector event body and hashes it by the event convention', () => {
    const s = build();
    const row = dbOf(s)
      .prepare('SELECT body, prev_hash, event_hash FROM audit_events WHERE seq = 6')
      .get() as {
      body: Buffer;
      prev_hash: Buffer;
      event_hash: Buffer;
    };
    expect(row.body.toString('utf8')).toBe(V.event.body);
    expect(row.event_hash.equals(H(row.prev_hash, row.body))).toBe(true);
    // The store's event hash function agrees with the genesis vector.
    expect(hashes.eventHash(Buffer.alloc(32), Buffer.from(V.event.body, 'utf8')).toString('hex')).toBe(
      V.event.event_hash,
    );
    const first = dbOf(s).prepare('SELECT prev_hash FROM audit_events WHERE seq = 1').pluck().get() as Buffer;
    expect(first.equals(Buffer.alloc(32))).toBe(true);
  });

  it('domain separation: a leaf, an inner node and a root over the same bytes all differ', () => {
    const x = independent();
    const leafOnly = x.nh['aaaa-000003'];
    expect(x.sub['aaaa-000003'].equals(leafOnly)).toBe(false);
    expect(hashes.subtreeHash(leafOnly, []).equals(H([0x01], leafOnly))).toBe(true);
    expect(hashes.sessionRoot('cccc', []).equals(x.roots.cccc)).toBe(true);
    // session_root separates sid from the hashes with a 0x00 byte
    expect(hashes.sessionRoot('cccc', []).equals(H([0x02], 'cccc'))).toBe(false);
  });
});
