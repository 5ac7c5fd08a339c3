import { unlinkSync } from 'node:fs';
import { ArboristError, badInput, postingsOf, type Shard, type TurnNode } from '../store/index.js';
import { builtinAnswer } from './builtin.js';
import { cacheKey, conversationHash, policyId } from './cache.js';
import { type CommandInput, runCommand } from './command.js';
import { AskError, cancelled } from './errors.js';
import { type KeptAnswer, keepAnswer, parseKept, shardRealPath, UnstoredAnswer } from './keep.js';
import { retrieve } from './retrieve.js';
import type { AskRequest, AskResult, ProviderSpec } from './types.js';

export { splitArgv } from './argv.js';
export { type BuiltinAnswer, builtinAnswer, citedBates, UNGROUNDED_ANSWER } from './builtin.js';
export { BUILTIN_POLICY, cacheKey, conversationHash, policyId } from './cache.js';
export {
  type CommandInput,
  DEFAULT_MAX_BYTES,
  DEFAULT_TIMEOUT_MS,
  type RunOptions,
  runCommand,
} from './command.js';
export {
  type AnswerConfig,
  loadAnswerConfig,
  type ProviderOptions,
  providerFromOptions,
  readConfig,
} from './config.js';
export { AskError, type AskErrorCode } from './errors.js';
export { type KeptAnswer, MAX_KEPT_BYTES, parseKept, UnstoredAnswer } from './keep.js';
export { type Citation, type ContextItem, type Retrieval, retrieve } from './retrieve.js';
export { normaliseQuestion } from './text.js';
export type { AskRequest, AskResult, ProviderSpec } from './types.js';

/** How many retrieved turns an answer command receives as `context`. */
const COMMAND_CONTEXT = 8;

function checkProvider(p: ProviderSpec): void {
  if (p.kind === 'command') {
    if (!Array.isArray(p.argv) || p.argv.length === 0 || typeof p.argv[0] !== 'string' || p.argv[0] === '') {
      throw new AskError('config', 'the answer command is empty');
    }
    if (!p.argv.every((a) => typeof a === 'string'))
      throw new AskError('config', 'answer command arguments must be text');
    for (const [k, v] of [
      ['timeout', p.timeoutMs],
      ['output cap', p.maxBytes],
    ] as const) {
      if (v !== undefined && (!Number.isInteger(v) || v < 1)) {
        throw new AskError('config', `the answer command's ${k} must be a positive whole number`);
      }
    }
  } else if (p.kind === 'manual') {
    if (typeof p.answer !== 'string') throw badInput('the answer must be text');
  } else if (p.kind !== 'builtin') {
    throw new AskError('config', `unknown answer provider '${(p as { kind: unknown }).kind}'`);
  }
}

/**
 * Asks one question and stores the turn.
 *
 * 1. Validates everything that can be checked up front (question, parent, session, provider), so a bad id never
 *    costs a provider run.
 * 2. history = the path from the root to `parent`, crossing sessions; cache_key from the normalised question, the
 *    provider policy and the history's conversation_hash (src/ask/cache.ts).
 * 3. The answer: `manual` as given (never cached); else the cache, unless noCache (audit `cached`); else the
 *    built-in answerer (`grounded` / `ungrounded`) or the external command (`fresh`), streamed to onChunk.
 * 4. One IMMEDIATE transaction: the new session (fork, or neither parent nor session), the node with its
 *    cache_key, cited_titles and n_cited_sources, and the cache row. Any failure before it adds nothing.
 */
export async function ask(shard: Shard, req: AskRequest): Promise<AskResult> {
  if (typeof req.question !== 'string' || req.question.trim() === '') throw badInput('question is empty');
  const question = req.question.toWellFormed();
  if (shard.readonly) throw new ArboristError('shard', `${shard.path} is open read-only`);
  if (req.fork && req.session !== undefined) {
    throw new ArboristError('usage', 'a fork starts its own session: give a parent, not a session');
  }
  const provider: ProviderSpec = req.provider ?? { kind: 'builtin' };
  checkProvider(provider);
  if (req.signal?.aborted) throw cancelled();

  // Retrieval reads FTS5 directly: turns still waiting to be indexed (Shard.deferIndexing) must be in it.
  shard.flushIndex();
  const history: TurnNode[] = req.parent !== undefined ? shard.pathTo(req.parent) : [];
  if (req.session !== undefined) shard.resolveSession(req.session);
  const policy = policyId(provider);
  const key = cacheKey(question, policy, conversationHash(history));
  const emit = (text: string) => {
    if (text !== '') req.onChunk?.(text);
  };

  let answer_text: string;
  let cited_titles: string[];
  let audit: string;
  let cacheable = false;
  const extra = req.cited_titles ?? [];
  if (provider.kind === 'manual') {
    answer_text = provider.answer;
    cited_titles = [...extra];
    audit = 'manual';
    emit(answer_text);
  } else {
    const hit = req.noCache ? undefined : shard.getCachedAnswer(key);
    if (hit) {
      answer_text = hit.answer_text;
      cited_titles = hit.cited_titles;
      audit = 'cached';
      emit(answer_text);
    } else if (provider.kind === 'builtin') {
      const b = builtinAnswer(retrieve(postingsOf(shard), question, history));
      answer_text = b.answer_text;
      cited_titles = [...b.cited_titles, ...extra];
      audit = b.grounded ? 'grounded' : 'ungrounded';
      // An empty result goes stale as the shard grows, and is cheap to recompute: only grounded answers are cached.
      cacheable = b.grounded;
      emit(answer_text);
    } else {
      const context = retrieve(postingsOf(shard), question, history, {
        limit: COMMAND_CONTEXT,
      }).citations.map((c) => ({
        bates: c.bates,
        question: c.question,
        snippet: c.snippet,
      }));
      const input: CommandInput = {
        question,
        history: history.map((n) => ({ bates: n.bates, question: n.question, answer: n.answer_text })),
        context,
        cache_key: key,
      };
      const out = await runCommand(provider.argv, `${JSON.stringify(input)}\n`, {
        timeoutMs: provider.timeoutMs,
        maxBytes: provider.maxBytes,
        onChunk: req.onChunk,
        signal: req.signal,
      });
      answer_text = out.replace(/\s+$/u, '');
      cited_titles = [...extra];
      audit = 'fresh';
      cacheable = true;
    }
  }
  if (req.signal?.aborted) throw cancelled();

  const kept: KeptAnswer = {
    v: 1,
    shard: shardRealPath(shard.path),
    asked_at: new Date().toISOString(),
    question,
    parent_bates: req.parent ?? null,
    session: req.session ?? null,
    fork: req.fork ?? false,
    label: req.label ?? null,
    answer_text,
    cited_titles,
    audit,
    cache_key: key,
    cacheable,
    provider: policy,
  };
  try {
    return storeAnswer(shard, kept).result;
  } catch (err) {
    // The answer is had (perhaps paid for) and the turn is not stored: a lock held past the busy timeout, a full
    // disk. Keep it in a file that `arborist ask --kept` stores later. A given answer (--answer) is the caller's.
    if (provider.kind === 'manual') throw err;
    throw new UnstoredAnswer(err, keepAnswer(kept, shard.path), kept.shard);
  }
}

/**
 * The write of ask (step 4): one IMMEDIATE transaction, waiting for another writer's lock as every write does (the
 * store's busy timeout). `same`, run first inside it, names a turn that already holds this answer: then nothing is
 * written and that turn is the result.
 */
function storeAnswer(
  shard: Shard,
  k: KeptAnswer,
  same?: () => TurnNode | undefined,
): { result: AskResult; already_stored: boolean } {
  const created_at = new Date().toISOString();
  const done = shard.write(() => {
    const there = same?.();
    if (there !== undefined) {
      const root = shard.getSession(there.sid)?.session_root ?? '';
      return {
        already: true,
        audit: there.audit,
        bates: there.bates,
        sid: there.sid,
        seq: there.seq,
        parent_bates: there.parent_bates,
        node_hash: there.node_hash,
        subtree_hash: there.subtree_hash,
        session_root: root,
        created_session: false,
      };
    }
    let session = k.session ?? undefined;
    let forked = false;
    if (k.fork) {
      session = shard.createSession({ label: k.label ?? undefined, created_at }).sid;
      forked = true;
    }
    const a = shard.addTurn({
      question: k.question,
      answer_text: k.answer_text,
      cited_titles: k.cited_titles,
      n_cited_sources: k.cited_titles.length,
      audit: k.audit,
      cache_key: k.cache_key,
      session,
      parent: k.parent_bates ?? undefined,
      label: k.label ?? undefined,
      created_at,
    });
    if (k.cacheable) shard.putCachedAnswer(k.cache_key, k.answer_text, k.cited_titles, created_at);
    return { ...a, already: false, audit: k.audit, created_session: forked || a.created_session };
  });
  const { already, ...added } = done;
  return {
    result: {
      ...added,
      cache_key: k.cache_key,
      answer_text: k.answer_text,
      cited_titles: k.cited_titles,
      n_cited_sources: k.cited_titles.length,
      provider: k.provider,
    },
    already_stored: already,
  };
}

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * `arborist ask --kept FILE`: stores an answer ask kept (keep.ts) in the shard it was asked of, as the ask would
 * have, then removes the file. Nothing is asked again. `text` is the file's content, read by the caller (parseKept).
 *
 * The file is not trusted: its cache key must be the one its question, provider and the history to its parent give
 * in this shard (else someone who can write beside the shard could file an answer under another question's key,
 * and that question would be answered from the cache), and a turn that already holds this answer (the same file
 * stored before, or a copy of it) is the result instead of a second turn. Both are decided inside the write, so two
 * runs at once store one turn.
 */
export function storeKept(
  shard: Shard,
  file: string,
  text: string,
): { result: AskResult; removed: boolean; already_stored: boolean } {
  const k = parseKept(text, file);
  if (shard.readonly) throw new ArboristError('shard', `${shard.path} is open read-only`);
  const here = shardRealPath(shard.path);
  if (here !== k.shard)
    throw new ArboristError('usage', `${file} was asked of ${k.shard}, not ${here}: give --db ${k.shard}`);
  const { result, already_stored } = storeAnswer(shard, k, () => {
    // As ask computes it (step 2); pathTo refuses a parent that is not here.
    const history = k.parent_bates === null ? [] : shard.pathTo(k.parent_bates);
    if (cacheKey(k.question, k.provider, conversationHash(history)) !== k.cache_key)
      throw badInput(
        `${file}: its cache_key ${k.cache_key.slice(0, 12)}… is not the key of its question, provider and parent in this shard: nothing stored`,
      );
    // The same key is the same question (normalised), provider and history; the same turn also has the same
    // question as typed, parent (a fork or a root in another session has the same key), answer and cited titles.
    return shard
      .findByCacheKey(k.cache_key)
      .find(
        (n) =>
          n.parent_bates === k.parent_bates &&
          n.question === k.question &&
          n.answer_text === k.answer_text &&
          sameList(n.cited_titles, k.cited_titles),
      );
  });
  let removed = true;
  try {
    unlinkSync(file);
  } catch {
    removed = false;
  }
  return { result, removed, already_stored };
}
