import { hash as oneShotHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { type TurnContent, turnContentOf } from './content.js';

/**
 * Hash conventions (docs/sessions.md is the normative text):
 *   H = sha256; canon = RFC 8785 canonical JSON.
 *   node_hash    = H(0x00 || canon(node content))
 *   subtree_hash = H(0x01 || node_hash || subtree_hash(child)... ), children ordered by (sid, seq)
 *   session_root = H(0x02 || utf8(sid) || 0x00 || subtree_hash(top node)... ), top nodes ordered by seq
 * The leading byte separates the domains (as RFC 6962 does), so one kind of hash can never pass for another.
 */
export const LEAF = Buffer.from([0x00]);
export const INNER = Buffer.from([0x01]);
export const ROOT = Buffer.from([0x02]);
export const ZERO_HASH = Buffer.alloc(32);

// crypto.hash is the one-shot API (no Hash object per call): measurably faster on millions of small inputs. Its
// 'buffer' output allocates a new backing store per call, which on Node 20 cost as much as hashing 300 bytes; a
// 'binary' (latin1) string, one char per byte, is 2-3x cheaper, so the hot paths take the digest in that form and
// write or compare its bytes (sha256Into, sha256Equals), and sha256() turns it into a (pooled) Buffer.
function digest(data: Buffer | Uint8Array | string): string {
  return oneShotHash('sha256', data, 'binary');
}

export function sha256(data: Buffer | Uint8Array | string): Buffer {
  return Buffer.from(digest(data), 'latin1');
}

/**
 * sha256(data) written into out[at, at + 32), with no Buffer made; a range out of bounds throws. A plain loop, as
 * equal32: Buffer#write with an encoding cost a fifth of hashing a node's 100 bytes of subtree input.
 */
export function sha256Into(data: Buffer | Uint8Array | string, out: Uint8Array, at: number): void {
  if (!(at >= 0 && at + 32 <= out.length)) throw new RangeError(`sha256Into: offset ${at} out of range`);
  const h = digest(data);
  for (let i = 0; i < 32; i++) out[at + i] = h.charCodeAt(i);
}

/** b[bi, bi + 32) copied into a[ai, ai + 32) (both in bounds: the callers size them). A loop: see sha256Into. */
export function copy32(a: Uint8Array, ai: number, b: Uint8Array, bi: number): void {
  for (let i = 0; i < 32; i++) a[ai + i] = b[bi + i];
}

/**
 * a[ai, ai + 32) equals b[bi, bi + 32); a range out of bounds never does. A plain loop: Buffer#compare with offsets
 * (argument checks, a call into C++) cost about a third as much as a sha256 of 300 bytes.
 */
export function equal32(a: Uint8Array, ai: number, b: Uint8Array, bi: number): boolean {
  if (!(ai >= 0 && bi >= 0 && ai + 32 <= a.length && bi + 32 <= b.length)) return false;
  for (let i = 0; i < 32; i++) if (a[ai + i] !== b[bi + i]) return false;
  return true;
}

/** Whether sha256(data) equals b[at, at + 32) (false when that range is out of bounds), with no Buffer made. */
export function sha256Equals(data: Buffer | Uint8Array | string, b: Uint8Array, at: number): boolean {
  if (!(at >= 0 && at + 32 <= b.length)) return false;
  const h = digest(data);
  for (let i = 0; i < 32; i++) if (h.charCodeAt(i) !== b[at + i]) return false;
  return true;
}

export function canon(value: unknown): string {
  const out = canonicalize(value);
  if (out === undefined) throw new Error('value cannot be canonicalised');
  return out;
}

/** The fields node_hash covers (model/content.ts declares them). */
export type NodeContent = TurnContent;

/** canon(node content) through the general canonicaliser: the reference that nodeContentJson must equal. */
export function nodeContentJsonSlow(c: NodeContent): string {
  return canon(turnContentOf(c));
}

// JSON.stringify of a well-formed string, 4-5x faster on Node 20 for kilobytes of text: escape quote, backslash and
// U+0000-U+001F exactly as JSON.stringify (and RFC 8785) do, short forms where JSON has them, else \u00xx in lower
// case; everything else (DEL, C1, U+2028/9, non-BMP) stays as is. Only for strings with no lone surrogate.
const JSON_ESCAPE = /["\\\u0000-\u001f]/g;
const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};
function escapeChar(c: string): string {
  return SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
function jsonText(s: string): string {
  return `"${s.replace(JSON_ESCAPE, escapeChar)}"`;
}

/** JSON text of a well-formed string or of null (as canon() writes it); undefined for anything else. */
function textOrNull(v: unknown): string | undefined {
  if (v === null) return 'null';
  return typeof v === 'string' && v.isWellFormed() ? jsonText(v) : undefined;
}

/**
 * canon(node content), fast. The keys are fixed and their sorted order is known, so for the values a node holds
 * (well-formed text or null, a list of well-formed text, a finite number) RFC 8785 output is exactly JSON.stringify
 * of each value between fixed key strings (jsonText for text): the general canonicaliser (hasLoneSurrogate scans, key sorts, a Set of
 * seen objects, per-value recursion) made up most of verify's time. Anything else (a lone surrogate, a missing
 * field, a non-finite number, a tampered type) takes the general path, so the bytes are always canon()'s.
 * tests/store/canon-fast.test.ts checks that the two agree.
 */
export function nodeContentJson(c: NodeContent): string {
  const answer = textOrNull(c.answer_text);
  const audit = textOrNull(c.audit);
  const bates = textOrNull(c.bates);
  const cacheKey = textOrNull(c.cache_key);
  const createdAt = textOrNull(c.created_at);
  const parent = textOrNull(c.parent_bates);
  const question = textOrNull(c.question);
  const source = textOrNull(c.source);
  const sourceId = textOrNull(c.source_id);
  const n = c.n_cited_sources;
  const titles = c.cited_titles;
  let cited: string | undefined;
  if (Array.isArray(titles) && typeof (titles as { toJSON?: unknown }).toJSON !== 'function') {
    cited = '[';
    for (let i = 0; i < titles.length; i++) {
      const t = titles[i];
      if (typeof t !== 'string' || !t.isWellFormed()) {
        cited = undefined;
        break;
      }
      cited += i === 0 ? jsonText(t) : `,${jsonText(t)}`;
    }
    if (cited !== undefined) cited += ']';
  }
  if (
    answer === undefined ||
    audit === undefined ||
    bates === undefined ||
    cacheKey === undefined ||
    cited === undefined ||
    createdAt === undefined ||
    typeof n !== 'number' ||
    !Number.isFinite(n) ||
    parent === undefined ||
    question === undefined ||
    source === undefined ||
    sourceId === undefined
  ) {
    return nodeContentJsonSlow(c);
  }
  return (
    `{"answer_text":${answer},"audit":${audit},"bates":${bates},"cache_key":${cacheKey},"cited_titles":${cited},` +
    `"created_at":${createdAt},"n_cited_sources":${JSON.stringify(n)},"parent_bates":${parent},` +
    `"question":${question},"source":${source},"source_id":${sourceId}}`
  );
}

export function nodeContentBytes(c: NodeContent): Buffer {
  return Buffer.from(nodeContentJson(c), 'utf8');
}

export function nodeHash(c: NodeContent): Buffer {
  // H(0x00 || canon(content)): U+0000 is the single byte 0x00 in UTF-8, and hashing the string directly saves two
  // copies of the (often kilobytes long) canonical text.
  return sha256(`\u0000${nodeContentJson(c)}`);
}

export function subtreeHash(node: Buffer, children: Buffer[]): Buffer {
  return sha256(Buffer.concat([INNER, node, ...children]));
}

export function sessionRoot(sid: string, tops: Buffer[]): Buffer {
  return sha256(Buffer.concat([ROOT, Buffer.from(sid, 'utf8'), LEAF, ...tops]));
}

/** event_hash = H(prev_hash || body), body being the stored canonical bytes. */
export function eventHash(prev: Buffer, body: Buffer): Buffer {
  return sha256(Buffer.concat([prev, body]));
}

export function hex(b: Buffer | Uint8Array | null | undefined): string | null {
  return b ? Buffer.from(b).toString('hex') : null;
}
