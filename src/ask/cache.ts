import { hashes } from '../store/index.js';
import { normaliseQuestion } from './text.js';
import type { ProviderSpec } from './types.js';

/** Bump when the built-in answerer changes what it answers, so old cached answers stop matching. */
export const BUILTIN_POLICY = 'builtin/1';

/**
 * The provider policy that goes into the cache key: `builtin/1`, `command:` + the canonical JSON of argv
 * (e.g. `command:["llm","-m","4o"]`), or `manual`. Timeouts and size caps do not change what is answered, so they
 * are not part of it.
 */
export function policyId(p: ProviderSpec): string {
  switch (p.kind) {
    case 'builtin':
      return BUILTIN_POLICY;
    case 'command':
      return `command:${hashes.canon(p.argv)}`;
    case 'manual':
      return 'manual';
  }
}

function sha256hex(s: string): string {
  return hashes.sha256(Buffer.from(s, 'utf8')).toString('hex');
}

/**
 * conversation_hash = hex(sha256(canon([{bates, node_hash}, ...]))) over the history path, root first, parent
 * last, crossing sessions. No parent: the hash of `[]`. node_hash already covers each turn's question, answer and
 * parent, so two branches with the same questions but different answers differ.
 */
export function conversationHash(path: readonly { bates: string; node_hash: string }[]): string {
  return sha256hex(hashes.canon(path.map((n) => ({ bates: n.bates, node_hash: n.node_hash }))));
}

/**
 * cache_key = hex(sha256(canon({conversation_hash, provider, question}))) with the question normalised
 * (NFKC, whitespace collapsed, trimmed, lowercased) and provider the policy id.
 */
export function cacheKey(question: string, provider: string, conversation_hash: string): string {
  return sha256hex(hashes.canon({ conversation_hash, provider, question: normaliseQuestion(question) }));
}
