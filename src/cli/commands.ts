import { ArboristError, type TurnNode } from '../store/index.js';
import { exactPositionals, flag, positiveInt, str } from './args.js';
import type { Command } from './command.js';
import type { Context } from './context.js';
import { runFindArchived } from './maintain.js';
import { oneLine, printJson, stripControls, table, truncate } from './output.js';

// tui.ts (not ours to edit now) still imports the type from here.
export type { Command } from './command.js';

const short = (h: string) => h.slice(0, 12);
const when = (iso: string) => iso.replace('T', ' ').slice(0, 16);

function nodeJson(n: TurnNode) {
  const { id: _id, is_top: _top, ...rest } = n;
  return rest;
}

function printNodeLines<T extends TurnNode>(
  ctx: Context,
  nodes: T[],
  indent: (n: T) => number = () => 0,
): void {
  const c = ctx.out.color;
  const width = Math.max(40, (process.stdout.columns ?? 100) - 2);
  for (const n of nodes) {
    const pad = '  '.repeat(indent(n));
    const mark = n.n_children >= 2 ? c.yellow(` ⑂${n.n_children}`) : '';
    const head = `${pad}${c.cyan(n.bates)} ${c.dim(n.audit)} `;
    const room = Math.max(10, width - pad.length - n.bates.length - n.audit.length - 6);
    ctx.out.out(`${head}${truncate(oneLine(n.question), room)}${mark}\n`);
  }
}

const newCmd: Command = {
  name: 'new',
  usage: 'arborist new [--label L]',
  summary: 'create an empty session',
  options: { label: { type: 'string' } },
  run(p, ctx) {
    exactPositionals(p, 0, this.usage);
    const s = ctx.writable().createSession({ label: str(p, 'label') });
    if (ctx.out.json) printJson(ctx.out, { sid: s.sid, label: s.label });
    else ctx.out.out(`${s.sid}${s.label ? `  ${oneLine(s.label)}` : ''}\n`);
    return 0;
  },
};

const listCmd: Command = {
  name: 'list',
  usage: 'arborist list',
  summary: 'list sessions',
  options: {},
  run(p, ctx) {
    exactPositionals(p, 0, this.usage);
    const sessions = ctx.readable().listSessions();
    if (ctx.out.json) {
      printJson(
        ctx.out,
        sessions.map((s) => ({
          sid: s.sid,
          label: s.label,
          created_at: s.created_at,
          n_nodes: s.n_nodes,
          session_root: s.session_root,
        })),
      );
      return 0;
    }
    if (sessions.length === 0) {
      ctx.out.out('no sessions yet (try `arborist demo`, or `arborist ask "..." --answer "..."`)\n');
      return 0;
    }
    ctx.out.out(
      `${table(
        sessions.map((s) => [
          s.sid,
          truncate(oneLine(s.label ?? ''), 40),
          String(s.n_nodes),
          when(s.created_at),
          short(s.session_root),
        ]),
        ['SID', 'LABEL', 'TURNS', 'CREATED', 'ROOT'],
      )}\n`,
    );
    return 0;
  },
};

const showCmd: Command = {
  name: 'show',
  usage: 'arborist show BATES',
  summary: 'show one turn with every field',
  options: {},
  run(p, ctx) {
    const [id] = exactPositionals(p, 1, this.usage);
    const shard = ctx.readable();
    const r = shard.resolve(id);
    if (r.kind !== 'node')
      throw new ArboristError('input', `'${id}' is a session; show takes a turn's Bates id`);
    const n = r.node;
    if (ctx.out.json) {
      printJson(ctx.out, nodeJson(n));
      return 0;
    }
    const c = ctx.out.color;
    const rows: [string, string][] = [
      ['bates', n.bates],
      ['session', n.sid],
      ['parent', n.parent_bates ?? '(root)'],
      ['audit', n.audit],
      ['created', n.created_at],
      ['children', String(n.n_children)],
      ['depth', String(n.depth)],
      ['cited', n.cited_titles.map(oneLine).join(' · ') || '-'],
      ['cache key', n.cache_key ?? '-'],
      ['node hash', n.node_hash],
      ['subtree', n.subtree_hash],
    ];
    if (n.source) rows.push(['source', `${oneLine(n.source)} ${oneLine(n.source_id ?? '')}`]);
    for (const [k, v] of rows) ctx.out.out(`${c.dim(k.padEnd(10))} ${v}\n`);
    ctx.out.out(
      `\n${c.bold('Q')} ${stripControls(n.question)}\n\n${c.bold('A')} ${stripControls(n.answer_text)}\n`,
    );
    return 0;
  },
};

const treeCmd: Command = {
  name: 'tree',
  usage: 'arborist tree SID',
  summary: "a session's turns as a tree, each with its depth",
  options: {},
  run(p, ctx) {
    const [sid] = exactPositionals(p, 1, this.usage);
    const nodes = ctx.readable().sessionTree(sid);
    if (ctx.out.json) {
      printJson(
        ctx.out,
        nodes.map((n) => ({ ...nodeJson(n), depth: n.local_depth, global_depth: n.depth })),
      );
      return 0;
    }
    printNodeLines(ctx, nodes, (n) => n.local_depth);
    return 0;
  },
};

const pathCmd: Command = {
  name: 'path',
  usage: 'arborist path BATES',
  summary: 'the turns from the root down to BATES, across sessions',
  options: {},
  run(p, ctx) {
    const [id] = exactPositionals(p, 1, this.usage);
    const nodes = ctx.readable().pathTo(id);
    if (ctx.out.json) printJson(ctx.out, nodes.map(nodeJson));
    else printNodeLines(ctx, nodes);
    return 0;
  },
};

const branchesCmd: Command = {
  name: 'branches',
  usage: 'arborist branches [SID]',
  summary: 'turns with two or more children',
  options: {},
  run(p, ctx) {
    if (p.positionals.length > 1) throw new ArboristError('usage', `usage: ${this.usage}`);
    const rows = ctx.readable().branchPoints(p.positionals[0]);
    if (ctx.out.json) printJson(ctx.out, rows);
    else if (rows.length === 0) ctx.out.out('no branch points\n');
    else
      ctx.out.out(
        `${table(
          rows.map((r) => [r.bates, String(r.n_children)]),
          ['BATES', 'CHILDREN'],
        )}\n`,
      );
    return 0;
  },
};

const findCmd: Command = {
  name: 'find',
  usage: 'arborist find QUERY [--limit N] [--scope SID] | find --cache-key KEY | find --archived QUERY',
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
      else printNodeLines(ctx, nodes);
      return 0;
    }
    if (p.positionals.length === 0) throw new ArboristError('usage', `usage: ${this.usage}`);
    const query = p.positionals.join(' ');
    const limit = positiveInt(p, 'limit', 20, 1000);
    const scopeArg = str(p, 'scope');
    const scope = scopeArg === undefined ? undefined : shard.resolveSession(scopeArg).sid;
    const { hits, searched, corrections } = shard.search(query, { limit, scope, prefix: false });
    if (ctx.out.json) {
      printJson(
        ctx.out,
        hits.map((h) => ({ bates: h.bates, audit: h.audit, question: h.question, snippet: h.snippet })),
      );
      return 0;
    }
    const c = ctx.out.color;
    for (const [typo, alts] of Object.entries(corrections)) {
      ctx.out.err(`${c.dim(`(no '${oneLine(typo)}'; also searched ${alts.map(oneLine).join(', ')})`)}\n`);
    }
    if (hits.length === 0) ctx.out.out(`no turns match (searched ${searched})\n`);
    const width = Math.max(40, (process.stdout.columns ?? 100) - 2);
    for (const h of hits) {
      ctx.out.out(
        `[${c.cyan(h.bates)}] ${c.dim(h.audit)} ${truncate(oneLine(h.question), width - h.bates.length - h.audit.length - 4)}\n`,
      );
      ctx.out.out(`    ${c.dim(truncate(oneLine(h.snippet), width - 4))}\n`);
    }
    return 0;
  },
};

const chainCheckCmd: Command = {
  name: 'chain-check',
  usage: 'arborist chain-check [--expect-head SEQ:HASH]',
  summary: 'check the whole audit chain (exit 1 when broken)',
  options: { 'expect-head': { type: 'string' } },
  run(p, ctx) {
    exactPositionals(p, 0, this.usage);
    const expect = str(p, 'expect-head');
    if (expect !== undefined && !/^\d+:[0-9a-f]{64}$/.test(expect)) {
      throw new ArboristError('usage', '--expect-head takes SEQ:HASH (a number, a colon, 64 hex digits)');
    }
    const r = ctx.readable().chainCheck();
    const headMatches = expect === undefined || r.head === expect;
    const ok = r.ok && headMatches;
    if (ctx.out.json) {
      printJson(ctx.out, {
        ok,
        events: r.events,
        head: r.head,
        first_broken_seq: r.first_broken_seq,
        ...(r.reason ? { reason: r.reason } : {}),
        ...(expect !== undefined ? { expected_head: expect, head_matches: headMatches } : {}),
      });
    } else {
      const c = ctx.out.color;
      if (!r.ok) ctx.out.out(`${c.red.bold('chain BROKEN')} at event ${r.first_broken_seq}: ${r.reason}\n`);
      else ctx.out.out(`${c.green('chain intact')}: ${r.events} events, head ${r.head}\n`);
      if (!headMatches) ctx.out.out(`${c.red.bold('head differs')}: expected ${expect}, found ${r.head}\n`);
    }
    return ok ? 0 : 1;
  },
};

const verifyCmd: Command = {
  name: 'verify',
  usage: 'arborist verify',
  summary: 'recompute every hash from content (exit 1 on any mismatch)',
  options: {},
  run(p, ctx) {
    exactPositionals(p, 0, this.usage);
    const r = ctx.readable().verify();
    if (ctx.out.json) printJson(ctx.out, r);
    else {
      const c = ctx.out.color;
      if (r.ok) ctx.out.out(`${c.green('verified')}: ${r.nodes} turns, every hash matches\n`);
      else {
        ctx.out.out(
          `${c.red.bold('MISMATCH')}: ${r.mismatches.length} of ${r.nodes} turns differ from their content\n`,
        );
        if (r.edited.length) ctx.out.out(`edited: ${r.edited.join(' ')}\n`);
        ctx.out.out(`mismatches: ${r.mismatches.join(' ')}\n`);
        if (r.sessions.length) ctx.out.out(`session roots: ${r.sessions.join(' ')}\n`);
        if (r.archives?.length) ctx.out.out(`damaged archives: ${r.archives.join(' ')}\n`);
      }
    }
    return r.ok ? 0 : 1;
  },
};

export const COMMANDS: Command[] = [
  newCmd,
  listCmd,
  showCmd,
  treeCmd,
  pathCmd,
  branchesCmd,
  findCmd,
  chainCheckCmd,
  verifyCmd,
];
