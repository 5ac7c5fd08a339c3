import { Chalk, type ChalkInstance } from 'chalk';
import { oneLine, stripControls } from '../text/sanitize.js';
import { displayWidth, truncate, truncateLeft } from '../text/width.js';
import { colourWanted, safeJson, terminalSafe } from './terminal-text.js';

/**
 * Everything the CLI prints goes through here: JSON for scripts, aligned text for people, colour only on a
 * terminal and never with NO_COLOR (chalk 5 does not read NO_COLOR itself).
 */
export interface Output {
  json: boolean;
  color: ChalkInstance;
  out: (s: string) => void;
  err: (s: string) => void;
}

export function makeOutput(
  json: boolean,
  env: NodeJS.ProcessEnv = process.env,
  forceNoColor = false,
): Output {
  const level = colourWanted(env, forceNoColor) ? 1 : 0;
  // The last line of defence: whatever a command prints, only our own colour codes pass; every other escape or
  // control sequence (from stored text a formatter forgot to clean) is stripped. JSON output is escaped instead.
  const safe = (s: string) => (json ? s : terminalSafe(s, level > 0));
  return {
    json,
    color: new Chalk({ level }),
    out: (s) => process.stdout.write(safe(s)),
    err: (s) => process.stderr.write(terminalSafe(s, level > 0)),
  };
}

export function printJson(o: Output, value: unknown): void {
  o.out(`${safeJson(value)}\n`);
}

export function pad(s: string, width: number): string {
  return s + ' '.repeat(Math.max(0, width - displayWidth(s)));
}

/** Aligned columns; cells are sanitised one-line text. */
export function table(rows: string[][], header?: string[]): string {
  // Cells are often stored text (ids, reasons, times from a shard made elsewhere): one line each, controls gone.
  const all = (header ? [header, ...rows] : rows).map((r) => r.map((c) => oneLine(c)));
  const widths: number[] = [];
  for (const r of all) {
    r.forEach((c, i) => {
      widths[i] = Math.max(widths[i] ?? 0, displayWidth(c));
    });
  }
  return all
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : pad(c, widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export { displayWidth, oneLine, safeJson, stripControls, terminalSafe, truncate, truncateLeft };
