import { Chalk, type ChalkInstance } from 'chalk';
import { oneLine, stripControls } from '../text/sanitize.js';
import { displayWidth, truncate } from '../text/width.js';

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
  const tty = process.stdout.isTTY === true;
  const noColor = forceNoColor || (env.NO_COLOR !== undefined && env.NO_COLOR !== '') || env.TERM === 'dumb';
  const level = !tty || noColor ? 0 : 1;
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

const SGR = /(\x1b\[[0-9;]*m)/;

/** Text with every escape and control sequence removed but newline, tab and (when colour is on) SGR colour codes. */
export function terminalSafe(s: string, keepColour: boolean): string {
  if (!keepColour) return stripControls(s);
  const parts = s.split(SGR);
  for (let i = 0; i < parts.length; i += 2) parts[i] = stripControls(parts[i]);
  return parts.join('');
}

/**
 * JSON.stringify escapes C0 controls but not DEL, C1 or bidi controls; escape those too so that even `--json`
 * piped to a terminal cannot carry a live escape sequence. The document parses to the same value.
 */
export function safeJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
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

export { displayWidth, oneLine, stripControls, truncate };
