import { stripControls } from '../text/sanitize.js';

/**
 * What may reach the terminal from the CLI, without chalk: output.ts builds every command's printing on these, and
 * `arborist status` uses them alone (loading chalk cost ~15 ms of a status line that runs every few seconds).
 */

/** Colour only on a terminal, never with NO_COLOR (chalk 5 does not read it), TERM=dumb or --no-color. */
export function colourWanted(env: NodeJS.ProcessEnv, forceNoColor = false): boolean {
  const noColor = forceNoColor || (env.NO_COLOR !== undefined && env.NO_COLOR !== '') || env.TERM === 'dumb';
  return process.stdout.isTTY === true && !noColor;
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
