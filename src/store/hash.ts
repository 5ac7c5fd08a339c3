import { hash as oneShotHash } from 'node:crypto';
import canonicalize from 'canonicalize';

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

export function sha256(data: Buffer | string): Buffer {
  // crypto.hash is the one-shot API (no Hash object per call): measurably faster on millions of small inputs.
  return oneShotHash('sha256', data, 'buffer') as unknown as Buffer;
}

export function canon(value: unknown): string {
  const out = canonicalize(value);
  if (out === undefined) throw new Error('value cannot be canonicalised');
  return out;
}

/** The fields of a node that its node_hash covers. Structure (parent) is content: moving a node changes its hash. */
export interface NodeContent {
  bates: string;
  parent_bates: string | null;
  question: string;
  answer_text: string;
  cited_titles: string[];
  n_cited_sources: number;
  audit: string;
  cache_key: string | null;
  created_at: string;
  source: string | null;
  source_id: string | null;
}

export function nodeContentBytes(c: NodeContent): Buffer {
  return Buffer.from(
    canon({
      answer_text: c.answer_text,
      audit: c.audit,
      bates: c.bates,
      cache_key: c.cache_key,
      cited_titles: c.cited_titles,
      created_at: c.created_at,
      n_cited_sources: c.n_cited_sources,
      parent_bates: c.parent_bates,
      question: c.question,
      source: c.source,
      source_id: c.source_id,
    }),
    'utf8',
  );
}

export function nodeHash(c: NodeContent): Buffer {
  return sha256(Buffer.concat([LEAF, nodeContentBytes(c)]));
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
