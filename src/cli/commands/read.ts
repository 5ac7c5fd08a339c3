import { ArboristError, agentOf, parseBates, projectOf, type SessionSource } from '../../store/index.js';
import { exactPositionals } from '../args.js';
import type { Command } from '../command.js';
import { oneLine, printJson, stripControls, table, truncate, truncateLeft } from '../output.js';
import { printNodeLines, short, turnJson, when } from './format.js';

/** The read-only views of the shard: sessions, one turn, a session's tree, a path, the branch points. */

export const listCmd: Command = {
  name: 'list',
  usage: 'arborist list',
  summary: 'list sessions',
  options: {},
  run(p, ctx) {
    exactPositionals(p, 0, this.usage);
    const shard = ctx.readable();
    const sessions = shard.listSessions();
    const origins = shard.sessionOrigins();
    if (ctx.out.json) {
      printJson(
        ctx.out,
        sessions.map((s) => ({
          sid: s.sid,
          label: s.label,
          created_at: s.created_at,
          n_nodes: s.n_nodes,
          session_root: s.session_root,
          ...originOf(origins.get(s.sid)),
        })),
      );
      return 0;
    }
    if (sessions.length === 0) {
      ctx.out.out('no sessions yet (try `arborist demo`, or `arborist ask "..." --answer "..."`)\n');
      return 0;
    }
    const rows = sessions.map((s) => ({ s, o: originOf(origins.get(s.sid)) }));
    // A HOST column only once sync has brought another host's sessions.
    const hosts = rows.some((r) => r.o.host !== null);
    ctx.out.out(
      `${table(
        rows.map(({ s, o }) => [
          s.sid,
          o.agent,
          ...(hosts ? [oneLine(o.host ?? 'here')] : []),
          truncateLeft(oneLine(o.project ?? ''), 28),
          truncate(oneLine(s.label ?? o.title ?? ''), 40),
          String(s.n_nodes),
          when(s.created_at),
          short(s.session_root),
        ]),
        ['SID', 'AGENT', ...(hosts ? ['HOST'] : []), 'PROJECT', 'LABEL', 'TURNS', 'CREATED', 'ROOT'],
      )}\n`,
    );
    return 0;
  },
};

/**
 * A session's agent (the source it was imported from, `arborist` for one asked here), its project (the working
 * directory the source recorded, else its own name for it: projectOf) and the source's own title for it.
 */
export function originOf(o: SessionSource | undefined): {
  agent: string;
  project: string | null;
  title: string | null;
  host: string | null;
} {
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  return {
    agent: agentOf(o) ?? 'arborist',
    project: projectOf(o?.info),
    title: text(o?.info.title),
    // Pulled by sync: the host it was made on (docs/sync.md).
    host: o?.source === 'sync' ? text(o.info.host) : null,
  };
}

export const showCmd: Command = {
  name: 'show',
  usage: 'arborist show BATES',
  summary: 'show one turn with every field',
  options: {},
  run(p, ctx) {
    const [id] = exactPositionals(p, 1, this.usage);
    const shard = ctx.readable();
    // A session (or label) is resolved only to say show wants a turn; anything else that is no Bates id is told
    // so, not "no session 'x'", which reads as if a session had been asked for.
    let r: ReturnType<typeof shard.resolve>;
    try {
      r = shard.resolve(id);
    } catch (err) {
      if (err instanceof ArboristError && err.kind === 'not_found' && !parseBates(id))
        throw new ArboristError('not_found', `'${id}' is not a Bates id (<sid>-<6 digits>)`);
      throw err;
    }
    if (r.kind !== 'node')
      throw new ArboristError('input', `'${id}' is a session; show takes a turn's Bates id`);
    const n = r.node;
    const origin = originOf(shard.sourceOfSession(n.sid));
    // The turn's own source says who answered it (a turn asked here under an imported one is arborist's).
    const agent = n.source ?? 'arborist';
    if (ctx.out.json) {
      printJson(ctx.out, { ...turnJson(n), agent, project: origin.project });
      return 0;
    }
    const c = ctx.out.color;
    // Every field is stored text (a shard from elsewhere may hold anything in any of them): one line each.
    const rows: [string, string][] = [
      ['bates', n.bates],
      ['session', n.sid],
      ['agent', agent],
      ['project', origin.project ?? '-'],
      ['parent', n.parent_bates ?? '(root)'],
      ['audit', n.audit],
      ['created', when(n.created_at)],
      ['children', String(n.n_children)],
      ['depth', String(n.depth)],
      ['cited', n.cited_titles.map(oneLine).join(' · ') || '-'],
      ['cache key', n.cache_key ?? '-'],
      ['node hash', n.node_hash],
      ['subtree', n.subtree_hash],
    ];
    if (n.source) rows.push(['source', `${oneLine(n.source)} ${oneLine(n.source_id ?? '')}`]);
    if (n.damaged)
      rows.push([
        'damaged',
        `${n.damaged.join(', ')} (stored values the store never writes; see arborist verify)`,
      ]);
    for (const [k, v] of rows) ctx.out.out(`${c.dim(k.padEnd(10))} ${oneLine(v)}\n`);
    ctx.out.out(
      `\n${c.bold('Q')} ${stripControls(n.question)}\n\n${c.bold('A')} ${stripControls(n.answer_text)}\n`,
    );
    return 0;
  },
};

export const treeCmd: Command = {
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
        nodes.map((n) => ({ ...turnJson(n), depth: n.local_depth, global_depth: n.depth })),
      );
      return 0;
    }
    printNodeLines(ctx, nodes, (n) => n.local_depth);
    return 0;
  },
};

export const pathCmd: Command = {
  name: 'path',
  usage: 'arborist path BATES',
  summary: 'the turns from the root down to BATES, across sessions',
  options: {},
  run(p, ctx) {
    const [id] = exactPositionals(p, 1, this.usage);
    const nodes = ctx.readable().pathTo(id);
    if (ctx.out.json) printJson(ctx.out, nodes.map(turnJson));
    else printNodeLines(ctx, nodes);
    return 0;
  },
};

export const branchesCmd: Command = {
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
