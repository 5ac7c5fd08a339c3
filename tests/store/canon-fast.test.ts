import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashes } from '../../src/store/index.js';

/**
 * The fast canonical form of a node's content (hash.ts nodeContentJson) must be byte-for-byte the general RFC 8785
 * canonicaliser's output (nodeContentJsonSlow), for every value a node can hold, and fall back to it (throwing the
 * same way) for anything else.
 */
type Content = Parameters<typeof hashes.nodeContentJson>[0];

// A small deterministic PRNG, so a failure is reproducible.
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Characters that stress JSON escaping: controls, quotes, backslash, slash, DEL, C1, line/paragraph separators,
// BOM, non-BMP (surrogate pairs), combining marks, RTL and bidi controls.
const TRICKY = [
  '\u0000',
  '\u0001',
  '\u0007',
  '\b',
  '\t',
  '\n',
  '\u000b',
  '\f',
  '\r',
  '\u001b',
  '\u001f',
  '"',
  '\\',
  '/',
  '\u007f',
  '\u0080',
  '\u009b',
  '\u00e9',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ufffd',
  '\u202e',
  '\u0301',
  '😀',
  '𝄞',
  '中文',
  'a',
  ' ',
];

function text(r: () => number, max = 40): string {
  const n = Math.floor(r() * max);
  let s = '';
  for (let i = 0; i < n; i++) {
    const u = r();
    if (u < 0.5) s += TRICKY[Math.floor(r() * TRICKY.length)];
    else if (u < 0.9) s += String.fromCharCode(32 + Math.floor(r() * 95));
    else s += String.fromCodePoint(Math.floor(r() * 0x10ffff) & ~0x800); // avoid the surrogate block
  }
  return s;
}

function content(r: () => number): Content {
  const orNull = (f: () => string) => (r() < 0.3 ? null : f());
  return {
    bates: `${text(r, 8)}-000001`,
    parent_bates: orNull(() => text(r, 12)),
    question: text(r, 200),
    answer_text: text(r, 600),
    cited_titles: Array.from({ length: Math.floor(r() * 4) }, () => text(r, 30)),
    n_cited_sources: [0, 1, 7, 123456789, -0, 1.5, 1e21, 2 ** 53][Math.floor(r() * 8)],
    audit: text(r, 10),
    cache_key: orNull(() => text(r, 64)),
    created_at: text(r, 24),
    source: orNull(() => text(r, 12)),
    source_id: orNull(() => text(r, 36)),
  };
}

function sameOrBothThrow(c: Content): void {
  let slow: string | Error;
  try {
    slow = hashes.nodeContentJsonSlow(c);
  } catch (e) {
    slow = e as Error;
  }
  if (slow instanceof Error) {
    expect(() => hashes.nodeContentJson(c)).toThrow(slow.message);
    return;
  }
  expect(hashes.nodeContentJson(c)).toBe(slow);
  const viaBuffer = createHash('sha256')
    .update(Buffer.from([0]))
    .update(Buffer.from(slow, 'utf8'))
    .digest();
  expect(hashes.nodeHash(c).toString('hex')).toBe(viaBuffer.toString('hex'));
}

describe('fast canonical node content', () => {
  it('equals the general canonicaliser on 5,000 random contents with hostile characters', () => {
    const r = prng(2026);
    for (let i = 0; i < 5000; i++) sameOrBothThrow(content(r));
  });

  it('escapes every BMP character exactly as the general canonicaliser does', () => {
    const base = content(prng(1));
    for (let cp = 0; cp <= 0xffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCharCode(cp);
      const c = { ...base, question: `a${ch}b${ch}`, cited_titles: [ch, `"${ch}\\`] };
      expect(hashes.nodeContentJson(c), `U+${cp.toString(16)}`).toBe(hashes.nodeContentJsonSlow(c));
    }
  });

  it('falls back to the general path (and its errors) for values a stored node never holds', () => {
    const r = prng(7);
    const base = content(r);
    const odd: Partial<Record<keyof Content, unknown>>[] = [
      { question: 'lone \ud800 surrogate' },
      { answer_text: '\udc00' },
      { cited_titles: ['ok', 'bad \udbff'] },
      { n_cited_sources: Number.NaN },
      { n_cited_sources: Number.POSITIVE_INFINITY },
      { n_cited_sources: '9' },
      { cache_key: undefined },
      { source: 12 },
      { cited_titles: ['a', undefined, 'b'] },
      { cited_titles: [1, null] },
      { cited_titles: 'not a list' },
      { parent_bates: { toJSON: () => 'x' } },
    ];
    for (const o of odd) sameOrBothThrow({ ...base, ...o } as Content);
  });

  it('keeps the documented key order', () => {
    const c: Content = {
      bates: 'abc-000002',
      parent_bates: 'abc-000001',
      question: 'q "quoted"\n',
      answer_text: 'a',
      cited_titles: ['T1', 'T2'],
      n_cited_sources: 2,
      audit: 'manual',
      cache_key: null,
      created_at: '2026-01-01T00:00:00.000Z',
      source: null,
      source_id: null,
    };
    expect(hashes.nodeContentJson(c)).toBe(
      '{"answer_text":"a","audit":"manual","bates":"abc-000002","cache_key":null,"cited_titles":["T1","T2"],' +
        '"created_at":"2026-01-01T00:00:00.000Z","n_cited_sources":2,"parent_bates":"abc-000001",' +
        '"question":"q \\"quoted\\"\\n","source":null,"source_id":null}',
    );
  });
});
