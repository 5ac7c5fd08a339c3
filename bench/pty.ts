/** What the pty benchmarks share: the real binary, node-pty and a headless xterm.js to read the screen back. */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
export const pty = require('node-pty') as typeof import('node-pty');
export const { Terminal } = require('@xterm/headless') as typeof import('@xterm/headless');
export const { Unicode11Addon } =
  require('@xterm/addon-unicode11') as typeof import('@xterm/addon-unicode11');

/** The repository root (this file runs from dist/bench/). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The real binary, as a user runs it. */
export const BIN = `${ROOT}bin/arborist`;

/** A headless terminal of the given size with Unicode 11 widths, as the e2e tests use. */
export function openTerminal(cols: number, rows: number): import('@xterm/headless').Terminal {
  const term = new Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 });
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
  return term;
}

/** `arborist --db DB` in a pty with a clean environment; `env` adds to it (ARBORIST_HOME, trace files). */
export function spawnTui(db: string, cols: number, rows: number, env: Record<string, string>) {
  return pty.spawn(process.execPath, [BIN, '--db', db], {
    name: 'xterm-256color',
    cols,
    rows,
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      ...env,
    },
  });
}
