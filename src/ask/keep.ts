/**
 * An answer that could not be stored (another process held the shard's write lock past the busy timeout, a full
 * disk, ...) is kept in a file beside the shard, so that what a model was paid for is not lost:
 * `<shard>.kept-<time>-<random>.json`, mode 0600, one JSON document with everything the turn needs.
 * `arborist ask --kept FILE` stores it later, as the ask would have (docs/asking.md, "When the turn cannot be
 * stored"). Whoever can write beside the shard can write such a file, so what it says is checked, not trusted.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsyncSync, openSync, realpathSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { ArboristError, badInput, hashes } from '../store/index.js';
import { shellPath } from '../text/shell.js';

export interface KeptAnswer {
  v: 1;
  /** The real path of the shard it was asked of: it is stored there, nowhere else. */
  shard: string;
  asked_at: string;
  question: string;
  parent_bates: string | null;
  session: string | null;
  fork: boolean;
  label: string | null;
  answer_text: string;
  cited_titles: string[];
  audit: string;
  cache_key: string;
  /** Whether the answer goes into the answer cache when stored. */
  cacheable: boolean;
  /** The provider policy (AskResult.provider). */
  provider: string;
}

/**
 * A kept file larger than this is not one of ours: the question and the answer are at most 16 MiB each (the store's
 * cap), 96 MiB each as JSON escapes at worst.
 */
export const MAX_KEPT_BYTES = 256 * 1024 * 1024;

/** The asking failed at the write: the message says why, where the answer is kept, and what stores it. */
export class UnstoredAnswer extends ArboristError {
  constructor(
    cause: unknown,
    /** The kept file, or null when it could not be written either. */
    readonly file: string | null,
    shard: string,
  ) {
    const why = cause instanceof ArboristError ? cause.message : `${(cause as Error)?.message ?? cause}`;
    super(
      cause instanceof ArboristError ? cause.kind : 'shard',
      `${why.split('\n')[0]}; ${
        file === null
          ? 'the answer could not be kept in a file either: it is only in the output above'
          : `the answer is kept in ${file}: store it with \`arborist ask --kept ${shellPath(file)} --db ${shellPath(shard)}\``
      }`,
    );
    this.name = 'UnstoredAnswer';
  }
}

/** Writes the kept answer beside the shard (O_EXCL, O_NOFOLLOW, 0600, fsynced). Returns its path, or null. */
export function keepAnswer(kept: KeptAnswer, shardPath: string): string | null {
  const stamp = kept.asked_at.replace(/[-:]/g, '').replace(/\.\d+/, '');
  const file = `${resolve(shardPath)}.kept-${stamp}-${randomBytes(4).toString('hex')}.json`;
  let fd: number;
  try {
    fd = openSync(
      file,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
  } catch {
    return null;
  }
  try {
    writeSync(fd, `${JSON.stringify(kept, null, 2)}\n`);
    fsyncSync(fd);
    return file;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The real path of a shard file, or the path itself when it cannot be resolved. */
export function shardRealPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

const isStr = (v: unknown): v is string => typeof v === 'string';
const isStrOrNull = (v: unknown) => v === null || typeof v === 'string';

/**
 * The audit tags a provider's answer can carry, by the kind of its policy (src/ask/cache.ts, policyId): `manual`
 * is never kept (a given answer is the caller's own).
 */
function auditsOf(policy: string): string[] | undefined {
  if (/^builtin\/\d+$/.test(policy)) return ['grounded', 'ungrounded', 'cached'];
  if (!policy.startsWith('command:')) return undefined;
  // Exactly what policyId writes: `command:` + the canonical JSON of a non-empty argv of text.
  const json = policy.slice('command:'.length);
  let argv: unknown;
  try {
    argv = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!Array.isArray(argv) || argv.length === 0 || argv[0] === '' || !argv.every(isStr)) return undefined;
  return hashes.canon(argv) === json ? ['fresh', 'cached'] : undefined;
}

/**
 * A kept answer's text (`file` names it in messages), checked field by field against what ask writes: a one-line
 * error for anything else. The cache key is checked against the shard by storeKept. The caller reads the file
 * (src/cli/commands/ask.ts: a regular file, at most MAX_KEPT_BYTES), since only it may use the readers of untrusted
 * files.
 */
export function parseKept(text: string, file: string): KeptAnswer {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw badInput(`${file} is not a kept answer (not JSON)`);
  }
  const k = doc as Record<string, unknown>;
  const bad = (field: string) => badInput(`${file} is not a kept answer (${field})`);
  if (k === null || typeof k !== 'object' || Array.isArray(k) || k.v !== 1) throw bad('v');
  if (!isStr(k.shard) || k.shard === '') throw bad('shard');
  if (!isStr(k.asked_at)) throw bad('asked_at');
  if (!isStr(k.question) || k.question.trim() === '') throw bad('question');
  for (const f of ['parent_bates', 'session', 'label'] as const) if (!isStrOrNull(k[f])) throw bad(f);
  if (typeof k.fork !== 'boolean') throw bad('fork');
  // ask refuses a fork without a parent, and a fork into a session (it starts its own).
  if (k.fork && (k.parent_bates === null || k.session !== null)) throw bad('fork');
  if (!isStr(k.answer_text)) throw bad('answer_text');
  if (!Array.isArray(k.cited_titles) || !k.cited_titles.every(isStr)) throw bad('cited_titles');
  const audits = isStr(k.provider) ? auditsOf(k.provider) : undefined;
  if (audits === undefined) throw bad('provider');
  if (!isStr(k.audit) || !audits.includes(k.audit)) throw bad('audit');
  // What ask decides, so not the file's to decide: fresh and grounded answers are cached, the others not.
  if (k.cacheable !== (k.audit === 'fresh' || k.audit === 'grounded')) throw bad('cacheable');
  if (!isStr(k.cache_key) || !/^[0-9a-f]{64}$/.test(k.cache_key)) throw bad('cache_key');
  return {
    v: 1,
    shard: k.shard,
    asked_at: k.asked_at,
    question: k.question.toWellFormed(),
    parent_bates: k.parent_bates as string | null,
    session: k.session as string | null,
    fork: k.fork,
    label: k.label as string | null,
    answer_text: k.answer_text,
    cited_titles: k.cited_titles as string[],
    audit: k.audit,
    cache_key: k.cache_key,
    cacheable: k.cacheable as boolean,
    provider: k.provider as string,
  };
}
