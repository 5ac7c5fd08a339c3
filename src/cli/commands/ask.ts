import { type AskResult, ask, MAX_KEPT_BYTES, providerFromOptions, storeKept } from '../../ask/index.js';
import type { ProviderSpec } from '../../ask/types.js';
import { RefusedFile, readRegular } from '../../import/files.js';
import { ArboristError, badInput } from '../../store/index.js';
import { StreamSanitizer } from '../../text/stream.js';
import { flag, GLOBAL_OPTIONS, list, type Parsed, positiveInt, str } from '../args.js';
import type { Command } from '../command.js';
import type { Context } from '../context.js';
import { oneLine, printJson, stripControls } from '../output.js';

/** The answer provider `--answer`, `--answer-cmd` and `--timeout S` name (ask and the REPL take the same options). */
export function providerFromArgs(p: Parsed, ctx: Context): ProviderSpec {
  const timeout = str(p, 'timeout') === undefined ? undefined : positiveInt(p, 'timeout', 120, 86400) * 1000;
  return providerFromOptions({
    answer: str(p, 'answer'),
    answerCmd: str(p, 'answer-cmd'),
    env: ctx.env,
    timeoutMs: timeout,
  });
}

export const askCmd: Command = {
  name: 'ask',
  usage:
    'arborist ask QUESTION [--session SID] [--parent BATES] [--fork] [--answer TEXT | --answer-cmd CMD] ' +
    '[--no-cache] [--cite TITLE]... [--label L] [--timeout SECONDS] | arborist ask --kept FILE',
  summary: 'ask a question: a new session, a follow-up, or a fork from any turn of any session',
  options: {
    answer: { type: 'string' },
    'answer-cmd': { type: 'string' },
    session: { type: 'string' },
    parent: { type: 'string' },
    fork: { type: 'boolean' },
    label: { type: 'string' },
    cite: { type: 'string', multiple: true },
    'no-cache': { type: 'boolean' },
    timeout: { type: 'string' },
    kept: { type: 'string' },
  },
  async run(p, ctx) {
    const keptFile = str(p, 'kept');
    if (keptFile !== undefined) return storeKeptAnswer(p, ctx, keptFile);
    if (p.positionals.length === 0) throw new ArboristError('usage', `usage: ${this.usage}`);
    const question = p.positionals.join(' ');
    const provider = providerFromArgs(p, ctx);
    const shard = ctx.writable();
    let parent = str(p, 'parent');
    const session = str(p, 'session');
    if (flag(p, 'fork') && parent === undefined)
      throw new ArboristError('usage', '--fork needs --parent BATES');
    // `--session S` alone continues the conversation: the new turn follows the session's latest turn.
    if (session !== undefined && parent === undefined)
      parent = shard.latestTurn(shard.resolveSession(session).sid);

    // The external command runs in its own process group (so a timeout can end all it started); Ctrl-C reaches
    // only us, so turn it into a cancel.
    const abort = new AbortController();
    const onSigint = () => abort.abort();
    process.once('SIGINT', onSigint);
    let streamed = '';
    // The answer is untrusted text arriving in pieces: a sequence split across two pieces must not slip through.
    const clean = new StreamSanitizer();
    try {
      const r = await ask(shard, {
        question,
        parent,
        session,
        fork: flag(p, 'fork'),
        label: str(p, 'label'),
        provider,
        noCache: flag(p, 'no-cache'),
        cited_titles: list(p, 'cite'),
        signal: abort.signal,
        onChunk: ctx.out.json
          ? undefined
          : (t) => {
              streamed += t;
              ctx.out.out(clean.write(t));
            },
      });
      if (ctx.out.json) printResult(ctx, r);
      else {
        if (streamed === '') ctx.out.out(stripControls(r.answer_text));
        else ctx.out.out(clean.end());
        if (!(streamed || r.answer_text).endsWith('\n')) ctx.out.out('\n');
        // The answer is stdout; where it was stored goes to stderr, so `arborist ask ... > answer.txt` stays clean.
        ctx.out.err(`${ctx.out.color.dim(`[${r.bates}] ${r.audit}`)}\n`);
      }
      return 0;
    } finally {
      process.removeListener('SIGINT', onSigint);
    }
  },
};

function printResult(ctx: Context, r: AskResult, extra: Record<string, unknown> = {}): void {
  printJson(ctx.out, {
    bates: r.bates,
    sid: r.sid,
    seq: r.seq,
    parent_bates: r.parent_bates,
    node_hash: r.node_hash,
    subtree_hash: r.subtree_hash,
    session_root: r.session_root,
    audit: r.audit,
    cache_key: r.cache_key,
    ...extra,
  });
}

/**
 * The kept file's text. Anyone who can write beside the shard can put anything there under that name: only a
 * regular file of at most MAX_KEPT_BYTES is read (a FIFO would block, /dev/zero never ends), through the readers
 * of untrusted files.
 */
function readKeptFile(file: string): string {
  try {
    return readRegular(file, MAX_KEPT_BYTES).buf.toString('utf8');
  } catch (err) {
    if (err instanceof RefusedFile) throw badInput(`${file} is not a kept answer: ${err.message}`);
    const code = (err as { code?: string }).code;
    if (code === 'ENOENT') throw new ArboristError('not_found', `no file ${file}`);
    if (code === 'EISDIR') throw badInput(`${file} is a folder, not a kept answer`);
    throw badInput(`${file} cannot be read (${code ?? (err as Error).message})`);
  }
}

/**
 * `ask --kept FILE`: the answer an ask could not store (docs/asking.md), stored now; it takes no other option, since
 * the file holds the question, where it goes and its answer. Prints as ask does.
 */
function storeKeptAnswer(p: Parsed, ctx: Context, file: string): number {
  const other = Object.keys(p.values).filter(
    (k) => k !== 'kept' && !(k in GLOBAL_OPTIONS) && p.values[k] !== undefined,
  );
  if (p.positionals.length > 0 || other.length > 0)
    throw new ArboristError(
      'usage',
      '--kept FILE takes no question and no other ask option: the file holds them',
    );
  const text = readKeptFile(file);
  const { result: r, removed, already_stored } = storeKept(ctx.writable(), file, text);
  if (ctx.out.json) printResult(ctx, r, { already_stored });
  else if (already_stored)
    // Not an error: the answer the file holds is in the shard, which is what the file was for (docs/asking.md).
    ctx.out.err(`arborist: ${oneLine(file)} is already stored as ${r.bates}: nothing stored\n`);
  else {
    ctx.out.out(stripControls(r.answer_text));
    if (!r.answer_text.endsWith('\n')) ctx.out.out('\n');
    ctx.out.err(`${ctx.out.color.dim(`[${r.bates}] ${r.audit}`)}\n`);
  }
  if (!removed)
    ctx.out.err(
      `arborist: ${already_stored ? 'already ' : ''}stored, but ${oneLine(file)} could not be removed: remove it yourself\n`,
    );
  return 0;
}
