import { ArboristError } from '../store/index.js';
import { list, str } from './args.js';
import type { Command } from './commands.js';
import { printJson } from './output.js';

export const askCmd: Command = {
  name: 'ask',
  usage:
    'arborist ask QUESTION [--session SID] [--parent BATES] [--answer TEXT] [--cite TITLE]... [--label L]',
  summary: 'add a turn: a new session, a follow-up, or a fork from any turn of any session',
  options: {
    answer: { type: 'string' },
    session: { type: 'string' },
    parent: { type: 'string' },
    label: { type: 'string' },
    cite: { type: 'string', multiple: true },
  },
  run(p, ctx) {
    if (p.positionals.length === 0) throw new ArboristError('usage', `usage: ${this.usage}`);
    const question = p.positionals.join(' ');
    const answer = str(p, 'answer');
    if (answer === undefined) throw new ArboristError('usage', 'ask needs --answer TEXT');
    const r = ctx.writable().addTurn({
      question,
      answer_text: answer,
      cited_titles: list(p, 'cite'),
      session: str(p, 'session'),
      parent: str(p, 'parent'),
      label: str(p, 'label'),
      audit: 'manual',
    });
    const doc = {
      bates: r.bates,
      sid: r.sid,
      seq: r.seq,
      parent_bates: r.parent_bates,
      node_hash: r.node_hash,
      subtree_hash: r.subtree_hash,
      session_root: r.session_root,
    };
    if (ctx.out.json) printJson(ctx.out, doc);
    else ctx.out.out(`${r.bates}\n`);
    return 0;
  },
};
