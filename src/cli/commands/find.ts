import { ArboristError, FILTER_NAMES, findArchived } from '../../store/index.js';
import { unknownFilterNote } from '../../text/suggest.js';
import { exactPositionals, flag, type Parsed, positiveInt, str, usageError } from '../args.js';
import type { Command } from '../command.js';
import type { Context } from '../context.js';
import { oneLine, printJson, truncate } from '../output.js';
import { printNodeLines } from './format.js';

export const findCmd: Command = {
  name: 'find',
  usage:
    'arborist find QUERY [agent:NAME] [project:NAME] [after:DATE] [before:DATE] [in:question] [--limit N] [--scope SID] | find --cache-key KEY | find --archived QUERY',
  summary: 'search every turn of every session',
  options: {
    limit: { type: 'string' },
    scope: { type: 'string' },
    'cache-key': { type: 'string' },
    archived: { type: 'boolean' },
  },
  run(p, ctx) {
    if (flag(p, 'archived')) return runFindArchived(p, ctx);
    const shard = ctx.readable();
    const key = str(p, 'cache-key');
    if (key !== undefined) {
      exactPositionals(p, 0, this.usage);
      const nodes = shard.findByCacheKey(key);
      if (ctx.out.json)
        printJson(
          ctx.out,
          nodes.map((n) => ({ bates: n.bates, audit: n.audit, question: n.question })),
        );
      else if (nodes.length === 0) ctx.out.out(`no turn has cache key '${oneLine(key)}'\n`);
      else printNodeLines(ctx, nodes);
      return 0;
    }
    if (p.positionals.length === 0) throw new ArboristError('usage', `usage: ${this.usage}`);
    const query = p.positionals.join(' ');
    const limit = positiveInt(p, 'limit', 20, 1000);
    const scopeArg = str(p, 'scope');
    const scope = scopeArg === undefined ? undefined : shard.resolveSession(scopeArg).sid;
    // One more than shown, to tell the user there are more (20 shown of 218 read as all of them).
    const found = shard.search(query, { limit: limit + 1, scope, prefix: false });
    const { searched, corrections, problems, unknownFilters, refused } = found;
    const more = found.hits.length > limit;
    const hits = found.hits.slice(0, limit);
    // A filter that cannot be used stops the search (it would widen it silently); an unknown one is only noted.
    if (refused) throw new ArboristError('usage', problems.map(oneLine).join('; '));
    for (const p of problems) ctx.out.err(`arborist: ${oneLine(p)}\n`);
    for (const name of unknownFilters) ctx.out.err(`arborist: ${unknownFilterNote(name, FILTER_NAMES)}\n`);
    if (ctx.out.json) {
      printJson(
        ctx.out,
        hits.map((h) => ({
          bates: h.bates,
          audit: h.audit,
          question: h.question,
          snippet: h.snippet,
          agent: h.agent ?? 'arborist',
          project: h.project,
          created_at: h.created_at,
        })),
      );
      return 0;
    }
    const c = ctx.out.color;
    for (const [typo, alts] of Object.entries(corrections))
      ctx.out.err(`${c.dim(`(no '${oneLine(typo)}'; also searched ${alts.map(oneLine).join(', ')})`)}\n`);
    // No number under a date filter: the shard keeps no count of a day's turns (SearchResult.searched).
    if (hits.length === 0)
      ctx.out.out(
        searched === null
          ? 'no turns match (searched the turns in the dates asked)\n'
          : `no turns match (searched ${searched.toLocaleString('en-US')} ${searched === 1 ? 'turn' : 'turns'})\n`,
      );
    const width = Math.max(40, (process.stdout.columns ?? 100) - 2);
    for (const h of hits) {
      ctx.out.out(
        `[${c.cyan(h.bates)}] ${c.dim(h.audit)} ${truncate(oneLine(h.question), width - h.bates.length - h.audit.length - 4)}\n`,
      );
      const where = [h.agent ?? 'arborist', h.project ?? '', h.created_at.slice(0, 10)].filter(
        (x) => x !== '',
      );
      ctx.out.out(`    ${c.dim(truncate(oneLine(`${where.join(' · ')} · ${h.snippet}`), width - 4))}\n`);
    }
    // On stderr: the lines on stdout stay one hit each for a script.
    if (more)
      ctx.out.err(
        `arborist: the first ${limit} matches are shown; there are more (${limit < 1000 ? 'raise --limit, or narrow the query' : 'narrow the query'})\n`,
      );
    return 0;
  },
};

/** `arborist find --archived QUERY [--limit N]`: a scan of the archive bodies (see findArchived). */
function runFindArchived(p: Parsed, ctx: Context): number {
  if (str(p, 'scope') !== undefined || str(p, 'cache-key') !== undefined) {
    throw new ArboristError('usage', '--archived does not combine with --scope or --cache-key');
  }
  if (p.positionals.length === 0) throw usageError('arborist find --archived QUERY [--limit N]');
  const damagedSids: string[] = [];
  const hits = findArchived(ctx.readable(), p.positionals.join(' '), {
    limit: positiveInt(p, 'limit', 20, 1000),
    onDamaged: (sid) => damagedSids.push(sid),
  });
  // One damaged archive does not hide the others: say which were not searched, on one line.
  if (damagedSids.length > 0)
    ctx.out.err(
      `arborist: damaged archive${damagedSids.length === 1 ? '' : 's'} not searched: ${damagedSids.join(' ')} (see arborist verify)\n`,
    );
  if (ctx.out.json) {
    printJson(
      ctx.out,
      hits.map((h) => ({
        bates: h.bates,
        sid: h.sid,
        audit: h.audit,
        question: h.question,
        snippet: h.snippet,
        archived_at: h.archived_at,
        reason: h.reason,
      })),
    );
    return 0;
  }
  const c = ctx.out.color;
  if (hits.length === 0) ctx.out.out('no archived turns match\n');
  const width = Math.max(40, (process.stdout.columns ?? 100) - 2);
  for (const h of hits) {
    ctx.out.out(
      `[${c.cyan(h.bates)}] ${c.yellow('archived')} ${truncate(oneLine(h.question), width - h.bates.length - 13)}\n`,
    );
    ctx.out.out(`    ${c.dim(truncate(oneLine(h.snippet), width - 4))}\n`);
  }
  return 0;
}
