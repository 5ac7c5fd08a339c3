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
