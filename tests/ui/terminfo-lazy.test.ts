import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBlessed, patchBlessed } from '../../src/ui/term/terminal.js';

const require = createRequire(import.meta.url);
const usr = join(dirname(require.resolve('neo-blessed/package.json')), 'usr');

interface Tput {
  strings: Record<string, string>;
  methods: Record<string, unknown>;
  [cap: string]: unknown;
}
type TputCtor = new (opts: Record<string, unknown>) => Tput;

/** Every string capability of an entry, called with a few parameter lists: what the terminal would be sent. */
function outputs(Tput: TputCtor, file: string): Record<string, string> {
  const t = new Tput({ terminal: file, terminfoFile: file });
  const out: Record<string, string> = {};
  for (const key of Object.keys(t.strings)) {
    const m = t.methods[key];
    if (typeof m !== 'function') continue;
    for (const params of [[], [1], [3, 7], [2, 5, 9, 4]]) {
      let v: string;
      try {
        v = String(m.call(t, params));
      } catch (e) {
        v = `throws ${(e as Error).message}`; // blessed's own slips (toUppercase) throw alike either way
      }
      out[`${key}(${params.join(',')})`] = v;
    }
  }
  return out;
}

describe('terminfo capabilities compiled on first use', () => {
  it('send exactly what blessed compiling them all at once sends, for the three entries we load', () => {
    const Tput = require('neo-blessed/lib/tput') as TputCtor;
    const entries = ['xterm-256color', 'xterm', 'linux'].map((e) => join(usr, e));
    // Before the patch: blessed's own eager compile (and none of the three entries fails to compile).
    const eager = entries.map((f) => outputs(Tput, f));
    patchBlessed(loadBlessed());
    const lazy = entries.map((f) => outputs(Tput, f));
    for (let i = 0; i < entries.length; i++) {
      expect(Object.keys(eager[i]).length).toBeGreaterThan(400);
      expect(lazy[i]).toEqual(eager[i]);
    }
    // The cursor move, which every repaint uses, with real coordinates.
    expect(Object.values(lazy[0])).toContain('\x1b[4;8H');
  });
});
