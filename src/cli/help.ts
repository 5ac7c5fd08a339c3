/**
 * The layout of `--help`: every line at most HELP_WIDTH columns, because help is read in 80-column panes over ssh.
 * The texts are written as one line per entry; a longer one is wrapped here at spaces, its further lines hung under
 * the column its text starts in, so a table's rows and a usage's alternatives still read as one entry each.
 */

import { displayWidth, wrap, wrapRanges } from '../text/width.js';
import type { Command } from './command.js';

export const HELP_WIDTH = 80;

/** A table's text column starts at most this far in; a wider gap is inside the text, not a column. */
const MAX_COLUMN = 40;

/** `arborist COMMAND --help` (and `arborist help COMMAND`). */
export function commandHelp(cmd: Command): string {
  return wrapHelp(`usage: ${cmd.usage}\n${cmd.summary}\n${cmd.details ? `\n${cmd.details()}` : ''}`);
}

/** Each line of `text` wider than `width` broken at spaces, its further lines indented to its text's column. */
export function wrapHelp(text: string, width = HELP_WIDTH): string {
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, width))
    .join('\n');
}

function wrapLine(line: string, width: number): string[] {
  if (displayWidth(line) <= width) return [line];
  if (line.startsWith(USAGE)) return packUsage(line, width);
  const hang = hangOf(line);
  const ranges = wrapRanges(line, width);
  if (ranges.length < 2) return [line];
  const first = line.slice(0, ranges[0][1]);
  const rest = wrap(line.slice(ranges[1][0]), width - hang);
  return [first, ...rest.map((l) => `${' '.repeat(hang)}${l}`)];
}

/**
 * A usage line broken only between its options, never inside a `[...]` (`[--max-watches N]` stays whole); each
 * alternative (`| keep --status`) kept on one line when it fits one, and a line starts with the `|` of the
 * alternative it offers. Further lines start two in from its `arborist`; a part wider than a line is wrapped at its
 * own spaces.
 */
function packUsage(line: string, width: number): string[] {
  const alternatives: string[][] = [[]];
  let depth = 0;
  let part = '';
  const endPart = () => {
    if (part === '|') alternatives.push(['|']);
    else if (part !== '') alternatives[alternatives.length - 1].push(part);
    part = '';
  };
  for (const ch of line) {
    if (ch === '[') depth++;
    else if (ch === ']') depth = Math.max(0, depth - 1);
    if (ch === ' ' && depth === 0) endPart();
    else part += ch;
  }
  endPart();
  const indent = ' '.repeat(USAGE_HANG);
  const out: string[] = [];
  let current = '';
  const add = (text: string) => {
    if (current === '' || current === indent) current += text;
    else if (displayWidth(`${current} ${text}`) <= width) current = `${current} ${text}`;
    else {
      out.push(current);
      current = `${indent}${text}`;
    }
  };
  for (const alt of alternatives) {
    const whole = alt.join(' ');
    // An alternative that does not fit after what the line holds starts a line of its own.
    if (current !== '' && current !== indent && displayWidth(`${current} ${whole}`) > width) {
      out.push(current);
      current = indent;
    }
    if (current === indent && USAGE_HANG + displayWidth(whole) <= width) current += whole;
    else for (const p of alt[0] === '|' ? [`| ${alt[1]}`, ...alt.slice(2)] : alt) add(p);
  }
  out.push(current);
  return out.flatMap((l, i) =>
    displayWidth(l) <= width
      ? [l]
      : wrap(l.trimStart(), width - (i === 0 ? 0 : USAGE_HANG)).map((w, k) =>
          i === 0 && k === 0 ? w : `${indent}${w}`,
        ),
  );
}

/** A usage line's further lines start two in from its `arborist`: the longest part of one (import's sources) fits. */
const USAGE = 'usage: ';
const USAGE_HANG = USAGE.length + 2;

/**
 * Where a wrapped line's further lines start: under
 * a table's last column (two or more spaces before it, within MAX_COLUMN), else under the line's own indent.
 */
function hangOf(line: string): number {
  let column = -1;
  for (const gap of line.matchAll(/(?<=\S) {2,}(?=\S)/g)) {
    const end = (gap.index ?? 0) + gap[0].length;
    if (end <= MAX_COLUMN) column = end;
  }
  if (column >= 0) return column;
  return /^ */.exec(line)![0].length;
}
