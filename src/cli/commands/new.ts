import { exactPositionals, str } from '../args.js';
import type { Command } from '../command.js';
import { oneLine, printJson } from '../output.js';

export const newCmd: Command = {
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
