import type { TurnNode } from '../../store/index.js';
import { shortTime } from '../../text/format.js';
import type { Context } from '../context.js';
import { oneLine, truncate } from '../output.js';

/** How several commands print the same things: times, hashes, turns, sessions, sizes. */

export const short = (h: string) => h.slice(0, 12);
/** A stored time for people: local, with its zone written out (the TUI shows the same string). */
export const when = (iso: string) => oneLine(shortTime(iso));

/** A turn as JSON: every field but the row id and the archive's is_top marker. */
export function turnJson(n: TurnNode) {
  const { id: _id, is_top: _top, ...rest } = n;
  return rest;
}

/** One line per turn (Bates id, audit, question), indented by `indent`, marked when it branches. */
export function printNodeLines<T extends TurnNode>(
  ctx: Context,
  nodes: T[],
  indent: (n: T) => number = () => 0,
): void {
  const c = ctx.out.color;
  const width = Math.max(40, (process.stdout.columns ?? 100) - 2);
  for (const n of nodes) {
    const pad = indentation(indent(n));
    const mark = n.n_children >= 2 ? c.yellow(` ⑂${n.n_children}`) : '';
    const bates = truncate(oneLine(n.bates), 40);
    const audit = truncate(oneLine(n.audit), 16);
    const head = `${pad}${c.cyan(bates)} ${c.dim(audit)} `;
    const room = Math.max(10, width - pad.length - bates.length - audit.length - 6);
    ctx.out.out(`${head}${truncate(oneLine(n.question), room)}${mark}\n`);
  }
}

/** Levels drawn as indentation; deeper turns say their depth instead, so a 100,000-deep chain stays readable. */
const MAX_INDENT = 24;

export function indentation(depth: number): string {
  if (depth <= MAX_INDENT) return '  '.repeat(depth);
  return `${'  '.repeat(MAX_INDENT)}+${depth - MAX_INDENT} `;
}

export function sessionLine(s: { sid: string; label: string | null; n_nodes: number }): string {
  const label = s.label ? `  ${truncate(oneLine(s.label), 30)}` : '';
  return `${s.sid}  ${s.n_nodes} turn${s.n_nodes === 1 ? '' : 's'}${label}`;
}
